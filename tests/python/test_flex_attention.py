"""flex_attention (ember.nn.attention.flex_attention) against torch 2.13's eager flex_attention
(forward: values and log-sum-exp) and, for the gradient torch's CPU flex_attention lacks,
against finite differences and torch's scaled_dot_product_attention on the same masks."""
import math

import numpy as np
import pytest
import torch
from torch.nn.attention import flex_attention as tfa

import ember
from ember.nn.attention import flex_attention as efa


def causal(b, h, q, k):
    return q >= k


def window(b, h, q, k):
    return q - k < 8


def documents(b, h, q, k):
    return (q // 16) == (k // 16)


def rel_bias(s, b, h, q, k):
    return s + (q - k) * 0.01 * (h + 1)


def softcap(s, b, h, q, k):
    return 5.0 * (s / 5.0).tanh()


def _qkv(shape=(2, 4, 64, 16), dtype=np.float32, hkv=None):
    rng = np.random.default_rng(0)
    kv = (shape[0], hkv or shape[1]) + shape[2:]
    return [rng.standard_normal(s).astype(dtype) for s in (shape, kv, kv)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("score_mod,mask_mod", [
    (None, None), (rel_bias, None), (softcap, None), (None, causal),
    (rel_bias, "causal&window"), (softcap, "docs|causal")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_like_torch(score_mod, mask_mod, dtype):
    arrays = _qkv(dtype=dtype)
    outs = {}
    for lib, fa in ((ember, efa), (torch, tfa)):
        q, k, v = (lib.tensor(a) for a in arrays)
        mm = {"causal&window": fa.and_masks(causal, window),
              "docs|causal": fa.or_masks(documents, causal)}.get(mask_mod, mask_mod)
        bm = fa.create_block_mask(mm, None, None, 64, 64, device="cpu") if mm else None
        o, lse = fa.flex_attention(q, k, v, score_mod=score_mod, block_mask=bm, return_lse=True)
        outs[lib.__name__] = (o.numpy(), lse.numpy())
    tol = 1e-5 if dtype == np.float32 else 1e-10
    for e, t in zip(outs["ember"], outs["torch"]):
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)


@pytest.mark.filterwarnings("ignore")
def test_gqa_scale_dead_rows_and_aux_like_torch():
    arrays = _qkv(hkv=2)
    res = {}
    for lib, fa in ((ember, efa), (torch, tfa)):
        q, k, v = (lib.tensor(a) for a in arrays)
        dead = fa.create_block_mask(lambda b, h, q_, k_: q_ > 2 * k_ + 100, None, None, 64, 64,
                                    device="cpu")
        o1 = fa.flex_attention(q, k, v, enable_gqa=True, scale=0.3)
        o2, lse2 = fa.flex_attention(q, k, v, block_mask=dead, enable_gqa=True, return_lse=True)
        o3, aux = fa.flex_attention(q, k, v, enable_gqa=True, return_aux=fa.AuxRequest(lse=True))
        res[lib.__name__] = [o1.numpy(), o2.numpy(), lse2.numpy(), o3.numpy(), aux.lse.numpy()]
        with pytest.raises(ValueError):
            fa.flex_attention(q, k, v)  # 4 query heads, 2 key heads, no enable_gqa
    for e, t in zip(res["ember"], res["torch"]):
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-5)
    assert (res["ember"][2] == -math.inf).all() and (res["ember"][1] == 0).all()


@pytest.mark.filterwarnings("ignore")
def test_block_mask_like_torch():
    for B, H, L, S in [(None, None, 256, 256), (2, None, 384, 256), (1, 2, 100, 300)]:
        e = efa.create_block_mask(causal, B, H, L, S)
        t = tfa.create_block_mask(causal, B, H, L, S, device="cpu")
        assert e.shape == t.shape and e.BLOCK_SIZE == t.BLOCK_SIZE
        if L % 128 == 0 and S % 128 == 0:  # torch's block view of partial blocks differs
            assert e.to_dense().tolist() == t.to_dense().tolist()
            assert e.sparsity() == pytest.approx(t.sparsity())
    assert efa.create_mask(causal, 1, 1, 4, 4).tolist() == \
        tfa.create_mask(causal, 1, 1, 4, 4, device="cpu").tolist()
    assert bool(efa.noop_mask(*[ember.tensor(0)] * 4))
    with pytest.raises(RuntimeError, match="callable"):
        efa.and_masks(causal, 3)
    with pytest.raises(ValueError, match="sequence lengths"):
        q = ember.zeros(1, 1, 8, 4)
        efa.flex_attention(q, q, q, block_mask=efa.create_block_mask(causal, None, None, 16, 16))


def test_gradient_finite_differences_and_sdpa():
    q, k, v = (ember.tensor(a, requires_grad=True) for a in _qkv((1, 2, 6, 3), np.float64))
    bm = efa.create_block_mask(causal, None, None, 6, 6)
    assert ember.autograd.gradcheck(
        lambda q, k, v: efa.flex_attention(q, k, v, score_mod=softcap, block_mask=bm), (q, k, v))
    # causal flex_attention's gradient equals torch's causal SDPA's (same math, other kernel)
    arrays = _qkv((2, 2, 16, 8))
    eq, ek, ev = (ember.tensor(a, requires_grad=True) for a in arrays)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in arrays)
    g = np.random.default_rng(1).standard_normal((2, 2, 16, 8)).astype(np.float32)
    efa.flex_attention(eq, ek, ev, block_mask=efa.create_block_mask(causal, None, None, 16, 16)) \
        .backward(ember.tensor(g))
    torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True) \
        .backward(torch.tensor(g))
    for e, t in ((eq, tq), (ek, tk), (ev, tv)):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)
    # a fully masked row: zeros out, no NaN in any gradient
    dead = efa.create_block_mask(lambda b, h, q_, k_: q_ >= k_ + 4, None, None, 16, 16)
    eq.grad = ek.grad = ev.grad = None
    efa.flex_attention(eq, ek, ev, block_mask=dead).sum().backward()
    assert all(np.isfinite(t.grad.numpy()).all() for t in (eq, ek, ev))


def test_bad_shapes():
    with pytest.raises(ValueError, match="4-d"):
        efa.flex_attention(ember.zeros(2, 3), ember.zeros(2, 3), ember.zeros(2, 3))
    with pytest.raises(ValueError, match="do not fit"):
        efa.flex_attention(ember.zeros(1, 1, 4, 8), ember.zeros(1, 1, 4, 6), ember.zeros(1, 1, 4, 6))
