"""ONNX converters for ember.nn layers that the exporter keeps whole (call_module nodes).

Each takes the Builder, the layer, its converted arguments and `out` (ShapeProp's element type
and rank) and returns the layer's value. Parameters become initializers (rearranged once here
when ONNX wants another layout: LSTM/GRU gate order, a transposed Linear weight). Layers not in
LAYERS are traced through (TransformerEncoderLayer becomes Linear, MultiheadAttention, LayerNorm,
additions); a layer that is neither raises UnsupportedOperatorError naming it.
"""
import math

import numpy as np

from ._ops import CONVERTERS, fail

LAYERS = {}


def converts(*names):
    def register(fn):
        for n in names:
            LAYERS[n] = fn
        return fn
    return register


def _param(b, t, hint):
    return None if t is None else b.tensor(t, hint)


def _tuple(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


@converts("Linear", "NonDynamicallyQuantizableLinear")
def _linear(b, m, args, kwargs, out):
    x = args[0]
    wt = b.initializer(m.weight.detach().numpy().T.copy(), "weight_t")
    y = b.op("MatMul", [x, wt], x.elem, x.rank)
    return y if m.bias is None else b.op("Add", [y, b.tensor(m.bias, "bias")], x.elem, x.rank)


@converts("Conv1d", "Conv2d", "Conv3d")
def _conv(b, m, args, kwargs, out):
    x = args[0]
    n = len(m.kernel_size)
    if m.padding_mode != "zeros":
        fail(f"{type(m).__name__} with padding_mode={m.padding_mode!r}")
    attrs = dict(kernel_shape=list(m.kernel_size), strides=list(m.stride),
                 dilations=list(m.dilation), group=m.groups)
    if m.padding == "same":
        attrs["auto_pad"] = "SAME_UPPER"
    elif m.padding != "valid":
        attrs["pads"] = list(m.padding) * 2
    ins = [x, b.tensor(m.weight, "weight")] + ([b.tensor(m.bias, "bias")] if m.bias is not None
                                               else [])
    return b.op("Conv", ins, x.elem, n + 2, **attrs)


def _pool_attrs(m, n):
    k = _tuple(m.kernel_size, n)
    s = _tuple(m.stride if m.stride is not None else m.kernel_size, n)
    p = _tuple(m.padding, n)
    return dict(kernel_shape=k, strides=s, pads=p * 2, ceil_mode=int(bool(m.ceil_mode)))


@converts("MaxPool1d", "MaxPool2d", "MaxPool3d")
def _max_pool(b, m, args, kwargs, out):
    x = args[0]
    if m.return_indices:
        fail("MaxPool with return_indices=True")
    n = x.rank - 2
    return b.op("MaxPool", [x], x.elem, x.rank, dilations=_tuple(m.dilation, n),
                **_pool_attrs(m, n))


@converts("AvgPool1d", "AvgPool2d", "AvgPool3d")
def _avg_pool(b, m, args, kwargs, out):
    x = args[0]
    if getattr(m, "divisor_override", None) is not None:
        fail("AvgPool with divisor_override")
    return b.op("AveragePool", [x], x.elem, x.rank, count_include_pad=int(m.count_include_pad),
                **_pool_attrs(m, x.rank - 2))


@converts("AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d")
def _adaptive_avg_pool(b, m, args, kwargs, out):
    x = args[0]
    size = _tuple(m.output_size, x.rank - 2)
    if any(s != 1 for s in size):
        fail(f"{type(m).__name__} to an output size other than 1")
    return b.op("GlobalAveragePool", [x], x.elem, x.rank)


@converts("BatchNorm1d", "BatchNorm2d", "BatchNorm3d")
def _batch_norm(b, m, args, kwargs, out):
    x = args[0]
    if m.running_mean is None:
        fail("BatchNorm without running statistics (track_running_stats=False)")
    c = m.num_features
    w = m.weight if m.weight is not None else None
    scale = b.tensor(w, "bn_weight") if w is not None else b.const([1.0] * c, x.elem)
    bias = b.tensor(m.bias, "bn_bias") if m.bias is not None else b.const([0.0] * c, x.elem)
    return b.op("BatchNormalization", [x, scale, bias, b.tensor(m.running_mean, "running_mean"),
                                       b.tensor(m.running_var, "running_var")],
                x.elem, x.rank, epsilon=float(m.eps))


@converts("LayerNorm")
def _layer_norm(b, m, args, kwargs, out):
    x = args[0]
    args = [x, list(m.normalized_shape), _param(b, m.weight, "ln_weight"),
            _param(b, m.bias, "ln_bias"), m.eps]
    return CONVERTERS["layer_norm"](b, args, {}, out)


@converts("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "Identity")
def _identity(b, m, args, kwargs, out):
    if m.training and getattr(m, "p", 0) > 0:  # training=PRESERVE on a module in train mode
        fail(f"{type(m).__name__} with dropout in training mode (export with "
             f"training=TrainingMode.EVAL)")
    return args[0]


_SIMPLE = {"ReLU": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "SiLU": "silu"}


def _simple(fn_name):
    def convert(b, m, args, kwargs, out):
        return CONVERTERS[fn_name](b, args, kwargs, out)
    return convert


for _k, _v in _SIMPLE.items():
    LAYERS[_k] = _simple(_v)


@converts("GELU")
def _gelu(b, m, args, kwargs, out):
    return CONVERTERS["gelu"](b, [args[0]], {"approximate": m.approximate}, out)


@converts("LeakyReLU")
def _leaky(b, m, args, kwargs, out):
    return CONVERTERS["leaky_relu"](b, [args[0], m.negative_slope], {}, out)


@converts("Softmax", "LogSoftmax")
def _softmax(b, m, args, kwargs, out):
    name = "softmax" if type(m).__name__ == "Softmax" else "log_softmax"
    if m.dim is None:
        fail(f"{type(m).__name__} without dim")
    return CONVERTERS[name](b, [args[0], m.dim], {}, out)


@converts("Flatten")
def _flatten(b, m, args, kwargs, out):
    return CONVERTERS["flatten"](b, [args[0], m.start_dim, m.end_dim], {}, out)


@converts("Embedding")
def _embedding(b, m, args, kwargs, out):
    if m.max_norm is not None:
        fail("Embedding with max_norm")
    return CONVERTERS["embedding"](b, [args[0], b.tensor(m.weight, "embedding")], {}, out)


# ---- recurrent layers ----------------------------------------------------------------
# ONNX orders the gates differently from torch: LSTM i,o,f,c (torch i,f,g,o); GRU z,r,h
# (torch r,z,n).
_GATES = {"LSTM": (4, [0, 3, 1, 2]), "GRU": (3, [1, 0, 2])}


def _gates(w, mode):
    n, order = _GATES[mode]
    chunks = np.split(w, n, axis=0)
    return np.concatenate([chunks[i] for i in order], axis=0)


@converts("LSTM", "GRU")
def _rnn(b, m, args, kwargs, out):
    mode = type(m).__name__
    x = args[0]
    hx = kwargs.get("hx", args[1] if len(args) > 1 else None)
    if getattr(m, "proj_size", 0):
        fail("LSTM with proj_size")
    if x.rank != 3:
        fail(f"{mode} on an unbatched (2-D) input")
    H, dirs = m.hidden_size, 2 if m.bidirectional else 1
    if m.batch_first:
        x = b.op("Transpose", [x], x.elem, 3, perm=[1, 0, 2])
    if hx is not None:
        h0, c0 = (hx if mode == "LSTM" else (hx, None))
    hs, cs = [], []
    for layer in range(m.num_layers):
        ws, rs, bs = [], [], []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            def gates(name):
                return _gates(getattr(m, name + sfx).detach().numpy(), mode)
            ws.append(gates("weight_ih"))
            rs.append(gates("weight_hh"))
            if m.bias:
                bs.append(np.concatenate([gates("bias_ih"), gates("bias_hh")]))
        ins = [x, b.initializer(np.stack(ws), "W"), b.initializer(np.stack(rs), "R"),
               b.initializer(np.stack(bs), "B") if bs else None, None]
        if hx is not None:
            sl = [b.ints([layer * dirs]), b.ints([(layer + 1) * dirs]), b.ints([0])]
            ins.append(b.op("Slice", [h0] + sl, x.elem, 3))
            if mode == "LSTM":
                ins.append(b.op("Slice", [c0] + sl, x.elem, 3))
        attrs = dict(hidden_size=H, direction="bidirectional" if dirs == 2 else "forward")
        if mode == "GRU":
            attrs["linear_before_reset"] = 1
        outs = b.op(mode, ins, x.elem, 4, n_out=3 if mode == "LSTM" else 2, **attrs)
        y, h = outs[0], outs[1]
        hs.append(h)
        if mode == "LSTM":
            cs.append(outs[2])
        # Y is (seq, dirs, batch, H): the next layer reads (seq, batch, dirs * H)
        y = b.op("Transpose", [y], x.elem, 4, perm=[0, 2, 1, 3])
        x = b.op("Reshape", [y, b.ints([0, 0, dirs * H])], x.elem, 3)
        if m.dropout and m.training:
            fail(f"{mode} with dropout in training mode")
    output = x if not m.batch_first else b.op("Transpose", [x], x.elem, 3, perm=[1, 0, 2])
    h_n = hs[0] if len(hs) == 1 else b.op("Concat", hs, x.elem, 3, axis=0)
    if mode == "GRU":
        return (output, h_n)
    c_n = cs[0] if len(cs) == 1 else b.op("Concat", cs, x.elem, 3, axis=0)
    return (output, (h_n, c_n))


# ---- attention -------------------------------------------------------------------------
@converts("MultiheadAttention")
def _mha(b, m, args, kwargs, out):
    names = ("query", "key", "value", "key_padding_mask", "need_weights", "attn_mask",
             "average_attn_weights", "is_causal")
    defaults = (None, None, None, None, True, None, True, False)
    a = dict(zip(names, defaults))
    a.update(zip(names, args))
    a.update(kwargs)
    if a["key_padding_mask"] is not None or a["attn_mask"] is not None or a["is_causal"]:
        fail("MultiheadAttention with masks")
    if not m._qkv_same_embed_dim or m.bias_k is not None or m.add_zero_attn:
        fail("MultiheadAttention with kdim/vdim, add_bias_kv or add_zero_attn")
    E, nh = m.embed_dim, m.num_heads
    hd = E // nh
    q, k, v = a["query"], a["key"], a["value"]
    elem = q.elem
    W = m.in_proj_weight.detach().numpy()
    B = m.in_proj_bias.detach().numpy() if m.in_proj_bias is not None else None

    def project(t, i, perm):
        if not m.batch_first:
            t = b.op("Transpose", [t], elem, 3, perm=[1, 0, 2])  # (N, L, E)
        y = b.op("MatMul", [t, b.initializer(W[i * E:(i + 1) * E].T.copy(), "w_in")], elem, 3)
        if B is not None:
            y = b.op("Add", [y, b.initializer(B[i * E:(i + 1) * E].copy(), "b_in")], elem, 3)
        y = b.op("Reshape", [y, b.ints([0, 0, nh, hd])], elem, 4)
        return b.op("Transpose", [y], elem, 4, perm=perm)

    qh = project(q, 0, [0, 2, 1, 3])          # (N, nh, L, hd)
    kh = project(k, 1, [0, 2, 3, 1])          # (N, nh, hd, S)
    vh = project(v, 2, [0, 2, 1, 3])          # (N, nh, S, hd)
    scores = b.op("Mul", [b.op("MatMul", [qh, kh], elem, 4), b.const(1 / math.sqrt(hd), elem)],
                  elem, 4)
    attn = b.op("Softmax", [scores], elem, 4, axis=-1)
    ctx = b.op("MatMul", [attn, vh], elem, 4)
    ctx = b.op("Transpose", [ctx], elem, 4, perm=[0, 2, 1, 3])
    ctx = b.op("Reshape", [ctx, b.ints([0, 0, E])], elem, 3)
    y = _linear(b, m.out_proj, [ctx], {}, None)
    if not m.batch_first:
        y = b.op("Transpose", [y], elem, 3, perm=[1, 0, 2])
    if not a["need_weights"]:
        return (y, None)
    if a["average_attn_weights"]:
        w = b.op("ReduceMean", [attn, b.ints([1])], elem, 3, keepdims=0) if b.opset >= 18 else \
            b.op("ReduceMean", [attn], elem, 3, keepdims=0, axes=[1])
    else:
        w = attn
    return (y, w)

