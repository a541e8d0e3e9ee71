"""torch.autograd.profiler_legacy: the autograd profiler's pre-Kineto front end, on ember's op
profiler (ember.profiler): `with profile() as prof: ...; print(prof.key_averages().table())`.
Only the CPU exists: use_cuda=True raises, as torch's does without CUDA."""
from .. import profiler as _profiler
from ._profiler_types import DeviceType, ProfilerConfig, ProfilerState
from .profiler_util import EventList

__all__ = ["DeviceType", "EventList", "ProfilerConfig", "ProfilerState", "profile"]


class profile(_profiler.profile):
    """profile(enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False,
    profile_memory=False, with_stack=False, with_modules=False)."""

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False):
        if use_cuda:
            raise AssertionError("Legacy CUDA profiling requires use_cuda=True and a CUDA "
                                 "device; ember profiles the CPU only")
        super().__init__(enabled=enabled, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack)
        self.use_cuda = use_cuda
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.profiler_kind = ProfilerState.CPU

    def config(self):
        """This profile's settings as a ProfilerConfig (torch's legacy profiler hands it to
        its C++ side the same way)."""
        return ProfilerConfig(self.profiler_kind, self.record_shapes, self.profile_memory,
                              self.with_stack, self.with_flops, self.with_modules)

    @property
    def function_events(self):
        return self.key_averages()
