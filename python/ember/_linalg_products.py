"""torch.linalg's products and least squares, composed from ember's C++ ops (matmul, solve,
svd): matrix_power (repeated squaring: log2(n) matmuls), matrix_exp (scaling and squaring on a
degree-13 Padé approximant, Higham 2005), multi_dot (the cheapest parenthesization of the
chain), vecdot, pinv and lstsq (through the SVD). The gradients are those of the ops."""
import math

from . import _C


def _square_check(A, op):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1}"
                           f" matrices")


def _eye_like(A):
    from ._creation import eye
    n = A.shape[-1]
    return eye(n, dtype=A.dtype).expand(tuple(A.shape))


def matrix_power(A, n, *, out=None):
    """matrix_power(A, n, *, out=None) -> Tensor

    A^n for an integer n (negative: powers of the inverse).

    >>> ember.linalg.matrix_power(ember.tensor([[4.0, 1.0], [1.0, 3.0]]), 2)
    tensor([[17.,  7.],
            [ 7., 10.]])"""
    from . import linalg
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2] if A.dim() >= 2 else 1} by "
                           f"{A.shape[-1] if A.dim() else 1} matrices")
    if not isinstance(n, int):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {type(n).__name__}")
    if n == 0:
        # a copy of I written over a copy of A (as torch): the result stays in A's graph, with
        # a zero gradient
        return linalg._out(A.clone().copy_(_eye_like(A)), out, "linalg.matrix_power")
    if n < 0:
        A, n = linalg.inv(A), -n
    result, base = None, A
    while n:  # binary exponentiation: one matmul per bit of n
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return linalg._out(result if result is not A else A.clone(), out, "linalg.matrix_power")


