"""torch.linalg's norms, cond and matrix_rank, composed from ember's C++ ops (the vector norm
reduction, abs/sum/amax, svdvals, eigvalsh, inv): no loop over elements here, and the
gradients are those of the ops."""
import math

from . import _C


def _dims(dim, ndim):
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % ndim if ndim else d for d in dims)


def _float_check(x, op):
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{_torch_name(x.dtype)}")


def _torch_name(dtype):
    from .linalg import _torch_type
    return _torch_type(dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    The ord-norm of the elements (all, or over dim).

    >>> ember.linalg.vector_norm(ember.tensor([3.0, 4.0]))
    tensor(5.)"""
    from .linalg import _out
    _float_check(x, "linalg.vector_norm")
    if dtype is not None:
        x = x.to(dtype)
    dims = None if dim is None else _dims(dim, x.dim())
    ord = float(ord)
    if ord < 0 and not math.isinf(ord):  # (sum |x|^p)^(1/p), p < 0: the C++ norm takes p >= 0
        r = _C.abs(x).pow(ord).sum(dims if dims is not None else tuple(range(x.dim())), keepdim)
        return _out(r.pow(1.0 / ord), out, "linalg.vector_norm")
    r = _C.norm(x, ord, dims, keepdim)
    if dims is None and keepdim:
        r = r.reshape((1,) * x.dim())
    return _out(r, out, "linalg.vector_norm")


def _move_to_end(A, dim):
    d0, d1 = _dims(dim, A.dim())
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return A.movedim((d0, d1), (-2, -1)), (d0, d1)


def _restore(r, dims, keepdim):
    if keepdim:
        for d in sorted(dims):
            r = r.unsqueeze(d)
    return r


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None) -> Tensor

    A matrix norm over the last two dims: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2.

    >>> ember.linalg.matrix_norm(ember.tensor([[4.0, 1.0], [1.0, 3.0]]))
    tensor(5.1962)"""
    from . import linalg
    _float_check(A, "linalg.matrix_norm")
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return linalg._out(vector_norm(A, 2, dim, keepdim), out, "linalg.matrix_norm")
    M, dims = _move_to_end(A, dim)
    if ord == "nuc":
        r = linalg.svdvals(M).sum(-1)
    elif ord in (2, -2):
        s = linalg.svdvals(M)
        r = s.amax(-1) if ord == 2 else s.amin(-1)
    elif ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum of |A|; inf: the largest row sum
        sums = _C.abs(M).sum(-2 if abs(ord) == 1 else -1)
        r = sums.amax(-1) if ord > 0 else sums.amin(-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return linalg._out(_restore(r, dims, keepdim), out, "linalg.matrix_norm")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.norm: a vector norm over one dim (or all, for ord=None), a matrix norm over
    two dims (or of a 2-d input given an ord).

    >>> ember.linalg.norm(ember.tensor([3.0, 4.0])), ember.linalg.norm(ember.eye(2), "fro")
    (tensor(5.), tensor(1.4142))
    """
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D "
                       f"or 2D. Got {A.dim()}D.")


def cond(A, p=None, *, out=None):
    """The condition number: s_max / s_min for p in (None, 2), s_min / s_max for -2, else
    ||A||_p ||A^-1||_p.

    >>> ember.linalg.cond(ember.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    """
    from . import linalg
    if p in (None, 2, -2):
        s = linalg.svdvals(A)
        r = s.amax(-1) / s.amin(-1) if p != -2 else s.amin(-1) / s.amax(-1)
    else:
        r = matrix_norm(A, p) * matrix_norm(linalg.inv(A), p)
    return linalg._out(r, out, "linalg.cond")


def _tolerance(s_max, m, n, dtype, atol, rtol):
    """torch's threshold max(atol, rtol * s_max); rtol defaults to eps * max(m, n) unless only
    atol is given (> 0)."""
    from ._dtype_info import finfo
    if rtol is None:
        atol_given = atol is not None and not (isinstance(atol, (int, float)) and atol == 0)
        rtol = 0.0 if atol_given else finfo(dtype).eps * max(m, n)
    tol = s_max * rtol
    if atol is not None:
        tol = _C.maximum(tol, atol.unsqueeze(-1)) if hasattr(atol, "dim") else tol.clamp(min=float(atol))
    return tol


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None) -> Tensor

    The number of singular values above the tolerance.

    >>> ember.linalg.matrix_rank(ember.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)"""
    from . import linalg
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")
    if tol is not None:  # the old keyword: an absolute tolerance
        atol, rtol = tol, 0.0
    s = _C.abs(linalg.eigvalsh(A)) if hermitian else linalg.svdvals(A)
    m, n = A.shape[-2], A.shape[-1]
    if s.shape[-1] == 0:
        from ._creation import zeros
        from ._dtype import int64
        return linalg._out(zeros(tuple(s.shape[:-1]), dtype=int64), out, "linalg.matrix_rank")
    tol = _tolerance(s.amax(-1, keepdim=True), m, n, s.dtype, atol, rtol)
    return linalg._out((s > tol).sum(-1), out, "linalg.matrix_rank")
