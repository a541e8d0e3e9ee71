"""ONNX converters for the functions, methods and operators of an fx graph.

One table maps an op name to its converter: operator.add, ember.add and Tensor.add all reach
"add". A converter gets the Builder, the node's arguments (graph values already converted to
Vals; ints, shapes and tuples as Python values or Vals) and `out` (the node's element type and
rank from ShapeProp), and returns the node's value. Shapes stay symbolic (Shape/Gather) so that
dynamic axes keep working; Python ints are folded into constants.
"""
import builtins
import math
import operator

from ._builder import Val
from .errors import UnsupportedOperatorError

CONVERTERS = {}
INT64 = 7
_MAX = 2 ** 63 - 1


def converts(*names):
    def register(fn):
        for n in names:
            CONVERTERS[n] = fn
        return fn
    return register


_OPERATOR_NAMES = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
                   operator.truediv: "div", operator.matmul: "matmul", operator.pow: "pow",
                   operator.neg: "neg", operator.getitem: "getitem", operator.eq: "eq",
                   operator.ne: "ne", operator.lt: "lt", operator.le: "le", operator.gt: "gt",
                   operator.ge: "ge", operator.floordiv: "floordiv", builtins.getattr: "getattr"}


def op_name(node):
    """The table key of an fx node (call_function or call_method)."""
    if node.op == "call_method":
        return node.target
    t = node.target
    if t in _OPERATOR_NAMES:
        return _OPERATOR_NAMES[t]
    return getattr(t, "__name__", str(t))


def fail(what):
    raise UnsupportedOperatorError(f"onnx.export: {what} is not supported by ember's ONNX exporter "
                      "(docs/fx.md lists what is)")


# ---- helpers ---------------------------------------------------------------------------
def as_val(b, x, elem):
    """x as a Val of element type elem (Python numbers become constants; Vals are cast)."""
    if isinstance(x, Val):
        return cast(b, x, elem)
    if isinstance(x, (bool, int, float)):
        return b.const(x, elem)
    from .._tensor import Tensor
    if isinstance(x, Tensor):
        return cast(b, b.tensor(x, "constant"), elem)
    fail(f"an argument of type {type(x).__name__}")


def cast(b, v, elem):
    return v if v.elem == elem else b.op("Cast", [v], elem, v.rank, to=elem)


def shape_vec(b, items):
    """A 1-D int64 Val from a mix of Python ints, int64 scalars and int64 vectors."""
    if isinstance(items, Val):
        return items
    if all(isinstance(i, int) for i in items):
        return b.ints(items)
    parts = []
    for i in items:
        if isinstance(i, Val):
            parts.append(i if i.rank == 1 else b.op("Unsqueeze", [i, b.ints([0])], INT64, 1))
        else:
            parts.append(b.ints([int(i)]))
    return b.op("Concat", parts, INT64, 1, axis=0)


def norm_dim(d, rank):
    if rank is None:
        if d < 0:
            fail("a negative dim on a tensor of unknown rank")
        return d
    return d + rank if d < 0 else d


def dims_arg(args, start):
    rest = args[start:]
    if len(rest) == 1 and isinstance(rest[0], (list, tuple, Val)):
        return rest[0]
    return list(rest)


# ---- elementwise ---------------------------------------------------------------------
_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log",
          "sqrt": "Sqrt", "abs": "Abs", "neg": "Neg", "erf": "Erf", "sin": "Sin", "cos": "Cos",
          "reciprocal": "Reciprocal", "floor": "Floor", "ceil": "Ceil", "sign": "Sign",
          "logical_not": "Not"}


def _unary(onnx_op):
    def convert(b, args, kwargs, out):
        x = args[0]
        return b.op(onnx_op, [x], out.elem if out else x.elem, x.rank)
    return convert


for _k, _v in _UNARY.items():
    CONVERTERS[_k] = _unary(_v)


