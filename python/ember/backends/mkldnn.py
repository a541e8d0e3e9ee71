"""ember.backends.mkldnn: oneDNN's flags. ember does not link oneDNN, so is_available() is False
(torch's wheel answers True); the flags are stored and unused."""
from . import _flags

enabled = True
deterministic = False
allow_tf32 = None
fp32_precision = "none"


def is_available():
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    return _flags.set_flags(globals(), {
        "enabled": _enabled, "deterministic": _deterministic, "allow_tf32": _allow_tf32,
        "fp32_precision": _fp32_precision})


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return _flags.flags(set_flags, enabled, deterministic, allow_tf32, fp32_precision)
