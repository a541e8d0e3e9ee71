"""Batcher (`.batch`), UnBatcher (`.unbatch`), Grouper (`.groupby`)."""
from collections import defaultdict

from .._batch import _Batching
from .._decorator import functional_datapipe
from ..datapipe import DataChunk, IterDataPipe

__all__ = ["Batcher", "Grouper", "UnBatcher"]


def _len_of(dp, owner):
    if hasattr(dp, "__len__"):
        return len(dp)
    raise TypeError(f"{type(owner).__name__} instance doesn't have valid length")


@functional_datapipe("batch")
class Batcher(_Batching, IterDataPipe):
    """Lists (wrapper_class, DataChunk by default) of batch_size consecutive items; the last
    shorter one is dropped with drop_last."""

    def __iter__(self):
        batch = []
        for x in self.datapipe:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)

    def __len__(self):
        return self._num_batches(_len_of(self.datapipe, self))


@functional_datapipe("unbatch")
class UnBatcher(IterDataPipe):
    """The elements of each batch, unbatch_level levels deep (-1: all the way down)."""

    def __init__(self, datapipe, unbatch_level=1):
        if unbatch_level < -1:
            raise ValueError("unbatch_level must be -1 or >= 0")
        self.datapipe = datapipe
        self.unbatch_level = unbatch_level

    def _dive(self, element, level):
        if level == -1:
            if isinstance(element, (list, DataChunk)):
                for item in element:
                    yield from self._dive(item, -1)
            else:
                yield element
        elif level == 0:
            yield element
        elif isinstance(element, (list, DataChunk)):
            for item in element:
                yield from self._dive(item, level - 1)
        else:
            raise IndexError(f"unbatch_level {self.unbatch_level} exceeds the depth of the "
                             "DataPipe")

    def __iter__(self):
        for element in self.datapipe:
            yield from self._dive(element, self.unbatch_level)


@functional_datapipe("groupby")
class Grouper(IterDataPipe):
    """Groups items by group_key_fn(item) into batches of group_size (a group is yielded as
    soon as it is full; at the end, or when buffer_size items are held, the largest groups go
    first, those below guaranteed_group_size dropped with drop_remaining or kept otherwise)."""

    def __init__(self, datapipe, group_key_fn, *, keep_key=False, buffer_size=10000,
                 group_size=None, guaranteed_group_size=None, drop_remaining=False):
        if buffer_size <= 0:
            raise AssertionError("buffer_size must be positive")
        if group_size is not None:
            if not 0 < group_size <= buffer_size:
                raise AssertionError("group_size must be in (0, buffer_size]")
            guaranteed_group_size = guaranteed_group_size or group_size
        if guaranteed_group_size is not None:
            if group_size is None or not 0 < guaranteed_group_size <= group_size:
                raise AssertionError("guaranteed_group_size must be in (0, group_size]")
        self.datapipe = datapipe
        self.group_key_fn = group_key_fn
        self.keep_key = keep_key
        self.max_buffer_size = buffer_size
        self.group_size = group_size
        self.guaranteed_group_size = guaranteed_group_size
        self.drop_remaining = drop_remaining
        self.wrapper_class = DataChunk

    def _out(self, key, items):
        chunk = self.wrapper_class(items)
        return (key, chunk) if self.keep_key else chunk

    def __iter__(self):
        buffers = defaultdict(list)
        held = 0
        for x in self.datapipe:
            key = self.group_key_fn(x)
            buffers[key].append(x)
            held += 1
            if self.group_size is not None and len(buffers[key]) == self.group_size:
                yield self._out(key, buffers.pop(key))
                held -= self.group_size
            if held == self.max_buffer_size:  # release the largest group
                key = max(buffers, key=lambda k: len(buffers[k]))
                items = buffers.pop(key)
                held -= len(items)
                if self.guaranteed_group_size is None or len(items) >= self.guaranteed_group_size \
                        or not self.drop_remaining:
                    yield self._out(key, items)
        for key in list(buffers):
            items = buffers.pop(key)
            if self.guaranteed_group_size is not None and len(items) < self.guaranteed_group_size \
                    and self.drop_remaining:
                continue
            yield self._out(key, items)
