"""Transform, the base of every transform (an invertible map y = f(x) with log|det dy/dx|,
with an optional one-entry cache), and its inverse view. transforms.py re-exports Transform
beside the transforms; piecewise_transforms.py and matrix_transforms.py build on it here."""
import weakref

from . import constraints


class Transform:
    """An invertible (or not: `bijective`) map with a computable log |det Jacobian|.
    cache_size=1 remembers the last (x, y) pair, so inverting a sample it just made returns the
    exact x (needed where the inverse is not numerically exact).

    >>> class Double(ember.distributions.Transform):
    ...     bijective = True
    ...     def _call(self, x):
    ...         return 2 * x
    ...     def _inverse(self, y):
    ...         return y / 2
    >>> t = Double()
    >>> t(ember.tensor([1.0])), t.inv(ember.tensor([4.0]))
    (tensor([2.]), tensor([2.]))
    """
    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform; t.inv.inv is t."""
        return self._cached_inv(lambda: _InverseTransform(self))

    def _cached_inv(self, make):
        """The inverse made by make(), kept through a weak reference (so the pair does not
        keep each other alive) and made again once it is gone."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = make()
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._through_cache(x, 0, self._call)

    def _inv_call(self, y):
        return self._through_cache(y, 1, self._inverse)

    def _through_cache(self, value, side, fn):
        """fn(value), where value is x (side 0) or y (side 1); with cache_size=1 the last
        (x, y) pair answers a repeated call with the same object."""
        if self._cache_size == 0:
            return fn(value)
        cached = self._cached_x_y
        if value is cached[side]:
            return cached[1 - side]
        out = fn(value)
        self._cached_x_y = (value, out) if side == 0 else (out, value)
        return out

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform; reached through Transform.inv."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform  # a strong reference: the inverse keeps its forward alive

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class _ParameterFree(Transform):
    """A transform without parameters: equal to every other instance of its class."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = object.__hash__
