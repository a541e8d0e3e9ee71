"""scaled_dot_product_attention's fused kernel (src/ops/attention.cpp, kernels/cpu/attention*):
taken when there is no attn_mask, no dropout and query/key/value share their leading dims.
Forward and gradients against torch (causal and not, L != S, E != Ev, 3-d to 5-d, views),
finite differences, double backward (the create_graph path composes ops), the node's name,
and the cases that must still take the composite path."""
import math
import os
import subprocess
import sys

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
    [(2, 4, 64, 32), (2, 4, 64, 32), (2, 4, 64, 32)],   # nanoGPT's heads: whole vectors
    [(1, 2, 13, 17), (1, 2, 21, 17), (1, 2, 21, 9)],    # widths past a vector, odd row counts
    [(1, 2, 300, 8), (1, 2, 300, 8), (1, 2, 300, 8)],   # S > 256: the BLAS-blocked path
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


def _head_views(m, x, B, T, H, D, requires_grad=True):
    """nanoGPT's q, k, v: a split of one (B, T, 3C) tensor, viewed as heads, transposed."""
    xt = m.from_numpy(x.copy()).requires_grad_(requires_grad)
    q, k, v = xt.split(H * D, dim=2)
    return xt, [t.view(B, T, H, D).transpose(1, 2) for t in (q, k, v)]


@pytest.mark.parametrize("T", [64, 300])
def test_output_and_gradients_keep_the_heads_layout(T):
    """out is laid out (B, T, H, E) like q (torch's flash kernel does the same), so
    y.transpose(1, 2).view(B, T, C) needs no copy; the gradients of q, k and v come back in
    their inputs' layout, and the values match torch's."""
    B, H, D = 2, 3, 8
    rng = np.random.default_rng(12)
    x = rng.standard_normal((B, T, 3 * H * D))
    res = []
    for m in (ember, torch):
        xt, (q, k, v) = _head_views(m, x, B, T, H, D)
        y = getattr(m.nn.functional, SDPA)(q, k, v, is_causal=True)
        if m is ember:
            assert y.transpose(1, 2).is_contiguous()
            y.transpose(1, 2).view(B, T, H * D)  # a view, no copy needed
            gq, = m.autograd.grad((y * y).sum(), q, retain_graph=True)
            assert gq.stride() == (T * H * D, D, H * D, 1)
        (y * y).sum().backward()
        res.append((to_numpy(y.detach()), to_numpy(xt.grad)))
    for e, t in zip(*res):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-11)


def test_masked_keys_are_never_read():
    """A causal row of a small head (S <= 256, AVX2 or AVX-512: Note [Small attention heads])
    never reads the keys and values it may not see: NaN (or inf) padding in the last key and value reaches
    the last query's output only (no 0 * NaN through a masked probability), and the other
    rows equal attention over the unpadded sequence. (Longer sequences take BLAS blocks of
    64 rows, whose diagonal block multiplies masked values by 0, as torch's blocks do.)"""
    rng = np.random.default_rng(13)
    for T in (9, 64, 256):
        q, k, v = (rng.standard_normal((2, T, 8)).astype(np.float32) for _ in range(3))
        k[:, -1] = np.nan
        v[:, -1] = np.inf
        f = getattr(ember.nn.functional, SDPA)
        out = to_numpy(f(*map(ember.from_numpy, (q, k, v)), is_causal=True))
        assert np.isnan(out[:, -1]).all() and np.isfinite(out[:, :-1]).all()
        ref = to_numpy(f(*(ember.from_numpy(a[:, :-1].copy()) for a in (q, k, v)), is_causal=True))
        np.testing.assert_allclose(out[:, :-1], ref, rtol=1e-6, atol=1e-7)
        t = torch.nn.functional.scaled_dot_product_attention(
            *(torch.from_numpy(a[:, :-1].copy()) for a in (q, k, v)), is_causal=True)
        np.testing.assert_allclose(out[:, :-1], t.numpy(), rtol=1e-5, atol=1e-6)


def test_all_infinite_scores_like_torch():
    """A query of -inf against finite keys: every score is -inf or NaN; ember's rows are what
    torch's composite (math) attention gives, NaN."""
    q = np.zeros((1, 4, 8), np.float32)
    q[0, 2] = -np.inf
    k = np.random.default_rng(14).standard_normal((1, 4, 8)).astype(np.float32)
    out = to_numpy(getattr(ember.nn.functional, SDPA)(*map(ember.from_numpy, (q, k, k)),
                                                      is_causal=True))
    assert np.isnan(out[0, 2]).all() and np.isfinite(np.delete(out[0], 2, 0)).all()


