"""The scatter inverses of the view ops (slice_scatter, select_scatter, diagonal_scatter,
as_strided_scatter: a copy of input with src written where the view would read),
slice_inverse, torch's split spellings (split_with_sizes, unsafe_split, unsafe_chunk, ...)
and sum_to_size.

Each scatter runs the view op on a tensor of flat positions (arange over input's shape), so
the region's geometry comes from the view op itself, then writes src there with one
out-of-place index_put: the gradient of input is g outside the region, that of src is g
inside it, both from index_put's backward. No element loops."""
import builtins

from . import _C
from ._dtype import int64

Tensor = _C.Tensor


def _check(x, fn, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _scatter(name, input, src, view):
    _check(input, name)
    _check(src, name, "src", 2)
    positions = _C.arange(0, input.numel(), 1, int64).view(list(input.shape))
    region = view(positions)
    if tuple(src.shape) != tuple(region.shape):
        raise RuntimeError(f"{name}: expected src to have a size equal to the slice of self. src "
                           f"size = {tuple(src.shape)}, slice size = {tuple(region.shape)}")
    values = src.reshape(-1).to(input.dtype)  # torch casts src to input's dtype
    flat = input.reshape(-1).index_put((region.reshape(-1),), values, False)
    return flat.view(list(input.shape))


def _slice_view(name, dim, start, end, step):
    def view(t):
        if t.dim() == 0:
            raise IndexError(f"{name}: slice() cannot be applied to a 0-dim tensor.")
        d = dim + t.dim() if dim < 0 else dim
        if not 0 <= d < t.dim():
            raise IndexError(f"{name}: Dimension out of range (expected to be in range of "
                             f"[{-t.dim()}, {t.dim() - 1}], but got {dim})")
        if step <= 0:
            raise RuntimeError(f"{name}: slice step must be positive, got {step}")
        return t[(slice(None),) * d + (slice(start, end, step),)]
    return view


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with input[..., start:end:step (along dim), ...] replaced by src.

    >>> ember.slice_scatter(ember.zeros(5), ember.ones(2), start=1, end=5, step=2)
    tensor([0., 1., 0., 1., 0.])
    """
    return _scatter("slice_scatter", input, src, _slice_view("slice_scatter", dim, start, end, step))


def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src.

    >>> ember.select_scatter(ember.zeros(2, 2), ember.tensor([1.0, 2.0]), 0, 1)
    tensor([[0., 0.],
            [1., 2.]])
    """
    return _scatter("select_scatter", input, src, lambda t: t.select(dim, index))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with input.diagonal(offset, dim1, dim2) replaced by src.

    >>> ember.diagonal_scatter(ember.zeros(2, 2), ember.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    return _scatter("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with input.as_strided(size, stride, storage_offset) replaced by src (the
    geometry is read on input's elements in row-major order, as torch's for contiguous input).

    >>> ember.as_strided_scatter(ember.zeros(4), ember.ones(2), (2,), (2,))
    tensor([1., 0., 1., 0.])
    """
    return _scatter("as_strided_scatter", input, src,
                    lambda t: t.as_strided(size, stride, 0 if storage_offset is None
                                           else storage_offset))


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_inverse: the base that the slice `input` was cut from, rebuilt as a view of
    input's storage with the geometry of `src` (a tensor shaped like that base), as torch:
    input.as_strided(src.shape, src.stride(), src.storage_offset()).

    >>> base = ember.arange(5.0)
    >>> ember.slice_inverse(base[1:3], base, dim=0, start=1, end=3)
    tensor([0., 1., 2., 3., 4.])
    """
    _check(input, "slice_inverse")
    _check(src, "slice_inverse", "src", 2)
    try:
        return input.as_strided(list(src.shape), list(src.stride()), src.storage_offset())
    except RuntimeError as e:
        raise RuntimeError(f"slice_inverse: src of shape {tuple(src.shape)} is no base of input "
                           f"of shape {tuple(input.shape)}: {e}") from None


# ---- splits -----------------------------------------------------------------------------------
def split_with_sizes(input, split_sizes, dim=0):
    """split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensors

    Views of input along `dim` of the given sizes (they must sum to its size there).

    >>> ember.split_with_sizes(ember.arange(5), [2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
    """
    _check(input, "split_with_sizes")
    if isinstance(split_sizes, builtins.int) or not all(
            isinstance(s, builtins.int) and not isinstance(s, builtins.bool) for s in split_sizes):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' must be a sequence of ints, "
                        f"not {split_sizes!r:.60}")
    return input.split(list(split_sizes), dim)


def unsafe_split(input, split_size, dim=0):
    """unsafe_split(input, split_size, dim=0) -> tuple of Tensors

    As split (torch's version skips view checks for in-place use; ember's are ordinary views).

    >>> ember.unsafe_split(ember.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    _check(input, "unsafe_split")
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """unsafe_split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensors

    As split_with_sizes (ordinary views in ember).

    >>> ember.unsafe_split_with_sizes(ember.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0):
    """unsafe_chunk(input, chunks, dim=0) -> tuple of Tensors

    As chunk (ordinary views in ember).

    >>> ember.unsafe_chunk(ember.arange(6), 3)
    (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]))
    """
    _check(input, "unsafe_chunk")
    return input.chunk(chunks, dim)


def sum_to_size(self, *size):
    """sum_to_size(*size) -> Tensor

    self summed down to `size` (which self must expand to): the gradient of a broadcast.

    >>> ember.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    >>> ember.ones(2, 3).sum_to_size((2, 1))
    tensor([[3.],
            [3.]])
    """
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    if len(size) == 1 and not isinstance(size[0], builtins.int):
        size = tuple(size[0])
    size = tuple(size)
    lead = self.dim() - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, self.shape[lead:])):
        raise RuntimeError(f"sum_to_size: size {list(size)} is not expandable to size "
                           f"{list(self.shape)}")
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and self.shape[lead + i] != 1]
    if not dims:
        return self
    return self.sum(dims, keepdim=True).view(list(size))


FUNCTIONS = {
    "slice_scatter": slice_scatter, "select_scatter": select_scatter,
    "diagonal_scatter": diagonal_scatter, "as_strided_scatter": as_strided_scatter,
    "slice_inverse": slice_inverse, "split_with_sizes": split_with_sizes,
    "unsafe_split": unsafe_split, "unsafe_split_with_sizes": unsafe_split_with_sizes,
    "unsafe_chunk": unsafe_chunk,
}
METHODS = dict(FUNCTIONS)
METHODS["sum_to_size"] = sum_to_size
