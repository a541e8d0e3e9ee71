"""torch.linalg's LU family (and the symmetric-indefinite LDL^T: ldl_factor(_ex), ldl_solve) on the C++ lu_factor_ex / lu_unpack ops (src/ops/linalg_lu.cpp):
lu_factor(_ex), lu, lu_solve, solve_ex, and the old torch.lu / lu_unpack / lu_solve. lu_solve
is two triangular solves and a permutation product (all C++ ops, so its gradient with respect
to both LU and B comes from theirs)."""
from . import _C, return_types


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """lu_factor_ex(A, *, pivot=True, check_errors=False, out=None) -> (LU, pivots, info)

    lu_factor that reports a zero pivot in info (int32, 0 if none) instead of raising, unless
    check_errors.

    >>> ember.linalg.lu_factor_ex(ember.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    tensor(2, dtype=ember.int32)
    """
    from .linalg import _named
    return _named(return_types.linalg_lu_factor_ex, _C._linalg_lu_factor_ex(A, pivot, check_errors),
                  out, "linalg.lu_factor_ex")


def lu_factor(A, *, pivot=True, out=None):
    """lu_factor(A, *, pivot=True, out=None) -> (LU, pivots)

    The compact LU factorization (LAPACK getrf: L and U in one matrix, 1-based int32 pivots),
    for lu_solve and lu_unpack; raises on a singular matrix where lu_factor_ex reports it.

    >>> ember.linalg.lu_factor(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    ember.return_types.linalg_lu_factor(
    LU=tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]]),
    pivots=tensor([2, 2], dtype=ember.int32))
    """
    from .linalg import _named
    LU, pivots, _ = _C._linalg_lu_factor_ex(A, pivot, True)
    return _named(return_types.linalg_lu_factor, (LU, pivots), out, "linalg.lu_factor")


def lu(A, *, pivot=True, out=None):
    """lu(A, *, pivot=True, out=None) -> (P, L, U)

    The LU decomposition with partial pivoting A = P L U (L unit lower triangular).

    >>> P, L, U = ember.linalg.lu(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> P, L, U
    (tensor([[0., 1.],
            [1., 0.]]), tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]]), tensor([[3.0000, 4.0000],
            [0.0000, 0.6667]]))
    """
    from .linalg import _named
    LU, pivots, _ = _C._linalg_lu_factor_ex(A, pivot, False)
    return _named(return_types.linalg_lu, _C._lu_unpack(LU, pivots, True, True), out, "linalg.lu")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None) -> (P, L, U)

    The permutation, unit lower and upper triangular matrices of a packed LU factorization
    (A = P @ L @ U).

    >>> P, L, U = ember.lu_unpack(*ember.linalg.lu_factor(ember.tensor([[4.0, 3.0], [6.0, 3.0]])))
    >>> L.shape, ember.allclose(P @ L @ U, ember.tensor([[4.0, 3.0], [6.0, 3.0]]))
    (ember.Size([2, 2]), True)
    """
    from .linalg import _named
    return _named(return_types.lu_unpack, _C._lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots),
                  out, "lu_unpack")


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (X A = B when not left; A^T for adjoint), A = P L U given by lu_factor.

    >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[2.0, 1.0], [1.0, 3.0]]))
    >>> ember.linalg.lu_solve(LU, pivots, ember.tensor([[3.0], [4.0]]))
    tensor([[1.],
            [1.]])
    """
    from .linalg import _out
    if LU.dim() < 2 or LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2] if LU.dim() >= 2 else 1} by {LU.shape[-1]} matrices")
    if LU.dtype != B.dtype:
        from .linalg import _torch_type
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found "
                           f"LU of type {_torch_type(LU.dtype)} and B of type "
                           f"{_torch_type(B.dtype)} instead")
    n = LU.shape[-1]
    rows = B.shape[-2] if left else B.shape[-1]
    if B.dim() < 2 or rows != n:
        eq = "AX = B" if left else "XA = B"
        b = tuple(B.shape[-2:]) if B.dim() >= 2 else (B.shape[-1] if B.dim() else 1, 1)
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {b[0]}x{b[1]})")
    P, L, U = _C._lu_unpack(LU, pivots, True, True)
    tri = _C._linalg_solve_triangular
    # X A = B  is  A^T X^T = B^T: the left solve with the adjoint flag flipped
    rhs = B if left else B.mT
    transpose = adjoint if left else not adjoint
    if not transpose:  # A X = rhs: X = U^-1 L^-1 P^T rhs
        X = tri(U, tri(L, P.mT @ rhs, False, True, True), True, True, False)
    else:  # A^T X = rhs with A^T = U^T L^T P^T: X = P L^-T U^-T rhs
        X = P @ tri(L.mT, tri(U.mT, rhs, False, True, False), True, True, True)
    return _out(X if left else X.mT, out, "linalg.lu_solve")


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(X, info): info (int32 per matrix) from the LU of A, 0 where A is invertible.

    >>> ember.linalg.solve_ex(ember.tensor([[2.0, 0.0], [0.0, 4.0]]), ember.tensor([2.0, 2.0]))
    ember.return_types.linalg_solve_ex(
    result=tensor([1.0000, 0.5000]),
    info=tensor(0, dtype=ember.int32))
    """
    from . import linalg
    from .linalg import _named
    singular = A.dim() >= 2 and bool((_C._linalg_lu_factor_ex(A, True, False)[2] != 0).any())
    if not singular or check_errors:
        X = linalg.solve(A, B, left=left)  # torch's errors, the singular one included
        from ._creation import zeros
        from ._dtype import int32
        info = zeros(tuple(A.shape[:-2]), dtype=int32)
    else:  # the LU solve's result (inf/nan where singular), as torch returns it
        LU, pivots, info = _C._linalg_lu_factor_ex(A, True, False)
        vector = linalg._is_vector_rhs(A, B)
        X = lu_solve(LU, pivots, B.unsqueeze(-1) if vector else B, left=left)
        X = X.squeeze(-1) if vector else X
    return _named(return_types.linalg_solve_ex, (X, info), out, "linalg.solve_ex")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info): Bunch-Kaufman A = L D L^T (LAPACK sytrf); real, so hermitian is
    the same factorization.

    >>> ember.linalg.ldl_factor_ex(ember.tensor([[4.0, 2.0], [2.0, 3.0]])).info
    tensor(0, dtype=ember.int32)
    """
    from .linalg import _named
    return _named(return_types.linalg_ldl_factor_ex, _C._linalg_ldl_factor_ex(A, check_errors),
                  out, "linalg.ldl_factor_ex")


