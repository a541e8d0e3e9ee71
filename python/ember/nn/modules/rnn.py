"""Recurrent layers: RNN, LSTM, GRU and their single-step cells.

The work per layer and direction is one matmul for the input part of every time step at once
(x @ W_ih^T + b over the whole sequence), then the recurrence as one op, _C.rnn_layer
(src/ops/rnn.cpp: per step one matmul for the hidden part and one fused pass of gate math;
one backward node, double backward included). Gate order is torch's (LSTM: i, f, g, o;
GRU: r, z, n), so torch's state_dict loads unchanged.

A sequence has non-increasing batch sizes per step: a plain (T, B, *) input has B rows at
every step, a PackedSequence fewer rows at later steps (the shorter sequences have ended),
so one op serves both. A cell is a layer of one step."""
import math
import numbers
import warnings

from ... import _C
from ..._creation import tensor, zeros
from ..._dtype import int64
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _empty

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _input_projection(mode, x, w_ih, b_ih, b_hh):
    """x @ W_ih^T + b for every step at once; b folds in b_hh except for GRU (either bias
    may be None in torch's cell functions)."""
    if mode != "GRU" and b_hh is not None:
        b_ih = b_hh if b_ih is None else b_ih + b_hh
    return _C.linear(x, w_ih, b_ih)


def run_layer(mode, x, state, batch_sizes, weights, reverse=False):
    """One layer and direction: the input projection of every step in one product, then the
    recurrence as one op (_C.rnn_layer: per step one product and one fused pass of gate
    math, and one backward node). x: (T, B, I), or packed (N, I) with the list batch_sizes;
    state: (h0,) or (h0, c0), B rows each; weights: (w_ih, w_hh, b_ih, b_hh, w_hr), biases
    and w_hr None when absent. Returns [output, h_n] (+ c_n for LSTM)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    xp = _input_projection(mode, x, w_ih, b_ih, b_hh)
    c0 = state[1] if mode == "LSTM" else None
    return _C.rnn_layer(mode, xp, state[0], c0, w_hh, b_hh if mode == "GRU" else None, w_hr,
                        batch_sizes or [], reverse)


def run_step(mode, x, state, w_ih, w_hh, b_ih, b_hh):
    """One time step (the cells): x (B, I), state (h,) or (h, c). Returns (h',) or (h', c')."""
    _, *final = run_layer(mode, x.unsqueeze(0), state, None, (w_ih, w_hh, b_ih, b_hh, None))
    return tuple(final)


def run_layers(mode, x, state, batch_sizes, weights, num_layers, num_directions, dropout,
               training):
    """The stacked, possibly bidirectional recurrence over x ((T, B, I) time-major, or packed
    (N, I) with the list batch_sizes). weights[layer * num_directions + direction] is
    (w_ih, w_hh, b_ih, b_hh, w_hr), the biases and w_hr None when absent; state is a tuple of
    (layers * directions, B, *) tensors. Dropout (probability `dropout`, when training) falls
    between layers. Returns (output, tuple of final states). nn.RNN/LSTM/GRU and torch.lstm,
    gru, rnn_tanh and rnn_relu (ember/_rnn_functions.py) all run here."""
    finals = [[] for _ in state]
    for layer in range(num_layers):
        if layer > 0 and dropout > 0 and training:
            x = F.dropout(x, dropout, True)
        dir_outs = []
        for direction in range(num_directions):
            idx = layer * num_directions + direction
            out, *final = run_layer(mode, x, tuple(s[idx] for s in state), batch_sizes,
                                    weights[idx], direction == 1)
            dir_outs.append(out)
            for acc, f in zip(finals, final):
                acc.append(f)
        x = dir_outs[0] if num_directions == 1 else _C.cat(dir_outs, -1)
    return x, tuple(_C.stack(f) for f in finals)


class RNNBase(Module):
    """The layers and directions of RNN/LSTM/GRU, with torch's parameter names and order:
    weight_ih_l{k}{_reverse}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}, weight_hr_l{k}.

    >>> isinstance(ember.nn.LSTM(2, 3), ember.nn.RNNBase), ember.nn.GRU(2, 3).mode
    (True, 'GRU')
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        _check_config(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                      proj_size)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for fmt, shape in shapes:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(_empty(shape, device, dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op, as in torch on the CPU (it packs weights for cuDNN)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # ---- argument checks, torch's messages and types -------------------------------------
    def check_input(self, input, batch_sizes):
        w_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != w_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w_dtype}). Convert input: input.to({w_dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, real_hidden)

    def check_hidden_size(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.shape)))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    # ---- the computation ----------------------------------------------------------------
    def _prepare(self, input, hx, name):
        """Unpacks a PackedSequence or adds the batch dim to an unbatched input; returns
        (input, hx, batch_sizes as a list or None, sorted_indices, unsorted_indices, batched).
        hx keeps whatever form the caller gave (None, a tensor, or LSTM's pair)."""
        from ..utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_idx, unsorted_idx = input
            return data, hx, [int(b) for b in batch_sizes.tolist()], sorted_idx, unsorted_idx, True
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"{'tensor ' if name == 'RNN' else ''}instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, hx, None, None, None, batched

    def _zeros(self, input, batch, size):
        num_directions = 2 if self.bidirectional else 1
        return zeros((self.num_layers * num_directions, batch, size), dtype=input.dtype)

    def _run(self, input, state, batch_sizes):
        """All layers over input ((T, B, I) time-major, or packed (N, I) with batch_sizes).
        state: tuple of (layers * directions, B, *) tensors. Returns (output, final states)."""
        if batch_sizes is None and self.batch_first:
            input = input.transpose(0, 1)
        weights = []
        for names in self._all_weights:
            w = [getattr(self, name) for name in names]
            weights.append((w[0], w[1], *((w[2], w[3]) if self.bias else (None, None)),
                            w[-1] if self.proj_size > 0 else None))
        x, finals = run_layers(self.mode, input, state, batch_sizes, weights, self.num_layers,
                               2 if self.bidirectional else 1, self.dropout, self.training)
        if batch_sizes is None and self.batch_first:
            x = x.transpose(0, 1)
        return x, finals

    def _check_length(self, input, batch_sizes):
        steps = len(batch_sizes) if batch_sizes is not None else input.size(
            1 if self.batch_first else 0)
        if steps == 0:
            raise RuntimeError(f"Expected sequence length to be larger than 0 in RNN "
                               f"({type(self).__name__}: input shape {tuple(input.shape)})")

    def _forward_single_state(self, input, hx, name):
        """RNN and GRU: one state tensor h."""
        from ..utils.rnn import PackedSequence
        packed = isinstance(input, PackedSequence)
        input, hx, batch_sizes, sorted_idx, unsorted_idx, batched = self._prepare(input, hx, name)
        if hx is not None and not packed:
            if not batched and hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.dim()}-D tensor")
            if batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            if not batched:
                hx = hx.unsqueeze(1)
        if hx is None:
            batch = batch_sizes[0] if packed else input.size(0 if self.batch_first else 1)
            hx = self._zeros(input, batch, self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_idx)
        self.check_forward_args(input, hx, batch_sizes)
        self._check_length(input, batch_sizes)
        output, (h_n,) = self._run(input, (hx,), batch_sizes)
        if packed:
            return (PackedSequence(output, _sizes_tensor(batch_sizes), sorted_idx, unsorted_idx),
                    self.permute_hidden(h_n, unsorted_idx))
        if not batched:
            return output.squeeze(0 if self.batch_first else 1), h_n.squeeze(1)
        return output, h_n

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)


