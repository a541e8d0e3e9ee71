"""MultivariateNormal: a normal distribution over vectors, parameterized by loc and one of
covariance_matrix, precision_matrix or scale_tril (its lower Cholesky factor)."""
import math

import ember
from . import constraints
from ._linalg import ScaleTrilMatrices, cholesky, solve_lower
from .distribution import CenteredAtLoc, Distribution
from .utils import _standard_normal

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dims."""
    return ember.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x = |L^-1 x|^2, batched; bL's batch dims broadcast against bx's."""
    y = solve_lower(bL, bx.unsqueeze(-1)).squeeze(-1)
    return y.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1 without inverting P: the Cholesky factor of P with
    rows and columns reversed, transposed, is the inverse of the wanted factor."""
    Lf = cholesky(P.flip(-2, -1))
    L_inv = Lf.flip(-2, -1).mT
    eye = ember.eye(P.shape[-1], dtype=P.dtype)
    return solve_lower(L_inv, eye)


def _scale_tril_of(scale_tril, covariance_matrix, precision_matrix):
    """The lower Cholesky factor of the covariance from whichever one of the three
    parameterizations was given (MultivariateNormal, Wishart)."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return cholesky(covariance_matrix)
    return _precision_to_scale_tril(precision_matrix)


class MultivariateNormal(ScaleTrilMatrices, CenteredAtLoc, Distribution):
    """MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
        validate_args=None)

    The multivariate normal with mean loc and covariance_matrix (or precision_matrix or
    scale_tril).

    >>> d = ember.distributions.MultivariateNormal(ember.zeros(2), ember.eye(2))
    >>> d.log_prob(ember.zeros(2))
    tensor(-1.8379)"""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                             "may be specified.")
        for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is not None:
                if matrix.dim() < 2:
                    raise ValueError(f"{name} matrix must be at least two-dimensional, with "
                                     "optional leading batch dimensions" if name == "scale_tril" else
                                     f"{name} must be at least two-dimensional, with optional "
                                     "leading batch dimensions")
                batch_shape = tuple(ember.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
                setattr(self, name, matrix.expand(batch_shape + tuple(matrix.shape[-2:])))
        self.loc = loc.expand(batch_shape + (loc.shape[-1],))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(scale_tril, covariance_matrix,
                                                        precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        loc_shape = batch_shape + tuple(self.event_shape)
        cov_shape = batch_shape + tuple(self.event_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H.expand(self._batch_shape) if self._batch_shape else H
