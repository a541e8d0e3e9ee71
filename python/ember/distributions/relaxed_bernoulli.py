"""RelaxedBernoulli (the binary Concrete distribution) and its logit-space form: a
reparameterizable relaxation of Bernoulli with a temperature."""
import ember
import ember.nn.functional as F
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import _BinaryProbsLogits, _RelaxedParams, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_BinaryProbsLogits, Distribution):
    """The logit of a RelaxedBernoulli sample: (logit(U) + logits) / temperature.

    >>> D = ember.distributions
    >>> d = D.LogitRelaxedBernoulli(ember.tensor(0.5), probs=ember.tensor(0.5))
    >>> d.sample((3,)).shape
    ember.Size([3])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        batch_shape = self._init_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"))
        new.temperature = self.temperature
        return new

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(ember.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        log_t = self.temperature.log() if isinstance(self.temperature, ember.Tensor) else \
            ember.log(ember.tensor(float(self.temperature), dtype=diff.dtype))
        return log_t + diff - 2 * F.softplus(diff)


class RelaxedBernoulli(_RelaxedParams, TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli: samples in (0, 1) that approach {0, 1} as the
    temperature goes to 0.

    >>> D = ember.distributions
    >>> d = D.RelaxedBernoulli(ember.tensor(0.1), probs=ember.tensor([0.2, 0.8]))
    >>> s = d.sample()
    >>> s.shape, bool(((s > 0) & (s < 1)).all())
    (ember.Size([2]), True)
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)
