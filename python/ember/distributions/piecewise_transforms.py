"""CatTransform and StackTransform: transforms applied piece by piece along one dimension
(lengths of a concatenation, or the slices of a stack), part of ember.distributions.transforms."""
import ember
from . import constraints
from ._transform_base import Transform
from .utils import _sum_rightmost

__all__ = ["CatTransform", "StackTransform"]


class CatTransform(Transform):
    """Applies a sequence of transforms to pieces of `dim` of the given lengths.

    >>> D = ember.distributions
    >>> parts = [D.ExpTransform(), D.AffineTransform(0.0, 2.0)]
    >>> t = D.CatTransform(parts, dim=0, lengths=[1, 2])
    >>> t(ember.tensor([0.0, 1.0, 2.0]))
    tensor([1., 2., 4.])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform: every element of tseq must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: {len(self.transforms)} transforms but "
                             f"{len(self.lengths)} lengths")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, x, fn):
        if not (-x.dim() <= self.dim < x.dim()) or x.size(self.dim) != self.length:
            raise ValueError(f"CatTransform: dimension {self.dim} of shape {tuple(x.shape)} must "
                             f"have size {self.length}")
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            out.append(fn(trans, x.narrow(self.dim, start, length)))
            start += length
        return out

    def _call(self, x):
        return ember.cat(self._pieces(x, lambda t, v: t(v)), self.dim)

    def _inverse(self, y):
        return ember.cat(self._pieces(y, lambda t, v: t.inv(v)), self.dim)

    def log_abs_det_jacobian(self, x, y):
        ys = self._pieces(y, lambda t, v: v)
        xs = self._pieces(x, lambda t, v: v)
        logdetjacs = []
        for trans, xslice, yslice in zip(self.transforms, xs, ys):
            logdetjac = trans.log_abs_det_jacobian(xslice, yslice)
            if trans.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
        # along an event dimension the pieces' log-dets add; along a batch one they concatenate
        dim = self.dim if self.dim >= 0 else self.dim + x.dim()
        if dim >= x.dim() - self.event_dim:
            result = logdetjacs[0]
            for term in logdetjacs[1:]:
                result = result + term
            return result
        return ember.cat(logdetjacs, dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies a sequence of transforms to the slices of `dim`.

    >>> D = ember.distributions
    >>> t = D.StackTransform([D.ExpTransform(), D.AffineTransform(1.0, 2.0)], dim=0)
    >>> t(ember.tensor([[0.0, 1.0], [0.0, 1.0]]))
    tensor([[1.0000, 2.7183],
            [1.0000, 3.0000]])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform: every element of tseq must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        if z.size(self.dim) != len(self.transforms):
            raise ValueError(f"StackTransform: dimension {self.dim} of shape {tuple(z.shape)} "
                             f"must have size {len(self.transforms)}")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return ember.stack([t(v) for v, t in zip(self._slice(x), self.transforms)], self.dim)

    def _inverse(self, y):
        return ember.stack([t.inv(v) for v, t in zip(self._slice(y), self.transforms)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        return ember.stack([t.log_abs_det_jacobian(xs, ys) for xs, ys, t
                            in zip(self._slice(x), self._slice(y), self.transforms)], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
