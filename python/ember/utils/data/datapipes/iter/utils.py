"""IterableWrapper: any iterable as an IterDataPipe."""
import copy
import warnings

from ..datapipe import IterDataPipe

__all__ = ["IterableWrapper"]


class IterableWrapper(IterDataPipe):
    """Yields the items of `iterable`; with deepcopy (the default) each iteration walks a deep
    copy, so changing the yielded items does not change the source (an iterable that cannot be
    deep-copied is walked as it is, with a warning)."""

    def __init__(self, iterable, deepcopy=True):
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self):
        source = self.iterable
        if self.deepcopy:
            try:
                source = copy.deepcopy(self.iterable)
            except TypeError:
                warnings.warn("The input iterable can not be deepcopied, please be aware of "
                              "in-place modification would affect source data.")
        yield from source

    def __len__(self):
        if hasattr(self.iterable, "__len__"):
            return len(self.iterable)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
