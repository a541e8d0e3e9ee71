"""ember: a deep-learning tensor library with a small C++ core and PyTorch's API.

    import ember as torch
    x = torch.randn(64, 1000)
"""
from . import _C
from ._dtype import (dtype, float32, float, float64, double, int64, long, int32, int, uint8, bool,
                     FloatTensor, DoubleTensor, LongTensor, IntTensor, ByteTensor, BoolTensor,
                     get_default_dtype)
from ._tensor import Tensor, Size, device
from ._creation import (tensor, as_tensor, empty, zeros, ones, full, rand, randn, randint, randperm,
                        arange, linspace, eye, empty_like, zeros_like, ones_like, full_like,
                        rand_like, randn_like, randint_like, from_numpy, from_dlpack, manual_seed,
                        initial_seed)
from ._grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled
from . import autograd
from ._functions import *  # noqa: F401,F403  (the op functions: add, exp, sum, matmul, ...)
from . import optim, return_types
from . import nn
from ._generator import Generator
from .serialization import save, load
from ._shared_memory import install_hook as _install_shared_memory_hook

# Tensors sent through multiprocessing travel in shared memory (ember/_shared_memory.py); the
# reducer is registered when multiprocessing is first imported, so `import ember` stays light.
_install_shared_memory_hook()

__version__ = "0.1.0"
promote_types = _C.promote_types
can_cast = _C.can_cast
get_num_threads = _C.get_num_threads
set_num_threads = _C.set_num_threads
result_type = _C.result_type


def is_tensor(obj):
    return isinstance(obj, Tensor)


def __getattr__(name):
    # These load on first use, so `import ember` stays light.
    if name in ("utils", "datasets", "profiler", "examples", "distributed", "multiprocessing"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
