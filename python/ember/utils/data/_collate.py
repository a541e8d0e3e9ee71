"""default_collate / default_convert: turn a list of samples into a batch, as torch does.

The per-batch work is one C++ call per leaf (stack, or one tensor from a list of numbers);
the Python here only walks the structure of a sample (tuple, dict, ...), not its elements.
"""
import collections.abc

import numpy as np

from ... import _C
from ..._creation import as_tensor, tensor
from ..._dtype import float64

__all__ = ["default_collate", "default_convert"]

_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy_numeric(x):
    # Strings and objects in NumPy arrays have no tensor dtype (kinds U, S, O).
    return x.dtype.kind not in "USOV"


def default_collate(batch):
    """Stacks tensors (and NumPy arrays) along a new dim 0, makes numbers into a tensor
    (int -> int64, float -> float64, bool -> bool), and recurses into tuples, lists, dicts and
    named tuples (a tuple of fields becomes a list, as in torch). Strings stay a list.

    >>> batch = [(ember.tensor([1.0]), 0), (ember.tensor([2.0]), 1)]
    >>> ember.utils.data.default_collate(batch)
    [tensor([[1.],
            [2.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _C.stack(list(batch), 0)  # (a list: batch may be a tuple)
    if type(elem).__module__ == "numpy" and not isinstance(elem, (np.str_, np.bytes_)):
        if isinstance(elem, np.ndarray):
            if not _is_numpy_numeric(elem):
                raise TypeError(_ERR.format(elem.dtype))
            return _C.stack([as_tensor(np.ascontiguousarray(b)) for b in batch], 0)
        if isinstance(elem, np.generic):  # NumPy scalars keep their dtype
            return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):  # (bool too: a bool tensor)
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(out)
        except TypeError:  # a mapping type that cannot be built from a dict
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(s) for s in zip(*batch)]  # (tuples, as in torch)
        if isinstance(elem, tuple):
            return fields
        try:
            return type(elem)(fields)
        except TypeError:
            return fields
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data):
    """What a loader with batch_size=None yields: NumPy arrays become tensors; containers are
    walked; everything else is returned unchanged.

    >>> import numpy as np
    >>> ember.utils.data.default_convert({"x": np.array([1, 2])})
    {'x': tensor([1, 2])}
    """
    if isinstance(data, _C.Tensor):
        return data
    if isinstance(data, np.ndarray):
        return as_tensor(np.ascontiguousarray(data)) if _is_numpy_numeric(data) else data
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return as_tensor(np.array(data))
    if isinstance(data, collections.abc.Mapping):
        out = {key: default_convert(data[key]) for key in data}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
