"""Randomized low-rank SVD and PCA (Halko, Martinsson and Tropp 2009, "Finding structure with
randomness", algorithm 4.4: a Gaussian sketch refined by subspace iterations), as torch's
svd_lowrank and pca_lowrank: ember ops (randn, matmul, linalg.qr, linalg.svd), batched."""
import builtins

from . import _creation
from ._tensor import Tensor


def _check(A, op):
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{op}: A must have at least 2 dimensions, got shape {tuple(A.shape)}")
    if not A.is_floating_point():
        raise RuntimeError(f"{op}: A must be a floating point tensor, got {A.dtype}")


def _orth(X):
    from . import linalg
    return linalg.qr(X).Q


def _range_basis(A, q, niter, M):
    """Q (..., m, q) with orthonormal columns spanning most of the range of A - M."""
    Ah = A.mT
    R = _creation.randn(*A.shape[:-2], A.shape[-1], q, dtype=A.dtype)
    Q = _orth(A @ R if M is None else A @ R - M @ R)
    for _ in range(niter):
        Q = _orth(Ah @ Q if M is None else Ah @ Q - M.mT @ Q)
        Q = _orth(A @ Q if M is None else A @ Q - M @ Q)
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V), U (..., m, q), S (..., q), V (..., n, q): an approximate rank-q SVD of A - M,
    exact up to rounding when that has rank <= q. Random: uses the global generator.

    >>> A = ember.tensor([[3.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> U, S, V = ember.svd_lowrank(A, q=2)
    >>> S.round()
    tensor([3., 1.])
    """
    _check(A, "svd_lowrank")
    q = 6 if q is None else q
    if isinstance(q, builtins.bool) or not isinstance(q, builtins.int) or q < 0:
        raise ValueError(f"svd_lowrank: q must be a non-negative int, got {q!r}")
    if isinstance(niter, builtins.bool) or not isinstance(niter, builtins.int) or niter < 0:
        raise ValueError(f"svd_lowrank: niter must be a non-negative int, got {niter!r}")
    if M is not None:
        if not isinstance(M, Tensor):
            raise TypeError(f"svd_lowrank(): argument 'M' must be Tensor, not {type(M).__name__}")
        M = M.expand(A.shape)
    from . import linalg
    m, n = A.shape[-2:]
    if m < n:  # sketch the smaller side: work on the transpose and swap U and V back
        U, S, V = svd_lowrank(A.mT, q, niter, None if M is None else M.mT)
        return V, S, U
    Q = _range_basis(A, q, niter, M)
    B = Q.mT @ (A if M is None else A - M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    return Q @ U, S, Vh.mT


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the centred data A (rows: samples): V's columns are the principal
    directions, S ** 2 / (m - 1) the variances along them.

    >>> A = ember.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
    >>> U, S, V = ember.pca_lowrank(A, q=2)
    >>> S.round()
    tensor([1., 1.])
    """
    _check(A, "pca_lowrank")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    if isinstance(q, builtins.bool) or not isinstance(q, builtins.int) or not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if isinstance(niter, builtins.bool) or not isinstance(niter, builtins.int) or niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    return svd_lowrank(A - A.mean(dim=-2, keepdim=True), q, niter)


FUNCTIONS = {"svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank}
METHODS = {}
