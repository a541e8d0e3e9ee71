"""ember.nn.RNN/LSTM/GRU, their cells and nn.utils.rnn against torch: the same module built
in both (torch's state_dict loaded into ember), the same inputs -> the same outputs and the
same gradients of inputs, initial states and every parameter; plus gradchecks, packed
sequences, configuration and bad-input errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import nn
from ember.nn.utils import rnn as ernn
from helpers import assert_same, random_array

RTOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported")


def tol(dtype):
    rtol, atol = RTOL[dtype]
    return dict(rtol=rtol, atol=atol)


def build(cls, dtype, *args, **kw):
    t_mod = getattr(torch.nn, cls)(*args, **kw)
    e_mod = getattr(nn, cls)(*args, **kw)
    if dtype == "float64":
        t_mod.double()
        e_mod.double()
    e_mod.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                           for k, v in t_mod.state_dict().items()})
    return e_mod, t_mod


def leaf_pair(arr):
    return (ember.from_numpy(arr.copy()).requires_grad_(True),
            torch.from_numpy(arr.copy()).requires_grad_(True))


def flat(x):
    """Nested (output, (h, c)) -> a flat list of tensors."""
    if isinstance(x, (tuple, list)):
        return [t for item in x for t in flat(item)]
    return [x]


def compare(e_mod, t_mod, shapes, dtype, call, seed=0):
    """call(mod, *inputs) in both; outputs, then gradients of the inputs and parameters for
    one random seed gradient on every output."""
    rng = np.random.default_rng(seed)
    arrs = [random_array(s, dtype, rng, -1.5, 1.5) for s in shapes]
    pairs = [leaf_pair(a) for a in arrs]
    e_out = call(e_mod, *[p[0] for p in pairs])
    t_out = call(t_mod, *[p[1] for p in pairs])
    assert_same(e_out, t_out, **tol(dtype))
    keep = [i for i, t in enumerate(flat(t_out)) if t.requires_grad]  # not lengths
    t_flat = [flat(t_out)[i] for i in keep]
    e_flat = [flat(e_out)[i] for i in keep]
    seeds = [random_array(tuple(t.shape), dtype, rng) for t in t_flat]
    torch.autograd.backward(t_flat, [torch.from_numpy(s) for s in seeds])
    ember.autograd.backward(e_flat, [ember.from_numpy(s) for s in seeds])
    for i, (e, t) in enumerate(pairs):
        assert e.grad is not None, f"no gradient for input {i}"
        assert_same(e.grad, t.grad, **tol(dtype))
    e_params, t_params = dict(e_mod.named_parameters()), dict(t_mod.named_parameters())
    assert list(e_params) == list(t_params)
    for name, tp in t_params.items():
        assert e_params[name].grad is not None, name
        assert_same(e_params[name].grad, tp.grad, **tol(dtype))


DTYPES = ["float32", "float64"]
CONFIGS = {
    "RNN": [{}, {"nonlinearity": "relu"}, {"bias": False, "batch_first": True},
            {"num_layers": 2, "bidirectional": True}],
    "LSTM": [{}, {"bias": False}, {"num_layers": 2, "bidirectional": True, "batch_first": True},
             {"proj_size": 2, "num_layers": 2, "bidirectional": True}],
    "GRU": [{}, {"bias": False, "bidirectional": True},
            {"num_layers": 3, "batch_first": True}],
}
CASES = [(cls, i) for cls, cfgs in CONFIGS.items() for i in range(len(cfgs))]


def state_shapes(cls, kw, batch):
    """The shapes of h0 (and c0), None batch for unbatched."""
    d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    h = kw.get("proj_size") or 4
    lead = (d,) if batch is None else (d, batch)
    return [lead + (h,), lead + (4,)] if cls == "LSTM" else [lead + (h,)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls,i", CASES)
def test_sequence_layers(cls, i, dtype):
    kw = CONFIGS[cls][i]
    e_mod, t_mod = build(cls, dtype, 3, 4, **kw)
    x_shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
    compare(e_mod, t_mod, [x_shape], dtype, lambda m, x: m(x))
    # given initial states
    e_mod.zero_grad()
    t_mod.zero_grad()
    states = state_shapes(cls, kw, 2)
    if cls == "LSTM":
        call = lambda m, x, h, c: m(x, (h, c))  # noqa: E731
    else:
        call = lambda m, x, h: m(x, h)  # noqa: E731
    compare(e_mod, t_mod, [x_shape] + states, dtype, call, seed=1)


@pytest.mark.parametrize("cls,i", CASES)
def test_unbatched(cls, i):
    kw = CONFIGS[cls][i]
    e_mod, t_mod = build(cls, "float64", 3, 4, **kw)
    compare(e_mod, t_mod, [(5, 3)], "float64", lambda m, x: m(x))
    states = state_shapes(cls, kw, None)
    if cls == "LSTM":
        call = lambda m, x, h, c: m(x, (h, c))  # noqa: E731
    else:
        call = lambda m, x, h: m(x, h)  # noqa: E731
    compare(e_mod, t_mod, [(5, 3)] + states, "float64", call, seed=2)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_non_contiguous_input_and_one_step(cls):
    e_mod, t_mod = build(cls, "float64", 3, 4, num_layers=2)
    # a transposed view: (T, B, I) made from (B, T, I) storage
    compare(e_mod, t_mod, [(2, 5, 3)], "float64", lambda m, x: m(x.transpose(0, 1)))
    compare(e_mod, t_mod, [(1, 1, 3)], "float64", lambda m, x: m(x), seed=3)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers(cls):
    # p = 1 zeroes every input of layer 2 in training: deterministic, comparable
    e_mod, t_mod = build(cls, "float64", 3, 4, num_layers=2, dropout=1.0)
    compare(e_mod, t_mod, [(4, 2, 3)], "float64", lambda m, x: m(x))
    # eval: no dropout at all
    e_mod, t_mod = build(cls, "float64", 3, 4, num_layers=2, dropout=0.5)
    compare(e_mod.eval(), t_mod.eval(), [(4, 2, 3)], "float64", lambda m, x: m(x))
    # training with p = 0.5: random, but differs from eval and keeps gradients finite
    x = ember.randn(6, 3, 3, dtype=ember.float64)
    out_eval = flat(e_mod(x))[0]
    e_mod.train()
    out_train = flat(e_mod(x))[0]
    assert not np.allclose(out_eval.detach().numpy(), out_train.detach().numpy())
    out_train.sum().backward()
    assert np.isfinite(e_mod.weight_ih_l1.grad.numpy()).all()


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_parameters_init_repr(cls):
    kw = {"num_layers": 2, "bidirectional": True, "bias": False, "batch_first": True,
          "dropout": 0.25}
    e_mod, t_mod = build(cls, "float32", 3, 8, **kw)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    for (en, ep), (tn, tp) in zip(e_mod.named_parameters(), t_mod.named_parameters()):
        assert en == tn and tuple(ep.shape) == tuple(tp.shape)
    assert repr(e_mod) == repr(t_mod)
    assert [[tuple(w.shape) for w in ws] for ws in e_mod.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in t_mod.all_weights]
    e_mod.flatten_parameters()
    ember.manual_seed(0)  # a statistical check: on a fixed draw, not on what earlier tests left
    big = getattr(nn, cls)(16, 64)
    bound = 1 / 8
    for p in big.parameters():
        v = p.detach().numpy()
        assert np.abs(v).max() <= bound and v.std() == pytest.approx(bound / np.sqrt(3), rel=0.1)
    assert repr(nn.RNN(2, 3, 1, "relu")) == repr(torch.nn.RNN(2, 3, 1, "relu"))
    assert repr(nn.LSTM(2, 3, proj_size=1)) == repr(torch.nn.LSTM(2, 3, proj_size=1))


# ---- cells ---------------------------------------------------------------------------------
CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
         ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}),
         ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls,kw", CELLS)
def test_cells(cls, kw, dtype):
    e_mod, t_mod = build(cls, dtype, 3, 4, **kw)
    assert repr(e_mod) == repr(t_mod)
    for batch in ((5,), ()):
        e_mod.zero_grad()
        t_mod.zero_grad()
        compare(e_mod, t_mod, [batch + (3,)], dtype, lambda m, x: m(x))
        e_mod.zero_grad()
        t_mod.zero_grad()
        if cls == "LSTMCell":
            compare(e_mod, t_mod, [batch + (3,), batch + (4,), batch + (4,)], dtype,
                    lambda m, x, h, c: m(x, (h, c)), seed=4)
        else:
            compare(e_mod, t_mod, [batch + (3,), batch + (4,)], dtype,
                    lambda m, x, h: m(x, h), seed=4)


def test_cell_loop_equals_layer():
    """An LSTMCell run step by step equals a one-layer LSTM with the same weights."""
    cell = nn.LSTMCell(3, 4).double()
    layer = nn.LSTM(3, 4).double()
    layer.load_state_dict({k + "_l0": v for k, v in cell.state_dict().items()})
    x = ember.randn(6, 2, 3, dtype=ember.float64)
    h = c = ember.zeros(2, 4, dtype=ember.float64)
    outs = []
    for t in range(6):
        h, c = cell(x[t], (h, c))
        outs.append(h)
    out, (h_n, c_n) = layer(x)
    np.testing.assert_allclose(ember.stack(outs).numpy(), out.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(c.detach().numpy(), c_n[0].detach().numpy(), rtol=1e-12)


# ---- gradcheck -----------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_gradcheck(cls):
    ember.manual_seed(0)
    mod = getattr(nn, cls)(2, 2, num_layers=2, bidirectional=True).double()
    x = ember.randn(3, 2, 2, dtype=ember.float64).requires_grad_(True)
    h0 = ember.randn(4, 2, 2, dtype=ember.float64).requires_grad_(True)
    params = list(mod.parameters())
    if cls == "LSTM":
        c0 = ember.randn(4, 2, 2, dtype=ember.float64).requires_grad_(True)
        assert ember.autograd.gradcheck(lambda x, h, c, *p: flat(mod(x, (h, c))),
                                        [x, h0, c0] + params)
    else:
        assert ember.autograd.gradcheck(lambda x, h, *p: flat(mod(x, h)), [x, h0] + params)
    cell = getattr(nn, cls + "Cell")(2, 3).double()
    xc = ember.randn(2, 2, dtype=ember.float64).requires_grad_(True)
    assert ember.autograd.gradcheck(lambda x, *p: flat(cell(x)), [xc] + list(cell.parameters()))


# ---- packed and padded sequences -----------------------------------------------------------
LENGTHS = [3, 5, 1, 4]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_packed_sequence_through_layer(cls, batch_first):
    e_mod, t_mod = build(cls, "float64", 3, 4, num_layers=2, bidirectional=True)

    def call(m, x):
        lib = ember if m.__class__.__module__.startswith("ember") else torch
        u = lib.nn.utils.rnn
        packed = u.pack_padded_sequence(x, LENGTHS, batch_first=batch_first,
                                        enforce_sorted=False)
        out, hidden = m(packed)
        padded, lengths = u.pad_packed_sequence(out, batch_first=batch_first, total_length=6)
        return padded, lengths, hidden

    shape = (4, 6, 3) if batch_first else (6, 4, 3)
    compare(e_mod, t_mod, [shape], "float64", call)


def test_pack_and_pad_functions():
    rng = np.random.default_rng(5)
    arrs = [rng.standard_normal((n, 2, 3)) for n in (4, 2, 2, 1)]
    es = [ember.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
    for kw in ({}, {"batch_first": True, "padding_value": -1.5},
               {"padding_side": "left"}):
        assert_same(ernn.pad_sequence(es, **kw), torch.nn.utils.rnn.pad_sequence(ts, **kw))
    e_p, t_p = ernn.pack_sequence(es), torch.nn.utils.rnn.pack_sequence(ts)
    assert_same(e_p.data, t_p.data)
    assert_same(e_p.batch_sizes, t_p.batch_sizes)
    assert e_p.sorted_indices is None and e_p.unsorted_indices is None
    back = ernn.unpack_sequence(e_p)
    for b, a in zip(back, arrs):
        np.testing.assert_array_equal(b.detach().numpy(), a)
    shuffled = [es[2], es[0], es[3], es[1]]
    t_shuffled = [ts[2], ts[0], ts[3], ts[1]]
    e_p = ernn.pack_sequence(shuffled, enforce_sorted=False)
    t_p = torch.nn.utils.rnn.pack_sequence(t_shuffled, enforce_sorted=False)
    assert_same(e_p.data, t_p.data)
    e_pad, e_len = ernn.pad_packed_sequence(e_p, batch_first=True, padding_value=2.0)
    t_pad, t_len = torch.nn.utils.rnn.pad_packed_sequence(t_p, batch_first=True,
                                                          padding_value=2.0)
    assert_same(e_pad, t_pad)
    assert_same(e_len, t_len)
    g = rng.standard_normal(tuple(t_pad.shape))
    e_pad.backward(ember.from_numpy(g.copy()))
    t_pad.backward(torch.from_numpy(g.copy()))
    for e, t in zip(es, ts):
        assert_same(e.grad, t.grad)
    assert_same(ernn.invert_permutation(ember.tensor([2, 0, 3, 1])),
                torch.nn.utils.rnn.invert_permutation(torch.tensor([2, 0, 3, 1])))
    parts = ernn.unpad_sequence(ernn.pad_sequence(es), ember.tensor([4, 2, 2, 1]))
    assert [tuple(p.shape) for p in parts] == [tuple(a.shape) for a in arrs]
    assert e_p.double().data.dtype == ember.float64


# ---- bad input -----------------------------------------------------------------------------
def test_bad_sequence_inputs():
    lstm, gru = nn.LSTM(3, 4, num_layers=2), nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                           "Expected 3, got 5"):
        lstm(ember.randn(2, 2, 5))
    with pytest.raises(ValueError, match="GRU: Expected input to be 2D or 3D, got 4D"):
        gru(ember.randn(1, 2, 2, 3))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        gru(ember.randn(5, 2, 3), ember.zeros(1, 3, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(2, 2, 4\), got "
                                           r"\[2, 2, 3\]"):
        lstm(ember.randn(5, 2, 3), (ember.zeros(2, 2, 4), ember.zeros(2, 2, 3)))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D"):
        gru(ember.randn(5, 2, 3), ember.zeros(2, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx and cx should also be "
                                           "2-D"):
        lstm(ember.randn(5, 3), (ember.zeros(2, 1, 4), ember.zeros(2, 1, 4)))
    with pytest.raises(ValueError, match="does not match weight dtype"):
        gru(ember.randn(5, 2, 3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        gru(ember.randn(0, 2, 3))
    out, h = gru(ember.randn(5, 0, 3))  # an empty batch is fine, as in torch
    assert tuple(out.shape) == (5, 0, 4) and tuple(h.shape) == (1, 0, 4)
    # torch raises the same types
    with pytest.raises(RuntimeError):
        torch.nn.GRU(3, 4)(torch.randn(5, 2, 3), torch.zeros(1, 3, 4))
    with pytest.raises(RuntimeError):
        torch.nn.LSTM(3, 4)(torch.randn(2, 2, 5))


def test_bad_cell_inputs():
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        nn.GRUCell(3, 4)(ember.randn(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden\\[0\\] "
                                           "batch size 3"):
        nn.LSTMCell(3, 4)(ember.randn(2, 3), (ember.zeros(3, 4), ember.zeros(2, 4)))
    with pytest.raises(RuntimeError, match="hidden has inconsistent hidden_size: got 5, "
                                           "expected 4"):
        nn.RNNCell(3, 4)(ember.randn(2, 3), ember.zeros(2, 5))
    with pytest.raises(ValueError, match="RNNCell: Expected input to be 1D or 2D, got 3D"):
        nn.RNNCell(3, 4)(ember.randn(1, 2, 3))
    with pytest.raises(RuntimeError, match="Unknown nonlinearity: gelu"):
        nn.RNNCell(3, 4, nonlinearity="gelu")(ember.randn(2, 3))
    with pytest.raises(RuntimeError):
        torch.nn.GRUCell(3, 4)(torch.randn(2, 5))


def test_bad_configs():
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        nn.GRU(3, 4.0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.RNN(3, 4, num_layers=0)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.LSTM(3, 4, num_layers=2, dropout=0.5)


def test_bad_pack_inputs():
    x = ember.randn(5, 3, 2)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ernn.pack_padded_sequence(x, [2, 5, 1])
    with pytest.raises(RuntimeError, match="Expected `len\\(lengths\\)` to be equal to "
                                           "batch_size, but got 2 \\(batch_size=3\\)"):
        ernn.pack_padded_sequence(x, [5, 1])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        ernn.pack_padded_sequence(x, [5, 1, 0])
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        ernn.pad_packed_sequence(ernn.pack_padded_sequence(x, [5, 2, 1]), total_length=3)
    with pytest.raises(RuntimeError, match="empty list of sequences"):
        ernn.pad_sequence([])
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right"):
        ernn.pad_sequence([ember.ones(2)], padding_side="mid")
    with pytest.raises(RuntimeError):
        torch.nn.utils.rnn.pack_padded_sequence(torch.randn(5, 3, 2), [2, 5, 1])


# ---- the base classes ------------------------------------------------------------------------
@pytest.mark.parametrize("mode,kw", [("LSTM", dict(num_layers=2, bidirectional=True)),
                                     ("GRU", dict(bias=False, batch_first=True)),
                                     ("RNN_TANH", {}), ("RNN_RELU", dict(dropout=0.5)),
                                     ("LSTM", dict(proj_size=2))])
def test_rnn_base(mode, kw):
    """nn.RNNBase: the parameters every recurrent layer is built on (LSTM/GRU/RNN subclass it)."""
    e, t = nn.RNNBase(mode, 3, 4, **kw), torch.nn.RNNBase(mode, 3, 4, **kw)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(e) == repr(t)
    assert len(e.all_weights) == len(t.all_weights)
    e.flatten_parameters()
    for cls in ("RNN", "LSTM", "GRU"):
        assert issubclass(getattr(nn, cls), nn.RNNBase)
    # a subclass gets RNNBase's parameters; loading torch's state gives torch's outputs
    e_lstm, t_lstm = nn.LSTM(3, 4), torch.nn.LSTM(3, 4)
    assert isinstance(e_lstm, nn.RNNBase)
    e_lstm.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                            for k, v in t_lstm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    assert_same(e_lstm(ember.from_numpy(x.copy()))[0], t_lstm(torch.from_numpy(x.copy()))[0],
                **tol("float32"))


def test_rnn_cell_base():
    e, t = nn.RNNCellBase(3, 4, True, 4), torch.nn.RNNCellBase(3, 4, True, 4)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(e) == repr(t)
    assert repr(nn.RNNCellBase(3, 4, False, 1)) == repr(torch.nn.RNNCellBase(3, 4, False, 1))
    for cls in ("RNNCell", "LSTMCell", "GRUCell"):
        assert issubclass(getattr(nn, cls), nn.RNNCellBase)
    bound = 1 / 2  # reset_parameters: U(-1/sqrt(hidden), 1/sqrt(hidden)), as torch
    assert all(float(p.abs().max()) <= bound for p in e.parameters())


@pytest.mark.parametrize("lib", [torch, ember])
def test_rnn_bases_refuse_as_torch(lib):
    with pytest.raises(ValueError, match="Unrecognized RNN mode: FOO"):
        lib.nn.RNNBase("FOO", 3, 4)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        lib.nn.RNNBase("LSTM", 3, 0)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        lib.nn.RNNBase("LSTM", 3, 4, dropout=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        lib.nn.RNNBase("LSTM", 3, 4, proj_size=5)
    with pytest.raises(NotImplementedError, match="missing the required \"forward\""):
        lib.nn.RNNBase("LSTM", 3, 4)(lib.ones(2, 3, 3))
    with pytest.raises(NotImplementedError, match="missing the required \"forward\""):
        lib.nn.RNNCellBase(3, 4, True, 4)(lib.ones(2, 3))
