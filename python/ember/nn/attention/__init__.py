"""ember.nn.attention: torch.nn.attention's backend selection for
scaled_dot_product_attention. SDPBackend names the backends with torch's values;
sdpa_kernel sets the flags of ember.backends.cuda (flash / mem_efficient / math / cudnn)
for the duration of a block and restores them after, as torch. ember's attention runs its
one CPU implementation whatever the flags say (ember.backends.cuda's note)."""
import contextlib

from ...backends.cuda import SDPBackend  # one enum, as torch.backends.cuda.SDPBackend is

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


# flag name in ember.backends.cuda -> backend; OVERRIDEABLE has no flag there
_FLAGS = {"flash": SDPBackend.FLASH_ATTENTION, "mem_efficient": SDPBackend.EFFICIENT_ATTENTION,
          "math": SDPBackend.MATH, "cudnn": SDPBackend.CUDNN_ATTENTION}
_overrideable = [True]


def _current():
    from ...backends import cuda
    on = [b for name, b in _FLAGS.items() if getattr(cuda, f"{name}_sdp_enabled")()]
    return on + ([SDPBackend.OVERRIDEABLE] if _overrideable[0] else [])


def _enable(backends):
    from ...backends import cuda
    for name, b in _FLAGS.items():
        getattr(cuda, f"enable_{name}_sdp")(b in backends)
    _overrideable[0] = SDPBackend.OVERRIDEABLE in backends


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enables exactly `backends` (one SDPBackend or a list) inside the block."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _current()
    try:
        _enable(backends)
        yield {}
    finally:
        _enable(previous)
