"""ember.xpu: torch.xpu as PyTorch's CPU build answers it: no XPU device. is_available() is
False, device_count() 0, memory counters 0; seeding is a no-op; everything that needs a
device raises torch's AssertionError."""
import collections


def _not_compiled():
    return AssertionError("Torch not compiled with XPU enabled")


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def manual_seed(seed):
    """Seeds the XPU generators: a no-op without XPU (as torch's, which defers it)."""


def manual_seed_all(seed):
    """A no-op without XPU."""


def seed():
    """A no-op without XPU."""


def seed_all():
    """A no-op without XPU."""


def empty_cache():
    """Nothing is cached without XPU."""


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_stats(device=None):
    return collections.OrderedDict()


def _needs_device(*args, **kwargs):
    raise _not_compiled()


init = current_device = synchronize = get_device_name = get_device_properties = _needs_device
get_device_capability = set_device = current_stream = initial_seed = _needs_device
get_rng_state = set_rng_state = get_rng_state_all = set_rng_state_all = _needs_device
