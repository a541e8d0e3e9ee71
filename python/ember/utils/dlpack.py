"""ember.utils.dlpack: torch.utils.dlpack's to_dlpack / from_dlpack (ember.from_dlpack; the
capsule shares memory both ways) and the DLPack device types."""
import enum

from .._creation import from_dlpack
from .._runtime_info import to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (dlpack.h); ember's tensors are all kDLCPU.

    >>> ember.utils.dlpack.DLDeviceType.kDLCPU.value
    1
    """
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
