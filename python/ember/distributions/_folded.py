"""_Folded: |X| for X ~ Base(0, scale), the shared part of HalfNormal and HalfCauchy (as torch
writes each out): the density doubles on [0, inf), the cdf is 2 F(x) - 1, the entropy loses
log 2. A subclass names its `_base` distribution and gives the moments."""
import math

import ember
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class _Folded(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base = None  # the distribution folded at 0: Normal or Cauchy

    def __init__(self, scale, validate_args=None):
        base_dist = self._base(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        # torch checks against HalfNormal/HalfCauchy: the class that names the base
        cls = next(c for c in type(self).__mro__ if "_base" in c.__dict__)
        new = self._get_checked_instance(cls, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = ember.as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