def _sizes_tensor(batch_sizes):
    return tensor(batch_sizes, dtype=int64)


def _check_config(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                  proj_size):
    """torch's constructor checks, with its messages."""
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if mode not in _GATES:
        raise ValueError("Unrecognized RNN mode: " + mode)


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).
    RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None).

    >>> rnn = ember.nn.RNN(3, 4, num_layers=2)
    >>> out, h = rnn(ember.ones(5, 1, 3))
    >>> out.shape, h.shape
    (ember.Size([5, 1, 4]), ember.Size([2, 1, 4]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit:
    r, z = sigmoid(x W_i{r,z}^T + b_i{r,z} + h W_h{r,z}^T + b_h{r,z}); n = tanh(x W_in^T + b_in
    + r * (h W_hn^T + b_hn)); h' = (1 - z) * n + z * h.
    GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None).

    >>> out, h = ember.nn.GRU(3, 5)(ember.randn(7, 2, 3))
    >>> out.shape, h.shape
    (ember.Size([7, 2, 5]), ember.Size([1, 2, 5]))"""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx, "GRU")


class LSTM(RNNBase):
    """Long short-term memory:
    i, f, g, o = x W_ih^T + b_ih + h W_hh^T + b_hh;
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g); h' = sigmoid(o) * tanh(c'), with an optional
    projection h_t = (o * tanh(c_t)) @ W_hr^T when proj_size > 0. Returns
    (output, (h_n, c_n)). LSTM(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None).

    >>> out, (h, c) = ember.nn.LSTM(3, 5, batch_first=True)(ember.randn(2, 7, 3))
    >>> out.shape, h.shape
    (ember.Size([2, 7, 5]), ember.Size([1, 2, 5]))"""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return expected[:2] + (self.hidden_size,)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence
        packed = isinstance(input, PackedSequence)
        input, hx, batch_sizes, sorted_idx, unsorted_idx, batched = self._prepare(
            input, hx, "LSTM")
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            batch = batch_sizes[0] if packed else input.size(0 if self.batch_first else 1)
            hx = (self._zeros(input, batch, real_hidden),
                  self._zeros(input, batch, self.hidden_size))
        elif not packed:
            if batched and (hx[0].dim() != 3 or hx[1].dim() != 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but "
                                   f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D "
                                       f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        else:
            hx = self.permute_hidden(hx, sorted_idx)
        self.check_forward_args(input, hx, batch_sizes)
        self._check_length(input, batch_sizes)
        output, (h_n, c_n) = self._run(input, tuple(hx), batch_sizes)
        if packed:
            return (PackedSequence(output, _sizes_tensor(batch_sizes), sorted_idx, unsorted_idx),
                    self.permute_hidden((h_n, c_n), unsorted_idx))
        if not batched:
            return output.squeeze(0 if self.batch_first else 1), (h_n.squeeze(1), c_n.squeeze(1))
        return output, (h_n, c_n)


# ---- cells: one time step, (B, I) or unbatched (I,) ----------------------------------------
class RNNCellBase(Module):
    """weight_ih (chunks * hidden, input), weight_hh (chunks * hidden, hidden), bias_ih,
    bias_hh; all drawn from U(-1/sqrt(hidden), 1/sqrt(hidden)).

    >>> cell = ember.nn.GRUCell(3, 2)
    >>> isinstance(cell, ember.nn.RNNCellBase), cell.weight_ih.shape
    (True, ember.Size([6, 3]))
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(_empty((gates, input_size), device, dtype))
        self.weight_hh = Parameter(_empty((gates, hidden_size), device, dtype))
        if bias:
            self.bias_ih = Parameter(_empty((gates,), device, dtype))
            self.bias_hh = Parameter(_empty((gates,), device, dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_dims(self, name, input, hx, hx_name="hidden"):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {hx_name} to be 1D or 2D, got {hx.dim()}D "
                             "instead")

    def _check_step(self, input, hx, which=""):
        """torch's rnn cell checks (RuntimeError): input width, hidden batch and width."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        if input.size(0) != hx.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{which} "
                               f"batch size {hx.size(0)}")
        if hx.size(1) != self.hidden_size:
            raise RuntimeError(f"hidden{which} has inconsistent hidden_size: got {hx.size(1)}, "
                               f"expected {self.hidden_size}")

    def _step(self, mode, input, state):
        return run_step(mode, input, state, self.weight_ih, self.weight_hh, self.bias_ih,
                        self.bias_hh)

    def _zeros(self, input):
        return zeros((input.size(0), self.hidden_size), dtype=input.dtype)


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), or relu.

    >>> ember.nn.RNNCell(3, 2)(ember.ones(4, 3)).shape
    ember.Size([4, 2])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        self._check_dims("RNNCell", input, hx)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_step(input, hx)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        (h,) = self._step(mode, input, (hx,))
        return h if batched else h.squeeze(0)


class GRUCell(RNNCellBase):
    """One GRU step (the formulas of GRU); returns h'.

    >>> cell = ember.nn.GRUCell(3, 2)
    >>> cell(ember.ones(4, 3)).shape
    ember.Size([4, 2])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        self._check_dims("GRUCell", input, hx)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        self._check_step(input, hx)
        (h,) = self._step("GRU", input, (hx,))
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (the formulas of LSTM); hx = (h, c), returns (h', c').

    >>> cell = ember.nn.LSTMCell(3, 2)
    >>> h, c = cell(ember.ones(4, 3))
    >>> h.shape, c.shape
    (ember.Size([4, 2]), ember.Size([4, 2]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        self._check_dims("LSTMCell", input, None)
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check_step(input, hx[0], "[0]")
        self._check_step(input, hx[1], "[1]")
        h, c = self._step("LSTM", input, tuple(hx))
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))
