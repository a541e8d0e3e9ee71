"""Distribution: the base class of every probability distribution (shapes, argument and
sample validation, sample/rsample, perplexity), as torch.distributions.Distribution."""
import warnings
from numbers import Number

import ember
from . import constraints
from .utils import broadcast_all, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The abstract base class for probability distributions.

    batch_shape: the shape over which parameters are batched; event_shape: the shape of one
    sample; validate_args: whether to check parameters and values (default: on, as `assert`).

    >>> d = ember.distributions.Normal(ember.zeros(2), ember.ones(2))
    >>> isinstance(d, ember.distributions.Distribution), d.batch_shape, d.event_shape
    (True, ember.Size([2]), ember.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions created without validate_args."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=ember.Size(), event_shape=ember.Size(), validate_args=None):
        self._batch_shape = ember.Size(batch_shape)
        self._event_shape = ember.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # not given: computed from the other parameterization
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                        f"{constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the batch dimensions expanded to batch_shape (parameters are
        expanded views; no new checks)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=ember.Size()):
        """A sample of shape sample_shape + batch_shape + event_shape, without gradient."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=ember.Size()):
        """A reparameterized sample: gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(ember.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape=ember.Size()):
        """sample_shape + batch_shape + event_shape."""
        if isinstance(sample_shape, int):
            raise TypeError(f"sample_shape must be a tuple or torch.Size, not int ({sample_shape})")
        return ember.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Check that value's rightmost dims broadcast with batch_shape + event_shape and that
        its entries lie in the support."""
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = ember.Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support ({support!r}) of "
                             f"the distribution {self!r}, but found invalid values:\n{value}")

    def _expand_params(self, cls, batch_shape, _instance, names, event_shape=()):
        """The common body of expand(): a new instance whose parameters in `names` (those
        present on self) are views expanded to batch_shape + event_shape."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = ember.Size(batch_shape)
        shape = tuple(batch_shape) + tuple(event_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape))
        if "_param" in self.__dict__:
            new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _set_params(self, **params):
        """Broadcast the parameters (numbers or tensors) to one shape and store them as
        attributes; returns the batch shape: () when all were numbers, else the broadcast one."""
        values = broadcast_all(*params.values())
        for name, value in zip(params, values):
            setattr(self, name, value)
        return ember.Size() if all(isinstance(v, Number) for v in params.values()) else values[0].size()

    def _init_probs_or_logits(self, probs, logits, total_count=None):
        """Store exactly one of probs/logits (broadcast to a tensor) as torch's Bernoulli,
        Geometric, ... do; with total_count (Binomial, NegativeBinomial) broadcast with it and
        cast to the parameter's dtype. Returns the batch shape."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (self._param,) = broadcast_all(given)
        else:
            total_count, self._param = broadcast_all(total_count, given)
            self.total_count = total_count.to(self._param.dtype)
        setattr(self, name, self._param)
        if total_count is None and isinstance(given, Number):
            return ember.Size()
        return self._param.size()

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"


class CenteredAtLoc:
    """For distributions symmetric and unimodal about their `loc` parameter (Normal, Laplace,
    the multivariate normals, von Mises): mean and mode are both `loc`. Listed before the
    Distribution base, whose mean and mode raise."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
