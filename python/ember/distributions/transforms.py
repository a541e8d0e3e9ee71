"""Transforms: invertible maps y = f(x) with log|det dy/dx|, composed and applied to
distributions by TransformedDistribution (as torch.distributions.transforms)."""
import math
import weakref
from numbers import Number

import ember
import ember.nn.functional as F
from . import constraints
from .utils import _sum_rightmost
from ._transform_base import Transform, _InverseTransform, _ParameterFree  # noqa: F401
# Transforms that apply others piece by piece, and transforms onto matrices, live in their own
# files and are part of this module's names, as in torch.
from .piecewise_transforms import CatTransform, StackTransform
from .matrix_transforms import (CorrCholeskyTransform, LowerCholeskyTransform,
                                PositiveDefiniteTransform)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "Transform", "identity_transform"]


class ComposeTransform(Transform):
    """Applies parts in order: ComposeTransform([f, g])(x) = g(f(x)).

    >>> D = ember.distributions
    >>> t = D.ComposeTransform([D.AffineTransform(0.0, 2.0), D.ExpTransform()])
    >>> t(ember.tensor([0.0, 0.5]))
    tensor([1.0000, 2.7183])
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # the event_dim the composition needs on its input, walking back from the output
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = self._cached_inv(lambda: ComposeTransform([p.inv for p in reversed(self.parts)]))
        inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return ember.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x, y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x, y),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        result = terms[0]
        for term in terms[1:]:
            result = result + term
        return result

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return (self.__class__.__name__ + "(\n    "
                + ",\n    ".join(p.__repr__() for p in self.parts) + "\n)")


identity_transform = ComposeTransform([])
identity_transform.__doc__ = """The identity map, ComposeTransform([]) (torch's identity_transform).

>>> ember.distributions.identity_transform(ember.tensor([1.0, 2.0]))
tensor([1., 2.])
"""


class IndependentTransform(Transform):
    """Treats the rightmost reinterpreted_batch_ndims batch dims of a transform as event dims:
    the log |det J| is summed over them.

    >>> D = ember.distributions
    >>> t = D.IndependentTransform(D.ExpTransform(), 1)
    >>> x = ember.tensor([[0.0, 1.0]])
    >>> t(x), t.log_abs_det_jacobian(x, t(x))
    (tensor([[1.0000, 2.7183]]), tensor([1.]))
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost dimensions from in_shape to out_shape (same number of elements).

    >>> t = ember.distributions.ReshapeTransform((4,), (2, 2))
    >>> t(ember.arange(4.0)), t.inv(ember.ones(3, 2, 2)).shape
    (tensor([[0., 1.],
            [2., 3.]]), ember.Size([3, 4]))
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = ember.Size(in_shape)
        self.out_shape = ember.Size(out_shape)
        if _numel(self.in_shape) != _numel(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape):
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if tuple(shape[cut:]) != tuple(self.in_shape):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(self.in_shape)}")
        return ember.Size(tuple(shape[:cut]) + tuple(self.out_shape))

    def inverse_shape(self, shape):
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if tuple(shape[cut:]) != tuple(self.out_shape):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(self.out_shape)}")
        return ember.Size(tuple(shape[:cut]) + tuple(self.in_shape))


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class ExpTransform(_ParameterFree):
    """y = exp(x).

    >>> t = ember.distributions.ExpTransform()
    >>> t(ember.tensor([0.0, 1.0])), t.inv(ember.tensor([1.0]))
    (tensor([1.0000, 2.7183]), tensor([0.]))
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals.

    >>> ember.distributions.PowerTransform(2.0)(ember.tensor([1.0, 3.0]))
    tensor([1., 9.])
    """
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _as_tensors(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _as_tensors(*values):
    return tuple(v if isinstance(v, ember.Tensor) else ember.tensor(v) for v in values)


def _clipped_sigmoid(x):
    fi = ember.finfo(x.dtype)
    return ember.sigmoid(x).clamp(min=fi.tiny, max=1.0 - fi.eps)


class SigmoidTransform(_ParameterFree):
    """y = 1 / (1 + exp(-x)), kept inside (0, 1) in floating point.

    >>> t = ember.distributions.SigmoidTransform()
    >>> t(ember.tensor([0.0, 2.0])), t.inv(ember.tensor([0.5]))
    (tensor([0.5000, 0.8808]), tensor([0.]))
    """
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        fi = ember.finfo(y.dtype)
        y = y.clamp(min=fi.tiny, max=1.0 - fi.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(_ParameterFree):
    """y = log(1 + exp(x)); its inverse is x = y + log(1 - exp(-y)).

    >>> t = ember.distributions.SoftplusTransform()
    >>> t(ember.tensor([0.0, 30.0])), t.inv(ember.tensor([1.0]))
    (tensor([ 0.6931, 30.0000]), tensor([0.5413]))
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(_ParameterFree):
    """y = tanh(x); log |dy/dx| = 2 (log 2 - x - softplus(-2x)), stable for large |x|.

    >>> t = ember.distributions.TanhTransform()
    >>> t(ember.tensor([0.0, 1.0])), t.inv(ember.tensor([0.5]))
    (tensor([0.0000, 0.7616]), tensor([0.5493]))
    """
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        # no clipping: an input of exactly +-1 (only reachable by rounding) should use the cache
        return ember.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_ParameterFree):
    """y = |x| (not bijective: its inverse returns the positive root).

    >>> ember.distributions.AbsTransform()(ember.tensor([-2.0, 3.0]))
    tensor([2., 3.])
    """
    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x; event_dim: how many rightmost dims form one event.

    >>> t = ember.distributions.AffineTransform(loc=1.0, scale=2.0)
    >>> t(ember.tensor([0.0, 1.0])), t.inv(ember.tensor([3.0]))
    (tensor([1., 3.]), tensor([1.]))
    """
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, Number) and isinstance(b, Number):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, Number):
            result = ember.full_like(x, math.log(abs(scale)))
        else:
            result = ember.abs(scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.size()[:-self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))


