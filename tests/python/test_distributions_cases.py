"""ember.distributions against torch.distributions: the univariate and simple families, one
table of cases driving every check (shapes, log_prob, cdf/icdf, entropy, moments, expand,
gradients of log_prob/entropy, rsample gradients, sample statistics, support).

The table and the helpers here are imported by the other test_distributions_*.py files."""
import math

import numpy as np
import pytest
import torch
import torch.distributions as TD

import ember
import ember.distributions as ED

RNG_SEED = 1234


def e(a, requires_grad=False):
    t = ember.from_numpy(np.array(a, copy=True))
    return t.requires_grad_() if requires_grad else t


def tt(a, requires_grad=False):
    t = torch.from_numpy(np.array(a, copy=True))
    return t.requires_grad_() if requires_grad else t


def npy(x):
    if isinstance(x, ember.Tensor):
        return np.array(x.detach().numpy(), copy=True)
    if isinstance(x, torch.Tensor):
        return x.detach().numpy().copy()
    return np.asarray(x)


def close(a, b, rtol=1e-6, atol=1e-8):
    a, b = npy(a), npy(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    if np.float32 in (a.dtype, b.dtype):  # single precision: rounding differs between libraries
        rtol, atol = max(rtol, 2e-5), max(atol, 1e-6)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


# parameter and value generators: rng, shape -> float64 array
def REAL(rng, shape):
    return rng.normal(0.0, 1.5, size=shape)


def POS(rng, shape):
    return rng.uniform(0.3, 2.5, size=shape)


def UNIT(rng, shape):
    return rng.uniform(0.1, 0.9, size=shape)


def COUNT(rng, shape):
    return rng.integers(0, 6, size=shape).astype(np.float64)


def BINARY(rng, shape):
    return rng.integers(0, 2, size=shape).astype(np.float64)


def ABOVE(lo):
    return lambda rng, shape: rng.uniform(lo + 0.05, lo + 4.0, size=shape)


def SIMPLEX(rng, shape):
    return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])


