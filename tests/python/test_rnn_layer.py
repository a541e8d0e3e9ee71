"""ember.rnn_layer, the one op behind nn.LSTM/GRU/RNN and their cells (src/ops/rnn.cpp): the
fused float32/float64 kernels against torch at word_language_model-like sizes, packed and
reversed sequences with projections, second derivatives (the composite backward under
create_graph), the composite path of the 16-bit dtypes, saved-tensor checks and bad inputs.
test_rnn.py covers the modules' configurations."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from helpers import assert_same
from test_rnn import build as rnn_build, flat, leaf_pair as pair

MODULES = {"LSTM": {}, "GRU": {}, "RNN_TANH": {"nonlinearity": "tanh"},
           "RNN_RELU": {"nonlinearity": "relu"}}


def build(mode, dtype, *args, **kw):
    cls = "RNN" if mode.startswith("RNN") else mode
    return rnn_build(cls, dtype, *args, **{**MODULES[mode], **kw})


def run_both(e_mod, t_mod, x_arr, rtol, atol, seed=0):
    """Forward and every gradient (input, parameters) for a random output gradient."""
    ex, tx = pair(x_arr)
    e_out, t_out = flat(e_mod(ex)), flat(t_mod(tx))
    for e, t in zip(e_out, t_out):
        assert_same(e, t, rtol=rtol, atol=atol)
    rng = np.random.default_rng(seed)
    seeds = [rng.standard_normal(tuple(t.shape)).astype(x_arr.dtype) for t in t_out]
    torch.autograd.backward(t_out, [torch.from_numpy(s) for s in seeds])
    ember.autograd.backward(e_out, [ember.from_numpy(s) for s in seeds])
    assert_same(ex.grad, tx.grad, rtol=rtol, atol=atol)
    t_params = dict(t_mod.named_parameters())
    for name, p in e_mod.named_parameters():
        assert_same(p.grad, t_params[name].grad, rtol=rtol, atol=atol)


@pytest.mark.parametrize("mode", list(MODULES))
def test_language_model_sizes_float32(mode):
    # word_language_model's shapes, smaller: 2 layers, hidden 48, 12 steps, batch 5
    e_mod, t_mod = build(mode, "float32", 40, 48, num_layers=2)
    x = np.random.default_rng(1).uniform(-1, 1, (12, 5, 40)).astype(np.float32)
    run_both(e_mod, t_mod, x, rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("mode", list(MODULES))
@pytest.mark.parametrize("batch_first", [False, True])
def test_packed_bidirectional(mode, batch_first):
    kw = {"proj_size": 3} if mode == "LSTM" else {}
    e_mod, t_mod = build(mode, "float64", 3, 5, num_layers=2, bidirectional=True, **kw)
    lengths = [4, 6, 1, 3, 6]
    shape = (5, 6, 3) if batch_first else (6, 5, 3)
    arr = np.random.default_rng(2).standard_normal(shape)
    ex, tx = pair(arr)
    outs = []
    for lib, m, x in ((ember, e_mod, ex), (torch, t_mod, tx)):
        u = lib.nn.utils.rnn
        packed = u.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=False)
        out, hidden = m(packed)
        padded, _ = u.pad_packed_sequence(out, batch_first=batch_first)
        outs.append(flat((padded, hidden)))
    for e, t in zip(*outs):
        assert_same(e, t, rtol=1e-9, atol=1e-11)
    seeds = [np.random.default_rng(3).standard_normal(tuple(t.shape)) for t in outs[1]]
    torch.autograd.backward(outs[1], [torch.from_numpy(s) for s in seeds])
    ember.autograd.backward(outs[0], [ember.from_numpy(s) for s in seeds])
    assert_same(ex.grad, tx.grad, rtol=1e-9, atol=1e-11)
    t_params = dict(t_mod.named_parameters())
    for name, p in e_mod.named_parameters():
        assert_same(p.grad, t_params[name].grad, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("mode", list(MODULES))
def test_second_derivatives_match_torch(mode):
    """Under create_graph the backward differentiates the composite of ember ops."""
    kw = {"proj_size": 2} if mode == "LSTM" else {}
    e_mod, t_mod = build(mode, "float64", 3, 4, bidirectional=True, **kw)
    arr = np.random.default_rng(4).standard_normal((5, 2, 3))
    ex, tx = pair(arr)
    grads = []
    for lib, m, x in ((ember, e_mod, ex), (torch, t_mod, tx)):
        out = flat(m(x))
        loss = sum((o * o).sum() for o in out)
        (gx,) = lib.autograd.grad(loss, x, create_graph=True)
        (gx * gx).sum().backward()
        grads.append([x.grad] + [p.grad for p in m.parameters()])
    for e, t in zip(*grads):
        assert_same(e, t, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("mode", list(MODULES))
def test_gradcheck_and_gradgradcheck_of_the_op(mode):
    ember.manual_seed(0)
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    f64 = dict(dtype=ember.float64)
    xp = ember.randn(3, 2, g * 2, **f64).requires_grad_(True)
    h0 = ember.randn(2, 2, **f64).requires_grad_(True)
    w = ember.randn(g * 2, 2, **f64).requires_grad_(True)
    if mode == "LSTM":
        c0 = ember.randn(2, 2, **f64).requires_grad_(True)
        fn = lambda xp, h0, c0, w: ember.rnn_layer(mode, xp, h0, c0, w, reverse=True)  # noqa
        args = [xp, h0, c0, w]
    elif mode == "GRU":
        b = ember.randn(g * 2, **f64).requires_grad_(True)
        fn = lambda xp, h0, w, b: ember.rnn_layer(mode, xp, h0, None, w, b)  # noqa
        args = [xp, h0, w, b]
    else:
        if mode == "RNN_RELU":  # keep away from the kink at 0
            xp = (xp.detach() + 3).requires_grad_(True)
        fn = lambda xp, h0, w: ember.rnn_layer(mode, xp, h0, None, w)  # noqa
        args = [xp, h0, w]
    assert ember.autograd.gradcheck(fn, args)
    assert ember.autograd.gradgradcheck(fn, args)


def test_op_packed_rows_and_final_states():
    """Packed rows: a row's final state is that of its last step; reversed, rows start late."""
    ember.manual_seed(1)
    xp = ember.randn(6, 8, dtype=ember.float64)  # batch sizes 3, 2, 1
    h0, c0 = ember.randn(3, 2, dtype=ember.float64), ember.randn(3, 2, dtype=ember.float64)
    w = ember.randn(8, 2, dtype=ember.float64)
    for reverse in (False, True):
        out, h_n, c_n = ember.rnn_layer("LSTM", xp, h0, c0, w, None, None, [3, 2, 1], reverse)
        # the same sequences one by one, unpacked
        rows = {0: [0, 3, 5], 1: [1, 4], 2: [2]}
        for b, idx in rows.items():
            seq = xp[idx].unsqueeze(1)
            o, h, c = ember.rnn_layer("LSTM", seq, h0[b:b + 1], c0[b:b + 1], w, reverse=reverse)
            np.testing.assert_allclose(out[idx].numpy(), o[:, 0].numpy(), rtol=1e-12)
            np.testing.assert_allclose(h_n[b].numpy(), h[0].numpy(), rtol=1e-12)
            np.testing.assert_allclose(c_n[b].numpy(), c[0].numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_half_dtypes_take_the_composite(mode, dtype):
    e32, _ = build(mode, "float32", 3, 4)
    e16 = getattr(nn, mode)(3, 4).to(getattr(ember, dtype))
    e16.load_state_dict({k: v.to(getattr(ember, dtype)) for k, v in e32.state_dict().items()})
    x = ember.randn(5, 2, 3)
    x32, x16 = x.clone().requires_grad_(True), x.to(getattr(ember, dtype)).requires_grad_(True)
    out32, out16 = e32(x32)[0], e16(x16)[0]
    assert out16.dtype == getattr(ember, dtype)
    np.testing.assert_allclose(out16.float().detach().numpy(), out32.detach().numpy(), atol=3e-2)
    out32.sum().backward()
    out16.sum().backward()
    assert x16.grad.dtype == getattr(ember, dtype)
    np.testing.assert_allclose(x16.grad.float().numpy(), x32.grad.numpy(), atol=6e-2)


def test_saved_weight_modified_in_place_raises():
    rnn = nn.LSTM(3, 4)
    out, _ = rnn(ember.randn(4, 2, 3))
    with ember.no_grad():
        rnn.weight_hh_l0.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_retain_graph_and_released_graph():
    rnn = nn.GRU(3, 4)
    x = ember.randn(4, 2, 3, requires_grad=True)
    out, h = rnn(x)
    out.sum().backward(retain_graph=True)
    first = x.grad.clone()
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="second time"):
        out.sum().backward()


