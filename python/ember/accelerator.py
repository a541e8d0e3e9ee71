"""ember.accelerator: torch.accelerator as PyTorch's CPU build answers it. There is no
accelerator: is_available() is False, device_count() 0, current_accelerator() None, and every
function that needs a device raises RuntimeError('Cannot access accelerator device when none is
available.'), as torch does. (docs/devices.md)"""
import warnings

from ._device import NO_ACCELERATOR, raising

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream",
           "device_count", "device_index", "empty_cache", "empty_host_cache",
           "get_device_capability", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def device_count():
    """The number of accelerator devices: 0."""
    return 0


def is_available():
    """Whether an accelerator is available: False."""
    return False


def current_accelerator(check_available=False):
    """The accelerator ember was built for: None (a CPU-only build)."""
    return None


def _none(*args, **kwargs):
    raise RuntimeError(NO_ACCELERATOR)


def _needs_device(name, doc):
    return raising(name, f"{doc} Raises RuntimeError: there is no accelerator.", RuntimeError,
                   NO_ACCELERATOR, device_only=True)


current_stream = _needs_device("current_stream", "The current stream of the accelerator.")
synchronize = _needs_device("synchronize", "Waits for the accelerator's work to finish.")
get_device_capability = _needs_device("get_device_capability", "The device's capabilities.")
memory_allocated = _needs_device("memory_allocated", "Bytes held by tensors on the device.")
max_memory_allocated = _needs_device("max_memory_allocated", "Peak of memory_allocated().")
memory_reserved = _needs_device("memory_reserved", "Bytes held by the caching allocator.")
max_memory_reserved = _needs_device("max_memory_reserved", "Peak of memory_reserved().")
memory_stats = _needs_device("memory_stats", "The caching allocator's statistics.")
get_memory_info = _needs_device("get_memory_info", "(free, total) bytes of the device.")
reset_peak_memory_stats = _needs_device("reset_peak_memory_stats", "Resets the peaks.")
reset_accumulated_memory_stats = _needs_device("reset_accumulated_memory_stats",
                                               "Resets the accumulated statistics.")


def current_device_index():
    """The index of the current accelerator device. Raises RuntimeError: there is none."""
    raise RuntimeError(NO_ACCELERATOR)


def set_device_index(device, /):
    """Sets the current accelerator device. Raises RuntimeError: there is none."""
    raise RuntimeError(NO_ACCELERATOR)


def empty_cache():
    """Releases the accelerator's cached memory. Raises RuntimeError: there is none."""
    raise RuntimeError(NO_ACCELERATOR)


def empty_host_cache():
    """Releases cached pinned host memory. Raises RuntimeError: there is no accelerator."""
    raise RuntimeError(NO_ACCELERATOR)


def set_stream(stream):
    """Sets the current stream. ember has no stream type: TypeError, as torch given a non-Stream."""
    raise TypeError(f"set_stream(): expected a Stream, got {type(stream).__name__} "
                    "(ember has no accelerator streams)")


def current_device_idx():
    """Deprecated alias of current_device_index (FutureWarning, as torch)."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device, /):
    """Deprecated alias of set_device_index (FutureWarning, as torch)."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    return set_device_index(device)


class device_index:
    """`with device_index(i):` makes accelerator i current; None does nothing (as torch)."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            raise RuntimeError(NO_ACCELERATOR)

    def __exit__(self, *exc_info):
        return None
