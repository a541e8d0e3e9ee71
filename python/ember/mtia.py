"""ember.mtia: torch.mtia as PyTorch's build without MTIA answers it: is_available() is False,
device_count() 0, memory counters 0, seeding a no-op; device calls raise torch's errors."""
from ._device import raising

_NOT_COMPILED = ("Torch not compiled with MTIA enabled. Ensure you have `import "
                 "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
                 "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return True  # torch's answer without the backend


def manual_seed(seed):
    """A no-op without MTIA."""


def manual_seed_all(seed):
    """A no-op without MTIA."""


def seed():
    """A no-op without MTIA."""


def seed_all():
    """A no-op without MTIA."""


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_stats(device=None):
    return {}


def _backend(call):
    return raising(call, None, RuntimeError, f"Cannot execute {call}() without MTIA backend.")


current_device = synchronize = current_stream = _backend("getCurrentDevice")
set_device = _backend("setCurrentDevice")
empty_cache = _backend("emptyCache")


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


init = initial_seed = get_rng_state = set_rng_state = _not_compiled
