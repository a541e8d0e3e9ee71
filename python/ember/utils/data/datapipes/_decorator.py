"""The DataPipe decorators and switches (torch.utils.data.datapipes._decorator):
functional_datapipe (registers a class as a chained method), non_deterministic and the
guaranteed_datapipes_determinism switch that refuses such pipes, argument_validation (checks
IterDataPipe[T] annotations at call time) and runtime_validation (checks each item an __iter__
yields against the pipe's element type) with its runtime_validation_disabled switch."""
import functools
import inspect
import typing

from .datapipe import IterDataPipe, MapDataPipe, _DataPipeType, _isinstance

__all__ = ["argument_validation", "functional_datapipe", "guaranteed_datapipes_determinism",
           "non_deterministic", "runtime_validation", "runtime_validation_disabled"]


class functional_datapipe:
    """@functional_datapipe("name") on an IterDataPipe or MapDataPipe subclass makes
    `dp.name(*args)` build `Class(dp, *args)` on every pipe of that family.

    >>> from ember.utils.data import IterDataPipe, functional_datapipe
    >>> @functional_datapipe("twice_docs_example")
    ... class Twice(IterDataPipe):
    ...     def __init__(self, source):
    ...         self.source = source
    ...     def __iter__(self):
    ...         return (2 * x for x in self.source)
    >>> class Numbers(IterDataPipe):
    ...     def __iter__(self):
    ...         return iter(range(3))
    >>> list(Numbers().twice_docs_example())
    [0, 2, 4]
    """

    def __init__(self, name, enable_df_api_tracing=False):
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        target = cls.cls if isinstance(cls, non_deterministic) else cls
        if isinstance(target, type) and issubclass(target, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls, self.enable_df_api_tracing)
        elif isinstance(target, type) and issubclass(target, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe or MapDataPipe "
                            f"classes, got {cls!r}")
        return cls


# The module's two switches; _Switch subclasses set one from construction until __exit__.
_flags = {"determinism": False, "runtime_validation": True}


class _Switch:
    """Sets _flags[_flag] to _value when constructed (as torch's, effective before `with`)
    and restores the previous value on exit."""
    _flag = _value = None

    def __init__(self):
        self.prev = _flags[self._flag]
        _flags[self._flag] = self._value

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _flags[self._flag] = self.prev


class guaranteed_datapipes_determinism(_Switch):
    """While active (a context manager, effective from construction), building a pipe marked
    non_deterministic raises TypeError.

    >>> with ember.utils.data.guaranteed_datapipes_determinism():
    ...     print("non-deterministic pipes raise in here")
    non-deterministic pipes raise in here
    """
    _flag, _value = "determinism", True


class non_deterministic:
    """Marks an IterDataPipe class as non-deterministic (@non_deterministic), or, given a
    function deterministic_fn(*args, **kwargs) -> bool (@non_deterministic(fn)), as
    non-deterministic for the arguments where fn returns True.

    >>> from ember.utils.data import IterDataPipe, non_deterministic
    >>> @non_deterministic
    ... class Shuffled(IterDataPipe):
    ...     def __iter__(self):
    ...         return iter([])
    >>> try:
    ...     with ember.utils.data.guaranteed_datapipes_determinism():
    ...         Shuffled()
    ... except TypeError:
    ...     print("refused")
    refused
    """

    def __init__(self, arg):
        self.cls = None
        self.deterministic_fn = None
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError("Only `IterDataPipe` can be decorated with `non_deterministic`, "
                                f"but {arg.__name__} is found")
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args, **kwargs):
        if self.cls is not None:
            if _flags["determinism"]:
                raise TypeError(f"{self.cls.__name__} is non-deterministic, but you set "
                                "'guaranteed_datapipes_determinism'. You can turn off determinism "
                                "for this DataPipe if that is acceptable for your application")
            return self.cls(*args, **kwargs)
        if not (len(args) == 1 and isinstance(args[0], type) and issubclass(args[0], IterDataPipe)):
            raise TypeError("Only `IterDataPipe` can be decorated, but "
                            f"{getattr(args[0], '__name__', args[0]) if args else None} is found")
        self.cls = args[0]
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args, **kwargs):
        res = self.deterministic_fn(*args, **kwargs)
        if not isinstance(res, bool):
            raise TypeError("deterministic_fn of `non_deterministic` decorator is required to "
                            f"return a boolean value, but {type(res)} is found")
        if _flags["determinism"] and res:
            raise TypeError(f"{self.cls.__name__} is non-deterministic with the inputs, but you "
                            "set 'guaranteed_datapipes_determinism'. You can turn off determinism "
                            "for this DataPipe if that is acceptable for your application")
        return self.cls(*args, **kwargs)


def _hint_type(hint):
    """(DataPipe class, _DataPipeType) of an annotation IterDataPipe[T] / MapDataPipe, or None."""
    origin = typing.get_origin(hint) or hint
    if isinstance(origin, type) and issubclass(origin, (IterDataPipe, MapDataPipe)):
        args = typing.get_args(hint)
        return origin, _DataPipeType(args[0] if args else typing.Any)
    return None


def argument_validation(f):
    """Checks, at each call, every argument annotated as an IterDataPipe[T]: it must be an
    IterDataPipe whose element type is a subtype of T (TypeError otherwise).

    >>> from ember.utils.data import IterDataPipe, argument_validation
    >>> class Numbers(IterDataPipe[int]):
    ...     def __iter__(self):
    ...         return iter(range(3))
    >>> @argument_validation
    ... def head(dp: IterDataPipe[int]):
    ...     return next(iter(dp))
    >>> head(Numbers())
    0
    """
    signature = inspect.signature(f)
    hints = typing.get_type_hints(f)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            spec = _hint_type(hints.get(name))
            if spec is None:
                continue
            cls, want = spec
            if not isinstance(value, cls):
                raise TypeError(f"Expected argument '{name}' as a {cls.__name__}, but found "
                                f"{type(value)}")
            if not value.type.issubtype(want):
                raise TypeError(f"Expected type of argument '{name}' as a subtype of hint "
                                f"{want}, but found {value.type}")
        return f(*args, **kwargs)
    return wrapper


class runtime_validation_disabled(_Switch):
    """While active, runtime_validation checks nothing.

    >>> from ember.utils.data import IterDataPipe, runtime_validation
    >>> class Ints(IterDataPipe[int]):
    ...     @runtime_validation
    ...     def __iter__(self):
    ...         yield from [1, "two"]
    >>> with ember.utils.data.runtime_validation_disabled():
    ...     list(Ints())
    [1, 'two']
    """
    _flag, _value = "runtime_validation", False


def runtime_validation(f):
    """Decorates an IterDataPipe's __iter__: each yielded item must be an instance of the
    pipe's element type (RuntimeError otherwise), unless runtime_validation_disabled.

    >>> from ember.utils.data import IterDataPipe, runtime_validation
    >>> class Ints(IterDataPipe[int]):
    ...     @runtime_validation
    ...     def __iter__(self):
    ...         yield from [1, "two"]
    >>> try:
    ...     list(Ints())
    ... except RuntimeError:
    ...     print("'two' is not an int")
    'two' is not an int
    """
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self):
        if not _flags["runtime_validation"]:
            yield from f(self)
            return
        for item in f(self):
            if not _isinstance(item, self.type.param):
                raise RuntimeError(f"Expected an instance as subtype of {self.type}, but found "
                                   f"{item}({type(item)})")
            yield item
    return wrapper
