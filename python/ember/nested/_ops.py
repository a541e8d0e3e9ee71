"""What ember's functions and Tensor methods do given a nested tensor: the ops torch 2.13 runs
on the strided layout, each checked against it (tests/python/test_nested.py); any other op
raises NotImplementedError naming it, as torch's do. Elementwise ops, dropout, linear and
layer_norm run once on the flat buffer; ops that mix a component's dims run per component."""
from .. import _C
from .._tensor import Tensor
from ..autograd import Function
from ._nested_tensor import (buffer, components, from_components, is_nested, nested_dim, numel_of,
                             wrap, wrap_dim)

HANDLERS = {}


def torch_function(cls, func, types, args=(), kwargs=None):
    name = getattr(func, "__name__", str(func))
    if name.startswith("_") and not name.startswith("__"):
        name = name[1:]  # ember's Python spellings of Tensor methods (_to, _type, ...)
    handler = HANDLERS.get(name)
    if handler is None:
        raise NotImplementedError(f"{name}: not supported for nested tensors (ember.nested, "
                                  "strided layout; docs/nested.md lists the ops that are)")
    from ..overrides import DisableTorchFunctionSubclass
    with DisableTorchFunctionSubclass():
        return handler(func, name, *args, **(kwargs or {}))


def _handles(*names):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


def _like(nt, flat):
    return wrap(flat, nt._nested_sizes)


# ---- elementwise: one op on the buffer -----------------------------------------------------

# torch 2.13's strided nested kernels: the unary ops it has (sigmoid, exp, log, ... raise there
# and here), the binary ones with a nested tensor of the same structure, a number or a 0-d tensor.
_UNARY = ("relu", "gelu", "tanh", "neg", "negative", "abs", "sin", "cos", "sqrt", "silu", "sgn",
          "logical_not", "isnan", "tanhshrink", "softsign", "__neg__", "__abs__", "clone",
          "contiguous", "float", "double", "half", "bfloat16", "to", "type", "cpu",
          "ones_like", "zeros_like", "empty_like", "randn_like")


@_handles(*_UNARY)
def _unary(func, name, x, *args, **kwargs):
    if kwargs.pop("inplace", False):  # F.relu / F.silu(inplace=True): on x's own storage
        if name not in ("relu", "silu"):
            raise NotImplementedError(f"{name}: inplace=True is not supported for nested "
                                      "tensors")
        return _inplace_activation(x, name)
    args = [buffer(a) if is_nested(a) else a for a in args]
    out = func(buffer(x), *args, **kwargs)
    return out if (name == "type" and not args and not kwargs) else _like(x, out)


def _inplace_activation(x, name):
    """relu / silu in place on x's own storage (the version counter and autograd see it)."""
    from ..nn import functional as F
    if name == "relu":
        return Tensor.relu_(x)
    Tensor.copy_(x, F.silu(buffer(x).clone()))  # ember has no silu_: from a copy, then back
    return x


@_handles("detach")
def _detach(func, name, x):
    return _like(x, buffer(x).detach())


_BINARY = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
           "__add__", "__radd__", "radd", "__sub__", "__mul__", "__rmul__", "rmul",
           "__truediv__", "__div__", "eq", "gt", "ge", "__eq__", "__gt__", "__ge__")
_SCALAR_ONLY = ("eq", "gt", "ge", "__eq__", "__gt__", "__ge__")


@_handles(*_BINARY)
def _binary(func, name, a, b, *args, **kwargs):
    op = name.strip("_").lstrip("r") if name.startswith("__r") or name in ("radd", "rmul") \
        else name.strip("_")
    nt = a if is_nested(a) else b
    other = b if nt is a else a
    if is_nested(other):
        if name in _SCALAR_ONLY:
            raise RuntimeError(f"{op} does not support nested tensor as other value.")
        if other._nested_sizes != nt._nested_sizes:
            raise RuntimeError(f"{op} does not support broadcasting when given a NestedTensor "
                               f"(component shapes {list(a._nested_sizes)} and "
                               f"{list(b._nested_sizes)})")
        other = buffer(other)
    elif isinstance(other, Tensor) and other.dim() != 0:
        which = "self" if nt is a else "other"
        raise RuntimeError(f"{op}: expected both self and other to be nested, but got a nested "
                           f"{which} and a non-nested {'other' if which == 'self' else 'self'} "
                           f"of shape {tuple(other.shape)}")
    out = func(buffer(a) if nt is a else a, other if nt is a else buffer(b), *args, **kwargs)
    return _like(nt, out)


