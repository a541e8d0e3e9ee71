"""Shape and join functions (tile, repeat, *stack, atleast_*d, broadcast_*, meshgrid, diag*,
rot90, block_diag, cartesian_prod, combinations, take, tensor_split and friends), built from views (expand, permute, narrow) and ember's C++ ops, so every gradient
comes from the ops they use. Shape arithmetic only: no element loops."""
import builtins
import warnings

from . import _C, _creation
from ._dtype import int64, bool as _bool

Tensor = _C.Tensor


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")
    return x


def _tensor_list(tensors, fn):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return tuple(tensors)


def _ints(dims, fn):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    dims = [dims] if isinstance(dims, builtins.int) else list(dims)
    for d in dims:
        if isinstance(d, builtins.bool) or not isinstance(d, builtins.int):
            raise TypeError(f"{fn}(): expected a sequence of ints, got {dims!r}")
    return dims


# ---- repeat / tile / repeat_interleave -------------------------------------------------------
def repeat(self, *sizes):
    """repeat(*sizes) -> Tensor

    self tiled sizes[i] times along dim i (sizes may add leading dims), as torch's
    Tensor.repeat (numpy's tile).

    >>> ember.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    reps = _ints(sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], builtins.int) else sizes,
                 "repeat")
    if len(reps) < self.dim():
        raise RuntimeError(f"repeat: Number of dimensions of repeat dims ({len(reps)}) can not be "
                           f"smaller than number of dimensions of tensor ({self.dim()})")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat: Trying to create tensor with negative dimension: {reps}")
    shape = [1] * (len(reps) - self.dim()) + list(self.shape)
    # (s0, s1, ...) -> (1, s0, 1, s1, ...) -> expand to (r0, s0, r1, s1, ...) -> (r0*s0, ...), in
    # new memory as torch's (a bare reshape can be a stride-0 view of self: one write, every repeat)
    interleaved = [v for s in shape for v in (1, s)]
    expanded = [v for r, s in zip(reps, shape) for v in (r, s)]
    return self.reshape(interleaved).expand(*expanded).clone().reshape(
        [r * s for r, s in zip(reps, shape)])


def tile(input, dims):
    """tile(input, dims) -> Tensor

    input repeated `dims[i]` times along each dim (leading 1s added to the shorter of the two).

    >>> ember.tile(ember.tensor([1, 2]), (2, 2))
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    _check_tensor(input, "tile")
    reps = _ints(dims, "tile")
    return repeat(input, [1] * (input.dim() - len(reps)) + reps)


def _repeat_index(repeats, fn):
    """[0]*r0 + [1]*r1 + ...: marks at each run's start, summed (cumsum) into run numbers."""
    if repeats.dim() > 1:
        raise RuntimeError(f"{fn}: repeats must be 0-dim or 1-dim tensor, got shape "
                           f"{tuple(repeats.shape)}")
    if repeats.dtype not in (int64, _C.dtype.int32):
        raise RuntimeError(f"{fn}: repeats has to be Long or Int tensor, got {repeats.dtype}")
    repeats = repeats.reshape(-1).long()
    if repeats.numel() and builtins.bool((repeats < 0).any()):
        raise RuntimeError(f"{fn}: repeats can not be negative")
    total = builtins.int(repeats.sum().item()) if repeats.numel() else 0
    if total == 0:
        return _creation.zeros([0], dtype=int64)
    starts = _C.cumsum(repeats, 0) - repeats           # where each value's run begins
    runs = _C.nonzero(repeats > 0).reshape(-1)            # the values that appear
    # At each run's start, the step from the previous run's value; the running sum is the value.
    steps = runs - _C.cat([_creation.zeros([1], dtype=int64), runs[:-1]], 0)
    marks = _creation.zeros([total], dtype=int64).scatter(0, starts[runs], steps)
    return _C.cumsum(marks, 0)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (slice along dim) repeated `repeats` times, in place order.

    >>> ember.repeat_interleave(ember.tensor([1, 2]), ember.tensor([1, 3]))
    tensor([1, 2, 2, 2])
    """
    _check_tensor(input, "repeat_interleave")
    if repeats is None:  # torch.repeat_interleave(repeats): the index form
        return _repeat_index(input, "repeat_interleave")
    if dim is None:
        input, dim = input.reshape(-1), 0
    n = input.dim()
    if not -builtins.max(n, 1) <= dim < builtins.max(n, 1):
        raise IndexError(f"repeat_interleave: Dimension out of range (expected to be in range of "
                         f"[{-builtins.max(n, 1)}, {builtins.max(n, 1) - 1}], but got {dim})")
    dim %= builtins.max(n, 1)
    if isinstance(repeats, builtins.bool) or not isinstance(repeats, (builtins.int, Tensor)):
        raise TypeError(f"repeat_interleave(): argument 'repeats' must be int or Tensor, not "
                        f"{type(repeats).__name__}")
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = builtins.int(repeats.item())
    if isinstance(repeats, builtins.int):
        if repeats < 0:
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        shape = list(input.shape)
        x = input.unsqueeze(dim + 1)
        sizes = shape[:dim + 1] + [repeats] + shape[dim + 1:]
        # new memory, as torch (a bare reshape could be a stride-0 view of input: (1, 4) x 3)
        return x.expand(*sizes).clone().reshape(
            shape[:dim] + [shape[dim] * repeats] + shape[dim + 1:])
    if repeats.numel() != input.shape[dim]:
        raise RuntimeError(f"repeat_interleave: repeats must have the same size as input along dim "
                           f"{dim}, but got repeats.size(0) = {repeats.numel()} and "
                           f"input.size({dim}) = {input.shape[dim]}")
    return _C.index_select(input, dim, _repeat_index(repeats, "repeat_interleave"))


# ---- atleast_*d and the stacks ---------------------------------------------------------------
# name -> the docstring of the generated functions below (its example is a doctest of
# tests/python/test_docstring_examples.py)
DOCS = {
    "atleast_1d": """atleast_1d(*tensors) -> Tensor or tuple

