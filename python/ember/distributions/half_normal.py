"""HalfNormal: |X| for X ~ Normal(0, scale)."""
import math

from ._folded import _Folded
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_Folded):
    """HalfNormal(scale, validate_args=None)

    |X| for X ~ Normal(0, scale).

    >>> ember.distributions.HalfNormal(ember.tensor(1.0)).mean
    tensor(0.7979)"""

    _base = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
