"""Argument helpers shared by the layers: _pair(3) -> (3, 3), and parameter allocation
honouring the device=/dtype= factory arguments."""
import numbers
from collections import abc

from ..._creation import empty
from .. import init
from ..parameter import Parameter


def _ntuple(n):
    def parse(x):
        if isinstance(x, abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return (x,) * n
    return parse


_single = _ntuple(1)
_pair = _ntuple(2)


def _normalized_shape(shape):
    """The norms' normalized_shape as a tuple (an int n means (n,))."""
    return (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)


def _empty(shape, device=None, dtype=None):
    """An uninitialised parameter tensor (device must be the CPU or None)."""
    return empty(*shape, dtype=dtype, device=device)


def _parameter_or_none(module, name, shape, enabled, device=None, dtype=None):
    """module.<name> = an uninitialised Parameter of `shape` when enabled, else registered as
    None (torch keeps the attribute; the state_dict has no key for it)."""
    if enabled:
        setattr(module, name, Parameter(_empty(shape, device, dtype)))
    else:
        module.register_parameter(name, None)


def _affine_parameters(module, shape, affine, bias, device=None, dtype=None):
    """The norms' per-element affine weight and bias (bias only with bias=True); both None
    without affine."""
    _parameter_or_none(module, "weight", shape, affine, device, dtype)
    _parameter_or_none(module, "bias", shape, affine and bias, device, dtype)


def _reset_affine(module):
    """The norms' affine parameters start as the identity: weight ones, bias zeros."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


def _lazy_aliases(package, aliases):
    """A module __getattr__ (PEP 562) for classes that torch keeps in this module's namesake
    but ember defines in a file that imports this one: {name: ".file"}, found on first use,
    so `ember.nn.modules.linear.NonDynamicallyQuantizableLinear` resolves as torch's path."""
    def __getattr__(name):
        if name in aliases:
            import importlib
            return getattr(importlib.import_module(aliases[name], package), name)
        raise AttributeError(f"module has no attribute {name!r}")
    return __getattr__