class SoftmaxTransform(_ParameterFree):
    """Real vectors to the simplex by y = softmax(x) (not bijective: x is defined up to a
    constant; the inverse returns log y).

    >>> x = ember.tensor([1.0, 1.0, 2.0]).log()
    >>> ember.distributions.SoftmaxTransform()(x)
    tensor([0.2500, 0.2500, 0.5000])
    """
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


def _pad_last(x, left, right, value):
    return F.pad(x, [left, right], value=value)


class StickBreakingTransform(_ParameterFree):
    """Bijection from R^(K-1) to the K-simplex by stick breaking: each coordinate, offset by
    log of the sticks left, takes a sigmoid fraction of what remains.

    >>> ember.distributions.StickBreakingTransform()(ember.tensor([0.0, 0.0]))
    tensor([0.3333, 0.3333, 0.3333])
    """
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        offset = x.shape[-1] + 1 - ember.arange(1, x.shape[-1] + 1, dtype=x.dtype)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1, 1.0) * _pad_last(z_cumprod, 1, 0, 1.0)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - ember.arange(1, y.shape[-1], dtype=y.dtype)
        sf = 1 - y_crop.cumsum(-1)
        # the remaining stick is 1 - cumsum; clamp to the smallest positive float
        sf = sf.clamp(min=ember.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - ember.arange(1, x.shape[-1] + 1, dtype=x.dtype)
        x = x - offset.log()
        # log|det J| = sum over k of (-x_k + logsigmoid(x_k) + log y_k)
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return ember.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return ember.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval; log |dy/dx| = log_prob(x).

    >>> D = ember.distributions
    >>> t = D.CumulativeDistributionTransform(D.Normal(0.0, 1.0))
    >>> t(ember.tensor([0.0, 1.0]))
    tensor([0.5000, 0.8413])
    """
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

