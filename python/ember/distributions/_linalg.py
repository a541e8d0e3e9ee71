"""The Cholesky factorization and lower-triangular solve the distributions use
(MultivariateNormal, LowRankMultivariateNormal, Wishart, the KL terms, positive_definite):
ember.linalg's C++ ops (LAPACK potrf and trsm, batched, with torch's gradients), under the
names the distribution modules import."""
import ember


def cholesky_ex(a):
    """(L, info) as torch.linalg.cholesky_ex: info (int32) is 0 where a is positive-definite,
    else the order of the first leading minor that is not."""
    return ember.linalg.cholesky_ex(a)


def cholesky(a):
    """L with a = L L^T; ember.linalg.LinAlgError (a RuntimeError, torch's message) if a is not
    positive-definite."""
    return ember.linalg.cholesky(a)


def solve_lower(L, b):
    """X with L X = b for lower-triangular L (..., n, n) and b (..., n, k), batch dims
    broadcast."""
    return ember.linalg.solve_triangular(L, b, upper=False)
