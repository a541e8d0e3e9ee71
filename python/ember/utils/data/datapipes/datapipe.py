"""The DataPipe base classes (torch.utils.data.datapipes.datapipe): IterDataPipe (an
IterableDataset whose steps chain as methods: dp.map(f).filter(g).batch(4)), MapDataPipe (an
indexable Dataset, the same way), DFIterDataPipe and DataChunk (the list a Batcher yields).

A class registers its method name with @functional_datapipe("name") (_decorator.py). An
IterDataPipe allows one live iterator at a time, as torch's: once a second iterator starts, the
first raises RuntimeError at its next step (two consumers of one pipe would each see a part of
the stream otherwise; .fork() is the way to share one)."""
import typing

from ..dataset import Dataset, IterableDataset

__all__ = ["DataChunk", "DFIterDataPipe", "IterDataPipe", "MapDataPipe"]

T_co = typing.TypeVar("T_co", covariant=True)


def _element_type(cls):
    """The T of a class declared as IterDataPipe[T] / MapDataPipe[T] (typing.Any otherwise)."""
    families = tuple(globals()[n] for n in ("IterDataPipe", "MapDataPipe") if n in globals())
    for klass in cls.__mro__:
        for base in klass.__dict__.get("__orig_bases__", ()):
            origin = typing.get_origin(base)
            if isinstance(origin, type) and families and issubclass(origin, families):
                args = typing.get_args(base)
                if args and not isinstance(args[0], typing.TypeVar):
                    return args[0]
    return typing.Any


class _DataPipeType:
    """The element type of a DataPipe class: `dp.type.param` (torch's _DataPipeType)."""

    def __init__(self, param):
        self.param = param

    def issubtype(self, other):
        other = other.param if isinstance(other, _DataPipeType) else other
        return _issubtype(self.param, other)

    def __eq__(self, other):
        return isinstance(other, _DataPipeType) and self.param == other.param

    def __hash__(self):
        return hash(self.param)

    def __repr__(self):
        return getattr(self.param, "__name__", None) or repr(self.param)


def _issubtype(left, right):
    if right is typing.Any or left == right:
        return True
    if left is typing.Any:
        return False
    lo, ro = typing.get_origin(left) or left, typing.get_origin(right) or right
    if ro is typing.Union:
        return any(_issubtype(left, r) for r in typing.get_args(right))
    if lo is typing.Union:
        return all(_issubtype(x, right) for x in typing.get_args(left))
    if not (isinstance(lo, type) and isinstance(ro, type) and issubclass(lo, ro)):
        return False
    la, ra = typing.get_args(left), typing.get_args(right)
    return not ra or (len(la) == len(ra) and all(_issubtype(a, b) for a, b in zip(la, ra)))


def _isinstance(value, tp):
    """value is an instance of the type hint tp (containers checked element by element)."""
    if tp is typing.Any:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Union:
        return any(_isinstance(value, t) for t in typing.get_args(tp))
    if origin is None:
        return isinstance(value, tp) if isinstance(tp, type) else True
    if not isinstance(value, origin):
        return False
    args = typing.get_args(tp)
    if not args:
        return True
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_isinstance(v, args[0]) for v in value)
        return len(value) == len(args) and all(_isinstance(v, a) for v, a in zip(value, args))
    if origin is dict:
        return all(_isinstance(k, args[0]) and _isinstance(v, args[1]) for k, v in value.items())
    if isinstance(value, (list, set, frozenset)):
        return all(_isinstance(v, args[0]) for v in value)
    return True


class _Functional:
    """The registry of `dp.name(...)` methods of one DataPipe family."""

    def __init__(self):
        self.functions = {}

    def lookup(self, dp, name):
        if name in self.functions:
            cls = self.functions[name]

            def method(*args, **kwargs):
                return cls(dp, *args, **kwargs)
            method.__name__ = name
            method.__doc__ = cls.__doc__
            return method
        raise AttributeError(f"'{type(dp).__name__}' object has no attribute '{name}'")