@converts("gelu")
def _gelu(b, args, kwargs, out):
    x = args[0]
    approximate = kwargs.get("approximate", args[1] if len(args) > 1 else "none")
    half = b.op("Mul", [x, b.const(0.5, x.elem)], x.elem, x.rank)
    if approximate == "tanh":
        inner = b.op("Add", [x, b.op("Mul", [b.op("Pow", [x, b.const(3.0, x.elem)], x.elem),
                                            b.const(0.044715, x.elem)], x.elem)], x.elem)
        t = b.op("Tanh", [b.op("Mul", [inner, b.const(math.sqrt(2 / math.pi), x.elem)], x.elem)],
                 x.elem)
    else:
        t = b.op("Erf", [b.op("Div", [x, b.const(math.sqrt(2.0), x.elem)], x.elem)], x.elem)
    return b.op("Mul", [half, b.op("Add", [t, b.const(1.0, x.elem)], x.elem)], x.elem, x.rank)


@converts("silu")
def _silu(b, args, kwargs, out):
    x = args[0]
    return b.op("Mul", [x, b.op("Sigmoid", [x], x.elem, x.rank)], x.elem, x.rank)


@converts("leaky_relu")
def _leaky_relu(b, args, kwargs, out):
    slope = kwargs.get("negative_slope", args[1] if len(args) > 1 else 0.01)
    return b.op("LeakyRelu", [args[0]], args[0].elem, args[0].rank, alpha=float(slope))


@converts("contiguous", "clone", "detach")
def _identity(b, args, kwargs, out):
    return args[0]


@converts("dropout", "alpha_dropout", "feature_alpha_dropout")
def _dropout(b, args, kwargs, out):
    p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
    training = kwargs.get("training", args[2] if len(args) > 2 else True)
    if training and p > 0:  # a traced F.dropout(training=True): random, not exportable
        fail("dropout with dropout in training mode (export with training=TrainingMode.EVAL)")
    return args[0]  # the identity in eval mode


_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow",
           "matmul": "MatMul", "eq": "Equal", "lt": "Less", "gt": "Greater",
           "le": "LessOrEqual", "ge": "GreaterOrEqual"}


def _binary(onnx_op, name):
    def convert(b, args, kwargs, out):
        x, y = args[0], args[1]
        if kwargs.get("alpha", 1) != 1 or kwargs.get("rounding_mode") is not None:
            fail(f"{name} with alpha/rounding_mode")
        vals = [v for v in (x, y) if isinstance(v, Val)]
        if not vals:
            fail(f"{name} of two Python numbers")
        if onnx_op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
            elem = next((v.elem for v in vals if v.is_float), vals[0].elem)
        else:
            elem = out.elem if out else vals[0].elem
        if onnx_op == "Pow" and isinstance(y, (int, float)):
            y = float(y) if x.is_float else y
        rank = max((v.rank for v in vals if v.rank is not None), default=None)
        res = b.op(onnx_op, [as_val(b, x, elem), as_val(b, y, elem)],
                   9 if onnx_op in ("Equal", "Less", "Greater", "LessOrEqual",
                                    "GreaterOrEqual") else elem, rank)
        return res
    return convert


for _k, _v in _BINARY.items():
    CONVERTERS[_k] = _binary(_v, _k)
CONVERTERS["truediv"] = CONVERTERS["div"]


@converts("rsub")
def _rsub(b, args, kwargs, out):
    return CONVERTERS["sub"](b, [args[1], args[0]], {}, out)


@converts("ne")
def _ne(b, args, kwargs, out):
    return b.op("Not", [CONVERTERS["eq"](b, args, kwargs, out)], 9)


@converts("floordiv")
def _floordiv(b, args, kwargs, out):
    q = CONVERTERS["div"](b, args, {}, out)
    return q if not q.is_float else b.op("Floor", [q], q.elem, q.rank)


@converts("float", "double", "long", "int", "bool", "to", "type")
def _cast(b, args, kwargs, out):
    if out is None:
        fail("a dtype conversion whose result is not a tensor")
    return cast(b, args[0], out.elem)


# ---- reductions and normalizations -----------------------------------------------------
def _reduce(onnx_op):
    def convert(b, args, kwargs, out):
        x = args[0]
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        keepdim = kwargs.get("keepdim", args[2] if len(args) > 2 else False)
        if kwargs.get("dtype") is not None:
            x = cast(b, x, out.elem)
        if dim is None:
            axes = None
        else:
            dim = [dim] if isinstance(dim, int) else list(dim)
            axes = [norm_dim(d, x.rank) for d in dim]
        rank = out.rank if out else None
        if onnx_op == "ReduceSum" or b.opset >= 18:
            ins = [x] if axes is None else [x, b.ints(axes)]
            return b.op(onnx_op, ins, x.elem, rank, keepdims=int(bool(keepdim)))
        attrs = {} if axes is None else {"axes": axes}
        return b.op(onnx_op, [x], x.elem, rank, keepdims=int(bool(keepdim)), **attrs)
    return convert


