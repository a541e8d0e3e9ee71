"""torch._subclasses.fake_tensor: FakeTensor (a tensor with metadata and no data) and its mode.
ember has neither: no ember tensor is fake, so `is_fake` is False for every object (programs ask
before reading a tensor's values: kornia), and FakeTensorMode raises when made."""
from .. import _C
from .._tensor import Tensor

__all__ = ["FakeTensor", "FakeTensorMode", "is_fake"]


class FakeTensor(Tensor):
    """The type of torch's fake tensors, for `isinstance` checks: no ember tensor is one. It
    opts out of __torch_function__, so defining it leaves routing off (docs/overrides.md)."""
    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("FakeTensor: ember has no fake tensors (no FakeTensorMode)")


class FakeTensorMode:
    """torch's mode that makes fake tensors: not in ember; raises when made."""
    _ember_not_implemented = True  # tools/compat_table.py counts it as missing

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("FakeTensorMode: ember has no fake tensors (nor tensors without "
                                  "data)")


def is_fake(x):
    """Whether x is a fake tensor (or wraps one): never, in ember.

    >>> from ember._subclasses.fake_tensor import is_fake
    >>> is_fake(ember.ones(2)), is_fake(3)
    (False, False)
    """
    return False
