"""torch's small runtime names: its exception types, build and file queries, the device-module
lookup, and helpers (classproperty, thread_safe_generator, is_distributed). What each returns is
ember's real answer (its build, its package directory, its modules)."""
import functools
import os

from . import _C
from ._tensor import Tensor, device as _device


class OutOfMemoryError(RuntimeError):
    """Exception raised when device is out of memory

    >>> issubclass(ember.OutOfMemoryError, RuntimeError)
    True
    """


class AcceleratorError(RuntimeError):
    """Exception raised while executing on device

    >>> issubclass(ember.AcceleratorError, RuntimeError)
    True
    """


class FatalError(Exception):
    """An unrecoverable error of the runtime (torch raises it from its TorchScript interpreter).

    >>> issubclass(ember.FatalError, Exception)
    True
    """


def compiled_with_cxx11_abi():
    """Returns whether ember was built with _GLIBCXX_USE_CXX11_ABI=1 (read from the build).

    >>> ember.compiled_with_cxx11_abi()
    True
    """
    return _C.build_info().get("cxx11_abi") == "1"


def get_file_path(*path_components):
    """os.path.join(the directory that holds the ember package, *path_components), as torch's
    (whose base is the directory holding the torch package).

    >>> ember.get_file_path('ember', 'py.typed').endswith('py.typed')
    True
    """
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *path_components)


@functools.cache
def get_device_module(device=None):
    """The ember module of a device type (ember.cpu for 'cpu', ember.cuda for 'cuda:0', ...);
    with no device, the current accelerator's, which is the CPU's: ember has no accelerator.

    >>> ember.get_device_module('cpu').__name__
    'ember.cpu'
    """
    import importlib
    if isinstance(device, _device):
        name = device.type
    elif isinstance(device, str):
        name = _device(device).type
    elif device is None:
        name = "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    try:
        return importlib.import_module(f"ember.{name}")
    except ModuleNotFoundError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as "
                           f"'torch.{name}'.") from None


def is_distributed(input):
    """False: an ember tensor is always one local tensor (no legacy distributed tensors).

    >>> ember.is_distributed(ember.ones(2))
    False
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_distributed(): argument 'input' must be Tensor, not {type(input).__name__}")
    return False


class _ClassProperty:
    def __init__(self, fget):
        self.fget = fget

    def __get__(self, instance, owner=None):
        return self.fget.__get__(instance, type(instance) if owner is None else owner)()


def classproperty(func):
    """A read-only property of the class itself (the getter gets the class).

    >>> class C:
    ...     @ember.classproperty
    ...     def name(cls):
    ...         return cls.__name__
    >>> C.name
    'C'
    """
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassProperty(func)


def thread_safe_generator():
    """The calling DataLoader thread worker's generator, else None (the global generator). ember's
    DataLoader runs workers as processes, where torch also returns None.

    >>> ember.thread_safe_generator() is None
    True
    """
    from .utils.data import get_worker_info
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread" \
            and getattr(info, "rng", None) is not None:
        return info.rng.torch_generator
    return None


def to_dlpack(tensor):
    """A DLPack capsule sharing `tensor`'s memory (what tensor.__dlpack__() returns), for
    from_dlpack in ember, torch, NumPy, ...

    >>> type(ember.to_dlpack(ember.ones(2))).__name__
    'PyCapsule'
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()


def prepare_multiprocessing_environment(path):
    """A hook for deployments that set up multiprocessing themselves; it does nothing, as in
    torch's open-source build.

    >>> ember.prepare_multiprocessing_environment('/tmp') is None
    True
    """


_interop = {"threads": None}  # None until set: the default, one per core as torch's


def get_num_interop_threads():
    """The size torch gives its inter-op pool (the one TorchScript's fork runs on): the cores'
    count unless set_num_interop_threads said otherwise. Nothing in ember runs on such a pool:
    jit.fork runs its call at once, as torch's does in eager code.

    >>> ember.get_num_interop_threads() >= 1
    True
    """
    return _interop["threads"] or len(os.sched_getaffinity(0))


def set_num_interop_threads(nthreads):
    """Sets what get_num_interop_threads returns; once per process, as torch (whose pool cannot
    be resized once made), else RuntimeError."""
    if isinstance(nthreads, bool) or not isinstance(nthreads, int):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got "
                           f"{type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop["threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _interop["threads"] = nthreads


_warn = {"always": False}


def set_warn_always(b):
    """torch's switch that makes its warn-once C++ warnings warn every time. ember has no
    warn-once warnings (each one goes through Python's warnings filters, which decide how
    often it shows), so this only records the setting for is_warn_always_enabled.

    >>> ember.is_warn_always_enabled()
    False
    """
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn["always"] = b


def is_warn_always_enabled():
    """What set_warn_always last set (False at start)."""
    return _warn["always"]


FUNCTIONS = {"OutOfMemoryError": OutOfMemoryError, "AcceleratorError": AcceleratorError,
             "FatalError": FatalError, "compiled_with_cxx11_abi": compiled_with_cxx11_abi,
             "get_file_path": get_file_path, "get_device_module": get_device_module,
             "is_distributed": is_distributed, "classproperty": classproperty,
             "thread_safe_generator": thread_safe_generator,
             "prepare_multiprocessing_environment": prepare_multiprocessing_environment,
             "to_dlpack": to_dlpack, "get_num_interop_threads": get_num_interop_threads,
             "set_num_interop_threads": set_num_interop_threads,
             "set_warn_always": set_warn_always, "is_warn_always_enabled": is_warn_always_enabled}
METHODS = {}
