"""torch's ATen-level recurrent functions (python/ember/_rnn_functions.py): torch.lstm, gru,
rnn_tanh, rnn_relu over flat weight lists (layers, directions, biases, projections, batch_first,
packed data) and the cells lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell, against torch 2.13:
outputs, final states and the gradients of input, states and every weight; bad inputs."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _weights(mode, input_size, hidden, layers, dirs, bias, proj, rng):
    """Flat params in torch's order, as float64 arrays."""
    out = []
    real = proj or hidden
    for layer in range(layers):
        for _ in range(dirs):
            isz = input_size if layer == 0 else real * dirs
            g = GATES[mode] * hidden
            out += [rng.uniform(-0.5, 0.5, (g, isz)), rng.uniform(-0.5, 0.5, (g, real))]
            if bias:
                out += [rng.uniform(-0.5, 0.5, (g,)), rng.uniform(-0.5, 0.5, (g,))]
            if proj:
                out += [rng.uniform(-0.5, 0.5, (proj, hidden))]
    return out


def _both(arrays, grad=True):
    e = [ember.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    t = [torch.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    return e, t


def _check_grads(e_out, t_out, e_leaves, t_leaves, rng):
    seeds = [rng.standard_normal(tuple(t.shape)) for t in t_out]
    torch.autograd.backward(list(t_out), [torch.from_numpy(s) for s in seeds])
    ember.autograd.backward(list(e_out), [ember.from_numpy(s) for s in seeds])
    for i, (e, t) in enumerate(zip(e_leaves, t_leaves)):
        assert e.grad is not None, f"leaf {i}: no gradient"
        assert_same(e.grad, t.grad, rtol=1e-9, atol=1e-10)


CASES = [  # mode, layers, bidirectional, bias, batch_first, proj
    ("lstm", 1, False, True, False, 0), ("lstm", 2, True, True, True, 0),
    ("lstm", 2, False, False, False, 3), ("lstm", 1, True, True, False, 2),
    ("gru", 1, False, True, False, 0), ("gru", 2, True, False, True, 0),
    ("rnn_tanh", 2, False, True, False, 0), ("rnn_relu", 1, True, True, True, 0),
]


@pytest.mark.parametrize("mode,layers,bidir,bias,batch_first,proj", CASES)
def test_network_matches_torch(mode, layers, bidir, bias, batch_first, proj):
    rng = np.random.default_rng(layers * 10 + bidir)
    T, B, I, H = 5, 3, 4, 6
    dirs = 2 if bidir else 1
    x = rng.standard_normal((B, T, I) if batch_first else (T, B, I))
    h0 = rng.standard_normal((layers * dirs, B, proj or H))
    states = [h0] + ([rng.standard_normal((layers * dirs, B, H))] if mode == "lstm" else [])
    params = _weights(mode, I, H, layers, dirs, bias, proj, rng)
    (ex, *e_rest), (tx, *t_rest) = _both([x] + states + params)
    e_states, e_params = e_rest[:len(states)], e_rest[len(states):]
    t_states, t_params = t_rest[:len(states)], t_rest[len(states):]
    args = (bias, layers, 0.0, True, bidir, batch_first)
    e_hx = tuple(e_states) if mode == "lstm" else e_states[0]
    t_hx = tuple(t_states) if mode == "lstm" else t_states[0]
    e_out = getattr(ember, mode)(ex, e_hx, e_params, *args)
    t_out = getattr(torch, mode)(tx, t_hx, t_params, *args)
    assert isinstance(e_out, tuple) and len(e_out) == len(t_out)
    assert_same(e_out, tuple(t_out), rtol=1e-9, atol=1e-10)
    _check_grads(e_out, t_out, [ex] + e_rest, [tx] + t_rest, rng)


def test_network_is_what_nn_modules_run():
    torch.manual_seed(0)
    t_mod = torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    x = torch.randn(4, 2, 3)
    h = (torch.zeros(4, 2, 5), torch.zeros(4, 2, 5))
    out, hn, cn = torch.lstm(x, h, t_mod._flat_weights, True, 2, 0.0, False, True, False)
    e_params = [ember.from_numpy(p.detach().numpy().copy()) for p in t_mod._flat_weights]
    e = ember.lstm(ember.from_numpy(x.numpy().copy()), (ember.zeros(4, 2, 5), ember.zeros(4, 2, 5)),
                   e_params, True, 2, 0.0, False, True, False)
    assert_same(e, (out, hn, cn), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
def test_network_packed(mode):
    rng = np.random.default_rng(7)
    I, H = 3, 4
    lengths = [4, 3, 1]
    seqs = [rng.standard_normal((n, I)) for n in lengths]
    packed = torch.nn.utils.rnn.pack_sequence([torch.from_numpy(s) for s in seqs])
    data, batch_sizes = packed.data.numpy(), packed.batch_sizes
    h0 = rng.standard_normal((2, 3, H))
    states = [h0] + ([rng.standard_normal((2, 3, H))] if mode == "lstm" else [])
    params = _weights(mode, I, H, 1, 2, True, 0, rng)
    (ed, *e_rest), (td, *t_rest) = _both([data] + states + params)
    ns = len(states)
    e_hx = tuple(e_rest[:ns]) if mode == "lstm" else e_rest[0]
    t_hx = tuple(t_rest[:ns]) if mode == "lstm" else t_rest[0]
    e_bs = ember.from_numpy(batch_sizes.numpy().copy())
    e_out = getattr(ember, mode)(ed, e_bs, e_hx, e_rest[ns:], True, 1, 0.0, True, True)
    t_out = getattr(torch, mode)(td, batch_sizes, t_hx, t_rest[ns:], True, 1, 0.0, True, True)
    assert_same(e_out, tuple(t_out), rtol=1e-9, atol=1e-10)
    _check_grads(e_out, t_out, [ed] + e_rest, [td] + t_rest, rng)


def test_network_dropout_between_layers():
    rng = np.random.default_rng(1)
    params = _weights("gru", 3, 4, 2, 1, True, 0, rng)
    e_params = [ember.from_numpy(p) for p in params]
    x, h = ember.randn(5, 2, 3, dtype=ember.float64), ember.zeros(2, 2, 4, dtype=ember.float64)
    base = ember.gru(x, h, e_params, True, 2, 0.0, True, False, False)[0]
    # eval (train=False) ignores dropout; training with p=1 zeroes the second layer's input
    assert np.allclose(ember.gru(x, h, e_params, True, 2, 1.0, False, False, False)[0].numpy(),
                       base.numpy())
    dropped = ember.gru(x, h, e_params, True, 2, 1.0, True, False, False)[0]
    zero_in = ember.gru(ember.zeros(5, 2, 4, dtype=ember.float64), h[1:],
                        e_params[4:], True, 1, 0.0, True, False, False)[0]
    assert np.allclose(dropped.numpy(), zero_in.numpy())


@pytest.mark.parametrize("mode,gates", [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                                        ("rnn_relu_cell", 1)])
@pytest.mark.parametrize("biases", ["both", "none", "ih", "hh"])
def test_cells(mode, gates, biases):
    rng = np.random.default_rng(gates)
    B, I, H = 3, 4, 5
    arrays = [rng.standard_normal((B, I)), rng.standard_normal((B, H))]
    if mode == "lstm_cell":
        arrays.append(rng.standard_normal((B, H)))
    arrays += [rng.uniform(-0.5, 0.5, (gates * H, I)), rng.uniform(-0.5, 0.5, (gates * H, H)),
               rng.uniform(-0.5, 0.5, (gates * H,)), rng.uniform(-0.5, 0.5, (gates * H,))]
    e, t = _both(arrays)

    def call(m, xs):
        if mode == "lstm_cell":
            x, h, c, w_ih, w_hh, b_ih, b_hh = xs
            hx = (h, c)
        else:
            x, h, w_ih, w_hh, b_ih, b_hh = xs
            hx = h
        b_ih = b_ih if biases in ("both", "ih") else None
        b_hh = b_hh if biases in ("both", "hh") else None
        out = getattr(m, mode)(x, hx, w_ih, w_hh, b_ih, b_hh)
        return out if isinstance(out, tuple) else (out,)

    e_out, t_out = call(ember, e), call(torch, t)
    assert_same(e_out, t_out, rtol=1e-9, atol=1e-10)
    _check_grads(e_out, t_out, [a for i, a in enumerate(e) if _used(i, biases, len(e))],
                 [a for i, a in enumerate(t) if _used(i, biases, len(t))], rng)


def _used(i, biases, n):
    if i == n - 2:
        return biases in ("both", "ih")
    if i == n - 1:
        return biases in ("both", "hh")
    return True


def test_bad_inputs():
    x, h = ember.randn(3, 4), ember.randn(3, 5)
    w_ih, w_hh = ember.randn(20, 4), ember.randn(20, 5)
    tx, th = torch.randn(3, 4), torch.randn(3, 5)
    tw_ih, tw_hh = torch.randn(20, 4), torch.randn(20, 5)
    # wrong input width: the same RuntimeError and message as torch
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 3 expected 4"):
        torch.lstm_cell(torch.randn(3, 3), (th, th), tw_ih, tw_hh)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 3 expected 4"):
        ember.lstm_cell(ember.randn(3, 3), (h, h), w_ih, w_hh)
    with pytest.raises(RuntimeError, match="Input batch size 3 doesn't match hidden0 batch size 2"):
        torch.lstm_cell(tx, (th[:2], th), tw_ih, tw_hh)
    with pytest.raises(RuntimeError, match="Input batch size 3 doesn't match hidden0 batch size 2"):
        ember.lstm_cell(x, (h[:2], h), w_ih, w_hh)
    with pytest.raises(RuntimeError, match="weight_ih first dim must be 3 \\* hidden_size = 15"):
        torch.gru_cell(tx, th, tw_ih, tw_hh)
    with pytest.raises(RuntimeError, match="weight_ih first dim must be 3 \\* hidden_size = 15"):
        ember.gru_cell(x, h, w_ih, w_hh)
    with pytest.raises(IndexError):
        torch.lstm_cell(tx[0], (th[0], th[0]), tw_ih, tw_hh)
    with pytest.raises(IndexError, match="lstm_cell"):
        ember.lstm_cell(x[0], (h[0], h[0]), w_ih, w_hh)
    # networks: a wrong count of params, a wrong hidden-state shape, a 2-d unpacked input
    X, tX = ember.randn(6, 3, 4), torch.randn(6, 3, 4)
    with pytest.raises(RuntimeError):
        torch.lstm(tX, (torch.randn(1, 3, 5),) * 2, (tw_ih, tw_hh), True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="lstm: got 2 params, expected"):
        ember.lstm(X, (ember.randn(1, 3, 5),) * 2, (w_ih, w_hh), True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError):
        torch.gru(tX, torch.randn(2, 3, 5), (torch.randn(15, 4), torch.randn(15, 5)), False, 1,
                  0.0, False, False, False)
    with pytest.raises(RuntimeError, match=r"gru: expected hx\[0\] of shape \(1, 3, \*\)"):
        ember.gru(X, ember.randn(2, 3, 5), (ember.randn(15, 4), ember.randn(15, 5)), False, 1,
                  0.0, False, False, False)
    with pytest.raises(IndexError):
        torch.lstm(tX[0], (torch.randn(1, 5),) * 2, (tw_ih, tw_hh), False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="lstm: expected a 3-D input"):
        ember.lstm(X[0], (ember.randn(1, 5),) * 2, (w_ih, w_hh), False, 1, 0.0, False, False, False)
    with pytest.raises(TypeError):
        ember.gru(X, "h", (ember.randn(15, 4), ember.randn(15, 5)), False, 1, 0.0, False, False, False)
    with pytest.raises(TypeError):
        ember.lstm_cell(x, h, w_ih, w_hh)
