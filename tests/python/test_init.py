"""ember.nn.init's trunc_normal_, orthogonal_, sparse_, dirac_, eye_ and torch's deprecated
init names (torch's top-level aliases of nn.functional are in test_functional_aliases.py)."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
import ember.nn.init as init
from helpers import to_numpy

DTYPES = [ember.float32, ember.float64]


@pytest.fixture(autouse=True)
def _seeded():
    ember.manual_seed(0)
    torch.manual_seed(0)


# ----------------------------------------------------------------------------------------------
# names

def test_init_has_every_torch_name():
    missing = [n for n in torch.nn.init.__all__ if not hasattr(init, n)]
    assert missing == []
    assert set(init.__all__) >= set(torch.nn.init.__all__)


# ----------------------------------------------------------------------------------------------
# trunc_normal_

def _truncnorm_moments(mean, std, a, b):
    """Mean and std of N(mean, std^2) truncated to [a, b] (closed form)."""
    def phi(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def cdf(x):
        return (1 + math.erf(x / math.sqrt(2))) / 2
    al, be = (a - mean) / std, (b - mean) / std
    z = cdf(be) - cdf(al)
    m = mean + std * (phi(al) - phi(be)) / z
    var = std**2 * (1 + (al * phi(al) - be * phi(be)) / z - ((phi(al) - phi(be)) / z) ** 2)
    return m, math.sqrt(var)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", [(), (0.0, 1.0, -2.0, 2.0), (1.0, 2.0, -1.0, 2.0),
                                  (0.0, 0.02, -0.04, 0.04), (-3.0, 0.5, -3.5, -1.0)])
def test_trunc_normal_distribution(dtype, args):
    mean, std, a, b = args if args else (0.0, 1.0, -2.0, 2.0)
    w = ember.empty(400, 500, dtype=dtype)
    assert init.trunc_normal_(w, *args) is w
    x = to_numpy(w).astype(np.float64)
    assert x.min() >= a and x.max() <= b
    m, s = _truncnorm_moments(mean, std, a, b)
    assert abs(x.mean() - m) < 0.01 * std
    assert abs(x.std() - s) < 0.01 * std
    # the sample's quantiles are the truncated normal's: mean + std * Phi^-1(cdf(a) + q * Z)
    qs = np.linspace(0.05, 0.95, 19)  # away from the tails, where sample quantiles are noisy
    lo, hi = [(1 + math.erf((v - mean) / std / math.sqrt(2))) / 2 for v in (a, b)]
    exact = mean + std * torch.special.ndtri(torch.tensor(lo + qs * (hi - lo))).numpy()
    np.testing.assert_allclose(np.quantile(x, qs), exact, atol=0.02 * std)


def test_trunc_normal_keywords_generator_and_parameter():
    p = ember.nn.Parameter(ember.empty(30, 40))
    g1 = ember.Generator().manual_seed(3)
    g2 = ember.Generator().manual_seed(3)
    out = init.trunc_normal_(p, mean=0.5, std=0.1, a=0.4, b=0.7, generator=g1)
    assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None
    q = init.trunc_normal_(ember.empty(30, 40), mean=0.5, std=0.1, a=0.4, b=0.7, generator=g2)
    np.testing.assert_array_equal(to_numpy(p), to_numpy(q))
    assert to_numpy(p).min() >= 0.4 and to_numpy(p).max() <= 0.7
    # empty tensors are fine
    assert init.trunc_normal_(ember.empty(0, 3)).shape == (0, 3)


def test_trunc_normal_warns_when_mean_far_from_interval():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        w = init.trunc_normal_(ember.empty(1000), mean=10.0, std=1.0, a=-1.0, b=1.0)
    x = to_numpy(w)
    assert x.min() >= -1 and x.max() <= 1 and np.isfinite(x).all()


# ----------------------------------------------------------------------------------------------
# orthogonal_

@pytest.mark.parametrize("shape", [(20, 20), (30, 10), (10, 30), (8, 3, 2, 2), (1, 5), (5, 1)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_orthogonal_is_semi_orthogonal(shape, dtype):
    gain = 1.7
    w = ember.empty(*shape, dtype=dtype)
    assert init.orthogonal_(w, gain) is w
    m = to_numpy(w).astype(np.float64).reshape(shape[0], -1)
    rows, cols = m.shape
    gram = m @ m.T if rows < cols else m.T @ m
    tol = 1e-5 if dtype == ember.float32 else 1e-12
    np.testing.assert_allclose(gram, gain**2 * np.eye(min(rows, cols)), atol=tol)


def test_orthogonal_distribution_and_generator():
    # entries of a Haar-random orthogonal n x n matrix have mean 0 and variance 1/n
    n, k = 16, 40
    samples = np.stack([to_numpy(init.orthogonal_(ember.empty(n, n, dtype=ember.float64)))
                        for _ in range(k)])
    assert abs(samples.mean()) < 0.02
    assert abs(samples.var() - 1.0 / n) < 0.1 / n
    # the diagonal is not biased positive (what the sign fix from R's diagonal is for)
    assert abs(np.diagonal(samples, axis1=1, axis2=2).mean()) < 0.05
    a = init.orthogonal_(ember.empty(6, 9), generator=ember.Generator().manual_seed(5))
    b = init.orthogonal_(ember.empty(6, 9), generator=ember.Generator().manual_seed(5))
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))


def test_orthogonal_qr_helper_matches_torch():
    rng = np.random.default_rng(0)
    for m, n in [(7, 7), (12, 5), (3, 1)]:
        a = rng.standard_normal((m, n))
        q, r = init._qr(ember.from_numpy(a.copy()))
        tq, tr = torch.linalg.qr(torch.from_numpy(a))
        sign = torch.diagonal(tr).sign()
        np.testing.assert_allclose(to_numpy(q), (tq * sign).numpy(), atol=1e-10)
        np.testing.assert_allclose(to_numpy(r), (tr * sign.unsqueeze(1)).numpy(), atol=1e-10)
        assert (np.diagonal(to_numpy(r)) > 0).all()


def test_orthogonal_parameter_empty_and_errors():
    p = ember.nn.Parameter(ember.empty(4, 6))
    init.orthogonal_(p)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    e = ember.empty(0, 3)
    assert init.orthogonal_(e) is e
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(ember.empty(5))


# ----------------------------------------------------------------------------------------------
# sparse_

@pytest.mark.parametrize("rows,cols,sparsity", [(10, 300, 0.3), (7, 50, 0.1), (20, 40, 0.0),
                                                (5, 8, 1.0), (6, 10, 0.5)])
def test_sparse_zero_counts_and_std(rows, cols, sparsity):
    w = ember.empty(rows, cols)
    assert init.sparse_(w, sparsity) is w
    x = to_numpy(w)
    num_zeros = math.ceil(sparsity * rows)
    np.testing.assert_array_equal((x == 0).sum(0), np.full(cols, num_zeros))
    if num_zeros < rows:
        nz = x[x != 0]
        assert abs(nz.std() / 0.01 - 1) < 5 / math.sqrt(2 * nz.size)  # 5 sigma of a sample std


def test_sparse_std_positions_random_and_generator():
    w = init.sparse_(ember.empty(100, 400), sparsity=0.2, std=2.0)
    x = to_numpy(w)
    assert abs(x[x != 0].std() - 2.0) < 0.05
    # every row gets zeros somewhere: the zero rows differ between columns
    assert ((x == 0).sum(1) > 0).all()
    a = init.sparse_(ember.empty(9, 12), 0.4, generator=ember.Generator().manual_seed(1))
    b = init.sparse_(ember.empty(9, 12), 0.4, generator=ember.Generator().manual_seed(1))
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    np.testing.assert_array_equal((to_numpy(a) == 0).sum(0), np.full(12, 4))


def test_sparse_errors_and_parameter():
    for shape in [(5,), (2, 3, 4)]:
        with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
            init.sparse_(ember.empty(*shape), 0.1)
    p = ember.nn.Parameter(ember.empty(4, 6))
    init.sparse_(p, 0.5)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


# ----------------------------------------------------------------------------------------------
# dirac_, eye_

@pytest.mark.parametrize("shape,groups", [((3, 16, 5), 1), ((6, 4, 3, 3), 2), ((3, 24, 5, 5), 3),
                                          ((4, 2, 3, 3, 3), 1), ((5, 3, 2, 2), 1),
                                          ((8, 3, 4, 4, 2), 4), ((4, 0, 3), 2)])
def test_dirac_matches_torch(shape, groups):
    w = ember.full(shape, 5.0)
    assert init.dirac_(w, groups) is w
    t = torch.nn.init.dirac_(torch.full(shape, 5.0), groups)
    np.testing.assert_array_equal(to_numpy(w), t.numpy())


def test_dirac_preserves_conv_input():
    x = ember.randn(2, 4, 7, 7)
    w = init.dirac_(ember.empty(4, 4, 3, 3))
    np.testing.assert_allclose(to_numpy(F.conv2d(x, w, padding=1)), to_numpy(x), atol=1e-6)


def test_dirac_errors():
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(ember.empty(3, 3))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(ember.empty(5, 3, 3), groups=2)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_eye_matches_torch(shape):
    p = ember.nn.Parameter(ember.empty(*shape))
    assert init.eye_(p) is p and p.is_leaf and p.requires_grad
    np.testing.assert_array_equal(to_numpy(p), torch.nn.init.eye_(torch.empty(*shape)).numpy())
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(ember.empty(2, 2, 2))


# ----------------------------------------------------------------------------------------------
# deprecated names

@pytest.mark.parametrize("name,args", [("uniform", ()), ("normal", ()), ("constant", (0.3,)),
                                       ("eye", ()), ("xavier_uniform", ()), ("xavier_normal", ()),
                                       ("kaiming_uniform", ()), ("kaiming_normal", ()),
                                       ("orthogonal", ()), ("sparse", (0.5,))])
def test_deprecated_names_warn_and_work(name, args):
    w = ember.empty(4, 6)
    with pytest.warns(FutureWarning, match=rf"`nn.init.{name}` is now deprecated in favor of "
                                           rf"`nn.init.{name}_`"):
        assert getattr(init, name)(w, *args) is w
    assert getattr(init, name).__name__ == name


def test_deprecated_dirac():
    with pytest.warns(FutureWarning, match="nn.init.dirac_"):
        w = init.dirac(ember.empty(2, 2, 3))
    assert to_numpy(w).sum() == 2