class _DataPipeBase:
    functions = None  # _Functional, set per family below
    repr_hook = None
    str_hook = None
    getstate_hook = None
    reduce_ex_hook = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.type = _DataPipeType(_element_type(cls))

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_valid_iterator_id", "_number_of_samples_yielded"):
            raise AttributeError(name)
        return type(self).functions.lookup(self, name)

    @classmethod
    def register_function(cls, function_name, function):
        cls.functions.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register,
                                      enable_df_api_tracing=False):
        if function_name in cls.functions.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is "
                            "already taken")
        cls.functions.functions[function_name] = cls_to_register

    def __getstate__(self):
        if type(self).getstate_hook is not None:
            return type(self).getstate_hook(self)
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)

    @classmethod
    def set_getstate_hook(cls, hook_fn):
        if cls.getstate_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing getstate_hook")
        cls.getstate_hook = hook_fn

    @classmethod
    def set_reduce_ex_hook(cls, hook_fn):
        if cls.reduce_ex_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing reduce_ex_hook")
        cls.reduce_ex_hook = hook_fn

    def __reduce_ex__(self, *args, **kwargs):
        if type(self).reduce_ex_hook is not None:
            try:
                return type(self).reduce_ex_hook(self)
            except NotImplementedError:
                pass
        return super().__reduce_ex__(*args, **kwargs)

    def __repr__(self):
        if self.repr_hook is not None:
            return self.repr_hook(self)
        return type(self).__qualname__

    def __str__(self):
        if self.str_hook is not None:
            return self.str_hook(self)
        return type(self).__qualname__

    def __dir__(self):
        return list(super().__dir__()) + list(type(self).functions.functions)


class IterDataPipe(IterableDataset, _DataPipeBase, typing.Generic[T_co]):
    """An iterable-style DataPipe: subclasses define __iter__ (and __len__ when they can);
    registered steps chain as methods (`dp.map(fn)`). `reset()` runs when a new iterator
    starts; one live iterator at a time.

    >>> class Numbers(ember.utils.data.IterDataPipe):
    ...     def __iter__(self):
    ...         return iter(range(4))
    >>> list(Numbers().map(lambda x: x * 10))
    [0, 10, 20, 30]
    """

    functions = _Functional()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__iter__" in cls.__dict__:
            cls.__iter__ = _single_iterator(cls.__dict__["__iter__"])

    def reset(self):
        """Called when a new iterator starts (subclasses clear their per-iteration state)."""


class DFIterDataPipe(IterDataPipe):
    """An IterDataPipe of data frames (torch's DataFrame pipes mark themselves this way).

    >>> issubclass(ember.utils.data.DFIterDataPipe, ember.utils.data.IterDataPipe)
    True
    """

    def _is_dfpipe(self):
        return True


class MapDataPipe(Dataset, _DataPipeBase, typing.Generic[T_co]):
    """A map-style DataPipe: subclasses define __getitem__ and __len__; registered steps chain
    as methods (`dp.map(fn)`, `dp.batch(n)`, `dp.shuffle()` which gives an IterDataPipe).

    >>> class Letters(ember.utils.data.MapDataPipe):
    ...     def __getitem__(self, i):
    ...         return "abc"[i]
    ...     def __len__(self):
    ...         return 3
    >>> pipe = Letters().map(str.upper)
    >>> [pipe[i] for i in range(len(pipe))]
    ['A', 'B', 'C']
    """

    functions = _Functional()


def _single_iterator(iter_fn):
    """Wraps a subclass's __iter__: a new iterator calls reset() and becomes the pipe's one
    valid iterator once it starts; an older one raises at its next step."""
    def __iter__(self):
        gen = iter_fn(self)
        my_id = None
        while True:
            if my_id is None:
                my_id = self.__dict__.get("_valid_iterator_id", 0) + 1
                self.__dict__["_valid_iterator_id"] = my_id
                self.__dict__["_number_of_samples_yielded"] = 0
                self.reset()
            elif self.__dict__.get("_valid_iterator_id") != my_id:
                raise RuntimeError(
                    "This iterator has been invalidated because another iterator has been "
                    f"created from the same IterDataPipe: {self!r}\nThis may be caused by "
                    "multiple references to the same IterDataPipe. We recommend using `.fork()` "
                    "if that is necessary.")
            try:
                value = next(gen)
            except StopIteration:
                return
            self.__dict__["_number_of_samples_yielded"] += 1
            yield value
    __iter__.__doc__ = iter_fn.__doc__
    __iter__.__wrapped__ = iter_fn
    return __iter__


class DataChunk(list):
    """A batch of items (a list) as Batcher yields it; as_str() prints it, raw_iterator() walks
    it without the hooks a subclass may put on __iter__.

    >>> chunk = ember.utils.data.DataChunk([1, 2, 3])
    >>> len(chunk), chunk.as_str(), list(chunk.raw_iterator())
    (3, '[1, 2, 3]', [1, 2, 3])
    """

    def __init__(self, items=()):
        super().__init__(items)
        self.items = items

    def as_str(self, indent=""):
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self):
        yield from super().__iter__()

    def raw_iterator(self):
        yield from self.items
