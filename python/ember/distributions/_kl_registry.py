"""The registry behind kl_divergence: register_kl(type_p, type_q) records a closed form of
KL(p || q); kl_divergence looks it up by the pair of distribution types, the most specific
registered pair winning (as torch.distributions.kl). kl.py (same family) and
kl_cross_family.py register into it; kl.py re-exports register_kl and kl_divergence."""
import math
import warnings
from functools import total_ordering

import ember
from .distribution import Distribution


_KL_REGISTRY = {}  # (type_p, type_q) -> fn(p, q)
_KL_MEMOIZE = {}  # (type_p, type_q) -> the fn dispatch chose


def register_kl(type_p, type_q):
    """Decorator registering fn(p, q) as KL(p || q) for p of type_p and q of type_q (and their
    subclasses, unless a more specific pair is registered).

    >>> D = ember.distributions
    >>> class Point(D.Normal):
    ...     pass
    >>> @D.register_kl(Point, Point)
    ... def _kl_point(p, q):
    ...     return (p.loc - q.loc).abs()
    >>> D.kl_divergence(Point(0.0, 1.0), Point(3.0, 1.0))
    tensor(3.)
    """
    # Any class is taken, as torch takes it: libraries register rules for their own base classes
    # (pyro: register_kl(Delta, pyro.distributions.Distribution), an abstract mixin that is no
    # subclass of torch's Distribution). What is not a class raises TypeError.
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(t, type):
            raise TypeError(f"register_kl: {name} must be a class (a Distribution subclass), "
                            f"got {t!r:.60}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the most specific match may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    """Orders registered pairs lexicographically by subclass: the least is the most specific."""
    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    # most specific on p first, and most specific on q first: they should agree
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    if left_fun is not _KL_REGISTRY[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the batch shape.

    >>> D = ember.distributions
    >>> D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0))
    tensor(0.5000)
    """
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
                                  f"and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return ember.full_like(tensor, math.inf)
