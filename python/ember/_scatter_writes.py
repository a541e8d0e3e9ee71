"""Writes of a tensor's values into positions given by a mask, by flat indices or by indices along
a dim, as torch's masked_scatter, put and index_add/index_copy/index_fill, and unravel_index
(flat indices -> coordinates). Compositions of index_put_/setitem/scatter on a clone, so autograd
reaches both the input and the source."""
import builtins

from . import _C, _creation
from ._dtype import int64, bool as _bool
from ._tensor import Tensor


def _tensor(x, op, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def _checked(x, op, name="input"):
    _tensor(x, op, name)
    return x


def _masked_scatter_checks(op, input, mask, source):
    _tensor(input, op, "input")
    _tensor(mask, op, "mask")
    _tensor(source, op, "source")
    if mask.dtype != _bool:
        raise RuntimeError(f"{op}: only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"{op}: expected self and source to have same dtypes but got "
                           f"{input.dtype} and {source.dtype}")


def _fill(out, mask, source, op):
    n = builtins.int(mask.sum().item())
    if source.numel() < n:
        raise RuntimeError(f"{op}: Number of elements of source < number of ones in mask "
                           f"({source.numel()} < {n})")
    out[mask] = source.reshape(-1)[:n]
    return out


def masked_scatter(input, mask, source):
    """input with its elements where mask (broadcast) is True replaced, in order, by
    source's first elements.

    >>> ember.masked_scatter(ember.zeros(4), ember.tensor([True, False, True, False]), ember.tensor([1.0, 2.0]))
    tensor([1., 0., 2., 0.])
    """
    _masked_scatter_checks("masked_scatter", input, mask, source)
    shape = _broadcast(input.shape, mask.shape, "masked_scatter")
    out = input.expand(shape).clone()
    return _fill(out, mask.expand(shape), source, "masked_scatter")


def masked_scatter_(self, mask, source):
    """masked_scatter_(mask, source) -> Tensor

    Copies source's leading elements, in order, into self where mask (broadcast to self) is
    True, in place.

    >>> x = ember.zeros(4)
    >>> x.masked_scatter_(ember.tensor([True, False, True, False]), ember.tensor([7.0, 8.0, 9.0]))
    tensor([7., 0., 8., 0.])
    """
    _masked_scatter_checks("masked_scatter_", self, mask, source)
    shape = _broadcast(self.shape, mask.shape, "masked_scatter_")
    if tuple(shape) != tuple(self.shape):
        raise RuntimeError(f"masked_scatter_: mask of shape {tuple(mask.shape)} cannot be broadcast "
                           f"to self's shape {tuple(self.shape)}")
    return _fill(self, mask.expand(shape), source, "masked_scatter_")


def _broadcast(a, b, op):
    from ._reshaping import broadcast_shapes
    try:
        return tuple(broadcast_shapes(tuple(a), tuple(b)))
    except (RuntimeError, ValueError) as e:
        raise RuntimeError(f"{op}: shapes {tuple(a)} and {tuple(b)} cannot be broadcast: {e}") from None


def _put_checks(op, input, index, source):
    _tensor(input, op, "input")
    _tensor(index, op, "index")
    _tensor(source, op, "source")
    if index.dtype.is_floating_point or index.dtype == _bool:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {index.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"{op}(): self ({input.dtype}) and source ({source.dtype}) must have the "
                           f"same scalar type")
    if index.numel() != source.numel():
        raise RuntimeError(f"{op}(): Expected source and index to have the same number of elements, "
                           f"but got source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    if index.numel():
        lo, hi = builtins.int(index.min().item()), builtins.int(index.max().item())
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"{op}(): index {bad} is out of bounds for a tensor of {n} elements "
                             f"(shape {tuple(input.shape)})")


def put(input, index, source, accumulate=False):
    """input with the elements at flat indices `index` (negatives count from the end) set to
    source, or increased by it with accumulate=True.

    >>> ember.put(ember.zeros(2, 2), ember.tensor([0, 3]), ember.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    _put_checks("put", input, index, source)
    out = input.clone()
    if index.numel():
        out.reshape(-1).index_put_((index.reshape(-1).long(),), source.reshape(-1), accumulate)
    return out


def put_(self, index, source, accumulate=False):
    """put_(index, source, accumulate=False) -> Tensor

    Writes source into self at the flat (row-major) positions index, in place; with
    accumulate=True, adds instead (repeated positions add up).

    >>> x = ember.zeros(2, 2)
    >>> x.put_(ember.tensor([0, 3]), ember.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    >>> x.put_(ember.tensor([0, 0]), ember.tensor([1.0, 1.0]), accumulate=True)
    tensor([[3., 0.],
            [0., 2.]])
    """
    _put_checks("put_", self, index, source)
    if index.numel():
        flat = self.view(-1) if self.is_contiguous() else None
        if flat is None:
            self.copy_(put(self, index, source, accumulate))
        else:
            flat.index_put_((index.reshape(-1).long(),), source.reshape(-1), accumulate)
    return self


def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of the flat (row-major) indices: a tuple of one
    int64 tensor per dim, each of indices' shape. Negative indices count from the end.

    >>> ember.unravel_index(ember.tensor([4, 5]), (2, 3))
    (tensor([1, 1]), tensor([1, 2]))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): expected 'indices' to be a Tensor, but got "
                        f"{type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, builtins.int) and not isinstance(shape, builtins.bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for s in shape:
        if not isinstance(s, builtins.int) or isinstance(s, builtins.bool):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(s)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    idx = indices.long()
    out, stride = [], 1
    for s in reversed(shape):  # one floor-divide and remainder per dim (Python's rounding)
        out.append(_C.remainder(_C.floor_divide(idx, stride), s) if s else idx * 0)
        stride *= s
    return tuple(reversed(out))


def _index_along(input, dim, index, width_shape, fn):
    """index (1-d) laid along dim and expanded to width_shape, for scatter/scatter_add."""
    _checked(index, fn, "index")
    if index.dim() > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector, got shape {tuple(index.shape)}")
    if index.dtype != int64:
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index, got {index.dtype}")
    n = builtins.max(input.dim(), 1)
    if not -n <= dim < n:
        raise IndexError(f"{fn}(): Dimension out of range (expected to be in range of [{-n}, "
                         f"{n - 1}], but got {dim})")
    dim %= n
    size = input.shape[dim] if input.dim() else 1
    if index.numel() and (builtins.bool((index >= size).any()) or builtins.bool((index < -size).any())):
        raise IndexError(f"{fn}(): index out of range for dimension {dim} with size {size}")
    index = _C.where(index < 0, index + size, index).reshape(-1)
    shape = [1] * input.dim()
    if input.dim():
        shape[dim] = index.numel()
    return dim, index.reshape(shape or [-1]).expand(*width_shape)


def _source_along(input, dim, index, source, op):
    """The checked dim and the expanded index of index_add/index_copy: source has input's rank
    and one slice per index along dim."""
    _checked(input, op)
    _checked(source, op, "source")
    d, idx = _index_along(input, dim, index, list(source.shape), op)
    if source.dim() != input.dim() or (input.dim() and source.shape[d] != index.numel()):
        raise RuntimeError(f"{op}(): source {tuple(source.shape)} does not match input "
                           f"{tuple(input.shape)} with {index.numel()} indices along dim {d}")
    return d, idx


def index_add(input, dim, index, source, *, alpha=1):
    """index_add(input, dim, index, source, *, alpha=1) -> Tensor

    A copy of input with alpha * source's slices added at `index` along `dim` (repeats accumulate).

    >>> ember.index_add(ember.zeros(3), 0, ember.tensor([0, 0, 2]), ember.tensor([1.0, 2.0, 3.0]))
    tensor([3., 0., 3.])
    """
    d, idx = _source_along(input, dim, index, source, "index_add")
    src = source if alpha == 1 else source * alpha
    return input.scatter_add(d, idx, src.to(input.dtype))


def index_copy(input, dim, index, source):
    """index_copy(input, dim, index, source) -> Tensor

    A copy of input with source's slices written at `index` along `dim`.

    >>> ember.index_copy(ember.zeros(4), 0, ember.tensor([3, 1]), ember.tensor([5.0, 6.0]))
    tensor([0., 6., 0., 5.])
    """
    d, idx = _source_along(input, dim, index, source, "index_copy")
    return input.scatter(d, idx, source.to(input.dtype))


def index_fill(input, dim, index, value):
    """index_fill(input, dim, index, value) -> Tensor

    A copy of input with the slices at `index` along `dim` set to `value`.

    >>> ember.index_fill(ember.zeros(2, 3), 1, ember.tensor([0, 2]), -1.0)
    tensor([[-1.,  0., -1.],
            [-1.,  0., -1.]])
    """
    _checked(input, "index_fill")
    _checked(index, "index_fill", "index")
    shape = list(input.shape)
    n = builtins.max(input.dim(), 1)
    if input.dim() and -n <= dim < n:
        shape[dim % n] = index.numel()
    d, idx = _index_along(input, dim, index, shape, "index_fill")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        fill = value.to(input.dtype).expand(*shape)
    else:
        fill = _creation.full(shape, value, dtype=input.dtype)
    return input.scatter(d, idx, fill)


FUNCTIONS = {"masked_scatter": masked_scatter, "put": put, "unravel_index": unravel_index,
             "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill}
METHODS = {"masked_scatter": masked_scatter, "masked_scatter_": masked_scatter_, "put": put,
           "put_": put_}
for _n in ("index_add", "index_copy", "index_fill"):
    METHODS[_n] = FUNCTIONS[_n]
# index_add_/index_copy_/index_fill_ -> (signature, example): their docstrings.
_INPLACE_DOCS = {
    "index_add_": ("index_add_(dim, index, source, *, alpha=1) -> Tensor",
                   ">>> x = ember.zeros(3)\n"
                   ">>> x.index_add_(0, ember.tensor([0, 2, 0]), ember.tensor([1.0, 2.0, 3.0]))\n"
                   "tensor([4., 0., 2.])"),
    "index_copy_": ("index_copy_(dim, index, source) -> Tensor",
                    ">>> x = ember.zeros(3)\n"
                    ">>> x.index_copy_(0, ember.tensor([2, 0]), ember.tensor([5.0, 6.0]))\n"
                    "tensor([6., 0., 5.])"),
    "index_fill_": ("index_fill_(dim, index, value) -> Tensor",
                    ">>> x = ember.zeros(2, 3)\n"
                    ">>> x.index_fill_(1, ember.tensor([0, 2]), -1.0)\n"
                    "tensor([[-1.,  0., -1.],\n"
                    "        [-1.,  0., -1.]])"),
}

for _name in ("index_add", "index_copy", "index_fill"):
    METHODS[_name + "_"] = (lambda f: lambda self, *a, **k: self.copy_(f(self, *a, **k)))(FUNCTIONS[_name])
    METHODS[_name + "_"].__name__ = METHODS[_name + "_"].__qualname__ = _name + "_"
    METHODS[_name + "_"].__doc__ = (f"{_INPLACE_DOCS[_name + '_'][0]}\n\nThe in-place form of "
                                    f"Tensor.{_name}.\n\n{_INPLACE_DOCS[_name + '_'][1]}")