# name: (constructor(D, *params), parameter generators, parameter shapes, value generator,
#        extra options)
# parameter shapes (3,) and (2, 1) broadcast to the batch (2, 3)
B = [(3,), (2, 1)]
CASES = {
    "Normal": (lambda D, a, b: D.Normal(a, b), [REAL, POS], B, REAL, {"cdf", "icdf", "rgrad"}),
    "Uniform": (lambda D, a, w: D.Uniform(a, a + w), [REAL, POS], [(2, 3), (2, 3)],
                None, {"cdf", "icdf", "rgrad"}),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), [REAL, POS], B, REAL, {"cdf", "icdf", "rgrad"}),
    "Exponential": (lambda D, r: D.Exponential(r), [POS], [(2, 3)], POS, {"cdf", "icdf", "rgrad"}),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), [REAL, POS], B, REAL, {"cdf", "icdf", "rgrad", "heavy"}),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), [REAL, POS], B, REAL, {"cdf", "icdf", "rgrad"}),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), [POS], [(2, 3)], POS, {"cdf", "icdf", "rgrad"}),
    "HalfCauchy": (lambda D, s: D.HalfCauchy(s), [POS], [(2, 3)], POS, {"cdf", "icdf", "rgrad", "heavy"}),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b * 0.5), [REAL, POS], B, POS, {"cdf", "icdf", "rgrad"}),
    "Pareto": (lambda D, s, a: D.Pareto(s, a + 2.5), [POS, POS], B, None, {"cdf", "icdf", "rgrad"}),
    "Bernoulli": (lambda D, p: D.Bernoulli(probs=p), [UNIT], [(2, 3)], BINARY, {"enum"}),
    "BernoulliLogits": (lambda D, l: D.Bernoulli(logits=l), [REAL], [(2, 3)], BINARY, {"enum"}),
    "Geometric": (lambda D, p: D.Geometric(probs=p), [UNIT], [(2, 3)], COUNT, set()),
    "GeometricLogits": (lambda D, l: D.Geometric(logits=l), [REAL], [(2, 3)], COUNT, set()),
    "Categorical": (lambda D, p: D.Categorical(probs=p), [POS], [(2, 3, 4)],
                    lambda rng, s: rng.integers(0, 4, size=s).astype(np.float64), {"enum"}),
    "CategoricalLogits": (lambda D, l: D.Categorical(logits=l), [REAL], [(2, 3, 4)],
                          lambda rng, s: rng.integers(0, 4, size=s).astype(np.float64), {"enum"}),
    "OneHotCategorical": (lambda D, l: D.OneHotCategorical(logits=l), [REAL], [(2, 3, 4)],
                          None, {"enum"}),
    "IndependentNormal": (lambda D, a, b: D.Independent(D.Normal(a, b), 1), [REAL, POS],
                          [(2, 3), (2, 3)], REAL, {"rgrad_skip"}),
    "LogisticNormal": (lambda D, a, b: D.LogisticNormal(a, b), [REAL, POS], [(2, 3), (2, 3)],
                       None, set()),
    "RelaxedBernoulli": (lambda D, t, p: D.RelaxedBernoulli(t + 0.2, probs=p), [POS, UNIT],
                         [(), (2, 3)], UNIT, set()),
    "RelaxedOneHotCategorical": (lambda D, t, l: D.RelaxedOneHotCategorical(t + 0.2, logits=l),
                                 [POS, REAL], [(), (2, 4)], None, set()),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(probs=p), [UNIT], [(2, 3)], UNIT,
                            {"cdf", "icdf", "rgrad"}),
    # probs near 1/2 take the Taylor branch
    "ContinuousBernoulliHalf": (lambda D, l: D.ContinuousBernoulli(logits=l * 1e-3), [REAL],
                                [(2, 3)], UNIT, {"cdf", "icdf"}),
    "Weibull": (lambda D, s, k: D.Weibull(s, k + 0.5), [POS, POS], B, POS, {"cdf", "icdf", "rgrad"}),
    "Kumaraswamy": (lambda D, a, b: D.Kumaraswamy(a + 0.5, b + 0.5), [POS, POS], B, UNIT,
                    {"cdf", "icdf", "rgrad"}),
    # torch's GeneralizedPareto works in float32 only (its isclose mixes in a float32 zero)
    "GeneralizedPareto": (lambda D, a, s, c: D.GeneralizedPareto(a, s, c * 0.05), [REAL, POS, REAL],
                          [(2, 3), (2, 3), (2, 3)], None, {"cdf", "icdf", "rgrad", "float32"}),
    "VonMises": (lambda D, a, k: D.VonMises(a, k), [REAL, POS], B, REAL, {"circular"}),
    "Binomial": (lambda D, p: D.Binomial(5, probs=p), [UNIT], [(2, 3)], COUNT,
                 {"enum", "needs:binomial"}),
    "BinomialLogits": (lambda D, n, l: D.Binomial(n + 5.0, logits=l), [COUNT, REAL], [(2, 3), (2, 3)],
                       COUNT, {"needs:binomial"}),
    "Multinomial": (lambda D, l: D.Multinomial(6, logits=l), [REAL], [(2, 3, 4)], None, set()),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), [POS, POS], B, POS, {"cdf", "needs:_standard_gamma"}),
    "Chi2": (lambda D, k: D.Chi2(k), [POS], [(2, 3)], POS, {"cdf", "needs:_standard_gamma"}),
    "Beta": (lambda D, a, b: D.Beta(a, b), [POS, POS], B, UNIT, {"needs:_standard_gamma"}),
    "BetaScalar": (lambda D: D.Beta(0.7, 2.5), [], [], UNIT, {"needs:_standard_gamma"}),
    "Dirichlet": (lambda D, c: D.Dirichlet(c), [POS], [(2, 4)], SIMPLEX, {"needs:_standard_gamma"}),
    "StudentT": (lambda D, k, a, b: D.StudentT(k + 2.5, a, b), [POS, REAL, POS], [(3,), (2, 1), (3,)],
                 REAL, {"needs:_standard_gamma"}),
    "StudentTHeavy": (lambda D, k: D.StudentT(k * 0.8), [POS], [(2, 3)], REAL,
                      {"needs:_standard_gamma", "heavy"}),
    "Poisson": (lambda D, r: D.Poisson(r * 2), [POS], [(2, 3)], COUNT, {"needs:poisson"}),
    "NegativeBinomial": (lambda D, n, p: D.NegativeBinomial(n * 2, probs=p * 0.8), [POS, UNIT],
                         [(2, 3), (2, 3)], COUNT, {"needs:poisson", "needs:_standard_gamma"}),
    "NegativeBinomialLogits": (lambda D, n, l: D.NegativeBinomial(n * 2, logits=l * 0.5), [POS, REAL],
                               [(2, 3), (2, 3)], COUNT, {"needs:poisson", "needs:_standard_gamma"}),
    "InverseGamma": (lambda D, a, b: D.InverseGamma(a + 4.5, b), [POS, POS], B, POS,
                     {"cdf", "needs:_standard_gamma"}),
    "FisherSnedecor": (lambda D, a, b: D.FisherSnedecor(a * 3, b * 3 + 8.5), [POS, POS], B, POS,
                       {"needs:_standard_gamma"}),
    "MixtureSameFamily": (lambda D, l, a, b: D.MixtureSameFamily(D.Categorical(logits=l), D.Normal(a, b)),
                          [REAL, REAL, POS], [(2, 3), (2, 3), (2, 3)], REAL, {"cdf"}),
}


