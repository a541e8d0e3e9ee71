"""scaled_dot_product_attention's fused kernel (src/ops/attention.cpp, kernels/cpu/attention*):
taken when there is no attn_mask, no dropout and query/key/value share their leading dims.
Forward and gradients against torch (causal and not, L != S, E != Ev, 3-d to 5-d, views),
finite differences, double backward (the create_graph path composes ops), the node's name,
and the cases that must still take the composite path."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, gradcheck_op, to_numpy

SDPA = "scaled_dot_product_attention"


def sdpa(**kw):
    return lambda m, q, k, v: getattr(m.nn.functional, SDPA)(q, k, v, **kw)


SHAPES = [
    [(2, 3, 8, 4), (2, 3, 8, 4), (2, 3, 8, 4)],        # L = S
    [(2, 5, 4), (2, 9, 4), (2, 9, 6)],                  # L < S, Ev != E
    [(3, 9, 5), (3, 4, 5), (3, 4, 3)],                  # L > S (causal rows past S see all)
    [(1, 2, 2, 70, 8), (1, 2, 2, 70, 8), (1, 2, 2, 70, 8)],  # two query blocks of 64
    [(4, 1, 3), (4, 1, 3), (4, 1, 2)],                  # one key
    [(0, 3, 4), (0, 5, 4), (0, 5, 4)],                  # no heads
]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shapes", SHAPES)
def test_forward_and_grads_like_torch(shapes, causal):
    check_grad(sdpa(is_causal=causal), shapes, layouts=LAYOUTS, rtol=1e-4, atol=1e-5)
    check_grad(sdpa(is_causal=causal, scale=0.3), shapes, dtypes=("float64",), rtol=1e-9,
               atol=1e-10)


def test_some_inputs_without_grad():
    shapes = [(2, 6, 4), (2, 7, 4), (2, 7, 5)]
    for req in ([True, False, False], [False, True, False], [False, False, True],
                [False, True, True]):
        check_grad(sdpa(is_causal=True), shapes, requires=req)


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck(causal):
    gradcheck_op(sdpa(is_causal=causal), [(2, 5, 3), (2, 6, 3), (2, 6, 2)])


@pytest.mark.parametrize("causal", [False, True])
def test_double_backward(causal):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in [(2, 5, 3), (2, 5, 3), (2, 5, 4)]]
    grads = []
    for m in (ember, torch):
        q, k, v = [m.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
        out = getattr(m.nn.functional, SDPA)(q, k, v, is_causal=causal)
        gq, gk, gv = m.autograd.grad((out * out).sum(), (q, k, v), create_graph=True)
        (gq.sum() + (gk * gk).sum() + gv.pow(3).sum()).backward()
        grads.append([to_numpy(t.grad) for t in (q, k, v)])
    for e, t in zip(*grads):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-10)


def test_takes_the_fused_node_and_keeps_the_composite_for_masks():
    q = ember.randn(2, 4, 8, requires_grad=True)
    out = getattr(ember.nn.functional, SDPA)(q, q, q, is_causal=True)
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    mask = ember.ones(4, 4, dtype=ember.bool).tril()
    masked = getattr(ember.nn.functional, SDPA)(q, q, q, attn_mask=mask)
    assert masked.grad_fn.name() != "ScaledDotProductFlashAttentionForCpuBackward0"
    np.testing.assert_allclose(to_numpy(masked.detach()), to_numpy(out.detach()), rtol=1e-6,
                               atol=1e-6)
    # broadcast leading dims (key shared by the heads) still work, through the composite
    k = ember.randn(1, 4, 8)
    check = getattr(ember.nn.functional, SDPA)(q, k, k)
    assert tuple(check.shape) == (2, 4, 8)


def test_extreme_scores_stay_finite():
    """Scores in the thousands: the softmax subtracts each row's max (no overflow); a row
    with one dominant key returns that key's value."""
    rng = np.random.default_rng(5)
    q = rng.standard_normal((3, 16, 8)).astype(np.float32) * 100
    k = rng.standard_normal((3, 16, 8)).astype(np.float32) * 100
    v = rng.standard_normal((3, 16, 4)).astype(np.float32)
    for causal in (False, True):
        e = getattr(ember.nn.functional, SDPA)(*map(ember.from_numpy, (q, k, v)), is_causal=causal)
        t = getattr(torch.nn.functional, SDPA)(*map(torch.from_numpy, (q, k, v)), is_causal=causal)
        assert np.isfinite(to_numpy(e)).all()
        np.testing.assert_allclose(to_numpy(e), t.numpy(), rtol=1e-4, atol=1e-4)


def test_bad_inputs():
    f = getattr(ember.nn.functional, SDPA)
    with pytest.raises(RuntimeError, match="same embedding size"):
        f(ember.randn(2, 3, 4), ember.randn(2, 3, 5), ember.randn(2, 3, 5))
    with pytest.raises(RuntimeError, match="same sequence length"):
        f(ember.randn(2, 3, 4), ember.randn(2, 3, 4), ember.randn(2, 5, 4))
    with pytest.raises(RuntimeError):
        f(ember.randn(2, 3, 4), ember.randn(2, 3, 4), ember.randn(2, 3, 4, dtype=ember.float64))
    with pytest.raises(TypeError):
        ember._C.scaled_dot_product_attention_fused(ember.ones(2, 3, 4, dtype=ember.int64),
                                                    ember.ones(2, 3, 4, dtype=ember.int64),
                                                    ember.ones(2, 3, 4, dtype=ember.int64),
                                                    False, 1.0)
    with pytest.raises(ValueError, match="at least one key"):
        ember._C.scaled_dot_product_attention_fused(ember.ones(2, 3, 4), ember.ones(2, 0, 4),
                                                    ember.ones(2, 0, 4), False, 1.0)


def test_default_scale():
    rng = np.random.default_rng(9)
    q, k, v = (rng.standard_normal((2, 7, 16)).astype(np.float32) for _ in range(3))
    e = getattr(ember.nn.functional, SDPA)(*map(ember.from_numpy, (q, k, v)))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(16)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(to_numpy(e), p @ v, rtol=1e-5, atol=1e-6)


def test_head_views_read_in_place():
    """nanoGPT's q, k, v: a split of one (B, T, 3C) projection, viewed as heads and
    transposed, so rows are contiguous but heads interleave. Same values and gradients as
    torch, and the inputs are not modified."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 10, 3 * 8)).astype(np.float64)
    res = []
    for m in (ember, torch):
        xt = m.from_numpy(x.copy()).requires_grad_(True)
        q, k, v = xt.split(8, dim=2)
        q, k, v = (t.view(3, 10, 2, 4).transpose(1, 2) for t in (q, k, v))
        y = getattr(m.nn.functional, SDPA)(q, k, v, is_causal=True)
        (y * y).sum().backward()
        res.append((to_numpy(y.detach()), to_numpy(xt.grad), to_numpy(xt.detach())))
    for e, t in zip(*res):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(res[0][2], x)
