"""Concater (`.concat`), Zipper (`.zip`), Multiplexer (`.mux`), Forker (`.fork`) and
Demultiplexer (`.demux`)."""
import copy as _copy
import warnings
from collections import deque

from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe

__all__ = ["Concater", "Demultiplexer", "Forker", "Multiplexer", "Zipper"]


def _check_pipes(datapipes, name):
    if len(datapipes) == 0:
        raise ValueError("Expected at least one DataPipe, but got nothing")
    if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
        raise TypeError(f"Expected all inputs to be `IterDataPipe` for `{name}`, got "
                        f"{[type(dp).__name__ for dp in datapipes]}")


def _lengths(pipes, owner):
    if all(hasattr(dp, "__len__") for dp in pipes):
        return [len(dp) for dp in pipes]
    raise TypeError(f"{type(owner).__name__} instance doesn't have valid length")


@functional_datapipe("concat")
class Concater(IterDataPipe):
    """The items of each datapipe in turn."""

    def __init__(self, *datapipes):
        _check_pipes(datapipes, "concat")
        self.datapipes = datapipes

    def __iter__(self):
        for dp in self.datapipes:
            yield from dp

    def __len__(self):
        return sum(_lengths(self.datapipes, self))


@functional_datapipe("zip")
class Zipper(IterDataPipe):
    """Tuples of one item from each datapipe, until the shortest ends."""

    def __init__(self, *datapipes):
        _check_pipes(datapipes, "zip")
        self.datapipes = datapipes

    def __iter__(self):
        yield from zip(*self.datapipes)

    def __len__(self):
        return min(_lengths(self.datapipes, self))


@functional_datapipe("mux")
class Multiplexer(IterDataPipe):
    """One item from each datapipe in turn, until the shortest ends."""

    def __init__(self, *datapipes):
        _check_pipes(datapipes, "mux")
        self.datapipes = datapipes

    def __iter__(self):
        iterators = [iter(dp) for dp in self.datapipes]
        while True:
            round_ = []
            for it in iterators:
                try:
                    round_.append(next(it))
                except StopIteration:
                    return
            yield from round_

    def __len__(self):
        return min(_lengths(self.datapipes, self)) * len(self.datapipes)


class _Child(IterDataPipe):
    """One output of a Forker or Demultiplexer: reads its items from the shared container."""

    def __init__(self, container, instance_id):
        self.main_datapipe = container
        self.instance_id = instance_id

    def __iter__(self):
        self.main_datapipe.restart(self.instance_id)
        while True:
            ok, value = self.main_datapipe.next_for(self.instance_id)
            if not ok:
                return
            yield value

    def __len__(self):
        return self.main_datapipe.length_for(self.instance_id)


class _Container(IterDataPipe):
    """The source iterator shared by the children and the items read from it that some child
    has not consumed yet (at most buffer_size: BufferError beyond, as torch; -1: no limit)."""

    def __init__(self, datapipe, num_instances, buffer_size):
        if num_instances < 1:
            raise ValueError(f"Expected `num_instances` larger than 0, but {num_instances} is found")
        self.main_datapipe = datapipe
        self.num_instances = num_instances
        self.buffer_size = buffer_size
        if buffer_size < 0:
            warnings.warn("Unlimited buffer size is set for the shared buffer: memory grows "
                          "with the distance between the fastest and the slowest child")
        self._it = None
        self._active = [False] * num_instances
        self._started = [False] * num_instances

    def restart(self, instance_id):
        """A child starts iterating: it joins the current pass, unless no pass is running or
        it had already started this one (then every child starts again from the beginning)."""
        if self._it is not None and any(self._active) and self._started[instance_id]:
            warnings.warn("Some child DataPipes are not exhausted when __iter__ is called. We are "
                          "resetting the buffer and each child DataPipe will read from the start "
                          "again.", UserWarning)
            self._it = None
        if self._it is None or not any(self._active):
            self._reset()
            self._it = iter(self.main_datapipe)
            self._active = [True] * self.num_instances
            self._started = [False] * self.num_instances
        self._started[instance_id] = True

    def _check_buffer(self, held):
        if 0 <= self.buffer_size < held:
            raise BufferError(f"{type(self).__name__} buffer overflow, buffer size "
                              f"{self.buffer_size} is insufficient.")

    def _finish(self, instance_id):
        self._active[instance_id] = False
        return False, None


