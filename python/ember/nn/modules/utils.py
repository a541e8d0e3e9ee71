"""Argument helpers shared by the layers: _pair(3) -> (3, 3), and parameter allocation
honouring the device=/dtype= factory arguments."""
from collections import abc

from ..._creation import empty


def _ntuple(n):
    def parse(x):
        if isinstance(x, abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return (x,) * n
    return parse


_single = _ntuple(1)
_pair = _ntuple(2)


def _empty(shape, device=None, dtype=None):
    """An uninitialised parameter tensor (device must be the CPU or None)."""
    return empty(*shape, dtype=dtype, device=device)
