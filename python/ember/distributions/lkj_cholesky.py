"""LKJCholesky: the LKJ distribution over correlation matrices, expressed on their lower
Cholesky factors; sampled by the onion method (Ghosh and Henderson, 2003) as torch does."""
import math

import ember
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """dim: the size of the correlation matrices; concentration: eta > 0 (1 is uniform over
    correlation matrices).

    >>> d = ember.distributions.LKJCholesky(3, concentration=2.0)
    >>> L = d.sample()
    >>> L.shape, ember.allclose((L @ L.T).diagonal(), ember.ones(3))
    (ember.Size([3, 3]), True)
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i of the factor has squared norm below the diagonal ~ Beta(i / 2, eta + (dim - 2 - i) / 2)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = ember.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = ember.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), ember.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = ember.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            # a uniform direction on the sphere for the strict lower part of each row (row 0
            # has none), scaled to squared norm y, and the diagonal completing a unit row
            u = ember.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            norm = (u * u).sum(-1, keepdim=True).sqrt()
            first_row = ember.arange(self.dim).unsqueeze(-1) == 0
            w = ember.sqrt(y) * ember.where(first_row, 0.0, u / norm)
            diag = (1 - (w * w).sum(-1)).clamp(min=ember.finfo(w.dtype).tiny).sqrt()
            return w + diag.unsqueeze(-1) * ember.eye(self.dim, dtype=w.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # the density of the factor L: prod over i >= 1 of L_ii^(2(eta - 1) + dim - i - 1)
        diag_elems = value.diagonal(0, -1, -2)[..., 1:]
        order = ember.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = ember.lgamma(alpha) * dm1
        numerator = ember.mvlgamma(alpha - 0.5, dm1)
        normalize_term = 0.5 * dm1 * math.log(math.pi) + numerator - denominator
        return unnormalized_log_pdf - normalize_term
