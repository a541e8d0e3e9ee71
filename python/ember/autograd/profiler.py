"""ember.autograd.profiler: torch.autograd.profiler's names for ember's op profiler
(ember.profiler): profile, record_function and EventList are the same objects."""
from ..profiler import EventList, ProfilerActivity, profile, record_function  # noqa: F401

__all__ = ["profile", "record_function", "ProfilerActivity", "EventList"]