CONVERTERS["sum"] = _reduce("ReduceSum")
CONVERTERS["mean"] = _reduce("ReduceMean")


def _softmax(onnx_op):
    def convert(b, args, kwargs, out):
        x = args[0]
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        if dim is None:
            fail("softmax without dim")
        return b.op(onnx_op, [x], x.elem, x.rank, axis=norm_dim(dim, x.rank))
    return convert


CONVERTERS["softmax"] = _softmax("Softmax")
CONVERTERS["log_softmax"] = _softmax("LogSoftmax")


@converts("layer_norm")
def _layer_norm(b, args, kwargs, out):
    x, shape = args[0], args[1]
    weight = kwargs.get("weight", args[2] if len(args) > 2 else None)
    bias = kwargs.get("bias", args[3] if len(args) > 3 else None)
    eps = kwargs.get("eps", args[4] if len(args) > 4 else 1e-5)
    n = 1 if isinstance(shape, int) else len(shape)
    if weight is None:
        weight = b.op("ConstantOfShape", [b.op("Shape", [x], INT64, 1, start=-n)], x.elem, 1,
                      value=_one_tensor(x.elem))
    return b.op("LayerNormalization", [x, weight, bias], x.elem, x.rank, axis=-n,
                epsilon=float(eps))


def _one_tensor(elem):
    from onnx import helper
    return helper.make_tensor("one", elem, [1], [1])


# ---- shapes -----------------------------------------------------------------------------
@converts("getattr")
def _getattr(b, args, kwargs, out):
    x, attr = args
    if attr == "shape":
        return b.op("Shape", [x], INT64, 1)
    if attr == "ndim":
        return x.rank
    if attr == "T" and x.rank == 2:
        return b.op("Transpose", [x], x.elem, 2, perm=[1, 0])
    fail(f"the tensor attribute .{attr}")


@converts("size")
def _size(b, args, kwargs, out):
    x = args[0]
    dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
    shape = b.op("Shape", [x], INT64, 1)
    if dim is None:
        return shape
    return b.op("Gather", [shape, b.const(norm_dim(dim, x.rank), INT64)], INT64, 0, axis=0)


@converts("dim")
def _dim(b, args, kwargs, out):
    return args[0].rank


@converts("view", "reshape")
def _reshape(b, args, kwargs, out):
    x = args[0]
    shape = dims_arg(args, 1) if len(args) > 1 else kwargs.get("shape")
    if isinstance(shape, (list, tuple)) and any(isinstance(s, int) and s == 0 for s in shape):
        fail("view/reshape to a size-0 dim")
    return b.op("Reshape", [x, shape_vec(b, shape)], x.elem, out.rank if out else None)


@converts("flatten")
def _flatten(b, args, kwargs, out):
    x = args[0]
    start = kwargs.get("start_dim", args[1] if len(args) > 1 else 0)
    end = kwargs.get("end_dim", args[2] if len(args) > 2 else -1)
    start, end = norm_dim(start, x.rank), norm_dim(end, x.rank)
    if x.rank is None or end != x.rank - 1:
        fail("flatten with end_dim other than the last dim")
    return b.op("Reshape", [x, b.ints([0] * start + [-1])], x.elem, start + 1)


