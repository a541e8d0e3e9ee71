"""HalfCauchy: |X| for X ~ Cauchy(0, scale)."""
import math

import ember
from ._folded import _Folded
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """HalfCauchy(scale, validate_args=None)

    |X| for X ~ Cauchy(0, scale).

    >>> ember.distributions.HalfCauchy(ember.tensor(1.0)).log_prob(ember.tensor(0.0))
    tensor(-0.4516)"""

    _base = Cauchy

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
