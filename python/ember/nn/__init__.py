"""ember.nn: torch.nn's layers, containers, losses, functional and init, as thin Python
classes over the C++ ops in ember._C."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional, init, parallel, utils
from .parallel import DataParallel

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional",
           "init", "parallel", "utils", "DataParallel"] + list(_modules_all)