@_handles("masked_fill")
def _masked_fill(func, name, x, mask, value):
    if isinstance(value, Tensor):
        raise NotImplementedError("masked_fill: a tensor fill value is not supported for nested "
                                  "tensors (torch 2.13's masked_fill.Tensor neither)")
    if is_nested(mask):
        if mask.dtype != _bool():
            raise RuntimeError(f"masked_fill: only boolean masks are supported, but got mask "
                               f"with dtype {mask.dtype}")
        if mask._nested_sizes != x._nested_sizes:
            raise RuntimeError("masked_fill does not support broadcasting when given a "
                               "NestedTensor")
        mask = buffer(mask)
    elif isinstance(mask, Tensor) and mask.dim() != 0:
        raise RuntimeError("masked_fill: expected both self and mask to be nested, but got a "
                           f"nested self and a non-nested mask of shape {tuple(mask.shape)}")
    return _like(x, func(buffer(x), mask, value))


def _bool():
    from .._dtype import bool as b
    return b


@_handles("dropout")
def _dropout(func, name, x, *args, **kwargs):
    inplace = kwargs.get("inplace") or (len(args) > 2 and args[2] is True)
    training = kwargs.get("training", args[1] if len(args) > 1 else True)
    if inplace and training:
        raise NotImplementedError("dropout: inplace=True in training is not supported for "
                                  "nested tensors (torch 2.13's bernoulli_ neither)")
    if inplace:
        return x
    return _like(x, func(buffer(x), *args, **kwargs))


# ---- in place on the buffer ----------------------------------------------------------------

# torch 2.13's in-place ops on strided nested tensors (sub_, div_, clamp_, sin_, ... raise there)
_INPLACE = ("zero_", "fill_", "add_", "mul_", "relu_", "tanh_", "abs_", "neg_", "normal_",
            "copy_", "detach_", "__iadd__", "__imul__")


@_handles(*_INPLACE)
def _inplace(func, name, x, *args, **kwargs):
    if args and is_nested(args[0]):
        if args[0]._nested_sizes != x._nested_sizes:
            raise RuntimeError(f"{name} does not support broadcasting when given a NestedTensor")
        args = (buffer(args[0]),) + args[1:]
    elif args and isinstance(args[0], Tensor) and args[0].dim() != 0:
        raise RuntimeError(f"{name}: expected a nested tensor of the same structure, a number "
                           f"or a 0-d tensor, got a tensor of shape {tuple(args[0].shape)}")
    getattr(Tensor, name)(x, *args, **kwargs)  # on x's own storage: version counter, autograd
    return x


# ---- structure: components, padding, narrow ------------------------------------------------

@_handles("unbind")
def _unbind(func, name, x, dim=0):
    if dim != 0:
        raise RuntimeError(f"NestedTensor can only be unbound along dimension 0 got dimension "
                           f"{dim} instead.")
    return tuple(components(x))


@_handles("values")
def _values(func, name, x):
    """The flat buffer, a view (torch's values() of a strided nested tensor: PyG's
    from_nested_tensor reads it without a copy)."""
    return buffer(x)


@_handles("__getitem__")
def _getitem(func, name, x, index):
    rest = ()
    if isinstance(index, tuple) and index and isinstance(index[0], int):
        index, rest = index[0], index[1:]
    if not isinstance(index, int) or isinstance(index, bool):
        raise NotImplementedError("nested tensor indexing: only an integer first index (a "
                                  f"component) is supported, got {index!r}")
    n = len(x._nested_sizes)
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for dimension 0 with size {n}")
    comp = components(x)[index]
    return comp[rest] if rest else comp


@_handles("narrow")
def _narrow(func, name, x, dim, start, length):
    if not isinstance(start, int) or not isinstance(length, int):
        raise RuntimeError("narrow: start and length must be integers for the strided layout")
    if wrap_dim(x, dim) != 0:
        raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: {dim}")
    sizes = x._nested_sizes
    n = len(sizes)
    start = start + n if start < 0 else start
    if not (0 <= start <= n and 0 <= length <= n - start):
        raise IndexError(f"narrow: start ({start}) + length ({length}) exceeds the number of "
                         f"components ({n})")
    numels = [numel_of(s) for s in sizes]
    offset = sum(numels[:start])
    return wrap(buffer(x).narrow(0, offset, sum(numels[start:start + length])),
                sizes[start:start + length])


