"""Tensors built from index grids: tril_indices, triu_indices, vander, logspace. Each is a
composition of arange/linspace/masked_select/cumprod (no element loops)."""
from . import _C, _creation, _dtype
from ._dtype import float32, float64, int64

Tensor = _C.Tensor


def _triangle_indices(fn, row, col, offset, dtype, keep):
    for name, v in (("row", row), ("col", col)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(v).__name__}")
        if v < 0:
            raise RuntimeError(f"{fn}(): {name} must be non-negative, got {v}")
    if row * col > 2 ** 32:  # the (row, col) grid is built whole: refuse before allocating it
        raise RuntimeError(f"{fn}(): a {row} x {col} index grid is too large")
    if dtype not in (int64, _C.dtype.int32):
        raise RuntimeError(f"{fn}(): \"{fn}\" not implemented for '{dtype}'")
    r = _creation.arange(row, dtype=int64).unsqueeze(1).expand(row, col)
    c = _creation.arange(col, dtype=int64).unsqueeze(0).expand(row, col)
    mask = keep(c - r, offset)
    return _C.stack([_C.masked_select(r, mask), _C.masked_select(c, mask)], 0).to(dtype)


def tril_indices(row, col, offset=0, *, dtype=int64, device=None, layout=None):
    """(2, N) row and column indices of the lower triangle (col - row <= offset), row-major.

    >>> ember.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    return _triangle_indices("tril_indices", row, col, offset, dtype, lambda d, k: d <= k)


def triu_indices(row, col, offset=0, *, dtype=int64, device=None, layout=None):
    """(2, N) row and column indices of the upper triangle (col - row >= offset), row-major.

    >>> ember.triu_indices(2, 3, 1)
    tensor([[0, 0, 1],
            [1, 2, 2]])
    """
    return _triangle_indices("triu_indices", row, col, offset, dtype, lambda d, k: d >= k)


def vander(x, N=None, increasing=False):
    """Columns x**0 ... x**(N-1) (reversed unless increasing), by a cumulative product, so the
    gradient at x == 0 is exact.

    >>> ember.vander(ember.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"vander(): argument 'x' must be Tensor, not {type(x).__name__}")
    if x.dim() != 1:
        raise RuntimeError(f"vander(): x must be a one-dimensional tensor, got shape "
                           f"{tuple(x.shape)}")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"vander(): N must be non-negative, got {n}")
    dt = x.dtype if x.dtype in (float32, float64) else int64
    rows = x.shape[0]
    if n == 0:
        return _creation.zeros([rows, 0], dtype=dt)
    ones = _creation.ones([rows, 1], dtype=dt)
    powers = _C.cat([ones, x.to(dt).unsqueeze(1).expand(rows, n - 1)], 1).cumprod(1)
    return powers if increasing else _C.flip(powers, [1])


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
             requires_grad=False, out=None):
    """base ** linspace(start, end, steps), computed in float64 and cast.

    >>> ember.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise RuntimeError(f"logspace(): number of steps must be non-negative, got {steps}")
    dt = dtype or _dtype.get_default_dtype()
    integral = not (dt.is_floating_point or dt.is_complex)
    if integral:  # as torch: the ends become integers first, the powers are truncated
        start, end = int(start), int(end)
    exponents = _creation.linspace(float(start), float(end), steps, dtype=float64)
    values = _C.pow(_creation.full([], float(base), dtype=float64), exponents)
    result = (_C.trunc(values) if integral else values).to(dt)
    if out is not None:
        from ._comparison import _into
        return _into(result, out, "logspace")
    return result.requires_grad_(requires_grad) if requires_grad else result


FUNCTIONS = {"tril_indices": tril_indices, "triu_indices": triu_indices, "vander": vander,
             "logspace": logspace}
METHODS = {}
