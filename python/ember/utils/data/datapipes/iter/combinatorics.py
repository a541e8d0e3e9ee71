"""Shuffler (`.shuffle`) and Sampler."""
from .._decorator import functional_datapipe
from .._shuffle import _SeededShuffle
from ..datapipe import IterDataPipe
from ...sampler import SequentialSampler

__all__ = ["Sampler", "Shuffler"]


class Sampler(IterDataPipe):
    """The indices of `sampler(data_source=datapipe, *sampler_args, **sampler_kwargs)`
    (SequentialSampler by default); datapipe must have a length."""

    def __init__(self, datapipe, sampler=SequentialSampler, sampler_args=None,
                 sampler_kwargs=None):
        if not hasattr(datapipe, "__len__"):
            raise AssertionError("Sampler class requires input datapipe implemented `__len__`")
        self.datapipe = datapipe
        self.sampler_args = () if sampler_args is None else sampler_args
        self.sampler_kwargs = {} if sampler_kwargs is None else sampler_kwargs
        self.sampler = sampler(*self.sampler_args, data_source=datapipe, **self.sampler_kwargs)

    def __iter__(self):
        return iter(self.sampler)

    def __len__(self):
        if hasattr(self.sampler, "__len__"):
            return len(self.sampler)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("shuffle")
class Shuffler(_SeededShuffle, IterDataPipe):
    """Shuffles through a buffer of buffer_size items: once the buffer is full each new item
    takes the place of a uniformly chosen one, which is yielded; the rest come out in random
    order at the end (a full shuffle when buffer_size >= the length). The random stream is
    Python's random.Random seeded per iteration: by set_seed(seed) (the DataLoader seeds it from
    its generator each epoch, graph_settings.apply_random_seed), else from ember's global RNG.
    set_shuffle(False) (DataLoader(shuffle=False)) passes items through in order."""

    def __init__(self, datapipe, *, buffer_size=10000, unbatch_level=0):
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        self.datapipe = datapipe if unbatch_level == 0 else datapipe.unbatch(unbatch_level)
        self.buffer_size = buffer_size
        self._buffer = []
        self._init_shuffle()

    def reset(self):
        self._buffer = []
        self._reseed()

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        buffer = self._buffer
        for x in self.datapipe:
            if len(buffer) == self.buffer_size:
                i = self._rng.randint(0, len(buffer) - 1)
                x, buffer[i] = buffer[i], x
                yield x
            else:
                buffer.append(x)
        while buffer:
            yield buffer.pop(self._rng.randint(0, len(buffer) - 1))

    def __len__(self):
        if hasattr(self.datapipe, "__len__"):
            return len(self.datapipe)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
