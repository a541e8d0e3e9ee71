"""Gamma distribution parameterized by concentration (shape) and rate."""
import ember
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _standard_gamma, xlogy

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate, validate_args=None)

    The gamma distribution with shape concentration and rate.

    >>> ember.distributions.Gamma(ember.tensor(2.0), ember.tensor(4.0)).mean
    tensor(0.5000)"""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        batch_shape = self._set_params(concentration=concentration, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # a draw that underflowed to 0 becomes the smallest normal float (no -inf log_prob);
        # in place on a detached view, so the gradient is untouched
        value.detach().clamp_(min=ember.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - ember.lgamma(self.concentration))

    def cdf(self, value):
        """The regularized lower incomplete gamma function P(concentration, rate * value)."""
        if self._validate_args:
            self._validate_sample(value)
        return ember.igamma(self.concentration, self.rate * value)

    def entropy(self):
        return (self.concentration - ember.log(self.rate) + ember.lgamma(self.concentration)
                + (1.0 - self.concentration) * ember.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return ember.lgamma(x + 1) + (x + 1) * ember.log(-y.reciprocal())
