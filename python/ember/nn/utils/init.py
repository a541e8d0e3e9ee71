"""torch.nn.utils.init: skip_init."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) whose parameter values are unspecified, as torch's (which
    builds on the meta device, then allocates empty storage). ember has no meta device: the
    module is built normally, so its values are those of the default initialisation (a valid
    "uninitialized" content); the time of initialising is not saved.

    >>> m = ember.nn.utils.skip_init(ember.nn.Linear, 3, 2)
    >>> m.weight.shape
    ember.Size([2, 3])
    """
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
