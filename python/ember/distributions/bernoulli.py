"""Bernoulli distribution parameterized by probs or logits (not both)."""
import ember
import ember.nn.functional as F
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _BinaryProbsLogits, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_BinaryProbsLogits, ExponentialFamily):
    """Bernoulli(probs=None, logits=None, validate_args=None)

    1 with probability probs (or sigmoid(logits)), else 0.

    >>> ember.distributions.Bernoulli(probs=ember.tensor([0.3])).log_prob(ember.tensor([1.0]))
    tensor([-1.2040])"""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._init_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ember.where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = ember.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (ember.logit(self.probs) if hasattr(ember, "logit")
                else ember.log(self.probs) - ember.log1p(-self.probs),)

    def _log_normalizer(self, x):
        return ember.log1p(ember.exp(x))