Each tensor viewed with at least 1 dim (a 0-d tensor becomes shape (1,)).

>>> ember.atleast_1d(ember.tensor(5)).shape
ember.Size([1])""",
    "atleast_2d": """atleast_2d(*tensors) -> Tensor or tuple

Each tensor viewed with at least 2 dims (leading 1s added).

>>> ember.atleast_2d(ember.tensor([1, 2])).shape
ember.Size([1, 2])""",
    "atleast_3d": """atleast_3d(*tensors) -> Tensor or tuple

Each tensor viewed with at least 3 dims (NumPy's placement: (n,) -> (1, n, 1)).

>>> ember.atleast_3d(ember.tensor([[1, 2]])).shape
ember.Size([1, 2, 1])""",
    "vstack": """vstack(tensors, *, out=None) -> Tensor

The tensors (1-D ones as rows) concatenated along dim 0.

>>> ember.vstack([ember.tensor([1, 2]), ember.tensor([3, 4])])
tensor([[1, 2],
        [3, 4]])""",
    "row_stack": """row_stack(tensors, *, out=None) -> Tensor

Alias of vstack.

>>> ember.row_stack([ember.tensor([1, 2]), ember.tensor([3, 4])])
tensor([[1, 2],
        [3, 4]])""",
    "hstack": """hstack(tensors, *, out=None) -> Tensor

The tensors concatenated along dim 1 (dim 0 for 1-D tensors).

>>> ember.hstack([ember.tensor([1, 2]), ember.tensor([3])])
tensor([1, 2, 3])""",
    "dstack": """dstack(tensors, *, out=None) -> Tensor

The tensors, made at least 3-D, concatenated along dim 2.

>>> ember.dstack([ember.tensor([1, 2]), ember.tensor([3, 4])])
tensor([[[1, 3],
         [2, 4]]])""",
    "column_stack": """column_stack(tensors, *, out=None) -> Tensor

The tensors (1-D ones as columns) concatenated along dim 1.

>>> ember.column_stack([ember.tensor([1, 2]), ember.tensor([3, 4])])
tensor([[1, 3],
        [2, 4]])""",
    "hsplit": """hsplit(input, indices_or_sections) -> tuple of Tensors

tensor_split along dim 1 (dim 0 for a 1-D input); sections must divide evenly.

>>> ember.hsplit(ember.arange(8).reshape(2, 4), 2)
(tensor([[0, 1],
        [4, 5]]), tensor([[2, 3],
        [6, 7]]))""",
    "vsplit": """vsplit(input, indices_or_sections) -> tuple of Tensors

tensor_split along dim 0 of an input of at least 2 dims.

>>> ember.vsplit(ember.arange(8).reshape(4, 2), [1])
(tensor([[0, 1]]), tensor([[2, 3],
        [4, 5],
        [6, 7]]))""",
    "dsplit": """dsplit(input, indices_or_sections) -> tuple of Tensors

tensor_split along dim 2 of an input of at least 3 dims.

>>> [t.shape for t in ember.dsplit(ember.zeros(2, 2, 4), 2)]
[ember.Size([2, 2, 2]), ember.Size([2, 2, 2])]""",
}


def _atleast(shape_of, fn):
    def f(*tensors):
        single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
        ts = _tensor_list(tensors, fn)
        out = tuple(t if t.dim() >= len(shape_of(t)) and shape_of(t) == list(t.shape)
                    else t.reshape(shape_of(t)) for t in ts)
        return out[0] if single else out
    f.__name__, f.__doc__ = fn, DOCS[fn]
    return f


def _shape_1d(t):
    return list(t.shape) if t.dim() >= 1 else [1]


def _shape_2d(t):
    return list(t.shape) if t.dim() >= 2 else [1] + _shape_1d(t)


def _shape_3d(t):
    if t.dim() >= 3:
        return list(t.shape)
    if t.dim() == 2:
        return list(t.shape) + [1]
    return [1] + _shape_1d(t) + [1]


atleast_1d = _atleast(_shape_1d, "atleast_1d")
atleast_2d = _atleast(_shape_2d, "atleast_2d")
atleast_3d = _atleast(_shape_3d, "atleast_3d")


def _join(fn, make, dim_of):
    def f(tensors, *, out=None):
        if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
            raise TypeError(f"{fn}(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type(tensors).__name__}")
        ts = [make(t) for t in _tensor_list((tensors,), fn)]
        if not ts:
            raise RuntimeError(f"{fn}(): expects a non-empty TensorList")
        result = _C.cat(ts, dim_of(ts))
        if out is None:
            return result
        from ._comparison import _into
        return _into(result, out, fn)
    f.__name__, f.__doc__ = fn, DOCS[fn]
    return f


def _column(t):
    return t.reshape([t.numel(), 1]) if t.dim() <= 1 else t


vstack = _join("vstack", atleast_2d, lambda ts: 0)
row_stack = _join("row_stack", atleast_2d, lambda ts: 0)
hstack = _join("hstack", atleast_1d, lambda ts: 0 if ts[0].dim() == 1 else 1)
dstack = _join("dstack", atleast_3d, lambda ts: 2)
column_stack = _join("column_stack", _column, lambda ts: 1)


# ---- broadcasting ------------------------------------------------------------------------------
def broadcast_shapes(*shapes):
    """The shape that all `shapes` broadcast to (shape arithmetic only).

    >>> ember.broadcast_shapes((2, 1), (3,))
    ember.Size([2, 3])
    """
    return _broadcast_shapes("broadcast_shapes", shapes)


def _broadcast_shapes(fn, shapes):
    dims = [[s] if isinstance(s, builtins.int) else list(s) for s in shapes]
    n = builtins.max((len(d) for d in dims), default=0)
    out = [1] * n
    for d in dims:
        for i, s in enumerate(d, start=n - len(d)):
            if s < 0:
                raise RuntimeError(f"{fn}: trying to create tensor with negative "
                                   f"dimension {s}: {list(d)}")
            if s != 1 and out[i] not in (1, s):
                raise RuntimeError(f"{fn}: Shape mismatch: objects cannot be broadcast "
                                   f"to a single shape ({', '.join(str(tuple(x)) for x in dims)})")
            if s != 1:
                out[i] = s
    from ._tensor import Size
    return Size(out)


def broadcast_tensors(*tensors):
    """broadcast_tensors(*tensors) -> List of Tensors

    The tensors expanded (as views) to their common broadcast shape.

    >>> a, b = ember.broadcast_tensors(ember.tensor([[1], [2]]), ember.tensor([10, 20, 30]))
    >>> b
    tensor([[10, 20, 30],
            [10, 20, 30]])
    """
    ts = _tensor_list(tensors, "broadcast_tensors")
    shape = _broadcast_shapes("broadcast_tensors", [tuple(t.shape) for t in ts])
    return tuple(t.expand(*shape) for t in ts)


def broadcast_to(input, size):
    """broadcast_to(input, size) -> Tensor

    input expanded (a view) to `size` under the broadcasting rules.

    >>> ember.broadcast_to(ember.tensor([1, 2, 3]), (2, 3))
    tensor([[1, 2, 3],
            [1, 2, 3]])
    """
    _check_tensor(input, "broadcast_to")
    return input.expand(*_ints(size, "broadcast_to"))


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: output i varies along dim i ('ij'); 'xy' swaps the first two dims.

    >>> xs, ys = ember.meshgrid(ember.tensor([1, 2, 3]), ember.tensor([4, 5]), indexing='ij')
    >>> xs
    tensor([[1, 1],
            [2, 2],
            [3, 3]])
    """
    ts = _tensor_list(tensors, "meshgrid")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be one of \"xy\" or \"ij\", but received: "
                           f"{indexing}")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError(f"meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"shape {tuple(t.shape)}")
        if t.dtype != ts[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    ts = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = [t.reshape([-1 if j == i else 1 for j in range(len(ts))]).expand(*shape)
             for i, t in enumerate(ts)]
    if swap:  # torch swaps the outputs back, keeping the swapped grid shape
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ---- diagonals ---------------------------------------------------------------------------------
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """input's last dim placed on the `offset` diagonal of new dims dim1, dim2.

    >>> ember.diag_embed(ember.tensor([[1, 2], [3, 4]]))[1]
    tensor([[3, 0],
            [0, 4]])
    """
    _check_tensor(input, "diag_embed")
    if input.dim() == 0:
        raise RuntimeError("diag_embed: expected input to have at least 1 dimension, got 0-d")
    n = input.shape[-1]
    m = n + builtins.abs(offset)
    eye = _creation.eye(n, dtype=_bool)
    square = _C.where(eye, input.unsqueeze(-1), _creation.zeros([], dtype=input.dtype))
    batch = list(input.shape[:-1])
    if offset:
        k = builtins.abs(offset)
        cols = _creation.zeros(batch + [n, k], dtype=input.dtype)
        rows = _creation.zeros(batch + [k, m], dtype=input.dtype)
        if offset > 0:   # shifted right: zero columns on the left, a zero row at the bottom
            square = _C.cat([_C.cat([cols, square], -1), rows], -2)
        else:            # shifted down: a zero row on top, zero columns on the right
            square = _C.cat([rows, _C.cat([square, cols], -1)], -2)
    nd = input.dim() + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    from ._pointwise import movedim
    return movedim(square, [nd - 2, nd - 1], [d1, d2])


def diag(input, diagonal=0, *, out=None):
    """1-d: a square matrix with input on that diagonal; 2-d: a copy of that diagonal.

    >>> ember.diag(ember.tensor([1, 2])), ember.diag(ember.tensor([[1, 2], [3, 4]]))
    (tensor([[1, 0],
            [0, 2]]), tensor([1, 4]))
    """
    _check_tensor(input, "diag")
    if input.dim() == 1:
        result = diag_embed(input, diagonal)
    elif input.dim() == 2:
        result = _C.diagonal(input, diagonal, 0, 1).clone()
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    if out is None:
        return result
    from ._comparison import _into
    return _into(result, out, "diag")


def diagflat(input, offset=0):
    """diagflat(input, offset=0) -> Tensor

    A 2-D tensor with input, flattened, on its `offset`-th diagonal.

    >>> ember.diagflat(ember.tensor([[1, 2], [3, 4]]))
    tensor([[1, 0, 0, 0],
            [0, 2, 0, 0],
            [0, 0, 3, 0],
            [0, 0, 0, 4]])
    """
    _check_tensor(input, "diagflat")
    return diag_embed(input.reshape(-1), offset)


def trace(input):
    """trace(input) -> Tensor

    The sum of the main diagonal of a 2-D tensor.

    >>> ember.trace(ember.arange(9.0).reshape(3, 3))
    tensor(12.)
    """
    _check_tensor(input, "trace")
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return _C.diagonal(input, 0, 0, 1).sum()


def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees k times in the plane of dims, from the first towards the second.

    >>> ember.rot90(ember.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    _check_tensor(input, "rot90")
    dims = _ints(dims, "rot90")
    n = input.dim()
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {n}")
    d0, d1 = dims
    if not (-n <= d0 < n and -n <= d1 < n):
        raise IndexError(f"rot90: Dimension out of range (expected to be in range of [{-n}, "
                         f"{n - 1}], but got {dims})")
    if d0 % n == d1 % n:
        raise RuntimeError(f"rot90: expected rotation dims to be different, but got dim0 = {d0} "
                           f"and dim1 = {d1}")
    k %= 4
    if k == 1:
        return _C.flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return _C.flip(input, [d0, d1])
    if k == 3:
        return _C.flip(input, [d0]).transpose(d0, d1)
    return input.clone()


def block_diag(*tensors):
    """The tensors (0-d, 1-d as a row, 2-d) on the diagonal of one matrix, zeros elsewhere.

    >>> ember.block_diag(ember.tensor([[1, 2]]), ember.tensor([[3], [4]]))
    tensor([[1, 2, 0],
            [0, 0, 3],
            [0, 0, 4]])
    """
    ts = _tensor_list(tensors, "block_diag")
    mats = []
    for i, t in enumerate(ts):
        if t.dim() > 2:
            raise RuntimeError(f"block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape([1, -1] if t.dim() == 1 else [1, 1]) if t.dim() < 2 else t)
    if not mats:
        return _creation.zeros([1, 0])
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = _C.promote_types(dt, m.dtype)
    width = builtins.sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = [_creation.zeros([r, left], dtype=dt), m.to(dt), _creation.zeros([r, width - left - c], dtype=dt)]
        rows.append(_C.cat(parts, 1))
        left += c
    return _C.cat(rows, 0)


def cartesian_prod(*tensors):
    """cartesian_prod(*tensors) -> Tensor

    The Cartesian product of 1-D tensors, one row per combination (itertools.product order).

    >>> ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    ts = _tensor_list(tensors, "cartesian_prod")
    for t in ts:
        if t.dim() != 1:
            raise RuntimeError(f"cartesian_prod: Expect a 1D vector, but got shape {tuple(t.shape)}")
    if len(ts) == 1:
        return ts[0]
    return _C.stack([g.reshape(-1) for g in meshgrid(*ts, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """Length-r combinations of a 1-d tensor's elements, in lexicographic order of positions
    (the index tuples come from a masked r-d grid of positions).

    >>> ember.combinations(ember.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    _check_tensor(input, "combinations")
    if input.dim() != 1:
        raise RuntimeError(f"combinations: Expect a 1D vector, but got shape {tuple(input.shape)}")
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return _creation.zeros([0], dtype=input.dtype)
    n = input.shape[0]
    if not with_replacement and r > n:
        return _creation.zeros([0, r], dtype=input.dtype)
    if n > 1 and r * (n.bit_length()) > 40:  # the n**r grid of positions would not fit
        raise RuntimeError(f"combinations: r={r} is too large for {n} elements")
    pos = _creation.arange(n, dtype=int64)
    grids = meshgrid(*([pos] * r), indexing="ij")
    mask = _creation.ones(list(grids[0].shape), dtype=_bool)
    for a, b in zip(grids, grids[1:]):
        mask = mask & (a <= b if with_replacement else a < b)
    cols = [_C.index_select(input, 0, _C.masked_select(g, mask)) for g in grids]
    return _C.stack(cols, 1)


# ---- indexing ---------------------------------------------------------------------------------
def take(input, index):
    """input read as 1-d at `index` (negative counts from the end); the result has index's shape.

    >>> ember.take(ember.tensor([[1, 2], [3, 4]]), ember.tensor([0, 3]))
    tensor([1, 4])
    """
    _check_tensor(input, "take")
    _check_tensor(index, "take", "index")
    if index.dtype != int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    n = input.numel()
    if index.numel() and (builtins.bool((index >= n).any()) or builtins.bool((index < -n).any())):
        bad = index[(index >= n) | (index < -n)].reshape(-1)[0].item()
        raise IndexError(f"take(): out of range: tried to access index {bad} on a tensor of {n} "
                         f"elements.")
    flat = _C.where(index < 0, index + n, index).reshape(-1)
    return _C.index_select(input.reshape(-1), 0, flat).reshape(list(index.shape))


# ---- splitting --------------------------------------------------------------------------------
def tensor_split(input, indices_or_sections, dim=0):
    """Views of input along dim: n near-equal parts (the first size % n one longer), or the
    pieces between the given indices.

    >>> ember.tensor_split(ember.arange(7), 3)
    (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
    """
    _check_tensor(input, "tensor_split")
    n = input.dim()
    if n == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                           "with 0 dims")
    if not -n <= dim < n:
        raise IndexError(f"tensor_split: Dimension out of range (expected to be in range of [{-n}, "
                         f"{n - 1}], but got {dim})")
    dim %= n
    size = input.shape[dim]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        if spec.dim() > 1 or spec.dtype != int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-"
                               "dimensional or one-dimensional tensor of dtype long, but got "
                               f"shape {tuple(spec.shape)} and dtype {spec.dtype}")
        spec = spec.item() if spec.dim() == 0 else spec.tolist()
    if isinstance(spec, builtins.int):
        if spec <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got {spec}")
        if spec > 2 ** 31:  # torch: "cannot create std::vector larger than max_size()"
            raise RuntimeError(f"tensor_split: cannot split into {spec} sections")
        base, extra = divmod(size, spec)
        cuts = [i * base + builtins.min(i, extra) for i in range(1, spec)]
    else:
        cuts = _ints(spec, "tensor_split")

    def clamp(i):  # Python slice semantics: negative counts from the end, then clipped
        return builtins.min(builtins.max(i + size if i < 0 else i, 0), size)
    starts, ends = [0] + [clamp(c) for c in cuts], [clamp(c) for c in cuts] + [size]
    return tuple(input.narrow(dim, lo, builtins.max(hi - lo, 0)) for lo, hi in zip(starts, ends))


def _split_named(fn, min_dim, dim_of):
    def f(input, indices_or_sections):
        _check_tensor(input, fn)
        if input.dim() < min_dim:
            raise RuntimeError(f"torch.{fn} requires a tensor with at least {min_dim} dimension, "
                               f"but got a tensor with {input.dim()} dimensions!")
        dim = dim_of(input)
        if isinstance(indices_or_sections, builtins.int):
            s = indices_or_sections
            if s == 0 or input.shape[dim] % s:
                raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the "
                                   f"size of the dimension {input.shape[dim]} is not divisible by "
                                   f"the split_size {s}!")
        return tensor_split(input, indices_or_sections, dim)
    f.__name__, f.__doc__ = fn, DOCS[fn]
    return f


hsplit = _split_named("hsplit", 1, lambda t: 0 if t.dim() == 1 else 1)
vsplit = _split_named("vsplit", 2, lambda t: 0)
dsplit = _split_named("dsplit", 3, lambda t: 2)


def ravel(input):
    """ravel(input) -> Tensor

    input flattened to 1-D in row-major order (a view when possible, else a copy).

    >>> ember.ravel(ember.tensor([[1, 2], [3, 4]]).t())
    tensor([1, 3, 2, 4])
    """
    _check_tensor(input, "ravel")
    return input.reshape(-1)


FUNCTIONS = {
    "tile": tile, "repeat_interleave": repeat_interleave, "atleast_1d": atleast_1d,
    "atleast_2d": atleast_2d, "atleast_3d": atleast_3d, "vstack": vstack, "row_stack": row_stack,
    "hstack": hstack, "dstack": dstack, "column_stack": column_stack,
    "broadcast_shapes": broadcast_shapes, "broadcast_tensors": broadcast_tensors,
    "broadcast_to": broadcast_to, "meshgrid": meshgrid, "diag_embed": diag_embed, "diag": diag,
    "diagflat": diagflat, "trace": trace, "rot90": rot90, "block_diag": block_diag,
    "cartesian_prod": cartesian_prod, "combinations": combinations, "take": take,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "ravel": ravel,
}
_NOT_METHODS = ("atleast_1d", "atleast_2d", "atleast_3d", "vstack", "row_stack", "hstack", "dstack",
                "column_stack", "broadcast_shapes", "broadcast_tensors", "meshgrid", "block_diag",
                "cartesian_prod", "combinations")
METHODS = {n: f for n, f in FUNCTIONS.items() if n not in _NOT_METHODS}
METHODS["repeat"] = repeat


def _tile_method(self, *dims):
    """tile(*dims) -> Tensor

    ember.tile(self, dims): self repeated dims[i] times along dim i; fewer dims than self
    has are padded with leading 1s.

    >>> ember.tensor([[1, 2]]).tile(2)
    tensor([[1, 2, 1, 2]])
    >>> ember.tensor([1, 2]).tile((2, 2))
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    return tile(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], builtins.int) else dims)


METHODS["tile"] = _tile_method
