"""Poisson distribution parameterized by rate."""
import ember
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, xlogy

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson(rate, validate_args=None)

    The Poisson distribution with mean rate.

    >>> ember.distributions.Poisson(ember.tensor(2.0)).log_prob(ember.tensor(2.0))
    tensor(-1.3069)"""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args=None):
        batch_shape = self._set_params(rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, ("rate",))

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - ember.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (ember.log(self.rate),)

    def _log_normalizer(self, x):
        return ember.exp(x)
