"""ember.linalg: torch.linalg's names. The factorizations and solves are C++ ops on LAPACK
(src/ops/linalg_solve.cpp, linalg_cholesky.cpp, linalg_decomp.cpp) with their gradients; this module only
maps torch's argument forms onto them (a vector right-hand side, left=False, out=) and names
the results. FUNCTIONS and METHODS are torch's top-level and Tensor aliases (torch.det,
torch.inverse, torch.logdet, torch.cholesky_solve, ...)."""
from . import _C, return_types
from ._dtype import TORCH_TYPE_NAMES as _TORCH_TYPE_NAMES
from ._contraction import _out
from ._linalg_norms import cond, matrix_norm, matrix_rank, norm, vector_norm  # noqa: F401
from ._linalg_lu import (ldl_factor, ldl_factor_ex, ldl_solve, lu, lu_factor,  # noqa: F401
                         lu_factor_ex, lu_solve, solve_ex)
from ._linalg_products import (lstsq, matrix_exp, matrix_power, multi_dot, pinv,  # noqa: F401
                               tensorinv, tensorsolve, vander, vecdot)

matmul = _C.matmul

LinAlgError = _C.LinAlgError
LinAlgError.__doc__ = """LinAlgError: raised when a linalg function's input has no answer (a
singular matrix to invert or solve, a matrix that is not positive-definite for cholesky); a
RuntimeError, as torch.linalg.LinAlgError.

>>> try:
...     ember.linalg.inv(ember.zeros(2, 2))
... except ember.linalg.LinAlgError as e:
...     print(isinstance(e, RuntimeError))
True
"""


def _torch_type(dtype):
    """torch's C++ type name in messages: Float, Double, Long, ..."""
    return _TORCH_TYPE_NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _is_vector_rhs(A, B):
    # torch's rule: B is a vector (or a batch of them) when it is 1-d or has A's shape minus
    # its last dim.
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A, B, *, left=True, out=None):
    """solve(A, B, *, left=True, out=None) -> Tensor

    X with A X = B (A square; B a vector or matrix, batches broadcast).

    >>> ember.linalg.solve(ember.tensor([[4.0, 1.0], [1.0, 3.0]]), ember.tensor([5.0, 4.0]))
    tensor([1., 1.])"""
    vector = _is_vector_rhs(A, B)
    rhs = B.unsqueeze(-1) if vector else B
    if left:
        X = _C._linalg_solve(A, rhs)
    else:  # X A = B  is  A^T X^T = B^T
        X = _C._linalg_solve(A.mT, rhs if vector else rhs.mT)
        X = X if vector else X.mT
    return _out(X.squeeze(-1) if vector else X, out, "linalg.solve")


def inv_ex(A, *, check_errors=False, out=None):
    """inv_ex(A, *, check_errors=False, out=None) -> (inverse, info)

    linalg.inv that reports a singular matrix in info (int32, 0 when invertible) instead of
    raising, unless check_errors.

    >>> ember.linalg.inv_ex(ember.tensor([[2.0, 0.0], [0.0, 4.0]]))
    ember.return_types.linalg_inv_ex(
    inverse=tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]]),
    info=tensor(0, dtype=ember.int32))
    """
    r = return_types.linalg_inv_ex(*_C._linalg_inv_ex(A, check_errors))
    return r if out is None else return_types.linalg_inv_ex(
        _out(r.inverse, out[0], "linalg.inv_ex"), _out(r.info, out[1], "linalg.inv_ex"))


def inv(A, *, out=None):
    """inv(A, *, out=None) -> Tensor

    The inverse of a square matrix (or of each in a batch).

    >>> ember.linalg.inv(ember.tensor([[4.0, 1.0], [1.0, 3.0]]))
    tensor([[ 0.2727, -0.0909],
            [-0.0909,  0.3636]])"""
    return _out(_C._linalg_inv_ex(A, True)[0], out, "linalg.inv")


