"""torch.utils.data._utils.collate: `collate(batch, collate_fn_map=...)`, the collate function
that looks up each leaf's type in a map of per-type functions (then walks dicts, named tuples
and sequences as default_collate does), the map torch's default_collate uses, and its entries.
Extend a copy of `default_collate_fn_map` and pass it to `collate` for custom types.
ember.utils.data.default_collate is the same function with that map built in (_collate.py)."""
import collections.abc
import copy
import re

import numpy as np

from ...._creation import as_tensor, tensor
from ...._dtype import float64
from ...._tensor import Tensor
from .._collate import default_collate, default_convert  # noqa: F401

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")  # NumPy dtype kinds with no tensor dtype
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")


def _lookup(elem, fn_map):
    fn = fn_map.get(type(elem))
    if fn is None:
        fn = next((f for t, f in fn_map.items() if isinstance(elem, t)), None)
    return fn


def collate(batch, *, collate_fn_map=None):
    """Collates `batch` (a list of samples): a leaf whose type (or a base of it, in the map's
    order) is in `collate_fn_map` goes to that function; mappings, named tuples and sequences
    are collated field by field; anything else raises TypeError.

    >>> from ember.utils.data._utils.collate import collate, default_collate_fn_map
    >>> collate([{"x": ember.tensor([1.0]), "n": 1}, {"x": ember.tensor([2.0]), "n": 2}],
    ...         collate_fn_map=default_collate_fn_map)
    {'x': tensor([[1.],
            [2.]]), 'n': tensor([1, 2])}
    """
    elem = batch[0]
    if collate_fn_map is not None:
        fn = _lookup(elem, collate_fn_map)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)

    def fields(samples):
        return collate(list(samples), collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        out = {key: fields(d[key] for d in batch) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)  # keeps the mapping's type and its other state
                clone.update(out)
                return clone
            return type(elem)(out)
        except TypeError:  # a mapping type that cannot be copied or built from a dict
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(fields(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence) and not isinstance(elem, (str, bytes)):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        out = [fields(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return out  # tuples become lists, as in torch
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, v in enumerate(out):
                    clone[i] = v
                return clone
            return type(elem)(out)
        except TypeError:
            return out
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors: stacked along a new dim 0."""
    from .... import stack
    return stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays: made tensors, then collated (strings and objects refused)."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(np.ascontiguousarray(b)) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars: one tensor of their dtype."""
    return as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats: a float64 tensor."""
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools): an int64 (bool) tensor."""
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes: the list itself."""
    return batch


default_collate_fn_map = {Tensor: collate_tensor_fn, np.ndarray: collate_numpy_array_fn,
                          (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
                          float: collate_float_fn, int: collate_int_fn, str: collate_str_fn,
                          bytes: collate_str_fn}
