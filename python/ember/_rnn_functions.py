"""torch's ATen-level recurrent functions: torch.lstm, gru, rnn_tanh, rnn_relu (a whole stacked,
possibly bidirectional network from a flat list of weights, plain or packed input) and the
single steps lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell. They run the same recurrence
as nn.LSTM/GRU/RNN (nn/modules/rnn.py: run_layers and run_step), with torch's
argument order:

    torch.lstm(input, (h0, c0), params, has_biases, num_layers, dropout, train, bidirectional,
               batch_first) -> (output, h_n, c_n)
    torch.lstm(data, batch_sizes, (h0, c0), params, has_biases, num_layers, dropout, train,
               bidirectional) -> (data_out, h_n, c_n)          # a PackedSequence's fields

params holds, for each layer and direction in turn, w_ih, w_hh[, b_ih, b_hh][, w_hr]
(nn.LSTM's _flat_weights order); an LSTM has projections when h0's last size differs from
c0's."""
from . import _C
from .nn.modules.rnn import run_layers, run_step

Tensor = _C.Tensor
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_tensor(x, op, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _network(op, mode, input, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
             bidirectional, batch_first):
    """The shared body of the four network functions; hx is a tuple of state tensors."""
    _check_tensor(input, op, "input")
    for i, h in enumerate(hx):
        _check_tensor(h, op, f"hx[{i}]" if len(hx) > 1 else "hx")
    params = list(params)
    for i, p in enumerate(params):
        _check_tensor(p, op, f"params[{i}]")
    if not isinstance(num_layers, int) or num_layers < 1:
        raise RuntimeError(f"{op}: num_layers must be a positive int, got {num_layers!r}")
    if not 0 <= float(dropout) <= 1:
        raise RuntimeError(f"{op}: dropout should be a number in range [0, 1], got {dropout}")
    packed = batch_sizes is not None
    if input.dim() != (2 if packed else 3):
        raise RuntimeError(f"{op}: expected a {'2-D packed data' if packed else '3-D'} input, "
                           f"got shape {tuple(input.shape)}")
    num_directions = 2 if bidirectional else 1
    has_proj = mode == "LSTM" and hx[0].dim() == 3 and hx[1].dim() == 3 and \
        hx[0].size(2) != hx[1].size(2)
    stride = 2 + 2 * bool(has_biases) + int(has_proj)
    groups = num_layers * num_directions
    if len(params) != groups * stride:
        raise RuntimeError(f"{op}: got {len(params)} params, expected num_layers * "
                           f"num_directions * {stride} = {groups * stride} (w_ih, w_hh"
                           f"{', b_ih, b_hh' if has_biases else ''}{', w_hr' if has_proj else ''}"
                           f" per layer and direction)")
    if packed:
        sizes = [int(b) for b in batch_sizes.tolist()]
        batch = sizes[0] if sizes else 0
        if sum(sizes) != input.size(0):
            raise RuntimeError(f"{op}: batch_sizes sum to {sum(sizes)} but data has "
                               f"{input.size(0)} rows")
    else:
        sizes = None
        if batch_first:
            input = input.transpose(0, 1)
        batch = input.size(1)
    for i, h in enumerate(hx):
        if h.dim() != 3 or h.size(0) != groups or h.size(1) != batch:
            raise RuntimeError(f"{op}: expected hx[{i}] of shape ({groups}, {batch}, *) "
                               f"(num_layers * num_directions, batch, hidden), got "
                               f"{tuple(h.shape)}")
    if (not packed and input.size(0) == 0) or (packed and not sizes):
        raise RuntimeError(f"{op}: Expected sequence length to be larger than 0, input shape "
                           f"{tuple(input.shape)}")
    weights = []
    for g in range(groups):
        w = params[g * stride:(g + 1) * stride]
        gates = w[0].size(0)
        if w[0].dim() != 2 or w[1].dim() != 2 or w[1].size(0) != gates or \
                gates % _GATES[mode]:
            raise RuntimeError(f"{op}: params of group {g}: w_ih {tuple(w[0].shape)} and w_hh "
                               f"{tuple(w[1].shape)} must be ({_GATES[mode]} * hidden, *)")
        weights.append((w[0], w[1], *((w[2], w[3]) if has_biases else (None, None)),
                        w[-1] if has_proj else None))
    output, finals = run_layers(mode, input, hx, sizes, weights, num_layers, num_directions,
                                float(dropout), bool(train))
    if not packed and batch_first:
        output = output.transpose(0, 1)
    return (output,) + tuple(finals)


# op -> its docstring example (a doctest of tests/python/test_docstring_examples.py)
NETWORK_EXAMPLES = {
    "lstm": """\
>>> x, h0, c0 = ember.ones(5, 3, 2), ember.zeros(1, 3, 4), ember.zeros(1, 3, 4)
>>> params = [ember.ones(16, 2), ember.ones(16, 4), ember.zeros(16), ember.zeros(16)]
>>> out, h, c = ember.lstm(x, (h0, c0), params, True, 1, 0.0, False, False, False)
>>> out.shape, h.shape, c.shape
(ember.Size([5, 3, 4]), ember.Size([1, 3, 4]), ember.Size([1, 3, 4]))""",
    "gru": """\
>>> x, h0 = ember.ones(5, 3, 2), ember.zeros(1, 3, 4)
>>> params = [ember.ones(12, 2), ember.ones(12, 4), ember.zeros(12), ember.zeros(12)]
>>> out, h = ember.gru(x, h0, params, True, 1, 0.0, False, False, False)
>>> out.shape, h.shape
(ember.Size([5, 3, 4]), ember.Size([1, 3, 4]))""",
    "rnn_tanh": """\
>>> x, h0 = ember.ones(2, 1, 1), ember.zeros(1, 1, 1)
>>> params = [ember.ones(1, 1), ember.ones(1, 1), ember.zeros(1), ember.zeros(1)]
>>> out, h = ember.rnn_tanh(x, h0, params, True, 1, 0.0, False, False, False)
>>> out
tensor([[[0.7616]],
<BLANKLINE>
        [[0.9427]]])""",
    "rnn_relu": """\
>>> x, h0 = ember.ones(2, 1, 1), ember.zeros(1, 1, 1)
>>> params = [ember.ones(1, 1), ember.ones(1, 1), ember.zeros(1), ember.zeros(1)]
>>> out, h = ember.rnn_relu(x, h0, params, True, 1, 0.0, False, False, False)
>>> out
tensor([[[1.]],
<BLANKLINE>
        [[2.]]])""",
}


def _split_args(op, args, packed):
    """torch.lstm/gru/rnn_* arguments after input: (batch_sizes, hx, the 7 others), with
    batch_sizes None unless packed (whose batch_first, absent, is False)."""
    if packed:
        batch_sizes, hx, *rest = args
        rest = rest + [False]
    else:
        batch_sizes, (hx, *rest) = None, args
    if len(rest) != 7:
        raise TypeError(f"{op}() takes 9 positional arguments but {len(args) + 1} were given")
    return batch_sizes, hx, rest


def _network_function(mode, op):
    if mode == "LSTM":
        def fn(input, *args):
            packed = len(args) > 0 and isinstance(args[0], Tensor)
            batch_sizes, hx, rest = _split_args(op, args, packed)
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{op}(): argument 'hx' must be a tuple of 2 Tensors (h0, c0)")
            return _network(op, mode, input, batch_sizes, tuple(hx), *rest)
    else:
        def fn(input, *args):
            packed = len(args) > 1 and isinstance(args[1], Tensor)
            batch_sizes, hx, rest = _split_args(op, args, packed)
            _check_tensor(hx, op, "hx")
            return _network(op, mode, input, batch_sizes, (hx,), *rest)
    hx = "(h0, c0)" if mode == "LSTM" else "hx"
    fn.__doc__ = (f"torch.{op}: (input, {hx}, params, has_biases, num_layers, dropout, train,\n"
                  f"bidirectional, batch_first) or packed (data, batch_sizes, {hx}, params,\n"
                  f"has_biases, num_layers, dropout, train, bidirectional).\n\n"
                  + NETWORK_EXAMPLES[op])
    fn.__name__ = fn.__qualname__ = op
    return fn


lstm = _network_function("LSTM", "lstm")
gru = _network_function("GRU", "gru")
rnn_tanh = _network_function("RNN_TANH", "rnn_tanh")
rnn_relu = _network_function("RNN_RELU", "rnn_relu")


def _cell(op, mode, input, hx, w_ih, w_hh, b_ih, b_hh):
    _check_tensor(input, op, "input")
    for h in hx:
        _check_tensor(h, op, "hx")
    _check_tensor(w_ih, op, "w_ih")
    _check_tensor(w_hh, op, "w_hh")
    if input.dim() != 2:
        raise IndexError(f"{op}: expected a 2-D input (batch, input_size), got shape "
                         f"{tuple(input.shape)}")
    if w_ih.dim() != 2 or w_hh.dim() != 2:
        raise RuntimeError(f"{op}: w_ih and w_hh must be 2-D, got {tuple(w_ih.shape)} and "
                           f"{tuple(w_hh.shape)}")
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{w_ih.size(1)}")
    hidden = w_hh.size(1)
    for i, h in enumerate(hx):
        if h.dim() != 2:
            raise IndexError(f"{op}: expected hidden{i} to be 2-D (batch, hidden), got shape "
                             f"{tuple(h.shape)}")
        if input.size(0) != h.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i} "
                               f"batch size {h.size(0)}")
        if h.size(1) != hidden:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.size(1)}, "
                               f"expected {hidden}")
    gates = _GATES[mode] * hidden
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.size(0) != gates:
            raise RuntimeError(f"{name} first dim must be {_GATES[mode]} * hidden_size = "
                               f"{gates}, but got {w.size(0)}")
    return run_step(mode, input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: hx = (h, c) of (batch, hidden); returns (h', c').

    >>> h, c = ember.lstm_cell(ember.ones(3, 2), (ember.zeros(3, 4), ember.zeros(3, 4)), ember.ones(16, 2), ember.ones(16, 4))
    >>> h.shape, c.shape
    (ember.Size([3, 4]), ember.Size([3, 4]))
    """
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise TypeError("lstm_cell(): argument 'hx' must be a tuple of 2 Tensors (h, c)")
    return tuple(_cell("lstm_cell", "LSTM", input, hx, w_ih, w_hh, b_ih, b_hh))


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step (gates r, z, n, as nn.GRUCell); returns h'.

    >>> ember.gru_cell(ember.ones(3, 2), ember.zeros(3, 4), ember.ones(12, 2), ember.ones(12, 4)).shape
    ember.Size([3, 4])
    """
    return _cell("gru_cell", "GRU", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh).

    >>> ember.rnn_tanh_cell(ember.ones(1, 1), ember.zeros(1, 1), ember.ones(1, 1), ember.ones(1, 1))
    tensor([[0.7616]])
    """
    return _cell("rnn_tanh_cell", "RNN_TANH", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = relu(input w_ih^T + b_ih + hx w_hh^T + b_hh).

    >>> ember.rnn_relu_cell(ember.tensor([[2.0]]), ember.ones(1, 1), ember.ones(1, 1), ember.ones(1, 1))
    tensor([[3.]])
    """
    return _cell("rnn_relu_cell", "RNN_RELU", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


FUNCTIONS = {"lstm": lstm, "gru": gru, "rnn_tanh": rnn_tanh, "rnn_relu": rnn_relu,
             "lstm_cell": lstm_cell, "gru_cell": gru_cell, "rnn_tanh_cell": rnn_tanh_cell,
             "rnn_relu_cell": rnn_relu_cell}
