"""torch.lobpcg: the k largest (or smallest) eigenpairs of a symmetric A (generalized: A x = λ B x
with B symmetric positive definite), by Knyazev's locally optimal block preconditioned conjugate
gradient: each step does a Rayleigh-Ritz projection onto span[X, iK R, P] (the current block,
its preconditioned residuals and the previous direction), made B-orthonormal (QR, directions that
became dependent dropped, then B's Gram matrix on that basis). Batched
over A's leading dims. ember ops only (matmul, linalg.eigh).

The eigenvalues carry A's (and B's) gradient: at convergence dλ_i/dA = x_i x_i^T and
dλ_i/dB = -λ_i x_i x_i^T, given here by the Rayleigh quotients of the detached eigenvectors.
A gradient reaching the eigenvectors raises NotImplementedError (torch has one; ember does not
yet) instead of being dropped."""
import builtins

from . import _creation
from ._tensor import Tensor


def _check(op, A, B, X, k, n):
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2 or A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {tuple(A.shape)}")
    if not A.is_floating_point():
        raise RuntimeError(f"{op}: A must be a floating point tensor, got {A.dtype}")
    if B is not None and (not isinstance(B, Tensor) or tuple(B.shape) != tuple(A.shape)):
        raise AssertionError(f"A and B must have same shape, got {tuple(A.shape)} vs "
                             f"{tuple(getattr(B, 'shape', ()))}")
    for name, v in (("k", k), ("n", n)):
        if v is not None and (isinstance(v, builtins.bool) or not isinstance(v, builtins.int) or v < 1):
            raise ValueError(f"{op}: {name} must be a positive int, got {v!r}")


def _b_orthonormal(S, B, tol):
    """A basis of span(S), orthonormal in the B inner product: QR first (directions whose R
    diagonal falls below tol relative to the largest are dependent and dropped), then, with B,
    the eigendecomposition of the well-conditioned Gram matrix Q^T B Q."""
    from . import linalg
    Q, R = linalg.qr(S)
    d = R.diagonal().abs()
    Q = Q[:, (d > tol * d.max().clamp(min=1e-300)).nonzero().reshape(-1)]
    if B is None:
        return Q
    G = Q.mT @ (B @ Q)
    w, V = linalg.eigh((G + G.mT) / 2)
    return (Q @ V) / w.sqrt()


def _rayleigh_ritz(S, A, B, n, largest, tol):
    from . import linalg
    Q = _b_orthonormal(S, B, tol)
    T = Q.mT @ (A @ Q)
    w, V = linalg.eigh((T + T.mT) / 2)
    order = w.argsort(descending=largest)[:n]
    return w[order], Q @ V[:, order]


def _solve(A, B, X, iK, n, k, niter, tol, largest):
    """One matrix: (E (k,), X (m, k)), computed without autograd."""
    from . import cat
    eps = 2.23e-16 if A.dtype.itemsize == 8 else 1.2e-07
    drop = eps * 1e3  # R-diagonal entries below this (relative) mark dependent directions
    E, X = _rayleigh_ritz(X, A, B, n, largest, drop)
    P = None
    for _ in range(niter):
        BX = X if B is None else B @ X
        AX = A @ X
        R = AX - BX * E
        scale = AX.norm(dim=0) + E.abs() * BX.norm(dim=0)
        if bool((R.norm(dim=0)[:k] <= tol * scale[:k].clamp(min=eps)).all()):
            break
        W = R if iK is None else iK @ R
        E_new, X_new = _rayleigh_ritz(cat([X, W] if P is None else [X, W, P], 1), A, B, n, largest, drop)
        P = X_new - X @ (BX.mT @ X_new)  # the new block's part outside the old: the next direction
        E, X = E_new, X_new
    return E[:k], X[:, :k]


def _eigenvectors_without_grad(V, A):
    """V as an output of A whose backward refuses a nonzero gradient (not computed yet)."""
    from .autograd import Function

    class LobpcgEigenvectors(Function):
        @staticmethod
        def forward(ctx, a):
            return V.clone()

        @staticmethod
        def backward(ctx, g):
            if bool((g != 0).any()):
                raise NotImplementedError("lobpcg: the gradient through the eigenvectors is not "
                                          "implemented (only the eigenvalues carry A's gradient)")
            return _creation.zeros_like(A)
    return LobpcgEigenvectors.apply(A)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """(E, X): the k largest (largest=False: smallest) eigenvalues of A x = λ B x and their
    B-orthonormal eigenvectors. X (m, n) is the initial block (default random, n = k).

    >>> A = ember.diag(ember.arange(1.0, 7.0, dtype=ember.float64))
    >>> E, X = ember.lobpcg(A, k=1)
    >>> E.round()
    tensor([6.], dtype=ember.float64)
    """
    _check("lobpcg", A, B, X, k, n)
    if tol is None:
        tol = (2.23e-16 if A.dtype.itemsize == 8 else 1.2e-07) ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is "
                         f"smaller than 3 x the number of requested eigenpairs (={n})")
    niter = 1000 if niter is None else (10 ** 9 if niter < 0 else niter)
    largest = True if largest is None else largest
    batch = tuple(A.shape[:-2])
    a_flat = A.detach().reshape(-1, m, m)
    b_flat = None if B is None else B.detach().reshape(-1, m, m)
    x_flat = None if X is None else X.detach().reshape(-1, m, n)
    Es, Xs = [], []
    for i in range(a_flat.shape[0]):  # one LOBPCG run per matrix of the batch, as torch
        x0 = _creation.randn(m, n, dtype=A.dtype) if x_flat is None else x_flat[i]
        if tuple(x0.shape) != (m, n):
            raise AssertionError(f"X shape mismatch: got {tuple(x0.shape)}, expected {(m, n)}")
        e, x = _solve(a_flat[i], None if b_flat is None else b_flat[i], x0, iK, n, k, niter, tol, largest)
        Es.append(e)
        Xs.append(x)
    from . import stack
    E = stack(Es).reshape(batch + (k,))
    V = stack(Xs).reshape(batch + (m, k))
    if not (A.requires_grad or (B is not None and B.requires_grad)):
        return E, V
    # eigenvalues as Rayleigh quotients of the (detached) eigenvectors carry the gradient
    num = (V * (A @ V)).sum(-2)
    den = (V * (V if B is None else B @ V)).sum(-2)
    return num / den, _eigenvectors_without_grad(V, A)


FUNCTIONS = {"lobpcg": lobpcg}
METHODS = {}
