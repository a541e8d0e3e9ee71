"""ember.nn: torch.nn's layers, containers, losses, functional and init, as thin Python
classes over the C++ ops in ember._C."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional, init, parallel, utils, attention, common_types, grad
from .parallel import DataParallel

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional",
           "init", "parallel", "utils", "DataParallel", "attention", "common_types", "grad",
           "factory_kwargs"] + list(_modules_all)


def factory_kwargs(kwargs):
    """The factory arguments (device, dtype, memory_format) of kwargs as one dict for
    ember.empty(**...); a nested factory_kwargs dict supplies them too. Any other key, or one
    given both ways, is a TypeError (torch.nn.factory_kwargs).

    >>> ember.nn.factory_kwargs({"factory_kwargs": {"dtype": ember.float64}})
    {'dtype': ember.float64}
    """
    if kwargs is None:
        return {}
    if not isinstance(kwargs, dict):
        raise TypeError(f"factory_kwargs: expected a dict of keyword arguments, got "
                        f"{type(kwargs).__name__}")
    simple = {"device", "dtype", "memory_format"}
    unexpected = kwargs.keys() - (simple | {"factory_kwargs"})
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for k in simple:
        if k in kwargs:
            if k in out:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            out[k] = kwargs[k]
    return out
