"""ember.backends.cudnn: cuDNN's flags (stored, unused: ember has no cuDNN)."""
import contextlib

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True
fp32_precision = "none"


def is_available():
    """Whether cuDNN can be used: False."""
    return False


def version():
    """cuDNN's version: None (not linked)."""
    return None


def is_acceptable(tensor):
    """Whether cuDNN would take this tensor: never (it is on the CPU)."""
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none"):
    """Sets the flags given (None leaves one as is); returns the previous ones."""
    global enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision
    orig = (enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision)
    if _enabled is not None:
        enabled = _enabled
    if _benchmark is not None:
        benchmark = _benchmark
    if _benchmark_limit is not None:
        benchmark_limit = _benchmark_limit
    if _deterministic is not None:
        deterministic = _deterministic
    if _allow_tf32 is not None:
        allow_tf32 = _allow_tf32
    if _fp32_precision is not None:
        fp32_precision = _fp32_precision
    return orig


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none"):
    """`with flags(...):` sets the flags and restores them after."""
    orig = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
                     fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)
