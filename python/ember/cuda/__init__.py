"""ember.cuda: torch.cuda as PyTorch's CPU build answers it (ember runs on the CPU only).

is_available() is False and device_count() 0. Functions that would initialise CUDA raise
`AssertionError: Torch not compiled with CUDA enabled`; the ones torch queues until CUDA starts
(manual_seed, manual_seed_all, set_rng_state) or answers from an empty allocator
(memory_allocated, memory_stats, empty_cache, ...) return quietly, as torch does, so a program
that seeds or logs memory "if there is a GPU" or unconditionally runs unchanged. A few names
raise exactly what torch's CPU build raises even where that is an AttributeError (set_device(0),
reset_peak_memory_stats()): see docs/devices.md for the full table.
"""
import warnings

from .._device import NO_CUDA, device as _device_t, raising

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device",
           "set_device", "synchronize", "get_device_name", "get_device_capability",
           "get_device_properties", "is_bf16_supported", "is_tf32_supported", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "set_rng_state_all", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_stats", "mem_get_info", "device", "device_of", "stream", "Stream", "Event",
           "OutOfMemoryError", "amp", "CUDAGraph", "graph", "make_graphed_callables"]

has_half = True
has_magma = False
default_generators = ()


class OutOfMemoryError(RuntimeError):
    """Raised when an accelerator runs out of memory (never, in ember)."""


def is_available():
    """Whether CUDA can be used: False."""
    return False


def device_count():
    """The number of CUDA devices: 0."""
    return 0


def is_initialized():
    """Whether CUDA has been initialised: False."""
    return False


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def _lazy_init_error(name, doc):
    return raising(name, f"{doc} Raises AssertionError('{NO_CUDA}'), as torch's CPU build.",
                   AssertionError, NO_CUDA)


# Functions that start CUDA before doing anything: torch's CPU build raises from _lazy_init.
init = _lazy_init_error("init", "Initialises CUDA.")
current_device = _lazy_init_error("current_device", "The index of the current device.")
synchronize = _lazy_init_error("synchronize", "Waits for all kernels on a device.")
get_device_name = _lazy_init_error("get_device_name", "The name of a device.")
get_device_capability = _lazy_init_error("get_device_capability", "(major, minor) of a device.")
get_device_properties = _lazy_init_error("get_device_properties", "The properties of a device.")
initial_seed = _lazy_init_error("initial_seed", "The current device's initial seed.")
get_rng_state = _lazy_init_error("get_rng_state", "A device's random state.")
mem_get_info = _lazy_init_error("mem_get_info", "(free, total) bytes of a device.")
ipc_collect = _lazy_init_error("ipc_collect", "Frees memory shared with other processes.")
current_stream = _lazy_init_error("current_stream", "The current stream of a device.")
default_stream = _lazy_init_error("default_stream", "The default stream of a device.")
can_device_access_peer = _lazy_init_error("can_device_access_peer", "Peer access check.")
set_per_process_memory_fraction = _lazy_init_error("set_per_process_memory_fraction",
                                                   "Caps this process's share of a device.")
get_per_process_memory_fraction = _lazy_init_error("get_per_process_memory_fraction",
                                                   "This process's share of a device.")
get_sync_debug_mode = _lazy_init_error("get_sync_debug_mode", "The sync debug mode.")
set_sync_debug_mode = _lazy_init_error("set_sync_debug_mode", "Sets the sync debug mode.")


# ---- seeding: torch queues these until CUDA starts, which never happens here ----------------
def manual_seed(seed):
    """Seeds the current CUDA device: a no-op without CUDA (the seed must still be an int)."""
    int(seed)


def manual_seed_all(seed):
    """Seeds every CUDA device: a no-op without CUDA (the seed must still be an int)."""
    int(seed)


def seed():
    """Seeds the current CUDA device randomly: a no-op without CUDA."""


def seed_all():
    """Seeds every CUDA device randomly: a no-op without CUDA."""


def set_rng_state(new_state, device="cuda"):
    """Queued by torch until CUDA starts: a no-op without CUDA."""
    new_state.clone()


def get_rng_state_all():
    return []


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


# ---- memory: torch answers from an allocator that was never started -------------------------
def empty_cache():
    """Releases cached CUDA memory: nothing is cached."""


def memory_stats(device=None):
    import collections
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None):
    return {}


def _zero_bytes(name, doc):
    def fn(device=None):
        return 0
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{doc} 0 without CUDA."
    return fn