def test_non_contiguous_states_and_no_grad():
    ember.manual_seed(2)
    xp = ember.randn(3, 2, 8)
    h0 = ember.randn(2, 2).t()  # a transposed view
    c0 = ember.randn(4, 2)[::2]  # a strided view
    w = ember.randn(8, 2)
    with ember.no_grad():
        got = ember.rnn_layer("LSTM", xp, h0, c0, w)
    want = ember.rnn_layer("LSTM", xp, h0.contiguous(), c0.contiguous(), w)
    for g, e in zip(got, want):
        assert g.grad_fn is None
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_bad_inputs():
    f = ember.float32
    xp, h0, c0, w = ember.zeros(2, 3, 8), ember.zeros(3, 2), ember.zeros(3, 2), ember.zeros(8, 2)
    with pytest.raises(ValueError, match="unknown mode 'LSMT'"):
        ember.rnn_layer("LSMT", xp, h0, c0, w)
    with pytest.raises(ValueError, match="LSTM needs c0"):
        ember.rnn_layer("LSTM", xp, h0, None, w)
    with pytest.raises(ValueError, match="GRU takes no c0"):
        ember.rnn_layer("GRU", ember.zeros(2, 3, 6), h0, c0, ember.zeros(6, 2))
    with pytest.raises(ValueError, match="b_hh folded into xp"):
        ember.rnn_layer("LSTM", xp, h0, c0, w, ember.zeros(8))
    with pytest.raises(ValueError, match=r"w_hh \(8, 3\) should be \(8, 2\)"):
        ember.rnn_layer("LSTM", xp, h0, c0, ember.zeros(8, 3))
    with pytest.raises(ValueError, match=r"expected xp \(steps, 3, 8\)"):
        ember.rnn_layer("LSTM", ember.zeros(2, 4, 8), h0, c0, w)
    with pytest.raises(TypeError, match="xp's dtype float32, got float64"):
        ember.rnn_layer("LSTM", xp, h0.double(), c0, w)
    with pytest.raises(TypeError, match="floating dtype"):
        ember.rnn_layer("RNN_TANH", ember.zeros(2, 3, 2, dtype=ember.int64),
                        ember.zeros(3, 2, dtype=ember.int64), None,
                        ember.zeros(2, 2, dtype=ember.int64))
    with pytest.raises(ValueError, match="non-increasing"):
        ember.rnn_layer("LSTM", ember.zeros(5, 8, dtype=f), h0, c0, w, None, None, [2, 3])
    with pytest.raises(ValueError, match="sum to xp's 5 rows"):
        ember.rnn_layer("LSTM", ember.zeros(5, 8, dtype=f), h0, c0, w, None, None, [3, 1])
    with pytest.raises(ValueError, match="no projection w_hr"):
        ember.rnn_layer("LSTM", xp, ember.zeros(3, 1), c0, ember.zeros(8, 1))
    with pytest.raises(ValueError, match="at least one step"):
        ember.rnn_layer("LSTM", ember.zeros(0, 3, 8), h0, c0, w)
    # nothing was written into the arguments
    assert not h0.any() and not c0.any()


