"""Transforms onto matrices: LowerCholeskyTransform (square matrices to lower Cholesky
factors), CorrCholeskyTransform (vectors to Cholesky factors of correlation matrices) and
PositiveDefiniteTransform; part of ember.distributions.transforms."""
import math

import ember
import ember.nn.functional as F
from . import constraints
from ._linalg import cholesky
from ._transform_base import _ParameterFree
from .utils import tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["CorrCholeskyTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform"]


class LowerCholeskyTransform(_ParameterFree):
    """Unconstrained square matrices to lower-triangular ones with a positive diagonal:
    the strict lower triangle kept, the diagonal exponentiated.

    >>> ember.distributions.LowerCholeskyTransform()(ember.tensor([[0.0, 5.0], [2.0, 0.0]]))
    tensor([[1., 0.],
            [2., 1.]])
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(0, -2, -1).exp().unsqueeze(-1) * _eye_like(x)

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(0, -2, -1).log().unsqueeze(-1) * _eye_like(y)


def _eye_like(x):
    return ember.eye(x.shape[-1], dtype=x.dtype)


class CorrCholeskyTransform(_ParameterFree):
    """Unconstrained vectors of length D(D-1)/2 to the lower Cholesky factor of a D x D
    correlation matrix (positive diagonal, rows of unit norm): the vector fills the strict lower
    triangle row by row, tanh maps it into (-1, 1), and each row is completed by signed stick
    breaking so that its squares sum to 1.

    >>> L = ember.distributions.CorrCholeskyTransform()(ember.zeros(3))
    >>> L
    tensor([[1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 1.]])
    """
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = ember.finfo(x.dtype).eps
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # entry (i, j) keeps r_ij times what the row's earlier entries left of the unit length
        remaining = (1 - r * r).sqrt().cumprod(-1)
        remaining = F.pad(remaining[..., :-1], [1, 0], value=1.0)
        return (r + ember.eye(r.shape[-1], dtype=r.dtype)) * remaining

    def _inverse(self, y):
        left = F.pad((1 - (y * y).cumsum(-1))[..., :-1], [1, 0], value=1.0)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # stick breaking: half the log of what is left before each entry below the diagonal;
        # tanh: log(1 - tanh(x)^2), written stably
        left = tril_matrix_to_vec(1 - (y * y).cumsum(-1), diag=-2)
        stick_breaking_logdet = 0.5 * left.log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return ember.Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return ember.Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class PositiveDefiniteTransform(_ParameterFree):
    """Unconstrained square matrices to positive-definite ones: L L^T with L from
    LowerCholeskyTransform.

    >>> ember.distributions.PositiveDefiniteTransform()(ember.tensor([[0.0, 0.0], [1.0, 0.0]]))
    tensor([[1., 1.],
            [1., 2.]])
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return ember.matmul(x, x.mT)

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))