@converts("transpose")
def _transpose(b, args, kwargs, out):
    x, d0, d1 = args[0], norm_dim(args[1], args[0].rank), norm_dim(args[2], args[0].rank)
    perm = list(range(x.rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return b.op("Transpose", [x], x.elem, x.rank, perm=perm)


@converts("t")
def _t(b, args, kwargs, out):
    x = args[0]
    return x if x.rank < 2 else b.op("Transpose", [x], x.elem, 2, perm=[1, 0])


@converts("permute")
def _permute(b, args, kwargs, out):
    x = args[0]
    dims = dims_arg(args, 1) if len(args) > 1 else kwargs["dims"]
    return b.op("Transpose", [x], x.elem, x.rank, perm=[norm_dim(d, x.rank) for d in dims])


@converts("unsqueeze")
def _unsqueeze(b, args, kwargs, out):
    x = args[0]
    d = kwargs.get("dim", args[1] if len(args) > 1 else None)
    d = d + x.rank + 1 if d < 0 else d
    return b.op("Unsqueeze", [x, b.ints([d])], x.elem, x.rank + 1)


@converts("squeeze")
def _squeeze(b, args, kwargs, out):
    x = args[0]
    d = kwargs.get("dim", args[1] if len(args) > 1 else None)
    if d is None:
        return b.op("Squeeze", [x], x.elem, out.rank if out else None)
    return b.op("Squeeze", [x, b.ints([norm_dim(d, x.rank)])], x.elem, out.rank if out else None)


@converts("cat", "concat", "concatenate")
def _cat(b, args, kwargs, out):
    ts = args[0]
    dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
    elem = out.elem
    return b.op("Concat", [cast(b, t, elem) for t in ts], elem, ts[0].rank,
                axis=norm_dim(dim, ts[0].rank))


@converts("stack")
def _stack(b, args, kwargs, out):
    ts = args[0]
    dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
    d = dim + ts[0].rank + 1 if dim < 0 else dim
    parts = [b.op("Unsqueeze", [t, b.ints([d])], t.elem, t.rank + 1) for t in ts]
    return b.op("Concat", parts, ts[0].elem, ts[0].rank + 1, axis=d)


@converts("linear")
def _linear(b, args, kwargs, out):
    x, w = args[0], args[1]
    bias = kwargs.get("bias", args[2] if len(args) > 2 else None)
    wt = b.op("Transpose", [w], w.elem, 2, perm=[1, 0])
    y = b.op("MatMul", [x, wt], x.elem, x.rank)
    return y if bias is None else b.op("Add", [y, bias], x.elem, x.rank)


@converts("embedding")
def _embedding(b, args, kwargs, out):
    return b.op("Gather", [args[1], args[0]], args[1].elem, args[0].rank + 1, axis=0)


@converts("getitem")
def _getitem(b, args, kwargs, out):
    base, idx = args
    if not isinstance(base, Val):
        if isinstance(idx, Val):
            fail("indexing a Python sequence by a tensor")
        return base[idx]
    return tensor_index(b, base, idx, out)


def tensor_index(b, x, idx, out):
    """x[idx] for idx made of ints, slices (constant bounds), None and one Ellipsis."""
    idx = list(idx) if isinstance(idx, tuple) else [idx]
    if any(isinstance(i, Val) for i in idx):
        if len(idx) == 1 and idx[0].rank == 0:
            return b.op("Gather", [x, idx[0]], x.elem, x.rank - 1, axis=0)
        fail("indexing with a tensor")
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    if Ellipsis in idx:
        k = idx.index(Ellipsis)
        idx = idx[:k] + [slice(None)] * (x.rank - n_real) + idx[k + 1:]
    dim, squeeze, unsq = 0, [], []
    starts, ends, axes, steps = [], [], [], []
    out_dim = 0
    for i in idx:
        if i is None:
            unsq.append(out_dim)
            out_dim += 1
            continue
        if isinstance(i, slice):
            if not (i.start is None and i.stop is None and i.step in (None, 1)):
                if any(isinstance(v, Val) for v in (i.start, i.stop, i.step)):
                    fail("slicing with tensor bounds")
                starts.append(0 if i.start is None else i.start)
                ends.append(_MAX if i.stop is None else i.stop)
                axes.append(dim)
                steps.append(1 if i.step is None else i.step)
            out_dim += 1
        elif isinstance(i, int) and not isinstance(i, bool):
            starts.append(i)
            ends.append(_MAX if i == -1 else i + 1)
            axes.append(dim)
            steps.append(1)
            squeeze.append(dim)
        else:
            fail(f"an index of type {type(i).__name__}")
        dim += 1
    y = x
    if axes:
        y = b.op("Slice", [y, b.ints(starts), b.ints(ends), b.ints(axes), b.ints(steps)],
                 x.elem, x.rank)
    if squeeze:
        y = b.op("Squeeze", [y, b.ints(squeeze)], x.elem, x.rank - len(squeeze))
    if unsq:
        y = b.op("Unsqueeze", [y, b.ints(unsq)], x.elem, y.rank + len(unsq))
    return y