# Higham's degree-13 Padé coefficients and the 1-norm bound below which no scaling is needed.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    """matrix_exp(A) -> Tensor

    The matrix exponential.

    >>> ember.linalg.matrix_exp(ember.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])"""
    from . import linalg
    from ._linalg_norms import _float_check
    _float_check(A, "linalg.matrix_exp")
    _square_check(A, "linalg.matrix_exp")
    if A.numel() == 0:
        return A.clone()
    # one scaling for the whole batch: the largest 1-norm decides (a larger s than a matrix
    # needs only costs squarings)
    norm1 = float(_C.abs(A).sum(-2).amax().item())
    s = max(0, math.ceil(math.log2(norm1 / _THETA13))) if norm1 > _THETA13 else 0
    X = A / (2.0 ** s) if s else A
    b = _PADE13
    eye = _eye_like(A)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2
             + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    R = linalg.solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


def multi_dot(tensors, *, out=None):
    """multi_dot(tensors, *, out=None) -> Tensor

    The product of a list of matrices, in the cheapest order.

    >>> ember.linalg.multi_dot([ember.ones(2, 3), ember.ones(3, 4), ember.ones(4, 1)])
    tensor([[12.],
            [12.]])"""
    from . import linalg
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_1d, last_1d = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_1d:
        mats[0] = mats[0].unsqueeze(0)
    if last_1d:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{tuple(tensors[i].shape)} and {tuple(tensors[i + 1].shape)} cannot "
                               f"be multiplied")
    r = _chain(mats)
    if first_1d:
        r = r.squeeze(0)
    if last_1d:
        r = r.squeeze(-1)
    return linalg._out(r, out, "linalg.multi_dot")


def _chain(mats):
    """The product in the order of fewest multiplications (the textbook O(k^3) dynamic program
    over the k matrices' sizes; k is the number of operands, not of elements)."""
    k = len(mats)
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = math.inf
            for c in range(i, j):
                q = cost[i][c] + cost[c + 1][j] + dims[i] * dims[c + 1] * dims[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, c

    def build(i, j):
        if i == j:
            return mats[i]
        c = split[i][j]
        return _C.mm(build(i, c), build(c + 1, j))
    return build(0, k - 1)


def vecdot(x, y, *, dim=-1, out=None):
    """vecdot(x, y, *, dim=-1, out=None) -> Tensor

    The dot product along dim (conjugating x for complex inputs).

    >>> ember.linalg.vecdot(ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
    tensor(11.)"""
    from . import linalg
    sx, sy = (x.shape[dim] if x.dim() else 1), (y.shape[dim] if y.dim() else 1)
    if sx != sy and 1 not in (sx, sy):  # RuntimeError, as torch's broadcasting error
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same size along dim "
                           f"{dim} (or 1), but got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    return linalg._out((x * y).sum(dim), out, "linalg.vecdot")


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None, rcond=None):
    """A^+ = V diag(1/s over the tolerance, else 0) U^T (torch's default tolerance).

    >>> ember.linalg.pinv(ember.tensor([[1.0, 0.0], [0.0, 0.0]]))
    tensor([[1., 0.],
            [0., 0.]])
    """
    from . import linalg
    from ._linalg_norms import _tolerance
    if rcond is not None:  # the old name of rtol
        rtol = rcond
    m, n = A.shape[-2], A.shape[-1]
    if hermitian:
        L, V = linalg.eigh(A)
        tol = _tolerance(_C.abs(L).amax(-1, keepdim=True), m, n, A.dtype, atol, rtol)
        inv_l = _C.where(_C.abs(L) > tol, 1.0 / L, 0.0)
        return linalg._out((V * inv_l.unsqueeze(-2)) @ V.mT, out, "linalg.pinv")
    U, S, Vh = linalg.svd(A, full_matrices=False)
    if S.shape[-1] == 0:
        from ._creation import zeros
        return linalg._out(zeros(tuple(A.shape[:-2]) + (n, m), dtype=A.dtype), out, "linalg.pinv")
    tol = _tolerance(S.amax(-1, keepdim=True), m, n, A.dtype, atol, rtol)
    inv_s = _C.where(S > tol, 1.0 / S, 0.0)
    return linalg._out((Vh.mT * inv_s.unsqueeze(-2)) @ U.mT, out, "linalg.pinv")


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq on the CPU: the minimum-norm least-squares solution (through the
    pseudo-inverse; torch's default driver gelsy gives the same solution). rank is returned
    except for driver='gels', singular_values for gelsd/gelss, residuals for m > n with full
    rank except for gelsy (as torch).

    >>> A = ember.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> ember.linalg.lstsq(A, ember.tensor([[1.0], [2.0], [3.0]])).solution
    tensor([[1.0000],
            [1.0000]])
    """
    from . import linalg, return_types
    from ._creation import tensor
    drivers = (None, "gelsy", "gels", "gelsd", "gelss")
    if driver not in drivers:
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of "
                           f"(gels, gelsy, gelsd, gelss)")
    if A.dim() < 2 or B.dim() < 1:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {A.dtype} and other's dtype {B.dtype}")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    m, n = A.shape[-2], A.shape[-1]
    U, S, Vh = linalg.svd(A, full_matrices=False)
    empty = tensor([], dtype=A.dtype)
    if S.shape[-1]:
        rtol = rcond if rcond is not None and rcond >= 0 else None
        from ._linalg_norms import _tolerance
        tol = _tolerance(S.amax(-1, keepdim=True), m, n, A.dtype, None, rtol)
        keep = S > tol
        inv_s = _C.where(keep, 1.0 / S, 0.0)
        X = (Vh.mT * inv_s.unsqueeze(-2)) @ (U.mT @ Bm)
        rank = keep.sum(-1)
    else:
        from ._creation import zeros
        X = zeros(tuple(A.shape[:-2]) + (n, Bm.shape[-1]), dtype=A.dtype)
        from ._dtype import int64
        rank = zeros(tuple(A.shape[:-2]), dtype=int64)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = ((A @ X - Bm) ** 2).sum(-2)
    return return_types.linalg_lstsq(X.squeeze(-1) if vector else X, residuals,
                                     rank if driver != "gels" else tensor([], dtype=rank.dtype),
                                     S if driver in ("gelsd", "gelss") else empty)


def vander(x, *, N=None):
    """Columns x^0, x^1, ..., x^(N-1) (a running product, as torch: exact for integers).

    >>> ember.linalg.vander(ember.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [1, 2, 4],
            [1, 3, 9]])
    """
    from ._creation import ones
    n = N if N is not None else (x.shape[-1] if x.dim() else 0)
    if x.dim() == 0 or n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return _C.cat([ones(tuple(x.shape) + (1,), dtype=x.dtype), powers], -1)


def _prod(shape):
    return math.prod(shape) if shape else 1


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A read as a (prod(shape[:ind]), prod(shape[ind:])) matrix, shaped
    shape[ind:] + shape[:ind].

    >>> ember.linalg.tensorinv(ember.eye(4).reshape(4, 2, 2), ind=1).shape
    ember.Size([2, 2, 4])
    """
    from . import linalg
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _prod(tuple(A.shape[:ind])), _prod(tuple(A.shape[ind:]))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    r = linalg.inv(A.reshape(rows, cols)).reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))
    return linalg._out(r, out, "linalg.tensorinv")


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) == B: A read as a (B.numel(), rest) matrix.

    >>> A = ember.eye(6).reshape(2, 3, 6)
    >>> ember.linalg.tensorsolve(A, ember.ones(2, 3)).shape
    ember.Size([6])
    """
    from . import linalg
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.movedim(dims, list(range(A.dim() - len(dims), A.dim())))
    lead, rest = tuple(A.shape[:B.dim()]), tuple(A.shape[B.dim():])
    if _prod(rest) != B.numel():  # torch's wording, with B's size as the right-hand side
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {_prod(rest)} != "
                           f"{B.numel()}")
    if tuple(B.shape) != lead:
        raise RuntimeError(f"linalg.tensorsolve: Expected B to have shape {lead} (A's leading "
                           f"dims), but got {tuple(B.shape)}")
    X = linalg.solve(A.reshape(_prod(lead), _prod(rest)), B.reshape(-1))
    return linalg._out(X.reshape(rest), out, "linalg.tensorsolve")
