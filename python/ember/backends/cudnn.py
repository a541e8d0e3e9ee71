"""ember.backends.cudnn: cuDNN's flags (stored, unused: ember has no cuDNN)."""
from . import _flags

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
    return _flags.set_flags(globals(), {
        "enabled": _enabled, "benchmark": _benchmark, "benchmark_limit": _benchmark_limit,
        "deterministic": _deterministic, "allow_tf32": _allow_tf32,
        "fp32_precision": _fp32_precision})


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none"):
    """`with flags(...):` sets the flags and restores them after."""
    return _flags.flags(set_flags, enabled, benchmark, benchmark_limit, deterministic,
                        allow_tf32, fp32_precision)
