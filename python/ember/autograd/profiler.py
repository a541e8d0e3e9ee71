"""ember.autograd.profiler: torch.autograd.profiler's names for ember's op profiler
(ember.profiler): profile, record_function and EventList are the same objects."""
from ..profiler import EventList, ProfilerActivity, profile, record_function  # noqa: F401

__all__ = ["profile", "record_function", "ProfilerActivity", "EventList", "emit_nvtx"]


class emit_nvtx:
    """torch.autograd.profiler.emit_nvtx: NVTX ranges around every op for CUDA's profilers.
    ember has no CUDA: entering it enabled raises AssertionError, as torch's CPU build does;
    `emit_nvtx(enabled=False)` is an empty context, as in torch.

    >>> with ember.autograd.profiler.emit_nvtx(enabled=False):
    ...     pass
    """

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        if self.enabled:
            raise AssertionError("Torch not compiled with CUDA enabled")
        return self

    def __exit__(self, *exc):
        return False
