"""Attention and Transformer layers (F.scaled_dot_product_attention, nn.MultiheadAttention,
nn.Transformer*, plus nn.GroupNorm / nn.RMSNorm) against torch: the same module built in both,
torch's state_dict loaded into ember, the same inputs -> the same outputs and the same
gradients of inputs and parameters; float64 gradchecks; masks; bad inputs."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from helpers import (assert_same, assert_same_param_grads, build_pair, check_grad, copy_state,
                     make_inputs, random_array, to_numpy)

RTOL, ATOL = 1e-4, 1e-5
FLOATS = ["float32", "float64"]
# torch warns the same when a bool key-padding mask meets a float attn_mask (tested below)
pytestmark = pytest.mark.filterwarnings("ignore:Support for mismatched:UserWarning")


def F(m):
    return TF if m is torch else ember.nn.functional


def arr(m, a):
    """A NumPy array (or None) as a tensor of library m."""
    return None if a is None else m.from_numpy(np.array(a, copy=True))


def run_modules(build, shapes, call, dtype="float32", train=True, seed=0, grad=True,
                rtol=RTOL, atol=ATOL):
    """build(lib) in both (torch's state copied into ember), inputs of `shapes` as leaves,
    out = call(module, lib, *inputs); compare outputs, then the grads of the inputs and of
    every parameter after backward of the first output with one random seed."""
    torch.manual_seed(seed)
    e_mod, t_mod = build_pair(build, dtype, train)
    es, ts = make_inputs(shapes, dtype, seed=seed, low=-2.0, high=2.0)
    es = [x.detach().requires_grad_(grad) for x in es]
    ts = [x.detach().requires_grad_(grad) for x in ts]
    t_out = call(t_mod, torch, *ts)
    e_out = call(e_mod, ember, *es)
    assert_same(e_out, t_out, rtol, atol)
    if not grad:
        return e_mod, t_mod
    t_first = t_out[0] if isinstance(t_out, tuple) else t_out
    e_first = e_out[0] if isinstance(e_out, tuple) else e_out
    g = random_array(tuple(t_first.shape), dtype, np.random.default_rng(seed + 5))
    t_first.backward(torch.from_numpy(np.array(g)))
    e_first.backward(ember.from_numpy(np.array(g)))
    for i, (e, t) in enumerate(zip(es, ts)):
        assert (e.grad is None) == (t.grad is None), f"input {i}"
        if t.grad is not None:
            assert_same(e.grad, t.grad, rtol, atol)
    assert_same_param_grads(e_mod, t_mod, rtol, atol)
    return e_mod, t_mod


# ---- scaled_dot_product_attention ------------------------------------------------------------
def _bool_mask(shape, seed=3):
    m = np.random.default_rng(seed).random(shape) < 0.7
    m[..., 0] = True  # every query keeps at least one key (no all-masked row here)
    return m


@pytest.mark.parametrize("shapes", [[(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)],
                                    [(4, 5), (6, 5), (6, 3)],
                                    [(2, 1, 4, 5), (3, 6, 5), (3, 6, 2)],
                                    [(1, 4, 4), (1, 4, 4), (1, 4, 4)]])
def test_sdpa_plain(shapes):
    check_grad(lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v), shapes,
               rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("kind", ["bool", "float", "bool_bcast", "float_full"])
def test_sdpa_masks(kind):
    shapes = [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)]
    mask = {"bool": _bool_mask((4, 6)), "bool_bcast": _bool_mask((2, 1, 4, 6)),
            "float": np.random.default_rng(4).normal(size=(4, 6)),
            "float_full": np.random.default_rng(4).normal(size=(2, 3, 4, 6))}[kind]

    def fn(m, q, k, v):
        am = arr(m, mask if mask.dtype == np.bool_ else mask.astype(str(q.dtype).split(".")[-1]))
        return F(m).scaled_dot_product_attention(q, k, v, attn_mask=am)
    check_grad(fn, shapes, rtol=RTOL, atol=ATOL)


def test_sdpa_learnable_float_mask_gets_its_gradient():
    """A float attn_mask that requires grad (a learned relative-position bias)."""
    check_grad(lambda m, q, k, v, b: F(m).scaled_dot_product_attention(q, k, v, attn_mask=b),
               [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), (3, 4, 6)], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("L,S", [(5, 5), (3, 6), (6, 3)])
def test_sdpa_causal_and_scale(L, S):
    shapes = [(2, 2, L, 4), (2, 2, S, 4), (2, 2, S, 4)]
    check_grad(lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v, is_causal=True),
               shapes, rtol=RTOL, atol=ATOL)
    check_grad(lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v, scale=0.3),
               shapes, rtol=RTOL, atol=ATOL)


def test_sdpa_causal_with_mask_refused():
    q = ember.randn(2, 4, 3)
    with pytest.raises(RuntimeError, match="attn_mask should not be set when is_causal"):
        F(ember).scaled_dot_product_attention(q, q, q, ember.ones(4, 4, dtype=ember.bool),
                                              is_causal=True)


def test_sdpa_fully_masked_row_is_zero():
    mask = _bool_mask((4, 6))
    mask[2] = False  # query 2 sees no key: torch returns zeros there (and finite grads)
    check_grad(lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v, arr(m, mask)),
               [(2, 4, 5), (2, 6, 5), (2, 6, 5)], rtol=RTOL, atol=ATOL)


def test_sdpa_gqa():
    check_grad(lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v, enable_gqa=True),
               [(2, 6, 4, 5), (2, 2, 3, 5), (2, 2, 3, 5)], rtol=RTOL, atol=ATOL)


def test_sdpa_non_contiguous():
    check_grad(lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v),
               [(2, 3, 4, 4), (2, 3, 4, 4), (2, 3, 4, 4)], layouts=["transposed", "sliced"],
               rtol=RTOL, atol=ATOL)


def test_sdpa_dropout():
    q = ember.randn(2, 4, 5)
    out = F(ember).scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert not np.any(to_numpy(out))
    ember.manual_seed(0)
    a = F(ember).scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert tuple(a.shape) == (2, 4, 5)
    assert not np.allclose(to_numpy(a), to_numpy(F(ember).scaled_dot_product_attention(q, q, q)))


def test_sdpa_gradcheck():
    es, _ = make_inputs([(1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 3)], "float64", seed=1)
    es = [x.requires_grad_(True) for x in es]
    fm = ember.from_numpy(np.random.default_rng(2).normal(size=(3, 4)))
    bm = ember.from_numpy(_bool_mask((3, 4)))
    sdpa = F(ember).scaled_dot_product_attention
    for kw in [{}, {"attn_mask": fm}, {"attn_mask": bm}, {"is_causal": True}]:
        assert ember.autograd.gradcheck(lambda q, k, v: sdpa(q, k, v, **kw), es,
                                        eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("args,match", [
    (((4,), (4,), (4,)), "at least 2"),
    (((2, 3, 4), (2, 5, 3), (2, 5, 4)), "embedding size"),
    (((2, 3, 4), (2, 5, 4), (2, 6, 4)), "sequence length"),
])
def test_sdpa_bad_shapes(args, match):
    q, k, v = (ember.randn(*s) for s in args)
    with pytest.raises(RuntimeError, match=match):
        F(ember).scaled_dot_product_attention(q, k, v)


def test_sdpa_bad_masks_and_dtypes():
    q = ember.randn(2, 3, 4)
    sdpa = F(ember).scaled_dot_product_attention
    with pytest.raises(RuntimeError, match="attn_mask"):
        sdpa(q, q, q, attn_mask=ember.ones(4, 3, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        sdpa(q, q, q, attn_mask=ember.ones(3, 3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        sdpa(q, q, q, attn_mask=ember.ones(3, 3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="same dtype"):
        sdpa(q, q, q.double())
    with pytest.raises(RuntimeError, match="heads"):
        sdpa(ember.randn(1, 3, 2, 4), ember.randn(1, 2, 2, 4), ember.randn(1, 2, 2, 4),
             enable_gqa=True)


# ---- MultiheadAttention ----------------------------------------------------------------------
def _mha(bias=True, kdim=None, vdim=None, batch_first=False, dropout=0.0):
    return lambda m: m.nn.MultiheadAttention(8, 2, dropout=dropout, bias=bias, kdim=kdim,
                                             vdim=vdim, batch_first=batch_first)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch_first,bias", [(False, True), (True, False)])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_self_attention(dtype, batch_first, bias, need_weights, average):
    run_modules(_mha(bias, batch_first=batch_first), [(3, 4, 8)],
                lambda mod, m, x: mod(x, x, x, need_weights=need_weights,
                                      average_attn_weights=average), dtype)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_cross_attention_kdim_vdim(batch_first, need_weights):
    shapes = [(3, 4, 8), (5, 4, 6), (5, 4, 7)] if not batch_first else \
        [(4, 3, 8), (4, 5, 6), (4, 5, 7)]
    e_mod, t_mod = run_modules(_mha(kdim=6, vdim=7, batch_first=batch_first), shapes,
                               lambda mod, m, q, k, v: mod(q, k, v, need_weights=need_weights))
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert "q_proj_weight" in e_mod.state_dict() and e_mod.in_proj_weight is None
    # key is value (encoder-decoder attention), same embed dim: the packed weight split
    kv_shape = (5, 4, 8) if not batch_first else (4, 5, 8)
    run_modules(_mha(batch_first=batch_first), [shapes[0], kv_shape],
                lambda mod, m, q, kv: mod(q, kv, kv, need_weights=need_weights))


def _masks(kind, dtype, L=3, S=5, N=4, H=2):
    rng = np.random.default_rng(11)
    np_dt = np.float32 if dtype == "float32" else np.float64
    kpm = rng.random((N, S)) < 0.3
    kpm[:, 0] = False
    am = rng.random((L, S)) < 0.3
    am[:, 0] = False
    return {"attn_bool": (None, am),
            "attn_float": (None, rng.normal(size=(L, S)).astype(np_dt)),
            "attn_3d": (None, rng.normal(size=(N * H, L, S)).astype(np_dt)),
            "kpm_bool": (kpm, None),
            "kpm_float": (np.where(kpm, -1e9, 0.0).astype(np_dt), None),
            "both": (kpm, am)}[kind]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("kind", ["attn_bool", "attn_float", "attn_3d", "kpm_bool", "kpm_float",
                                  "both"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks(dtype, kind, need_weights):
    kpm, am = _masks(kind, dtype)
    run_modules(_mha(), [(3, 4, 8), (5, 4, 8)],
                lambda mod, m, q, kv: mod(q, kv, kv, key_padding_mask=arr(m, kpm),
                                          attn_mask=arr(m, am), need_weights=need_weights),
                dtype)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("with_kpm", [True, False])
def test_mha_is_causal(need_weights, with_kpm):
    causal = torch.nn.Transformer.generate_square_subsequent_mask(5).numpy()
    kpm = _masks("kpm_bool", "float32", S=5)[0] if with_kpm else None
    run_modules(_mha(batch_first=True), [(4, 5, 8)],
                lambda mod, m, x: mod(x, x, x, attn_mask=arr(m, causal), is_causal=True,
                                      key_padding_mask=arr(m, kpm), need_weights=need_weights))


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_unbatched(need_weights):
    kpm = np.array([False, True, False, False, True])
    am = _masks("attn_bool", "float32")[1]
    for batch_first in (False, True):
        run_modules(_mha(batch_first=batch_first), [(3, 8), (5, 8)],
                    lambda mod, m, q, kv: mod(q, kv, kv, key_padding_mask=arr(m, kpm),
                                              attn_mask=arr(m, am), need_weights=need_weights))


def test_mha_eval_with_dropout_and_train_dropout():
    run_modules(_mha(dropout=0.3), [(3, 4, 8)], lambda mod, m, x: mod(x, x, x), train=False)
    mod = ember.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = ember.randn(3, 4, 8)
    out, w = mod(x, x, x)
    assert tuple(out.shape) == (3, 4, 8) and tuple(w.shape) == (4, 3, 3)


def test_mha_init_and_state_dict():
    e, t = ember.nn.MultiheadAttention(16, 4), torch.nn.MultiheadAttention(16, 4)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [p.shape for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]
    assert repr(e) == repr(t)
    bound = np.sqrt(6.0 / (16 + 48))  # xavier_uniform_ of (48, 16)
    w = to_numpy(e.in_proj_weight)
    assert np.abs(w).max() <= bound and w.std() > bound / 2
    assert not np.any(to_numpy(e.in_proj_bias)) and not np.any(to_numpy(e.out_proj.bias))
    assert (e.embed_dim, e.num_heads, e.head_dim, e.batch_first) == (16, 4, 4, False)
    e2, t2 = ember.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False), \
        torch.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False)
    assert list(e2.state_dict()) == list(t2.state_dict())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bias_kv,zero_attn", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("kind", ["none", "both"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_bias_kv_and_zero_attn(dtype, bias_kv, zero_attn, kind, need_weights):
    """add_bias_kv appends a learned key/value, add_zero_attn one of zeros; the masks widen."""
    kpm, am = _masks(kind, dtype) if kind != "none" else (None, None)
    e_mod, t_mod = run_modules(
        lambda m: m.nn.MultiheadAttention(8, 2, add_bias_kv=bias_kv, add_zero_attn=zero_attn),
        [(3, 4, 8), (5, 4, 8)],
        lambda mod, m, q, kv: mod(q, kv, kv, key_padding_mask=arr(m, kpm), attn_mask=arr(m, am),
                                  need_weights=need_weights), dtype)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    if bias_kv:
        assert tuple(e_mod.bias_k.shape) == (1, 1, 8) and float(e_mod.bias_k.abs().sum()) > 0


# F.multi_head_attention_forward: the function under nn.MultiheadAttention, called directly
def _mha_forward_args(m, rng, E=8, H=2, N=3, L=4, S=5, bias_kv=False):
    def t(*shape):
        return m.from_numpy(rng.standard_normal(shape))
    q, k, v = t(L, N, E), t(S, N, E), t(S, N, E)
    args = dict(embed_dim_to_check=E, num_heads=H, in_proj_weight=t(3 * E, E),
                in_proj_bias=t(3 * E), bias_k=t(1, 1, E) if bias_kv else None,
                bias_v=t(1, 1, E) if bias_kv else None, add_zero_attn=False, dropout_p=0.0,
                out_proj_weight=t(E, E), out_proj_bias=t(E))
    return q, k, v, args


@pytest.mark.parametrize("case", ["plain", "separate", "static", "bias_kv_zero", "unbatched",
                                  "no_weights_causal"])
def test_multi_head_attention_forward(case):
    outs, grads = [], []
    for m in (torch, ember):
        rng = np.random.default_rng(4)
        q, k, v, args = _mha_forward_args(m, rng, bias_kv=case == "bias_kv_zero")
        kw = {}
        if case == "separate":
            kw = dict(use_separate_proj_weight=True, q_proj_weight=args["in_proj_weight"][:8],
                      k_proj_weight=args["in_proj_weight"][8:16],
                      v_proj_weight=args["in_proj_weight"][16:])
        if case == "static":
            kw = dict(static_k=m.from_numpy(rng.standard_normal((6, 7, 4))),
                      static_v=m.from_numpy(rng.standard_normal((6, 7, 4))))
        if case == "bias_kv_zero":
            args["add_zero_attn"] = True
            kw = dict(key_padding_mask=m.from_numpy(np.array([[False] * 4 + [True]] * 3)))
        if case == "unbatched":
            q, k, v = q[:, 0], k[:, 0], v[:, 0]
        if case == "no_weights_causal":
            kv_len = 4
            k, v = k[:kv_len], v[:kv_len]
            kw = dict(need_weights=False, is_causal=True,
                      attn_mask=m.from_numpy(np.triu(np.full((4, 4), -np.inf), 1)))
        q.requires_grad_(True)
        args["in_proj_weight"].requires_grad_(True)
        out, w = F(m).multi_head_attention_forward(q, k, v, **args, **kw)
        out.sum().backward()
        outs.append((out, w))
        grads.append((q.grad, args["in_proj_weight"].grad))
    assert_same(outs[1], outs[0], 1e-9, 1e-10)
    assert_same(grads[1], grads[0], 1e-9, 1e-10)


def test_multi_head_attention_forward_gradcheck_and_errors():
    rng = np.random.default_rng(5)
    q, k, v, args = _mha_forward_args(ember, rng, bias_kv=True)
    args["add_zero_attn"] = True

    def fn(query, weight, bias_k):
        a = dict(args, in_proj_weight=weight, bias_k=bias_k)
        return ember.nn.functional.multi_head_attention_forward(query, k, v, **a)[0]
    inputs = [q.requires_grad_(), args["in_proj_weight"].requires_grad_(),
              args["bias_k"].requires_grad_()]
    assert ember.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    for m in (torch, ember):
        q, k, v, args = _mha_forward_args(m, np.random.default_rng(6))
        with pytest.raises(AssertionError, match="embedding dimension of 6"):
            F(m).multi_head_attention_forward(q, k, v, **dict(args, embed_dim_to_check=6))
        with pytest.raises(AssertionError, match="static_k"):
            F(m).multi_head_attention_forward(q, k, v, **args, static_k=m.zeros(5, 5, 4),
                                              static_v=m.zeros(6, 5, 4))
        with pytest.raises(AssertionError, match="bias cannot be added to static key"):
            F(m).multi_head_attention_forward(
                q, k, v, **dict(args, bias_k=m.zeros(1, 1, 8), bias_v=m.zeros(1, 1, 8)),
                static_k=m.zeros(6, 5, 4), static_v=m.zeros(6, 5, 4))


def test_mha_bad_arguments():
    with pytest.raises(AssertionError, match="divisible"):
        ember.nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="greater than 0"):
        ember.nn.MultiheadAttention(0, 2)
    mod = ember.nn.MultiheadAttention(8, 2)
    x = ember.randn(3, 4, 8)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        mod(x, x, x, attn_mask=ember.zeros(3, 4))
    with pytest.raises(RuntimeError, match="3D attn_mask"):
        mod(x, x, x, attn_mask=ember.zeros(4, 3, 3))
    with pytest.raises(AssertionError, match="key_padding_mask"):
        mod(x, x, x, key_padding_mask=ember.zeros(4, 3, 1, dtype=ember.bool))
    with pytest.raises(AssertionError, match="key_padded_mask"):
        mod(x, x, x, key_padding_mask=ember.zeros(4, 5, dtype=ember.bool))
    with pytest.raises(AssertionError, match="only bool and floating"):
        mod(x, x, x, attn_mask=ember.zeros(3, 3, dtype=ember.int64))
    with pytest.raises(AssertionError, match="4-D query"):
        mod(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0))
    with pytest.raises(AssertionError, match="embedding dimension"):
        y = ember.randn(3, 4, 6)
        mod(y, y, y)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        mod(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="does not match value"):
        mod(x, x, ember.randn(2, 4, 8))


def test_mha_mismatched_mask_types_warn_like_torch():
    mod = ember.nn.MultiheadAttention(8, 2)
    x = ember.randn(3, 2, 8)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        mod(x, x, x, key_padding_mask=ember.zeros(2, 3, dtype=ember.bool),
            attn_mask=ember.zeros(3, 3))


def test_mha_gradcheck():
    ember.manual_seed(0)
    mod = ember.nn.MultiheadAttention(4, 2, kdim=3).double()
    es, _ = make_inputs([(2, 2, 4), (3, 2, 3), (3, 2, 4)], "float64", seed=2)
    es = [x.requires_grad_(True) for x in es]
    kpm = ember.tensor([[False, True, False], [False, False, False]])
    assert ember.autograd.gradcheck(
        lambda q, k, v: mod(q, k, v, key_padding_mask=kpm)[0], es, eps=1e-6, atol=1e-5,
        rtol=1e-3)


# ---- Transformer layers ----------------------------------------------------------------------
def _enc_layer(m, **kw):
    kw = {"dim_feedforward": 12, "dropout": 0.0, **kw}
    return m.nn.TransformerEncoderLayer(8, 2, **kw)


def _dec_layer(m, **kw):
    kw = {"dim_feedforward": 12, "dropout": 0.0, **kw}
    return m.nn.TransformerDecoderLayer(8, 2, **kw)


def _act(name):
    """The activation argument for library m: a string, F's function, or a Module."""
    return {"relu": lambda m: "relu", "gelu": lambda m: "gelu",
            "F.gelu": lambda m: F(m).gelu, "tanh": lambda m: m.tanh,
            "GELU()": lambda m: m.nn.GELU()}[name]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("norm_first,batch_first,act", [
    (False, False, "relu"), (True, False, "F.gelu"), (False, True, "tanh"), (True, True, "GELU()")])
def test_encoder_layer(dtype, norm_first, batch_first, act):
    run_modules(lambda m: _enc_layer(m, norm_first=norm_first, batch_first=batch_first,
                                     activation=_act(act)(m)),
                [(3, 4, 8)], lambda mod, m, x: mod(x), dtype)


@pytest.mark.parametrize("kind", ["attn_bool", "attn_float", "kpm_bool", "both"])
def test_encoder_layer_masks(kind):
    kpm, am = _masks(kind, "float32", L=5, S=5, N=3)
    run_modules(lambda m: _enc_layer(m, batch_first=True), [(3, 5, 8)],
                lambda mod, m, x: mod(x, src_mask=arr(m, am), src_key_padding_mask=arr(m, kpm)))


def test_encoder_layer_unbatched_and_no_bias():
    run_modules(lambda m: _enc_layer(m, bias=False), [(5, 8)], lambda mod, m, x: mod(x))
    run_modules(lambda m: _enc_layer(m, layer_norm_eps=1e-3), [(5, 8)], lambda mod, m, x: mod(x))


def test_encoder_layer_eval_no_grad_matches_torch_fast_path():
    """torch takes its fused path in eval mode without grad (batch_first, even heads)."""
    e_mod, t_mod = run_modules(lambda m: _enc_layer(m, batch_first=True, dropout=0.1),
                               [(3, 5, 8)], lambda mod, m, x: mod(x), train=False, grad=False)
    x = np.random.default_rng(0).normal(size=(3, 5, 8)).astype(np.float32)
    with torch.no_grad(), ember.no_grad():
        assert_same(e_mod(arr(ember, x)), t_mod(arr(torch, x)), RTOL, ATOL)


@pytest.mark.parametrize("dtype,causal", [("float32", "none"), ("float64", "mask"),
                                          ("float32", "mask+flag")])
def test_encoder_stack(dtype, causal):
    def build(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.nn.TransformerEncoder(_enc_layer(m), 2, norm=m.nn.LayerNorm(8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5).numpy()
    mask = None if causal == "none" else mask
    kpm = _masks("kpm_bool", dtype, S=5, N=3)[0]
    flag = True if causal == "mask+flag" else None
    run_modules(build, [(5, 3, 8)],
                lambda mod, m, x: mod(x, mask=arr(m, mask), src_key_padding_mask=arr(m, kpm),
                                      is_causal=flag), dtype)
    if causal == "none":  # is_causal=True without a mask
        run_modules(build, [(5, 3, 8)], lambda mod, m, x: mod(x, mask=arr(m, mask)), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("norm_first,batch_first", [(False, False), (True, True)])
def test_decoder_layer(dtype, norm_first, batch_first):
    tgt, mem = ((4, 3, 8), (4, 6, 8)) if batch_first else ((3, 4, 8), (6, 4, 8))
    run_modules(lambda m: _dec_layer(m, norm_first=norm_first, batch_first=batch_first,
                                     activation="gelu"),
                [tgt, mem], lambda mod, m, t, mm: mod(t, mm), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("with_norm,masks", [(True, True), (False, False)])
def test_decoder_stack(dtype, with_norm, masks):
    """nn.TransformerDecoder: num_layers deep copies of the layer, then the optional norm."""
    def build(m):
        return m.nn.TransformerDecoder(_dec_layer(m), 2,
                                       norm=m.nn.LayerNorm(8) if with_norm else None)
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(3).numpy() if masks else None
    mkpm = _masks("kpm_bool", dtype, S=6, N=4)[0] if masks else None
    e_mod, t_mod = run_modules(build, [(3, 4, 8), (6, 4, 8)],
                               lambda mod, m, t, mm: mod(t, mm, tgt_mask=arr(m, tgt_mask),
                                                         memory_key_padding_mask=arr(m, mkpm),
                                                         tgt_is_causal=masks or None), dtype)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert e_mod.num_layers == 2 and e_mod.layers[0] is not e_mod.layers[1]
    run_modules(build, [(3, 8), (6, 8)], lambda mod, m, t, mm: mod(t, mm))  # unbatched
    for m in (torch, ember):
        with pytest.raises((RuntimeError, ValueError)):  # torch: RuntimeError; ember: linear's
            build(m)(m.ones(3, 4, 8), m.ones(6, 4, 5))  # memory of another width


def test_decoder_layer_masks_and_unbatched():
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(3).numpy()
    mem_mask, _ = None, None
    _, mem_am = _masks("attn_bool", "float32", L=3, S=6)
    tkpm = _masks("kpm_bool", "float32", S=3, N=4)[0]
    mkpm = _masks("kpm_bool", "float32", S=6, N=4)[0]
    run_modules(_dec_layer, [(3, 4, 8), (6, 4, 8)],
                lambda mod, m, t, mm: mod(t, mm, tgt_mask=arr(m, tgt_mask),
                                          memory_mask=arr(m, mem_am),
                                          tgt_key_padding_mask=arr(m, tkpm),
                                          memory_key_padding_mask=arr(m, mkpm),
                                          tgt_is_causal=True))
    run_modules(_dec_layer, [(3, 8), (6, 8)],
                lambda mod, m, t, mm: mod(t, mm, tgt_mask=arr(m, tgt_mask)))
    assert mem_mask is None


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(dtype, batch_first):
    def build(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2,
                                    num_decoder_layers=2, dim_feedforward=12, dropout=0.0,
                                    batch_first=batch_first)
    src, tgt = ((3, 5, 8), (3, 4, 8)) if batch_first else ((5, 3, 8), (4, 3, 8))
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4).numpy()
    skpm = _masks("kpm_bool", dtype, S=5, N=3)[0]
    run_modules(build, [src, tgt],
                lambda mod, m, s, t: mod(s, t, tgt_mask=arr(m, tgt_mask),
                                         src_key_padding_mask=arr(m, skpm),
                                         memory_key_padding_mask=arr(m, skpm)), dtype)


def test_transformer_unbatched_eval_dropout():
    def build(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.nn.Transformer(8, 2, 1, 1, 12, dropout=0.2, activation="gelu",
                                    norm_first=True)
    run_modules(build, [(5, 8), (4, 8)], lambda mod, m, s, t: mod(s, t), train=False)


def test_transformer_encoder_adam_steps_like_torch():
    """A tiny causal language model: the same losses as torch over a few Adam steps."""
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 7, size=(6, 3)).astype(np.int64)
    models, losses = {}, {}
    for m in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            models[m] = m.nn.Sequential(m.nn.Embedding(7, 8), m.nn.TransformerEncoder(
                _enc_layer(m, norm_first=True), 2), m.nn.Linear(8, 7))
    copy_state(models[ember], models[torch])
    for m, model in models.items():
        opt = m.optim.Adam(model.parameters(), lr=1e-2)
        mask = m.nn.Transformer.generate_square_subsequent_mask(5)
        x, y = arr(m, tokens[:-1]), arr(m, tokens[1:])
        losses[m] = []
        for _ in range(4):
            h = model[1](model[0](x), mask=mask, is_causal=True)
            loss = F(m).cross_entropy(model[2](h).reshape(-1, 7), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses[m].append(loss.item())
    np.testing.assert_allclose(losses[ember], losses[torch], rtol=1e-4)


def test_transformer_init_and_state_dict():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = ember.nn.Transformer(16, 4, 2, 1, 32)
        t = torch.nn.Transformer(16, 4, 2, 1, 32)
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)
    w = to_numpy(e.encoder.layers[0].linear1.weight)
    bound = np.sqrt(6.0 / (16 + 32))  # every matrix re-initialised with xavier_uniform_
    assert np.abs(w).max() <= bound and w.std() > bound / 2
    # the layers are independent copies
    a, b = e.encoder.layers[0].linear1.weight, e.encoder.layers[1].linear1.weight
    assert not np.allclose(to_numpy(a), to_numpy(b))
    with ember.no_grad():
        a.fill_(1.0)
    assert not np.allclose(to_numpy(b), 1.0)


def test_generate_square_subsequent_mask():
    for sz in (1, 4):
        assert_same(ember.nn.Transformer.generate_square_subsequent_mask(sz),
                    torch.nn.Transformer.generate_square_subsequent_mask(sz))
    assert_same(ember.nn.Transformer.generate_square_subsequent_mask(3, dtype=ember.float64),
                torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64))


def test_encoder_nested_tensor_warning_like_torch():
    for m in (torch, ember):
        with pytest.warns(UserWarning, match="batch_first was not True"):
            enc = m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(8, 2), 2)
        assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc = ember.nn.TransformerEncoder(ember.nn.TransformerEncoderLayer(8, 2, batch_first=True),
                                          2, enable_nested_tensor=False, mask_check=False)


@pytest.mark.parametrize("kpm", [[[0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1]],  # left-aligned
                                 [[1, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1]],  # not
                                 [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1]]])  # all pad
@pytest.mark.parametrize("grad", [False, True])
def test_encoder_nested_path_like_torch(kpm, grad):
    """torch's TransformerEncoder in eval under no_grad, batch_first, with a left-aligned
    src_key_padding_mask, runs its layers on a nested tensor and pads the result with zeros
    before the final norm; ember gives the same output (with grad enabled, or a mask that is not
    left-aligned, both compute every position)."""
    x = np.random.default_rng(0).standard_normal((3, 5, 8)).astype("float32")
    kpm = np.array(kpm, dtype=bool)
    outs, state = [], None
    for m in (torch, ember):  # ember gets torch's weights (no seed: the global stream is left)
        layer = m.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
        enc = m.nn.TransformerEncoder(layer, 2, norm=m.nn.LayerNorm(8)).eval()
        if state is None:
            with torch.no_grad():
                enc.norm.bias.uniform_(-1, 1)  # the padded rows become the norm of zeros
            state = {k: v.numpy() for k, v in enc.state_dict().items()}
        else:
            enc.load_state_dict({k: m.tensor(v) for k, v in state.items()})
        with (m.enable_grad() if grad else m.no_grad()):
            outs.append(enc(m.tensor(x), src_key_padding_mask=m.tensor(kpm)).detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=2e-6)


def test_transformer_bad_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = ember.nn.Transformer(8, 2, 1, 1, 12)
    with pytest.raises(RuntimeError, match="batch number"):
        tr(ember.randn(5, 3, 8), ember.randn(4, 2, 8))
    with pytest.raises(RuntimeError, match="feature number"):
        tr(ember.randn(5, 3, 6), ember.randn(4, 3, 6))
    with pytest.raises(RuntimeError, match="relu/gelu"):
        ember.nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(AssertionError, match="divisible"):
        ember.nn.TransformerEncoderLayer(8, 3)
    layer = ember.nn.TransformerEncoderLayer(8, 2)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        layer(ember.randn(5, 3, 8), src_mask=ember.zeros(4, 4))


# ---- GroupNorm, RMSNorm ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,groups", [((3, 6), 2), ((2, 6, 5), 2), ((2, 6, 3, 2), 6),
                                          ((2, 6, 3, 2), 1), ((1, 4, 3), 2)])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, True)])
