"""no_grad, enable_grad, set_grad_enabled, inference_mode: context managers and decorators
over the C++ thread-local grad mode."""
import functools
import threading

from . import _C

is_grad_enabled = _C.is_grad_enabled


class _DecoratorContext:
    """A context manager that is also a decorator (torch's _DecoratorContextManager): the
    decorated function runs inside a fresh one, _fresh()."""

    def _fresh(self):
        return self.__class__()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._fresh():
                return fn(*args, **kwargs)
        return wrapper


class _GradModeContext(_DecoratorContext):
    _enabled = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class _NoParamGradMode(_GradModeContext):
    """no_grad and enable_grad, which take no argument, also decorate bare (`@ember.no_grad`),
    as torch's _NoParamDecoratorContextManager."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamGradMode):
    """Ops inside record no graph: `with ember.no_grad(): w -= lr * w.grad`.

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """
    _enabled = False


class enable_grad(_NoParamGradMode):
    """enable_grad()

    A context manager (and decorator) that turns gradient recording back on, e.g. inside no_grad.

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.no_grad(), ember.enable_grad():
    ...     y = x * 2
    >>> y.requires_grad
    True
    """
    _enabled = True


_inference = threading.local()  # a stack of the inference_mode blocks entered on this thread


def is_inference_mode_enabled():
    """True inside `with inference_mode():` (and not inside inference_mode(False)).

    >>> with ember.inference_mode():
    ...     print(ember.is_inference_mode_enabled())
    True
    """
    stack = getattr(_inference, "stack", None)
    return bool(stack and stack[-1])


class inference_mode(_GradModeContext):
    """As no_grad (ember has no separate inference tensors).

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # bare @ember.inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._enabled = not mode

    def __enter__(self):
        _inference.__dict__.setdefault("stack", []).append(not self._enabled)
        return super().__enter__()

    def __exit__(self, *exc):
        _inference.stack.pop()
        return super().__exit__(*exc)

    def _fresh(self):
        return inference_mode(not self._enabled)

    def __call__(self, fn):
        if not callable(fn) or isinstance(fn, bool):
            return inference_mode(fn)
        return super().__call__(fn)


class set_grad_enabled(_GradModeContext):
    """Sets grad mode now (as a function) or for a block (as a context manager).

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.set_grad_enabled(False):
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._enabled = bool(mode)
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def _fresh(self):
        return set_grad_enabled(self._enabled)

    def __call__(self, fn):
        _C._set_grad_enabled(self._prev)  # as a decorator it changes nothing now
        return super().__call__(fn)
