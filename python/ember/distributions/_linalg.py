"""Cholesky factorization and triangular solves for the distributions that need them
(MultivariateNormal, LowRankMultivariateNormal), composed from ember ops until ember has
linalg.cholesky and linalg.solve_triangular in C++ (LAPACK potrf/trtrs).

Each is a loop over the n columns (or rows) of an n x n matrix, every step one batched,
vectorized op, so autograd differentiates them as it does any composition; the cost is O(n)
op calls, fine for the event sizes distributions use and the reason they belong in C++."""
import ember


def cholesky_ex(a):
    """(L, info) for symmetric a = L L^T (batched over leading dims): info is 0 where a is
    positive-definite, else the order of the first leading minor that is not (L is then not
    meaningful past it), as torch.linalg.cholesky_ex."""
    n = a.shape[-1]
    # read as (a + a^T) / 2: the gradient is symmetric, as torch's cholesky backward gives
    a = (a + a.mT) * 0.5
    rows = ember.arange(n)
    info = ember.zeros(tuple(a.shape[:-2]), dtype=ember.int64)
    cols = []
    for j in range(n):
        s = a.select(-1, j)  # column j, all rows
        if cols:
            done = ember.stack(cols, -1)  # (..., n, j)
            s = s - ember.matmul(done, done.select(-2, j).unsqueeze(-1)).squeeze(-1)
        pivot = s.select(-1, j)
        bad = ~(pivot > 0)  # also nan
        info = ember.where((info == 0) & bad, j + 1, info)
        d = ember.where(bad, 1.0, pivot).sqrt()
        cols.append(ember.where(rows >= j, s / d.unsqueeze(-1), 0.0))
    if not cols:
        return a.clone(), info
    return ember.stack(cols, -1), info


def cholesky(a, op="linalg.cholesky"):
    """L with a = L L^T; RuntimeError (torch's LinAlgError message) if a is not
    positive-definite."""
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2] if a.dim() >= 2 else 1} by {a.shape[-1]} matrices")
    L, info = cholesky_ex(a)
    if bool((info != 0).any()):
        flat = info.reshape(-1)
        first = int(ember.nonzero(flat != 0).reshape(-1)[0].item())
        where = f"(Batch element {first}): " if a.dim() > 2 else ""
        raise RuntimeError(f"{op}: {where}The factorization could not be completed because the "
                           f"input is not positive-definite (the leading minor of order "
                           f"{int(flat[first].item())} is not positive-definite).")
    return L


def solve_lower(L, b):
    """X with L X = b for lower-triangular L (..., n, n) and b (..., n, k), batch dims
    broadcast, by forward substitution over the n rows."""
    batch = tuple(ember.broadcast_shapes(L.shape[:-2], b.shape[:-2]))
    n, k = L.shape[-1], b.shape[-1]
    L = L.expand(batch + (n, n))
    b = b.expand(batch + (n, k))
    xs = []
    for i in range(n):
        r = b.select(-2, i)  # (..., k)
        if xs:
            done = ember.stack(xs, -2)  # (..., i, k)
            r = r - ember.matmul(L.select(-2, i).narrow(-1, 0, i).unsqueeze(-2), done).squeeze(-2)
        xs.append(r / L.select(-2, i).select(-1, i).unsqueeze(-1))
    if not xs:
        return b.clone()
    return ember.stack(xs, -2)


def _broadcast_batch(a, b):
        return tuple(ember.broadcast_shapes(tuple(a), tuple(b)))
