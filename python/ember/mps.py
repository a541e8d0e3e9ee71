"""ember.mps: torch.mps as PyTorch's CPU build answers it: no Metal device. device_count() is 0,
manual_seed is a no-op, and everything that needs the device raises RuntimeError as torch's."""


def _no_mps(what):
    return RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Seeds the MPS generator: a no-op without MPS (torch does not even check the seed)."""


def seed():
    raise _no_mps("getDefaultGenerator")


def get_rng_state(device="mps"):
    raise _no_mps("getDefaultGenerator")


def set_rng_state(new_state, device="mps"):
    raise _no_mps("getDefaultGenerator")


def synchronize():
    raise _no_mps("deviceSynchronize")


def empty_cache():
    raise _no_mps("emptyCache")


def current_allocated_memory():
    raise _no_mps("getCurrentAllocatedMemory")


def driver_allocated_memory():
    raise _no_mps("getDriverAllocatedMemory")


def recommended_max_memory():
    raise _no_mps("getRecommendedMaxMemory")


def set_per_process_memory_fraction(fraction):
    raise _no_mps("setMemoryFraction")
