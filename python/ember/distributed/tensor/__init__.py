"""ember.distributed.tensor: DTensor and its placements, as torch.distributed.tensor, for
making, inspecting and redistributing tensors laid out over a DeviceMesh (_dtensor.py says
what is there and what is not: ember's ops do not take DTensors)."""
from . import placement_types
from ..device_mesh import DeviceMesh, init_device_mesh
from . import _dtensor
from ._dtensor import (DTensor, distribute_tensor, empty, full, ones, rand, randn,  # noqa: F401
                       zeros)
from .placement_types import Partial, Placement, Replicate, Shard
from .. import device_mesh  # noqa: F401

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard", "device_mesh",
           "distribute_tensor", "empty", "full", "init_device_mesh", "ones", "placement_types",
           "rand", "randn", "zeros"]