def det(A, *, out=None):
    """det(A, *, out=None) -> Tensor

    The determinant of a square matrix (or of each in a batch).

    >>> ember.linalg.det(ember.tensor([[4.0, 1.0], [1.0, 3.0]]))
    tensor(11.)"""
    return _out(_C._linalg_det(A), out, "linalg.det")


def slogdet(A, *, out=None):
    """slogdet(A, *, out=None) -> Tensor

    (sign, log|det|) of a square matrix, without overflow.

    >>> ember.linalg.slogdet(ember.tensor([[4.0, 1.0], [1.0, 3.0]])).logabsdet
    tensor(2.3979)"""
    sign, logabsdet = _C._linalg_slogdet(A)
    if out is not None:
        sign, logabsdet = _out(sign, out[0], "linalg.slogdet"), _out(logabsdet, out[1], "linalg.slogdet")
    return return_types.linalg_slogdet(sign, logabsdet)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """cholesky_ex(A, *, upper=False, check_errors=False, out=None) -> (L, info)

    linalg.cholesky that reports failure in info (int32, 0 where A is positive-definite, else
    the order of the failing leading minor) instead of raising, unless check_errors.

    >>> ember.linalg.cholesky_ex(ember.tensor([[4.0, 2.0], [2.0, 5.0]]))
    ember.return_types.linalg_cholesky_ex(
    L=tensor([[2., 0.],
            [1., 2.]]),
    info=tensor(0, dtype=ember.int32))
    >>> ember.linalg.cholesky_ex(ember.tensor([[1.0, 2.0], [2.0, 1.0]])).info
    tensor(2, dtype=ember.int32)
    """
    L, info = _C._linalg_cholesky_ex(A, upper, check_errors)
    if out is not None:
        L, info = _out(L, out[0], "linalg.cholesky_ex"), _out(info, out[1], "linalg.cholesky_ex")
    return return_types.linalg_cholesky_ex(L, info)