def _missing_op(name):
    """The ember op a case needs that ember does not have yet (its tests that sample skip)."""
    for flag in CASES[name][4]:
        if flag.startswith("needs:") and not (hasattr(ember, flag[6:]) or hasattr(ember._C, flag[6:])):
            return flag[6:]
    return None


def skip_if_missing(name):
    op = _missing_op(name)
    if op:
        pytest.skip(f"ember.{op} is not in ember yet")


def build(name, dtype=np.float64, requires_grad=False, seed=RNG_SEED):
    """(ember distribution, torch distribution, ember params, torch params) on equal values."""
    make, gens, shapes, _, flags = CASES[name]
    if "float32" in flags:
        dtype = np.float32
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(g(rng, s), dtype=dtype) for g, s in zip(gens, shapes)]
    ep = [e(a, requires_grad) for a in arrays]
    tp = [tt(a, requires_grad) for a in arrays]
    return make(ED, *ep), make(TD, *tp), ep, tp


def values_for(name, d_torch, sample_shape=(5,), seed=RNG_SEED + 1):
    """Values in the support, shape sample_shape + batch_shape + event_shape, as arrays."""
    gen = CASES[name][3]
    shape = tuple(sample_shape) + tuple(d_torch.batch_shape) + tuple(d_torch.event_shape)
    if gen is None:  # values from the torch distribution itself
        torch.manual_seed(seed)
        v = d_torch.sample(sample_shape).numpy()
    else:
        v = gen(np.random.default_rng(seed), shape)
    return v.astype(np.float32 if "float32" in CASES[name][4] else np.float64)


def _maybe(fn):
    """fn() or the exception type it raised (to compare 'not implemented' behaviour too)."""
    try:
        return fn()
    except (NotImplementedError, ValueError) as err:
        return type(err)


NAMES = sorted(CASES)


@pytest.mark.parametrize("name", NAMES)
def test_shapes_and_support(name):
    skip_if_missing(name)
    de, dt, _, _ = build(name)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape)
    assert tuple(de.event_shape) == tuple(dt.event_shape)
    assert de.has_rsample == dt.has_rsample
    assert de.has_enumerate_support == dt.has_enumerate_support
    assert repr(de.support).replace("ember", "torch") == repr(dt.support)
    for shape in [(), (4,), (2, 1)]:
        s = de.sample(shape)
        assert tuple(s.shape) == tuple(dt.sample(shape).shape)
        assert str(s.dtype).split(".")[1] == str(dt.sample().dtype).split(".")[1]
        assert bool(de.support.check(s).all())


