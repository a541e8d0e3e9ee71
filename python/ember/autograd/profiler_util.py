"""torch.autograd.profiler_util's result types, for ember's op profiler (ember.profiler):
EventList is the list a profile's key_averages() returns (with .table()), FunctionEventAvg one
of its rows (an op or backward node: count, self and total CPU time, memory)."""
from ..profiler import OpStats as FunctionEventAvg
from ..profiler import EventList

__all__ = ["EventList", "FunctionEventAvg", "MEMORY_EVENT_NAME", "OUT_OF_MEMORY_EVENT_NAME"]

MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"