def test_group_norm(dtype, shape, groups, affine, bias):
    run_modules(lambda m: m.nn.GroupNorm(groups, shape[1], affine=affine, bias=bias),
                [shape], lambda mod, m, x: mod(x), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,ns", [((3, 5), 5), ((2, 3, 4), (3, 4)), ((4,), [4]),
                                      ((2, 3, 4), 4)])
@pytest.mark.parametrize("eps,affine", [(None, True), (1e-3, False)])
def test_rms_norm(dtype, shape, ns, eps, affine):
    run_modules(lambda m: m.nn.RMSNorm(ns, eps=eps, elementwise_affine=affine), [shape],
                lambda mod, m, x: mod(x), dtype)


def test_norms_functional_non_contiguous_and_repr():
    w = np.random.default_rng(0).normal(size=(4,)).astype(np.float32)
    check_grad(lambda m, x: F(m).group_norm(x, 2, arr(m, w).to(x.dtype), arr(m, -w).to(x.dtype)),
               [(3, 4, 5)], layouts=["transposed", "sliced"], rtol=RTOL, atol=ATOL)
    check_grad(lambda m, x: F(m).rms_norm(x, [4], arr(m, w).to(x.dtype)), [(5, 4)],
               layouts=["transposed", "sliced"], rtol=RTOL, atol=ATOL)
    for args in [(2, 4), (1, 6, 1e-3, False)]:
        assert repr(ember.nn.GroupNorm(*args)) == repr(torch.nn.GroupNorm(*args))
    assert repr(ember.nn.RMSNorm([3, 4], 1e-6)) == repr(torch.nn.RMSNorm([3, 4], 1e-6))