@pytest.mark.parametrize("name", NAMES)
def test_log_prob(name):
    de, dt, _, _ = build(name)
    v = values_for(name, dt)
    close(de.log_prob(e(v)), dt.log_prob(tt(v)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", [n for n in NAMES if "cdf" in CASES[n][4]])
def test_cdf_icdf(name):
    de, dt, _, _ = build(name)
    v = values_for(name, dt)
    close(de.cdf(e(v)), dt.cdf(tt(v)), rtol=1e-6, atol=1e-9)
    if "icdf" not in CASES[name][4]:
        assert _maybe(lambda: de.icdf(e(v))) is _maybe(lambda: dt.icdf(tt(v))) is NotImplementedError
        return
    q = np.random.default_rng(5).uniform(0.02, 0.98, size=(4,) + tuple(dt.batch_shape))
    q = q.astype(v.dtype)
    close(de.icdf(e(q)), dt.icdf(tt(q)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_moments_and_entropy(name):
    de, dt, _, _ = build(name)
    for prop in ["mean", "variance", "stddev", "mode"]:
        want = _maybe(lambda: getattr(dt, prop))
        if name == "Kumaraswamy" and prop == "mode":  # torch 2.13's is nan everywhere
            a, b = npy(dt.concentration1), npy(dt.concentration0)
            want = ((a - 1) / (a * b - 1)) ** (1 / a)
        got = _maybe(lambda: getattr(de, prop))
        if isinstance(want, type):
            assert got is want, (prop, got)
        else:
            close(got, want, rtol=1e-6, atol=1e-9)
    want = _maybe(dt.entropy)
    if isinstance(want, type):
        assert _maybe(de.entropy) is want
    else:
        close(de.entropy(), want, rtol=1e-6, atol=1e-9)
        close(de.perplexity(), dt.perplexity(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_float32(name):
    de, dt, _, _ = build(name, dtype=np.float32)
    v = values_for(name, dt).astype(np.float32)
    lp = de.log_prob(e(v))
    assert lp.dtype == ember.float32
    close(lp, dt.log_prob(tt(v)), rtol=1e-4, atol=1e-5)
    if not _missing_op(name):
        s = de.sample((3,))
        assert s.dtype == (ember.int64 if name.startswith("Categorical") else ember.float32)


@pytest.mark.parametrize("name", NAMES)
def test_expand(name):
    de, dt, _, _ = build(name)
    shape = (4,) + tuple(dt.batch_shape)
    ee, te = de.expand(shape), dt.expand(shape)
    assert type(ee) is type(de)
    assert tuple(ee.batch_shape) == shape and tuple(ee.event_shape) == tuple(te.event_shape)
    if not _missing_op(name):
        assert tuple(ee.sample((2,)).shape) == tuple(te.sample((2,)).shape)
    v = values_for(name, dt, sample_shape=(4,))
    close(ee.log_prob(e(v)), te.log_prob(tt(v)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_entropy_gradients(name):
    de, dt, ep, tp = build(name, requires_grad=True)
    if not ep:
        pytest.skip("no tensor parameters")
    v = values_for(name, dt)
    le, lt = de.log_prob(e(v)).sum(), dt.log_prob(tt(v)).sum()
    ent = _maybe(dt.entropy)
    if not isinstance(ent, type):
        le, lt = le + de.entropy().sum(), lt + ent.sum()
    ge = ember.autograd.grad(le, ep, allow_unused=True)
    gt = torch.autograd.grad(lt, tp, allow_unused=True)
    for a, b in zip(ge, gt):
        if b is None:
            assert a is None or not npy(a).any()
        else:
            close(a, b, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", [n for n in NAMES if "rgrad" in CASES[n][4]])
def test_rsample_gradient_is_the_implicit_reparameterization(name):
    """For x = F^-1(u; theta) with u fixed, dx/dtheta = -(dF/dtheta)(x) / p(x): the gradient of
    ember's rsample must equal what torch's cdf and log_prob give at ember's own samples."""
    de, dt, ep, tp = build(name, requires_grad=True)
    ember.manual_seed(3)
    x = de.rsample((50,))
    ge = ember.autograd.grad(x.sum(), ep)
    xs = tt(npy(x))
    density = dt.log_prob(xs).exp().detach()
    gt = torch.autograd.grad(-(dt.cdf(xs) / density).sum(), tp)
    for a, b in zip(ge, gt):
        close(a, b, rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_sample_mean_matches(name):
    skip_if_missing(name)
    de, dt, _, _ = build(name)
    if CASES[name][4] & {"heavy", "circular"} or name.startswith("Relaxed") or name == "LogisticNormal":
        # no finite mean / no closed-form mean: compare the cdf at the sample median instead
        ember.manual_seed(0)
        s = npy(de.sample((4000,)))
        if "cdf" in CASES[name][4]:
            med = np.median(s, axis=0)
            close(dt.cdf(tt(med)), np.full(med.shape, 0.5), atol=0.05)
        return
    n = 20000
    ember.manual_seed(0)
    s = npy(de.sample((n,))).astype(np.float64)
    mean, std = npy(dt.mean).astype(np.float64), npy(dt.stddev).astype(np.float64)
    if name.startswith("Categorical"):
        s = np.eye(4)[s.astype(np.int64)]  # compare the frequencies with probs
        mean, std = npy(dt.probs), np.sqrt(npy(dt.probs) * (1 - npy(dt.probs)))
    assert np.all(np.abs(s.mean(0) - mean) <= 5 * std / math.sqrt(n) + 1e-9)
    assert np.allclose(s.std(0), std, rtol=0.1, atol=0.01)


@pytest.mark.parametrize("name", [n for n in NAMES if "enum" in CASES[n][4]])
def test_enumerate_support(name):
    de, dt, _, _ = build(name)
    for expand in (True, False):
        a, b = de.enumerate_support(expand), dt.enumerate_support(expand)
        close(a, b)
        assert (a.dtype == ember.int64) == (b.dtype == torch.int64)


def test_empty_batch():
    de = ED.Normal(ember.zeros(0, 3), ember.ones(0, 3))
    assert tuple(de.sample((2,)).shape) == (2, 0, 3)
    assert tuple(de.log_prob(ember.zeros(0, 3)).shape) == (0, 3)
    c = ED.Categorical(logits=ember.zeros(0, 4))
    assert tuple(c.sample((5,)).shape) == (5, 0)


SCALAR_CASES = [
    (lambda D, T: D.Normal(T.tensor(0.3), T.tensor(1.5)), 0.7),
    (lambda D, T: D.Exponential(T.tensor(1.5)), 0.7),
    (lambda D, T: D.Bernoulli(T.tensor(0.3)), 1.0),
    (lambda D, T: D.Gamma(T.tensor(2.0), T.tensor(1.5)), 0.7),
    (lambda D, T: D.Poisson(T.tensor(2.0)), 3.0),
    (lambda D, T: D.Laplace(0.5, 2.0), 0.7),
    (lambda D, T: D.Geometric(0.25), 3.0),
    (lambda D, T: D.Beta(2.0, 3.0), 0.7),
]


@pytest.mark.parametrize("i", range(len(SCALAR_CASES)))
def test_zero_dim_parameters(i):
    make, value = SCALAR_CASES[i]
    de, dt = make(ED, ember), make(TD, torch)
    assert tuple(de.batch_shape) == () == tuple(dt.batch_shape)
    close(de.log_prob(ember.tensor(value)), dt.log_prob(torch.tensor(value)), rtol=1e-5)
    want = _maybe(dt.entropy)  # Poisson has none in torch either
    if isinstance(want, type):
        assert _maybe(de.entropy) is want
    else:
        close(de.entropy(), want, rtol=1e-5)
    assert tuple(de.sample().shape) == () and tuple(de.sample((3, 2)).shape) == (3, 2)