@functional_datapipe("fork")
class Forker(_Container):
    """num_instances datapipes that each yield every item of datapipe (copy: None, "shallow"
    or "deep" copies per child)."""

    def __new__(cls, datapipe, num_instances, buffer_size=1000, copy=None):
        if num_instances == 1:
            return datapipe
        self = object.__new__(cls)
        self.__init__(datapipe, num_instances, buffer_size, copy)
        return [_Child(self, i) for i in range(num_instances)]

    def __init__(self, datapipe, num_instances, buffer_size=1000, copy=None):
        if copy not in (None, "shallow", "deep"):
            raise ValueError(f"Unknown copy method `{copy}` requested, choose one of None, "
                             "`shallow` or `deep`.")
        super().__init__(datapipe, num_instances, buffer_size)
        self.copy_fn = {None: lambda x: x, "shallow": _copy.copy, "deep": _copy.deepcopy}[copy]
        self._reset()

    def _reset(self):
        self.buffer = deque()
        self.offset = 0  # the index of buffer[0] in the stream
        self.pointers = [0] * self.num_instances
        self.end = None  # the stream's length once the source has ended

    def next_for(self, i):
        p = self.pointers[i]
        if p - self.offset == len(self.buffer):
            if self.end is not None:
                return self._finish(i)
            try:
                self.buffer.append(next(self._it))
            except StopIteration:
                self.end = p
                return self._finish(i)
            self._check_buffer(len(self.buffer))
        value = self.buffer[p - self.offset]
        self.pointers[i] = p + 1
        while self.buffer and min(self.pointers) > self.offset:
            self.buffer.popleft()
            self.offset += 1
        return True, self.copy_fn(value)

    def length_for(self, i):
        return len(self.main_datapipe)


@functional_datapipe("demux")
class Demultiplexer(_Container):
    """num_instances datapipes; item x goes to the one numbered classifier_fn(x) (None drops it
    with drop_none, else is an error)."""

    def __new__(cls, datapipe, num_instances, classifier_fn, drop_none=False, buffer_size=1000):
        if num_instances < 1:
            raise ValueError(f"Expected `num_instances` larger than 0, but {num_instances} is found")
        self = object.__new__(cls)
        self.__init__(datapipe, num_instances, classifier_fn, drop_none, buffer_size)
        return [_Child(self, i) for i in range(num_instances)]

    def __init__(self, datapipe, num_instances, classifier_fn, drop_none=False, buffer_size=1000):
        super().__init__(datapipe, num_instances, buffer_size)
        self.classifier_fn = classifier_fn
        self.drop_none = drop_none
        self._reset()

    def _reset(self):
        self.buffers = [deque() for _ in range(self.num_instances)]
        self.done = False

    def _classify(self, value):
        k = self.classifier_fn(value)
        if k is None and self.drop_none:
            return None
        if not isinstance(k, int) or not 0 <= k < self.num_instances:
            raise ValueError(f"Output of the classification fn should be between 0 and "
                             f"{self.num_instances - 1}. {k} is returned.")
        return k

    def next_for(self, i):
        while not self.buffers[i]:
            if self.done:
                return self._finish(i)
            try:
                value = next(self._it)
            except StopIteration:
                self.done = True
                continue
            k = self._classify(value)
            if k is not None:
                self.buffers[k].append(value)
                self._check_buffer(sum(len(b) for b in self.buffers))
        return True, self.buffers[i].popleft()

    def length_for(self, i):
        raise TypeError("_Child instance of Demultiplexer doesn't have valid length")