def test_norms_gradcheck():
    es, _ = make_inputs([(2, 4, 3), (4,), (4,)], "float64", seed=3)
    es = [x.requires_grad_(True) for x in es]
    assert ember.autograd.gradcheck(lambda x, w, b: F(ember).group_norm(x, 2, w, b), es,
                                    eps=1e-6, atol=1e-5, rtol=1e-3)
    es, _ = make_inputs([(3, 4), (4,)], "float64", seed=4)
    es = [x.requires_grad_(True) for x in es]
    assert ember.autograd.gradcheck(lambda x, w: F(ember).rms_norm(x, (4,), w, 1e-5), es,
                                    eps=1e-6, atol=1e-5, rtol=1e-3)


def test_norms_bad_inputs():
    with pytest.raises(ValueError, match="divisible by num_groups"):
        ember.nn.GroupNorm(4, 6)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F(ember).group_norm(ember.randn(2, 6, 3), 4)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F(ember).group_norm(ember.randn(6), 3)
    with pytest.raises(ValueError, match="more than 1 value"):
        F(ember).group_norm(ember.randn(1, 4), 4)
    with pytest.raises(RuntimeError, match="weight"):
        F(ember).group_norm(ember.randn(2, 4, 3), 2, ember.ones(3))
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F(ember).rms_norm(ember.randn(2, 4, 3), [4])
    with pytest.raises(RuntimeError, match="weight"):
        F(ember).rms_norm(ember.randn(2, 4), [4], ember.ones(3))


