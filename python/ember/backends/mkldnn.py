"""ember.backends.mkldnn: oneDNN's flags. ember does not link oneDNN, so is_available() is False
(torch's wheel answers True); the flags are stored and unused."""
import contextlib

enabled = True
deterministic = False
allow_tf32 = None
fp32_precision = "none"


def is_available():
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    global enabled, deterministic, allow_tf32, fp32_precision
    orig = (enabled, deterministic, allow_tf32, fp32_precision)
    if _enabled is not None:
        enabled = _enabled
    if _deterministic is not None:
        deterministic = _deterministic
    if _allow_tf32 is not None:
        allow_tf32 = _allow_tf32
    if _fp32_precision is not None:
        fp32_precision = _fp32_precision
    return orig


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    orig = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)
