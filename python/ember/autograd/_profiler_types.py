"""The enums and the config record of torch's profiler C++ side (torch._C._profiler,
torch._C._autograd), with torch's members and values: DeviceType, ProfilerState,
ProfilerConfig. ember's profiler (ember.profiler) records the CPU only."""
import enum

__all__ = ["DeviceType", "ProfilerConfig", "ProfilerState"]


class DeviceType(enum.IntEnum):
    """c10::DeviceType: the kinds of device a tensor or an event may live on.

    >>> ember.autograd.DeviceType.CPU
    <DeviceType.CPU: 0>
    """
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


class ProfilerState(enum.IntEnum):
    """What a profiler records: Disabled, or CPU (ember's only one), or a device tracer.

    >>> ember.autograd.ProfilerState.CPU
    <ProfilerState.CPU: 1>
    """
    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_PRIVATEUSE1 = 9


class ProfilerConfig:
    """A profiler's settings: ProfilerConfig(state, report_input_shapes, profile_memory,
    with_stack, with_flops, with_modules, experimental_config=None, trace_id='').

    >>> A = ember.autograd
    >>> config = A.ProfilerConfig(A.ProfilerState.CPU, False, False, False, False, False)
    >>> config.state
    <ProfilerState.CPU: 1>
    """

    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops,
                 with_modules, experimental_config=None, trace_id=""):
        if not isinstance(state, ProfilerState):
            raise TypeError(f"ProfilerConfig(): state must be a ProfilerState, not "
                            f"{type(state).__name__}")
        self.state = state
        self.report_input_shapes = bool(report_input_shapes)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        self.with_modules = bool(with_modules)
        self.experimental_config = experimental_config
        self.trace_id = str(trace_id)

    def __repr__(self):
        return (f"ProfilerConfig(state={self.state.name}, report_input_shapes="
                f"{self.report_input_shapes}, profile_memory={self.profile_memory}, "
                f"with_stack={self.with_stack}, with_flops={self.with_flops}, "
                f"with_modules={self.with_modules})")
