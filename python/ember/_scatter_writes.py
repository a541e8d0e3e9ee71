"""Writes of a tensor's values into positions given by a mask or by flat indices, as torch's
masked_scatter and put, and unravel_index (flat indices -> coordinates). Compositions of
index_put_/setitem on a clone, so autograd reaches both the input and the source."""
import builtins

from . import _C
from ._dtype import bool as _bool
from ._tensor import Tensor


def _tensor(x, op, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


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


FUNCTIONS = {"masked_scatter": masked_scatter, "put": put, "unravel_index": unravel_index}
METHODS = {"masked_scatter": masked_scatter, "masked_scatter_": masked_scatter_, "put": put,
           "put_": put_}