@pytest.mark.parametrize("mode", list(MODULES))
def test_autocast_dtypes_as_torch(mode):
    """CPU autocast: LSTM (torch: mkldnn_rnn_layer) and RNN run in bfloat16, GRU (torch: a
    composite whose last add promotes) in float32; gradients reach float32 parameters."""
    e_mod, t_mod = build(mode, "float32", 3, 4)
    x = np.random.default_rng(5).standard_normal((5, 2, 3)).astype(np.float32)
    ex, tx = pair(x)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        e_out = flat(e_mod(ex))
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            t_out = flat(t_mod(tx))
    except RuntimeError as err:
        # torch's bfloat16 LSTM is oneDNN's, which has no kernel on CPUs without AVX-512
        # (this AMD EPYC, AVX2): the oracle is then torch's float32 LSTM rounded to the
        # bfloat16 its autocast gives on CPUs that have the kernel
        if "primitive descriptor" not in str(err) or mode != "LSTM":
            raise
        t_out = [t.to(torch.bfloat16) for t in flat(t_mod(tx))]
    for e, t in zip(e_out, t_out):
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(e.float().detach().numpy(), t.float().detach().numpy(),
                                   atol=5e-2)
    e_out[0].float().sum().backward()
    t_out[0].float().sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), atol=1e-1)
    assert e_mod.weight_hh_l0.grad.dtype == ember.float32