@pytest.mark.parametrize("causal", [False, True])
def test_every_small_head_width_like_torch(causal):
    """Head widths 1..64 on the register tiles (Note [Small attention heads]: rows of six, two
    vectors wide, partial vectors at the right edge), E != Ev, L != S, against torch."""
    for E in range(1, 65):
        Ev = (E * 7) % 64 + 1
        for L, S in ((13, 13), (7, 19), (20, 6)):
            check_grad(sdpa(is_causal=causal), [(2, L, E), (2, S, E), (2, S, Ev)], seed=E,
                       rtol=2e-4, atol=2e-5, dtypes=("float32",) if E % 8 else ("float32", "float64"))


@pytest.mark.parametrize("E", [65, 96, 128, 130])
def test_wide_heads_like_torch(E):
    """Past 64 wide: the tiles up to 128 (several column tiles), BLAS blocks past it; heads
    read as transposed views of one projection (rows far apart), both dtypes."""
    check_grad(sdpa(is_causal=True), [(1, 2, 37, E)] * 3, layouts=("contiguous", "transposed"),
               rtol=2e-4, atol=2e-5)
    check_grad(sdpa(is_causal=False), [(1, 2, 9, E), (1, 2, 70, E), (1, 2, 70, 3)], rtol=2e-4,
               atol=2e-5)


@pytest.mark.parametrize("T", [6, 64, 131])
@pytest.mark.parametrize("D", [5, 32, 64])
def test_head_views_of_every_width(T, D):
    """nanoGPT's layout (q, k, v split from one projection, heads interleaved in a row) at
    widths off and on whole vectors; more than one chunk of 64 query rows at T = 131;
    float32 and float64 against torch, and the inputs untouched."""
    B, H = 2, 3
    for dt, tol in (("float32", 2e-5), ("float64", 1e-11)):
        x = np.random.default_rng(T * D).standard_normal((B, T, 3 * H * D)).astype(dt)
        res = []
        for m in (ember, torch):
            xt, (q, k, v) = _head_views(m, x, B, T, H, D)
            y = getattr(m.nn.functional, SDPA)(q, k, v, is_causal=True)
            (y * y.detach().sin()).sum().backward()
            res.append((to_numpy(y.detach()), to_numpy(xt.grad), to_numpy(xt.detach())))
        for e, t in zip(*res):
            np.testing.assert_allclose(e, t, rtol=tol * 10, atol=tol)
        np.testing.assert_array_equal(res[0][2], x)


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck_on_the_tiles(causal):
    """Finite differences through the tiles: seven query rows (one tile of six and one row),
    widths past a vector and not."""
    gradcheck_op(sdpa(is_causal=causal, scale=0.7), [(1, 7, 9), (1, 11, 9), (1, 11, 5)])
    gradcheck_op(sdpa(is_causal=causal), [(1, 2, 13, 8), (1, 2, 13, 8), (1, 2, 13, 8)])


@pytest.mark.parametrize("causal", [False, True])
def test_long_queries_recompute_the_probabilities(causal):
    """Up to 1024 query rows the forward keeps a small head's probabilities for the backward;
    past that the backward recomputes them from lse (both against torch)."""
    for L in (1024, 1030):
        check_grad(sdpa(is_causal=causal), [(1, L, 8), (1, 40, 8), (1, 40, 5)], rtol=2e-4,
                   atol=2e-5)


def test_masks_still_match_the_fused_path():
    """attn_mask (boolean and additive) takes the composite path; where it equals the causal
    mask the result equals the fused kernel's, and an additive mask matches torch."""
    rng = np.random.default_rng(21)
    q, k, v = (rng.standard_normal((2, 3, 11, 24)).astype(np.float32) for _ in range(3))
    f = getattr(ember.nn.functional, SDPA)
    E = [ember.from_numpy(a) for a in (q, k, v)]
    fused = to_numpy(f(*E, is_causal=True))
    mask = ember.ones(11, 11, dtype=ember.bool).tril()
    np.testing.assert_allclose(to_numpy(f(*E, attn_mask=mask)), fused, rtol=1e-5, atol=1e-6)
    bias = rng.standard_normal((11, 11)).astype(np.float32)
    e = to_numpy(f(*E, attn_mask=ember.from_numpy(bias)))
    t = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (q, k, v)), attn_mask=torch.from_numpy(bias))
    np.testing.assert_allclose(e, t.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("env", ["EMBER_DISABLE_AVX512", "EMBER_DISABLE_AVX2"])
def test_other_isa_copies_match_torch(env):
    """The kernels run their AVX-512 copy where the CPU has it; EMBER_DISABLE_AVX512=1 makes a
    fresh process take the AVX2 copy, EMBER_DISABLE_AVX2=1 the baseline one (BLAS blocks for
    every head, so masked NaN reaches its block as in torch), which must pass the same checks."""
    tests = ("test_forward_and_grads_like_torch or test_head_views or test_output_and_gradients"
             " or test_every_small_head_width or test_wide_heads"
             + (" or test_masked_keys" if env == "EMBER_DISABLE_AVX512" else ""))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W",
                        "ignore", os.path.abspath(__file__), "-k", tests],
                       env=dict(os.environ, **{env: "1"}), capture_output=True, text=True,
                       cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
