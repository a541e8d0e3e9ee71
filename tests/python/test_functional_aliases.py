"""torch's top-level aliases of nn.functional (ember.conv1d, ember.kl_div, ...): the same
objects as F's or wrappers taking torch's integer reductions, values and gradients against
torch, bad inputs raising F's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from helpers import to_numpy


@pytest.fixture(autouse=True)
def _seeded():
    ember.manual_seed(0)
    torch.manual_seed(0)


DIRECT = ["conv1d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "avg_pool1d",
          "adaptive_avg_pool1d", "prelu", "selu", "selu_", "celu", "celu_", "relu_", "threshold",
          "threshold_", "hardshrink", "pairwise_distance", "cosine_similarity", "rms_norm"]
WRAPPED = ["adaptive_max_pool1d", "group_norm", "kl_div", "cosine_embedding_loss",
           "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss"]


def test_aliases_exist_in_torch_and_are_Fs():
    for name in DIRECT + WRAPPED:
        assert hasattr(torch, name), name
        assert hasattr(F, name), name
    for name in DIRECT:
        assert getattr(ember, name) is getattr(F, name), name
    # every torch top-level name that ember.nn.functional implements is now top-level in ember
    # (torch.embedding_bag is not F.embedding_bag but the aten op returning (output, offset2bag,
    # bag_size, max_indices): ember.embedding_bag is that op, tested in test_nn_composite_layers.py.)
    missing = [n for n in dir(torch) if not n.startswith("_") and callable(getattr(torch, n))
               and hasattr(F, n) and not hasattr(ember, n)]
    assert missing == []
    assert not hasattr(ember, "_nn_aliases") and "F" not in dir(ember)


def _pair(shape, dtype, seed, positive=False):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    if positive:
        a = np.abs(a) + 0.1
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


# name -> (shapes, call(m, *tensors)); m is the top-level module (ember or torch)
CASES = {
    "conv1d": ([(2, 4, 9), (6, 2, 3), (6,)], lambda m, x, w, b: m.conv1d(x, w, b, 2, 1, 1, 2)),
    "conv_transpose1d": ([(2, 4, 7), (4, 3, 3)],
                         lambda m, x, w: m.conv_transpose1d(x, w, None, 2, 1, 1)),
    "conv_transpose2d": ([(2, 4, 5, 5), (4, 3, 3, 3), (3,)],
                         lambda m, x, w, b: m.conv_transpose2d(x, w, b, stride=2, padding=1)),
    "max_pool1d": ([(2, 3, 11)], lambda m, x: m.max_pool1d(x, 3, 2, 1)),
    "avg_pool1d": ([(2, 3, 11)], lambda m, x: m.avg_pool1d(x, 3, 2, 1, True, False)),
    "adaptive_avg_pool1d": ([(2, 3, 11)], lambda m, x: m.adaptive_avg_pool1d(x, 4)),
    "prelu": ([(2, 3, 5), (3,)], lambda m, x, w: m.prelu(x, w)),
    "selu": ([(3, 5)], lambda m, x: m.selu(x)),
    "celu": ([(3, 5)], lambda m, x: m.celu(x, 0.7)),
    "threshold": ([(3, 5)], lambda m, x: m.threshold(x, 0.2, -1.0)),
    "hardshrink": ([(3, 5)], lambda m, x: m.hardshrink(x, 0.4)),
    "pairwise_distance": ([(4, 5), (4, 5)], lambda m, a, b: m.pairwise_distance(a, b, 1.5)),
    "cosine_similarity": ([(4, 5), (4, 5)], lambda m, a, b: m.cosine_similarity(a, b, 0)),
    "rms_norm": ([(3, 4, 5), (5,)], lambda m, x, w: m.rms_norm(x, [5], w, 1e-5)),
    "group_norm": ([(2, 6, 4), (6,), (6,)],
                   lambda m, x, w, b: m.group_norm(x, 3, w, b, 1e-5, True)),
    "margin_ranking_loss": ([(6,), (6,), (6,)],
                            lambda m, a, b, y: m.margin_ranking_loss(a, b, y.sign(), 0.1, 2)),
    "hinge_embedding_loss": ([(6,), (6,)],
                             lambda m, x, y: m.hinge_embedding_loss(x, y.sign(), 0.5, 0)),
    "cosine_embedding_loss": ([(4, 5), (4, 5), (4,)],
                              lambda m, a, b, y: m.cosine_embedding_loss(a, b, y.sign(), 0.2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_alias_matches_torch_values_and_grads(name, dtype):
    shapes, call = CASES[name]
    pairs = [_pair(s, dtype, i) for i, s in enumerate(shapes)]
    es = [e.requires_grad_() for e, _ in pairs]
    ts = [t.requires_grad_() for _, t in pairs]
    out_e, out_t = call(ember, *es), call(torch, *ts)
    tol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(to_numpy(out_e), to_numpy(out_t), rtol=tol, atol=tol)
    out_e.sum().backward()
    out_t.sum().backward()
    for e, t in zip(es, ts):
        assert (e.grad is None) == (t.grad is None)
        if t.grad is not None:
                np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name,arg", [("relu_", ()), ("selu_", ()), ("celu_", (0.5,)),
                                      ("threshold_", (0.1, 9.0))])
def test_inplace_aliases(name, arg):
    e, t = _pair((4, 5), "float64", 3)
    assert getattr(ember, name)(e, *arg) is e
    getattr(torch, name)(t, *arg)
    np.testing.assert_allclose(to_numpy(e), t.numpy(), atol=1e-12)


def test_adaptive_max_pool1d_returns_indices():
    e, t = _pair((2, 3, 10), "float32", 0)
    out, idx = ember.adaptive_max_pool1d(e, 4)
    tout, tidx = torch.adaptive_max_pool1d(t, 4)
    np.testing.assert_allclose(to_numpy(out), tout.numpy())
    np.testing.assert_array_equal(to_numpy(idx), tidx.numpy())


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_loss_aliases_take_int_reduction(reduction):
    (ei, ti), (et, tt) = _pair((3, 4), "float64", 0), _pair((3, 4), "float64", 1, positive=True)
    ei, ti = ember.log_softmax(ei, 1), torch.log_softmax(ti, 1)
    checks = [
        (ember.kl_div(ei, et, reduction), torch.kl_div(ti, tt, reduction)),
        (ember.kl_div(ei, et.log(), reduction=reduction, log_target=True),
         torch.kl_div(ti, tt.log(), reduction=reduction, log_target=True)),
        (ember.poisson_nll_loss(ei, et, True, True, 1e-8, reduction),
         torch.poisson_nll_loss(ti, tt, True, True, 1e-8, reduction)),
        (ember.poisson_nll_loss(et, et * 2, False, False, 1e-6, reduction),
         torch.poisson_nll_loss(tt, tt * 2, False, False, 1e-6, reduction)),
        (ember.hinge_embedding_loss(et, (et - 0.8).sign(), reduction=reduction),
         torch.hinge_embedding_loss(tt, (tt - 0.8).sign(), reduction=reduction)),
    ]
    for e, t in checks:
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(to_numpy(e), t.numpy(), rtol=1e-10, atol=1e-12)


def test_loss_aliases_reject_string_or_bad_reduction():
    a, b = ember.randn(3, 4), ember.rand(3, 4)
    with pytest.raises(TypeError, match=r"kl_div\(\): argument 'reduction' must be int"):
        ember.kl_div(a, b, "mean")
    with pytest.raises(TypeError, match="must be int"):
        ember.margin_ranking_loss(a, a, b, 0.0, True)
    with pytest.raises(ValueError, match="5 is not a valid value for reduction"):
        ember.hinge_embedding_loss(a, b, 1.0, 5)
    with pytest.raises(TypeError):
        ember.poisson_nll_loss(a, b)  # torch requires all six arguments


def test_alias_bad_input_keeps_F_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((RuntimeError, ValueError)):
            ember.conv1d(ember.randn(2, 4, 9), ember.randn(6, 3, 3))  # channel mismatch
        with pytest.raises((RuntimeError, ValueError)):
            ember.group_norm(ember.randn(2, 5, 4), 3)  # 5 channels, 3 groups


def test_loss_aliases_default_reduction_is_torchs_runtime_default():
    # torch's binding applies reduction 0 (none) when it is omitted, despite its stubs saying 1
    (ea, ta), (eb, tb) = _pair((4, 5), "float64", 0), _pair((4, 5), "float64", 1)
    ey, ty = ember.from_numpy(np.sign(to_numpy(ta))), ta.sign()
    pairs = [(ember.kl_div(ea, eb), torch.kl_div(ta, tb)),
             (ember.hinge_embedding_loss(ea, ey), torch.hinge_embedding_loss(ta, ty)),
             (ember.margin_ranking_loss(ea, eb, ey), torch.margin_ranking_loss(ta, tb, ty)),
             (ember.cosine_embedding_loss(ea, eb, ey[:, 0]),
              torch.cosine_embedding_loss(ta, tb, ty[:, 0])),
             (ember.triplet_margin_loss(ea, eb, ea * 2), torch.triplet_margin_loss(ta, tb, ta * 2))]
    lp = torch.randn(6, 4, 5, dtype=torch.float64).log_softmax(2)
    tg = torch.randint(1, 5, (4, 3))
    pairs.append((ember.ctc_loss(ember.from_numpy(lp.numpy()), ember.from_numpy(tg.numpy()),
                                 [6] * 4, [3] * 4), torch.ctc_loss(lp, tg, [6] * 4, [3] * 4)))
    for e, t in pairs:
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(to_numpy(e), t.numpy(), rtol=1e-10, atol=1e-12)


def test_wrapped_aliases_gradcheck():
    a = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    b = ember.rand(3, 4, dtype=ember.float64) + 0.1
    w = ember.rand(4, dtype=ember.float64, requires_grad=True)
    x = ember.randn(2, 4, 3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.kl_div(t, b, 2), (a,))
    assert ember.autograd.gradcheck(lambda t: ember.hinge_embedding_loss(t, (b - 0.5).sign(),
                                                                         0.5, 1), (a,))
    assert ember.autograd.gradcheck(lambda t, g: ember.group_norm(t, 2, g, None, 1e-5), (x, w))