memory_allocated = _zero_bytes("memory_allocated", "Bytes held by tensors on a device.")
max_memory_allocated = _zero_bytes("max_memory_allocated", "Peak of memory_allocated().")
memory_reserved = _zero_bytes("memory_reserved", "Bytes held by the caching allocator.")
max_memory_reserved = _zero_bytes("max_memory_reserved", "Peak of memory_reserved().")


def memory_cached(device=None):
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return 0


def max_memory_cached(device=None):
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return 0


def _no_c_function(name, c_name, doc):
    # torch's CPU build reaches for a CUDA entry point its _C lacks: AttributeError, kept.
    def fn(device=None):
        raise AttributeError(f"module 'ember._C' has no attribute '{c_name}' (ember has no CUDA; "
                             f"torch's CPU build raises the same from torch.cuda.{name})")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


reset_peak_memory_stats = _no_c_function("reset_peak_memory_stats", "_cuda_resetPeakMemoryStats",
                                         "Resets the peak memory statistics.")
reset_accumulated_memory_stats = _no_c_function("reset_accumulated_memory_stats",
                                                "_cuda_resetAccumulatedMemoryStats",
                                                "Resets the accumulated memory statistics.")


# ---- device selection ------------------------------------------------------------------------
def _device_index(dev, optional=False):
    """torch.cuda._utils._get_device_index: an int as is, a cuda device's index."""
    if isinstance(dev, int):
        return dev
    if isinstance(dev, str):
        dev = _device_t(dev)
    if isinstance(dev, _device_t):
        if dev.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {dev}")
        if dev.index is None and not optional:
            raise ValueError("Expected a torch.device with a specified index or an integer, "
                             f"but got:{dev}")
        return dev.index
    if isinstance(dev, device):
        return dev.idx
    if dev is None and optional:
        return None
    raise ValueError("Expected a torch.device with a specified index or an integer, "
                     f"but got:{dev}")


def set_device(device):
    """Selects a CUDA device; negative indices are a no-op, as in torch."""
    if _device_index(device) >= 0:
        raise AttributeError("module 'ember._C' has no attribute '_cuda_setDevice' (ember has no "
                             "CUDA; torch's CPU build raises the same)")


class device:
    """`with cuda.device(i):` selects CUDA device i; a negative index or None does nothing."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is None:
            raise TypeError("'<' not supported between instances of 'NoneType' and 'int'")
        if self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """`with cuda.device_of(t):` selects t's device: a no-op for a CPU tensor."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class StreamContext:
    """`with cuda.stream(s):` makes s current; None does nothing (there is no other stream)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            raise AssertionError(NO_CUDA)

    def __exit__(self, *exc):
        return None


def stream(stream):
    return StreamContext(stream)


class Stream:
    """A CUDA stream: cannot exist without CUDA."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """A CUDA event: cannot exist without CUDA."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


class CUDAGraph:
    """A captured CUDA graph: a name for annotations, it cannot exist without CUDA (as in
    torch's CPU build)."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")


class graph:
    """torch.cuda.graph(cuda_graph, pool=None, stream=None, ...): the capture context; it
    needs a CUDA stream, which cannot exist without CUDA."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        Stream()


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False,
                           pool=None):
    """Captures callables into CUDA graphs: needs CUDA (it makes a CUDAGraph first, as torch's)."""
    CUDAGraph()


class _CudaTensorType:
    """torch.cuda.FloatTensor and friends: names that exist, types that cannot be built."""

    def __init__(self, name):
        self.__name__ = name

    def __repr__(self):
        return f"<class 'ember.cuda.{self.__name__}'>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{self.__name__} not available. Torch not compiled with "
                        "CUDA enabled.")

    def __instancecheck__(self, obj):
        return False


FloatTensor = _CudaTensorType("FloatTensor")
DoubleTensor = _CudaTensorType("DoubleTensor")
HalfTensor = _CudaTensorType("HalfTensor")
BFloat16Tensor = _CudaTensorType("BFloat16Tensor")
LongTensor = _CudaTensorType("LongTensor")
IntTensor = _CudaTensorType("IntTensor")
ShortTensor = _CudaTensorType("ShortTensor")
CharTensor = _CudaTensorType("CharTensor")
ByteTensor = _CudaTensorType("ByteTensor")
BoolTensor = _CudaTensorType("BoolTensor")


def __getattr__(name):
    if name in ("amp", "nvtx"):  # load on first use
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
