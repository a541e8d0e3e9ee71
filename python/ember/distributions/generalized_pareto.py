"""Generalized Pareto distribution: loc, scale and concentration (shape); sampled by its
inverse CDF."""
import math

import ember
from . import constraints
from .distribution import Distribution

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration, validate_args=None)

    The generalized Pareto distribution with location loc, scale and shape concentration.

    >>> ember.distributions.GeneralizedPareto(0.0, 1.0, 0.0).mean
    tensor(1.)"""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        batch_shape = self._set_params(loc=loc, scale=scale, concentration=concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance,
                                   ("loc", "scale", "concentration"))

    def _safe_concentration(self):
        """(concentration == 0 up to isclose, concentration with 1 there): the zero case is the
        exponential limit, computed apart so that no 0/0 reaches the gradient."""
        eq_zero = self.concentration.abs() <= 1e-8
        return eq_zero, ember.where(eq_zero, 1.0, self.concentration)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(ember.rand(shape, dtype=self.loc.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, conc = self._safe_concentration()
        y = 1 / conc + ember.ones_like(z)
        nonzero = ember.where(y == 0, y, y * ember.log1p(conc * z))
        return -self.scale.log() - ember.where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, conc = self._safe_concentration()
        return ember.where(eq_zero, -z, -ember.log1p(conc * z) / conc)

    def log_cdf(self, value):
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, conc = self._safe_concentration()
        logu = ember.log1p(-value)
        nonzero = self.loc + self.scale / conc * ember.expm1(-conc * logu)
        return ember.where(eq_zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        conc = ember.where(valid, self.concentration, 0.5)
        return ember.where(valid, self.loc + self.scale / (1 - conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        conc = ember.where(valid, self.concentration, 0.25)
        return ember.where(valid, self.scale ** 2 / ((1 - conc) ** 2 * (1 - 2 * conc)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (ember.log(self.scale) + self.concentration + 1).expand(self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = ember.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