@_handles("to_padded_tensor")
def to_padded_tensor(func, name, x, padding, output_size=None):
    """Tensor.to_padded_tensor of a nested tensor (the dense one's raises)."""
    import ember
    comps, sizes = components(x), x._nested_sizes
    if not comps:
        return ember.empty(0, dtype=x.dtype)
    padded = [max(s[d] for s in sizes) for d in range(len(sizes[0]))]
    batch = len(sizes)
    if output_size is not None:
        output_size = [int(s) for s in output_size]
        if len(output_size) != nested_dim(x):
            raise RuntimeError(f"to_padded_tensor: length of output_size ({len(output_size)}) "
                               f"does not match the nested tensor's dims ({nested_dim(x)}). "
                               "Broadcasting is not supported.")
        if any(o < p for o, p in zip(output_size, [batch] + padded)):
            raise RuntimeError(f"to_padded_tensor: a value in output_size {output_size} is "
                               f"less than the padded size {[batch] + padded}. Truncation is "
                               "not supported.")
        batch, padded = output_size[0], output_size[1:]
    if not x.dtype.is_floating_point and not x.dtype.is_complex:
        padding = int(padding)
    return _Pad.apply(buffer(x), comps, sizes, [batch] + padded, padding)


def _pad_into(comps, shape, padding, dtype):
    import ember
    out = ember.full(shape, padding, dtype=dtype)
    for i, c in enumerate(comps):
        if c.numel():
            out[(i,) + tuple(slice(0, s) for s in c.shape)] = c
    return out


def _corners(grad, sizes):
    """The inverse of padding: each component's corner of grad, flattened, back to back."""
    import ember
    parts = [grad[(i,) + tuple(slice(0, d) for d in s)].reshape(-1) for i, s in enumerate(sizes)]
    return ember.cat(parts) if parts else grad.new_zeros(0)


class _Pad(Function):
    """to_padded_tensor on the buffer: one tensor of padding with each component copied into
    its corner; the gradient is the corners back to back (one cat), not one copy-into-a-view
    backward per component (5-7 ms for 32 sequences of 10-100 x 64, against 0.2 ms)."""

    @staticmethod
    def forward(ctx, flat, comps, sizes, shape, padding):
        ctx.sizes = sizes
        return _pad_into([c.detach() for c in comps], shape, padding, flat.dtype)

    @staticmethod
    def backward(ctx, grad):
        return _corners(grad, ctx.sizes), None, None, None, None


# ---- per component, or on the buffer when the last dim is regular ---------------------------

def _last(x):
    """The components' common last size, or None when it differs (or there is none)."""
    found = {s[-1] for s in x._nested_sizes if s}
    return found.pop() if len(found) == 1 and all(x._nested_sizes) else None


def _per_component(x, fn):
    return from_components([fn(c) for c in components(x)], dtype=x.dtype)


@_handles("softmax")
def _softmax(func, name, x, dim=None, *rest, dtype=None, **kwargs):
    rest = [r for r in rest if r is not None and not isinstance(r, int)]  # F's _stacklevel
    dtype = rest[0] if rest and dtype is None else dtype
    if dim is None:
        raise RuntimeError("softmax: dim must be given for a nested tensor")
    d = wrap_dim(x, dim)
    if d == 0:
        raise RuntimeError("Cannot apply softmax across nested dimension 0")
    if d == nested_dim(x) - 1 and _last(x) is not None:
        flat = buffer(x).view(-1, _last(x))
        out = _C.softmax(flat if dtype is None else flat.to(dtype), -1)
        return _like(x, out.reshape(-1))
    return _per_component(x, lambda c: _C.softmax(c if dtype is None else c.to(dtype), d - 1))


@_handles("transpose", "swapaxes", "swapdims")
def _transpose(func, name, x, dim0, dim1):
    d0, d1 = wrap_dim(x, dim0), wrap_dim(x, dim1)
    if d0 == 0 or d1 == 0:
        raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
    return _per_component(x, lambda c: c.transpose(d0 - 1, d1 - 1).contiguous())


