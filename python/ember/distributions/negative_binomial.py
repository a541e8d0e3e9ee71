"""NegativeBinomial: the number of successes before total_count failures in Bernoulli(probs)
trials; a Gamma-Poisson mixture."""
import ember
import ember.nn.functional as F
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _BinaryProbsLogits, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryProbsLogits, Distribution):
    """NegativeBinomial(total_count, probs=None, logits=None, validate_args=None)

    The number of successes before total_count failures, success probability probs.

    >>> ember.distributions.NegativeBinomial(3.0, ember.tensor(0.5)).mean
    tensor(3.)"""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = self._init_probs_or_logits(probs, logits, total_count=total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(NegativeBinomial, batch_shape, _instance,
                                   ("total_count", "probs", "logits"))

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            return ember.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        log_normalization = (-ember.lgamma(self.total_count + value) + ember.lgamma(1.0 + value)
                             + ember.lgamma(self.total_count))
        # total_count = value = 0: the probability is 1 (lgamma(0) is inf)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