def cholesky(A, *, upper=False, out=None):
    """cholesky(A, *, upper=False, out=None) -> Tensor

    The lower (upper=True: upper) Cholesky factor of a symmetric positive-definite matrix.

    >>> ember.linalg.cholesky(ember.tensor([[4.0, 1.0], [1.0, 3.0]]))
    tensor([[2.0000, 0.0000],
            [0.5000, 1.6583]])"""
    return _out(_C._linalg_cholesky_ex(A, upper, True)[0], out, "linalg.cholesky")


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None) -> Tensor

    X with A X = B for a triangular A (upper= says which).

    >>> A = ember.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> ember.linalg.solve_triangular(A, ember.tensor([[2.0], [3.0]]), upper=False)
    tensor([[1.],
            [2.]])"""
    return _out(_C._linalg_solve_triangular(A, B, upper, left, unitriangular), out,
                "linalg.solve_triangular")


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "L"


def _named(cls, values, out, op):
    if out is not None:
        values = [_out(v, o, op) for v, o in zip(values, out)]
    return cls(*values)


def eigh(A, UPLO="L", *, out=None):
    """eigh(A, UPLO='L', *, out=None) -> Tensor

    (eigenvalues ascending, eigenvectors) of a symmetric matrix.

    >>> ember.linalg.eigh(ember.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([1., 2.])"""
    return _named(return_types.linalg_eigh, _C._linalg_eigh(A, _uplo(UPLO)), out, "linalg.eigh")


def eig(A, *, out=None):
    """eig(A, *, out=None) -> (Tensor, Tensor)

    (eigenvalues, eigenvectors) of a general square matrix (or of each in a batch): complex
    results with A @ V == V @ diag(L), each eigenvector of unit norm with its largest component
    real, in LAPACK's order (geev), as torch. Differentiable (torch's formula).

    >>> ember.linalg.eig(ember.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([2.+0.j, 1.+0.j])
    >>> ember.linalg.eig(ember.tensor([[0.0, -1.0], [1.0, 0.0]])).eigenvalues
    tensor([0.+1.j, 0.-1.j])"""
    return _named(return_types.linalg_eig, _C._linalg_eig(A), out, "linalg.eig")


def eigvals(A, *, out=None):
    """eigvals(A, *, out=None) -> Tensor

    The eigenvalues (complex, in LAPACK's order) of a general square matrix, as linalg.eig's.

    >>> ember.linalg.eigvals(ember.tensor([[1.0, 2.0], [0.0, 3.0]]))
    tensor([1.+0.j, 3.+0.j])"""
    return _out(_C._linalg_eigvals(A), out, "linalg.eigvals")


def eigvalsh(A, UPLO="L", *, out=None):
    """eigvalsh(A, UPLO='L', *, out=None) -> Tensor

    The eigenvalues, ascending, of a symmetric matrix.

    >>> ember.linalg.eigvalsh(ember.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([1., 2.])"""
    return _out(_C._linalg_eigvalsh(A, _uplo(UPLO)), out, "linalg.eigvalsh")


def svd(A, full_matrices=True, *, driver=None, out=None):
    # driver picks a cuSOLVER routine in torch; on the CPU torch ignores it too (gesdd)
    """svd(A, full_matrices=True, *, driver=None, out=None) -> Tensor

    (U, S, Vh) with A = U diag(S) Vh, S descending.

    >>> ember.linalg.svd(ember.tensor([[4.0, 1.0], [1.0, 3.0]])).S
    tensor([4.6180, 2.3820])"""
    return _named(return_types.linalg_svd, _C._linalg_svd(A, full_matrices), out, "linalg.svd")


def svdvals(A, *, driver=None, out=None):
    """svdvals(A, *, driver=None, out=None) -> Tensor

    The singular values, descending.

    >>> ember.linalg.svdvals(ember.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor([4., 3.])"""
    return _out(_C._linalg_svdvals(A), out, "linalg.svdvals")


def qr(A, mode="reduced", *, out=None):
    """qr(A, mode='reduced', *, out=None) -> Tensor

    (Q, R) with A = Q R, Q orthonormal columns, R upper triangular (mode 'reduced',
    'complete', 'r').

    >>> ember.linalg.qr(ember.tensor([[4.0, 1.0], [1.0, 3.0]])).R.shape
    ember.Size([2, 2])"""
    return _named(return_types.linalg_qr, _C._linalg_qr(A, mode), out, "linalg.qr")


def householder_product(A, tau, *, out=None):
    """householder_product(A, tau, *, out=None) -> Tensor

    The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, with v_i the i-th column of
    A below the diagonal and a 1 on it (geqrf's output); ember.orgqr is the same function.

    >>> ember.linalg.householder_product(ember.tensor([[1.0], [1.0]]), ember.tensor([1.0]))
    tensor([[ 0.],
            [-1.]])
    """
    return _out(_C._linalg_householder_product(A, tau), out, "linalg.householder_product")


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """op(Q) @ other (left) or other @ op(Q), Q = H_1 ... H_k the m x m product of geqrf's
    reflectors: the full Q is householder_product of input padded with zero columns.

    >>> A = ember.tensor([[2.0, 1.0], [0.0, 3.0], [1.0, 1.0]])
    >>> qr, tau = ember.geqrf(A)
    >>> ember.allclose(ember.ormqr(qr, tau, ember.eye(3)), ember.linalg.qr(A, mode='complete').Q)
    True
    """
    m = input.shape[-2]
    if input.dim() < 2 or other.dim() < 2:
        raise RuntimeError(f"torch.ormqr: input and other must have at least 2 dimensions, got "
                           f"shapes {tuple(input.shape)} and {tuple(other.shape)}")
    if (other.shape[-2] if left else other.shape[-1]) != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to "
                           f"input.shape[-2]")
    if input.shape[-1] < m:
        from ._creation import zeros
        pad = zeros(tuple(input.shape[:-1]) + (m - input.shape[-1],), dtype=input.dtype)
        input = _C.cat([input, pad], -1)
    Q = _C._linalg_householder_product(input.narrow(-1, 0, m), tau)
    Q = Q.mT if transpose else Q
    return _out(Q @ other if left else other @ Q, out, "ormqr")


def _geqrf(input, *, out=None):
    """geqrf(input, *, out=None) -> (Tensor a, Tensor tau)

    The QR factorization in LAPACK's packed form: R above the diagonal of `a`, the Householder
    reflectors below it with their scales in `tau` (see ormqr, linalg.householder_product).

    >>> qr, tau = ember.geqrf(ember.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> qr.shape, tau.shape
    (ember.Size([2, 2]), ember.Size([2]))
    """
    return _named(return_types.geqrf, _C._geqrf(input), out, "geqrf")


def cross(input, other, *, dim=-1, out=None):
    """cross(input, other, *, dim=-1, out=None) -> Tensor

    The cross product of 3-vectors along dim.

    >>> ember.linalg.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])"""
    from ._contraction import cross as _cross
    from ._reshaping import broadcast_tensors
    if input.dim() != other.dim():
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    return _cross(*broadcast_tensors(input, other), dim, out=out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> Tensor

    The diagonal of each matrix (a view), as ember.diagonal with the matrix dims last by
    default.

    >>> ember.linalg.diagonal(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    return A.diagonal(offset, dim1, dim2)


# ---- torch's top-level names and Tensor methods ---------------------------------------------

def logdet(input):
    """log(det(input)): nan where the determinant is negative, -inf where it is 0 (torch.logdet).

    >>> ember.logdet(ember.tensor([[2.0, 0.0], [0.0, 3.0]])), ember.logdet(ember.tensor([[-1.0, 0.0], [0.0, 1.0]]))
    (tensor(1.7918), tensor(nan))
    """
    sign, logabsdet = _C._linalg_slogdet(input)
    return _C.where(sign < 0, float("nan"), logabsdet)


def _slogdet(input):
    """slogdet(input) -> (Tensor sign, Tensor logabsdet)

    The sign and the log of the absolute value of the determinant (torch's top-level form of
    linalg.slogdet).

    >>> ember.slogdet(ember.tensor([[-2.0, 0.0], [0.0, 3.0]]))
    ember.return_types.slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(1.7918))
    """
    return return_types.slogdet(*_C._linalg_slogdet(input))


def _cholesky(input, upper=False, *, out=None):
    """cholesky(input, upper=False, *, out=None) -> Tensor

    The Cholesky factor L of a symmetric positive-definite matrix, A = L L^T (U with upper);
    torch's older form of linalg.cholesky.

    >>> ember.cholesky(ember.tensor([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    return _out(_C._linalg_cholesky_ex(input, upper, True)[0], out, "cholesky")


def cholesky_solve(input, input2, upper=False, *, out=None):
    """X with A X = input, A = L L^T given by its factor input2 = L (U = L^T with upper).

    >>> L = ember.tensor([[2.0, 0.0], [1.0, 2.0]])
    >>> ember.cholesky_solve(ember.tensor([[8.0], [14.0]]), L)
    tensor([[0.7500],
            [2.5000]])
    """
    L = input2.mT if upper else input2
    Y = _C._linalg_solve_triangular(L, input, False, True, False)
    return _out(_C._linalg_solve_triangular(L.mT, Y, True, True, False), out, "cholesky_solve")


def cholesky_inverse(input, upper=False, *, out=None):
    """A^-1 for A = L L^T given by its factor input = L (U = L^T with upper).

    >>> ember.cholesky_inverse(ember.tensor([[2.0, 0.0], [1.0, 1.0]]))
    tensor([[ 0.5000, -0.5000],
            [-0.5000,  1.0000]])
    """
    n = input.shape[-1] if input.dim() >= 2 else 0
    from ._creation import eye
    eye_n = eye(n, dtype=input.dtype).expand(tuple(input.shape))
    return _out(cholesky_solve(eye_n, input, upper), out, "cholesky_inverse")


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve's old form: (solution of op(A) X = b, a copy of A).

    >>> ember.triangular_solve(ember.tensor([[4.0], [6.0]]), ember.tensor([[2.0, 1.0], [0.0, 3.0]])).solution
    tensor([[1.],
            [2.]])
    """
    Am = A.mT if transpose else A
    X = _C._linalg_solve_triangular(Am, b, upper != transpose, True, unitriangular)
    return return_types.triangular_solve(X, A.clone())


def _svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd's old form: (U, S, V) with V, not V^T; reduced unless some=False. Without
    compute_uv, U and V are zero-filled (m, m) and (n, n) matrices, as torch's.

    >>> U, S, V = ember.svd(ember.tensor([[3.0, 0.0], [0.0, 4.0]]))
    >>> S
    tensor([4., 3.])
    """
    if not compute_uv:
        from ._creation import zeros
        S = _C._linalg_svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        U, V = zeros(batch + (m, m), dtype=input.dtype), zeros(batch + (n, n), dtype=input.dtype)
    else:
        U, S, Vh = _C._linalg_svd(input, not some)
        V = Vh.mT
    return _named(return_types.svd, (U, S, V), out, "svd")


def _qr(input, some=True, *, out=None):
    """qr(input, some=True, *, out=None) -> (Tensor Q, Tensor R)

    The QR decomposition, reduced unless some=False (torch's older form of linalg.qr).

    >>> Q, R = ember.qr(ember.tensor([[3.0, 0.0], [4.0, 5.0]]))
    >>> Q.shape, ember.allclose(Q @ R, ember.tensor([[3.0, 0.0], [4.0, 5.0]]), atol=1e-6)
    (ember.Size([2, 2]), True)
    """
    return _named(return_types.qr, _C._linalg_qr(input, "reduced" if some else "complete"), out,
                  "qr")


def pinverse(input, rcond=1e-15):
    """pinverse(input, rcond=1e-15) -> Tensor

    The Moore-Penrose pseudo-inverse (from the SVD; singular values below rcond count as 0).

    >>> ember.linalg.pinverse(ember.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])"""
    return pinv(input, rtol=rcond)


from ._linalg_lu import _lu, _lu_solve, lu_unpack  # noqa: E402


FUNCTIONS = {
    "det": det, "inverse": inv, "logdet": logdet, "slogdet": _slogdet, "cholesky": _cholesky,
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse,
    "triangular_solve": triangular_solve, "svd": _svd, "qr": _qr, "pinverse": pinverse,
    "matrix_power": matrix_power, "matrix_exp": matrix_exp, "lu": _lu, "lu_solve": _lu_solve,
    "lu_unpack": lu_unpack, "geqrf": _geqrf, "orgqr": householder_product, "ormqr": ormqr,
}


def _det_method(self):
    """det() -> Tensor

    ember.linalg.det(self): the determinant of a square matrix (or of each in a batch).

    >>> ember.tensor([[4.0, 1.0], [1.0, 3.0]]).det()
    tensor(11.)
    """
    return det(self)


def _inverse_method(self):
    """inverse() -> Tensor

    ember.linalg.inv(self): the inverse of a square matrix (or of each in a batch).

    >>> ember.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse()
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return inv(self)


METHODS = {
    "det": _det_method, "inverse": _inverse_method,
    "logdet": logdet, "slogdet": _slogdet, "cholesky": _cholesky,
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse,
    "triangular_solve": triangular_solve, "svd": _svd, "qr": _qr, "pinverse": pinverse,
    "matrix_power": matrix_power, "matrix_exp": matrix_exp, "lu": _lu, "lu_solve": _lu_solve,
    "geqrf": _geqrf, "orgqr": householder_product, "ormqr": ormqr,
}
