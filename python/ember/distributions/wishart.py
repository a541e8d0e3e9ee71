"""Wishart distribution over positive-definite matrices: df degrees of freedom and one of
covariance_matrix, precision_matrix or scale_tril; sampled by the Bartlett decomposition."""
import math
import warnings
from numbers import Number

import ember
from . import constraints
from ._linalg import ScaleTrilMatrices, cholesky, cholesky_ex, solve_lower
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _scale_tril_of

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma: sum over i < p of digamma(x - i / 2)."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise ValueError("Wrong domain for multivariate digamma function.")
    return ember.digamma(x.unsqueeze(-1) - ember.arange(p, dtype=x.dtype) / 2).sum(-1)


class Wishart(ScaleTrilMatrices, ExponentialFamily):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
        validate_args=None)

    The Wishart distribution over positive-definite matrices with df and a covariance (or
    precision, or scale_tril).

    >>> ember.distributions.Wishart(ember.tensor(3.0), covariance_matrix=ember.eye(2)).mean
    tensor([[3., 0.],
            [0., 3.]])"""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                             "may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        if isinstance(df, Number):
            batch_shape = tuple(param.shape[:-2])
            self.df = ember.tensor(df, dtype=param.dtype)
        else:
            batch_shape = tuple(ember.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = tuple(param.shape[-2:])
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        name = ("scale_tril" if scale_tril is not None else
                "covariance_matrix" if covariance_matrix is not None else "precision_matrix")
        setattr(self, name, param.expand(batch_shape + event_shape))
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for "
                          "ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(scale_tril, covariance_matrix,
                                                        precision_matrix)
        self._dist_chi2 = self._bartlett_chi2()

    def _bartlett_chi2(self):
        """Chi2(df - i) for the squared diagonal entries of the Bartlett factor."""
        p = self._event_shape[-1]
        offsets = ember.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=self.df.unsqueeze(-1) - offsets.expand(tuple(self._batch_shape) + (p,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = ember.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._bartlett_chi2()
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    def _df_matrix(self, x):
        return x.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ember.where(factor <= 0, math.nan, factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(0, -2, -1)
        return self._df_matrix(self.df) * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        """L A A^T L^T with A lower-triangular: sqrt(Chi2(df - i)) on the diagonal, N(0, 1)
        below it."""
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=ember.finfo(self.df.dtype).eps)
        shape = tuple(sample_shape) + tuple(self._batch_shape) + (p, p)
        below = ember.randn(shape, dtype=diag.dtype).tril(-1)
        noise = below + diag.unsqueeze(-1) * ember.eye(p, dtype=diag.dtype)
        chol = ember.matmul(self._unbroadcasted_scale_tril, noise)
        return ember.matmul(chol, chol.mT)

    def rsample(self, sample_shape=ember.Size(), max_try_correction=None):
        """Bartlett samples; a sample that came out singular (possible for df close to ndim - 1)
        is redrawn, up to max_try_correction times (default 10), whole batches at once."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = ember.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = ~self.support.check(sample)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(sample_shape)
                sample = ember.where(is_singular.unsqueeze(-1).unsqueeze(-1), fresh, sample)
                is_singular = ~self.support.check(sample)
                if not bool(is_singular.any()):
                    break
        return sample

    def _log_det_scale(self):
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        # log |value| from its Cholesky factor (value is positive-definite: the support);
        # tr(Sigma^-1 value) = sum((L^-1) * (L^-1 value)) with Sigma = L L^T
        value_tril, _ = cholesky_ex(value)
        logdet_value = 2 * value_tril.diagonal(0, -2, -1).log().sum(-1)
        # Sigma from the whole of scale_tril, refactored: the gradient reaches every entry of
        # the parameter, as through torch's cholesky_solve
        L = self._unbroadcasted_scale_tril
        L = cholesky(ember.matmul(L, L.mT))
        L_inv = solve_lower(L, ember.eye(L.shape[-1], dtype=L.dtype))
        trace = (L_inv * ember.matmul(L_inv, value)).sum((-2, -1))
        return (-nu * (p * _LOG_2 / 2 + self._log_det_scale()) - ember.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * logdet_value - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * (p * _LOG_2 / 2 + self._log_det_scale()) + ember.mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu, p = self.df, self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        neg2x_tril, _ = cholesky_ex(-2 * x)
        logdet = 2 * neg2x_tril.diagonal(0, -2, -1).log().sum(-1)
        return (y + (p + 1) / 2) * (-logdet + _LOG_2 * p) + ember.mvlgamma(y + (p + 1) / 2, p)
