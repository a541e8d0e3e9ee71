"""Named result tuples, as torch.return_types: `t.max(dim)` returns a `max(values, indices)`
that also unpacks as a plain tuple (`values, indices = t.max(1)`)."""
from collections import namedtuple


def _result(name):
    cls = namedtuple(name, ["values", "indices"])
    cls.__repr__ = lambda self: (f"ember.return_types.{name}(\nvalues={self.values!r},\n"
                                 f"indices={self.indices!r})")
    return cls


max = _result("max")  # noqa: A001  (PyTorch's name)
min = _result("min")  # noqa: A001
sort = _result("sort")
topk = _result("topk")

__all__ = ["max", "min", "sort", "topk"]
