"""Filter (`.filter`)."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe

__all__ = ["Filter"]


@functional_datapipe("filter")
class Filter(IterDataPipe):
    """The items for which filter_fn(item) (or filter_fn(item[input_col]), or filter_fn over the
    columns of a list input_col) is True; filter_fn must return a bool."""

    def __init__(self, datapipe, filter_fn, input_col=None):
        if not callable(filter_fn):
            raise TypeError(f"Filter: filter_fn must be callable, got {type(filter_fn).__name__}")
        self.datapipe = datapipe
        self.filter_fn = filter_fn
        self.input_col = input_col

    def _keep(self, data):
        if self.input_col is None:
            res = self.filter_fn(data)
        elif isinstance(self.input_col, (list, tuple)):
            res = self.filter_fn(*(data[c] for c in self.input_col))
        else:
            res = self.filter_fn(data[self.input_col])
        if not isinstance(res, bool):
            raise ValueError(f"Boolean output is required for `filter_fn` of "
                             f"FilterIterDataPipe, got {type(res)}")
        return res

    def __iter__(self):
        for data in self.datapipe:
            if self._keep(data):
                yield data