def test_mha_bad_inputs_raise_torchs_exception_types():
    cases = [
        lambda m: ((3, 8), (5, 4, 8), (5, 4, 8), {}),  # unbatched query, batched key
        lambda m: ((3, 8), (5, 8), (5, 8), {"attn_mask": m.zeros(3, 3, 5)}),  # wrong 3-D
        lambda m: ((3, 8), (5, 8), (5, 8), {"key_padding_mask": m.zeros(1, 5)}),
        lambda m: ((3, 4, 8), (5, 4, 8), (5, 4, 8), {"attn_mask": m.zeros(1, 3, 5, 1)}),
        lambda m: ((3, 4, 8), (5, 4, 8), (5, 4, 8), {"attn_mask": m.zeros(3, 5, 2)}),
        lambda m: ((3, 4, 8), (5, 4, 8), (5, 4, 8), {"key_padding_mask": m.zeros(4, 6)}),
        lambda m: ((3, 4, 8), (5, 4, 8), (6, 4, 8), {}),
    ]
    for i, case in enumerate(cases):
        kinds = []
        for m in (torch, ember):
            q, k, v, kw = case(m)
            mod = m.nn.MultiheadAttention(8, 2)
            with pytest.raises(Exception) as info:
                mod(m.randn(*q), m.randn(*k), m.randn(*v), **kw)
            kinds.append(type(info.value))
        assert kinds[0] is kinds[1], f"case {i}: torch {kinds[0]}, ember {kinds[1]}"
