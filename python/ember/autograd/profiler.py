"""ember.autograd.profiler: torch.autograd.profiler's names for ember's op profiler
(ember.profiler): profile and record_function are the same objects."""
from ..profiler import ProfilerActivity, profile, record_function  # noqa: F401

__all__ = ["profile", "record_function", "ProfilerActivity"]