def ldl_factor(A, *, hermitian=False, out=None):
    """ldl_factor(A, *, hermitian=False, out=None) -> (LD, pivots)

    The compact Bunch-Kaufman factorization A = L D L^T of a symmetric matrix (LAPACK sytrf),
    for ldl_solve; raises where ldl_factor_ex reports info.

    >>> LD, pivots = ember.linalg.ldl_factor(ember.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> LD, pivots
    (tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]]), tensor([1, 2], dtype=ember.int32))
    """
    from .linalg import _named
    LD, pivots, _ = _C._linalg_ldl_factor_ex(A, True)
    return _named(return_types.linalg_ldl_factor, (LD, pivots), out, "linalg.ldl_factor")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """ldl_solve(LD, pivots, B, *, hermitian=False, out=None) -> Tensor

    X with A X = B, A given by ldl_factor's (LD, pivots).

    >>> A = ember.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> LD, pivots = ember.linalg.ldl_factor(A)
    >>> ember.linalg.ldl_solve(LD, pivots, ember.tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
    """
    from .linalg import _out
    return _out(_C._linalg_ldl_solve(LD, pivots, B), out, "linalg.ldl_solve")


# ---- torch's old top-level forms ---------------------------------------------------------------

def _lu(A, pivot=True, get_infos=False, out=None):
    """lu(A, pivot=True, get_infos=False, out=None) -> (Tensor LU, Tensor pivots[, Tensor infos])

    The LU factorization of A with partial pivoting, packed (torch's old form of
    linalg.lu_factor; pivots are 1-based int32).

    >>> A = ember.tensor([[4.0, 3.0], [6.0, 3.0]])
    >>> LU, pivots = ember.lu(A)
    >>> pivots
    tensor([2, 2], dtype=ember.int32)
    """
    LU, pivots, info = _C._linalg_lu_factor_ex(A, pivot, not get_infos)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def _lu_solve(b, LU_data, LU_pivots, *, out=None):
    """lu_solve(b, LU_data, LU_pivots, *, out=None) -> Tensor

    The solution x of A x = b from lu(A)'s factors (torch's old argument order of
    linalg.lu_solve).

    >>> A, b = ember.tensor([[4.0, 3.0], [6.0, 3.0]]), ember.tensor([[10.0], [12.0]])
    >>> LU, pivots = ember.lu(A)
    >>> x = ember.lu_solve(b, LU, pivots)
    >>> ember.allclose(A @ x, b)
    True
    """
    return lu_solve(LU_data, LU_pivots, b, out=out)