@_handles("matmul", "__matmul__", "bmm")
def _matmul(func, name, a, b):
    op = "bmm" if name == "bmm" else "matmul"
    if not (is_nested(a) and is_nested(b)) and not (op == "bmm" and is_nested(a)):
        raise RuntimeError(f"{op}: expected both to be nested, but got a "
                           f"{'nested' if is_nested(a) else 'non-nested'} self and "
                           f"{'nested' if is_nested(b) else 'non-nested'} other")
    if op == "bmm" and (nested_dim(a) != 3 or (nested_dim(b) if is_nested(b) else b.dim()) != 3):
        raise RuntimeError("bmm: batch1 and batch2 must be 3D tensors")
    bdim = nested_dim(b) if is_nested(b) else b.dim()
    if nested_dim(a) < 3 or bdim < 3:
        raise RuntimeError("matmul: for nested tensors, only inputs with >= 3 dims are "
                           f"supported, got ranks {nested_dim(a)} and {bdim}")
    left = components(a)
    right = components(b) if is_nested(b) else list(b.unbind(0))
    if len(left) != len(right):
        raise RuntimeError(f"{op}: the inputs hold {len(left)} and {len(right)} components")
    for i, (l, r) in enumerate(zip(left, right)):
        if l.shape[-1] != r.shape[-2]:
            raise RuntimeError(f"{op}: component {i} cannot be multiplied: shapes "
                               f"{tuple(l.shape)} and {tuple(r.shape)} ({l.shape[-1]} != "
                               f"{r.shape[-2]})")
    return from_components([_C.matmul(l, r) for l, r in zip(left, right)], dtype=a.dtype)


@_handles("linear")
def _linear(func, name, x, weight, bias=None):
    if nested_dim(x) != 3 or weight.dim() != 2:
        raise RuntimeError(f"linear: requires nested_tensor.dim == 3 and dense_matrix.dim == 2. "
                           f"Nested tensor dim: {nested_dim(x)}. Dense tensor dim: "
                           f"{weight.dim()}")
    last = _last(x)
    if last != weight.shape[1]:
        raise RuntimeError(f"linear: shape mismatch: expected the nested input's last dim "
                           f"({'irregular' if last is None else last}) to equal weight.size(1) "
                           f"({weight.shape[1]})")
    out = func(buffer(x).view(-1, last), weight, bias)
    return wrap(out.reshape(-1), [s[:-1] + (weight.shape[0],) for s in x._nested_sizes])


@_handles("layer_norm")
def _layer_norm(func, name, x, normalized_shape, weight=None, bias=None, eps=1e-5, *rest):
    if weight is None or bias is None:
        raise ValueError("layer_norm: a nested tensor's layer_norm requires weight and bias")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if any(len(s) < k or tuple(s[len(s) - k:]) != shape for s in x._nested_sizes):
        raise RuntimeError(f"layer_norm: normalized_shape {list(shape)} does not match the "
                           f"trailing dims of the components {list(x._nested_sizes)}")
    return _like(x, func(buffer(x).view((-1,) + shape), shape, weight, bias, eps).reshape(-1))


@_handles("sum")
def _sum(func, name, x, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        raise NotImplementedError("sum: a full reduction of a nested tensor is not supported "
                                  "(torch 2.13 neither): give dim=-1, keepdim=True")
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if len(dims) != 1:
        raise RuntimeError("sum: a nested tensor only allows reduction of a single dimension")
    d = wrap_dim(x, dims[0])
    if d != nested_dim(x) - 1:
        raise RuntimeError(f"sum: a nested tensor can only be reduced across the last dimension, "
                           f"got dimension {dims[0]}")
    if not keepdim:
        raise RuntimeError("sum: a nested tensor requires keepdim=True")
    if dtype is not None:
        raise RuntimeError("sum: a nested tensor does not support the dtype argument")
    return _per_component(x, lambda c: c.sum(-1, keepdim=True))


@_handles("backward")
def _backward(func, name, x, gradient=None, *args, **kwargs):
    if gradient is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs (a nested "
                           "tensor: pass gradient=, a nested tensor of the same structure)")
    if is_nested(gradient):
        if gradient._nested_sizes != x._nested_sizes:
            raise RuntimeError("backward: the gradient's components differ in shape from the "
                               "nested tensor's")
        gradient = buffer(gradient)
    else:
        raise RuntimeError("backward: the gradient of a nested tensor must be a nested tensor")
    return Tensor.backward(x, gradient, *args, **kwargs)


@_handles("save")
def _save(func, name, obj, *args, **kwargs):
    """ember.save of a nested tensor (or of a container holding one): its pickler writes torch's
    _rebuild_nested_tensor."""
    return func(obj, *args, **kwargs)


# Tensor facts that hold for the buffer too (dtype and device queries, autograd bookkeeping).
for _name in ("requires_grad_", "retain_grad", "element_size", "is_floating_point",
              "is_complex", "get_device", "data_ptr", "storage_offset", "register_hook",
              "is_contiguous"):
    HANDLERS[_name] = lambda func, name, x, *a, **k: getattr(Tensor, name)(x, *a, **k)
