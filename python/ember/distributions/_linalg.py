"""The Cholesky factorization and lower-triangular solve the distributions use
(MultivariateNormal, LowRankMultivariateNormal, Wishart, the KL terms, positive_definite):
ember.linalg's C++ ops (LAPACK potrf and trsm, batched, with torch's gradients), under the
names the distribution modules import."""
import ember
from .utils import lazy_property


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


class ScaleTrilMatrices:
    """scale_tril, covariance_matrix (L L^T) and precision_matrix ((L L^T)^-1 = L^-T L^-1) of a
    distribution holding its unbroadcasted Cholesky factor L and giving _matrix_shape()
    (MultivariateNormal, Wishart); each is computed once, on first use."""

    def _scale_tril_inverse(self):
        L = self._unbroadcasted_scale_tril
        return solve_lower(L, ember.eye(L.shape[-1], dtype=L.dtype))

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return ember.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L_inv = self._scale_tril_inverse()
        return ember.matmul(L_inv.mT, L_inv).expand(self._matrix_shape())
