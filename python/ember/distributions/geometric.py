"""Geometric distribution: the number of failures before the first success in Bernoulli
trials of success probability probs."""
import ember
import ember.nn.functional as F
from . import constraints
from .distribution import Distribution
from .utils import _BinaryProbsLogits, broadcast_all

__all__ = ["Geometric"]


class Geometric(_BinaryProbsLogits, Distribution):
    """Geometric(probs=None, logits=None, validate_args=None)

    The number of failures before the first success of probability probs.

    >>> ember.distributions.Geometric(ember.tensor(0.25)).mean
    tensor(3.)"""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._init_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs  # p = 0 is in the unit interval but has no geometric law
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to be positive "
                                 f"but found invalid values:\n{value.masked_select(~valid)}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return ember.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            u = ember.empty(shape, dtype=self.probs.dtype).uniform_(ember.finfo(self.probs.dtype).tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p = 1 and k = 0: 0 * log(0) is 0 here, not nan
        probs = ember.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
