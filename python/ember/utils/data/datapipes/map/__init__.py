"""torch.utils.data.datapipes.map: the map-style DataPipes, each also a chained method of every
MapDataPipe (the name in parentheses); .shuffle() gives an IterDataPipe."""
import copy

from .._batch import _Batching
from .._decorator import functional_datapipe
from .._shuffle import _SeededShuffle
from ..datapipe import IterDataPipe, MapDataPipe
from ..iter.callable import apply_to_columns

__all__ = ["Batcher", "Concater", "Mapper", "SequenceWrapper", "Shuffler", "Zipper"]


class SequenceWrapper(MapDataPipe):
    """A sequence (anything with __getitem__ and __len__) as a MapDataPipe; deepcopy (the
    default) keeps a private copy."""

    def __init__(self, sequence, deepcopy=True):
        if deepcopy:
            try:
                sequence = copy.deepcopy(sequence)
            except TypeError:
                pass
        self.sequence = sequence

    def __getitem__(self, index):
        return self.sequence[index]

    def __len__(self):
        return len(self.sequence)


@functional_datapipe("map")
class Mapper(MapDataPipe):
    """fn applied to each item as it is read (input_col / output_col as the iterable Mapper)."""

    def __init__(self, datapipe, fn, input_col=None, output_col=None):
        from ..iter.callable import _check_cols
        self.datapipe = datapipe
        self.fn = fn
        self.input_col = input_col
        self.output_col = _check_cols(input_col, output_col)

    def __getitem__(self, index):
        return apply_to_columns(self.fn, self.datapipe[index], self.input_col, self.output_col)

    def __len__(self):
        return len(self.datapipe)


@functional_datapipe("batch")
class Batcher(_Batching, MapDataPipe):
    """Batch k holds items k * batch_size ... (a DataChunk); the last shorter one is dropped
    with drop_last."""

    def __getitem__(self, index):
        if not 0 <= index < len(self):
            raise IndexError(f"Index {index} is out of bound.")
        start = index * self.batch_size
        stop = min(start + self.batch_size, len(self.datapipe))
        return self.wrapper_class([self.datapipe[i] for i in range(start, stop)])

    def __len__(self):
        return self._num_batches(len(self.datapipe))


def _check_pipes(datapipes):
    """The inputs of Concater and Zipper: at least one, all MapDataPipes."""
    if len(datapipes) == 0:
        raise ValueError("Expected at least one DataPipe, but got nothing")
    if not all(isinstance(dp, MapDataPipe) for dp in datapipes):
        raise TypeError("Expected all inputs to be `MapDataPipe`")


@functional_datapipe("concat")
class Concater(MapDataPipe):
    """Indices run through each datapipe in turn."""

    def __init__(self, *datapipes):
        _check_pipes(datapipes)
        self.datapipes = datapipes

    def __getitem__(self, index):
        offset = index
        for dp in self.datapipes:
            if 0 <= offset < len(dp):
                return dp[offset]
            offset -= len(dp)
        raise IndexError(f"Index {index} is out of range.")

    def __len__(self):
        return sum(len(dp) for dp in self.datapipes)


@functional_datapipe("zip")
class Zipper(MapDataPipe):
    """Item i is the tuple of item i of each datapipe; the length is the shortest one's."""

    def __init__(self, *datapipes):
        _check_pipes(datapipes)
        self.datapipes = datapipes

    def __getitem__(self, index):
        if not 0 <= index < len(self):
            raise IndexError(f"Index {index} is out of range for {len(self)} items.")
        return tuple(dp[index] for dp in self.datapipes)

    def __len__(self):
        return min(len(dp) for dp in self.datapipes)


class Shuffler(_SeededShuffle, IterDataPipe):
    """The items of a MapDataPipe (or of `indices`) in a random order: a full Fisher-Yates
    shuffle of the indices with Python's random.Random, seeded per iteration as the iterable
    Shuffler (set_seed, the DataLoader, else ember's global RNG)."""

    def __init__(self, datapipe, *, indices=None):
        self.datapipe = datapipe
        self.indices = list(range(len(datapipe))) if indices is None else indices
        self._init_shuffle()

    def reset(self):
        self._reseed()

    def __iter__(self):
        if not self._enabled:
            for i in self.indices:
                yield self.datapipe[i]
            return
        order = self._rng.sample(self.indices, len(self.indices))
        for i in reversed(order):  # from the end, as torch pops them: the same seeded order
            yield self.datapipe[i]

    def __len__(self):
        return len(self.indices)


# an iterable pipe made from a map pipe: registered on MapDataPipe by hand (functional_datapipe
# would register an IterDataPipe class on IterDataPipe)
MapDataPipe.register_datapipe_as_function("shuffle", Shuffler)
