"""FSDP2's policies (torch.distributed.fsdp.MixedPrecisionPolicy, OffloadPolicy,
CPUOffloadPolicy: plain settings) and its entry points, which ember does not have: FSDP2 makes
each parameter a DTensor that ember's ops would take, and ember's DTensor is not a Tensor
(docs/distributed.md). `fully_shard` is importable, so programs that only name it (transformers
imports it with its distributed helpers) load; calling it raises. FullyShardedDataParallel
(FSDP1) shards a model on ember."""
from dataclasses import dataclass

__all__ = ["MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy", "fully_shard",
           "FSDPModule", "register_fsdp_forward_method"]

_WHY = ("ember has no FSDP2 (its parameters would be DTensors, which ember's ops do not take); "
        "wrap the model in torch.distributed.fsdp.FullyShardedDataParallel instead")


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    """FSDP2's mixed precision: the dtype of the gathered parameters, of the gradient reduction
    and of the forward outputs.

    >>> ember.distributed.fsdp.MixedPrecisionPolicy(param_dtype=ember.bfloat16).reduce_dtype is None
    True
    """
    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    """FSDP2's offload setting: the base class, no offloading."""


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """FSDP2's CPU offload of the sharded parameters (pin_memory: pinned host memory)."""
    pin_memory: bool = True


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None,
                mp_policy=MixedPrecisionPolicy(), offload_policy=OffloadPolicy(), ignored_params=None,
                dp_mesh_dims=None):
    """torch.distributed.fsdp.fully_shard (FSDP2): not in ember; raises NotImplementedError."""
    raise NotImplementedError(f"fully_shard: {_WHY}")


class FSDPModule:
    """The class fully_shard mixes into a module in torch; no module is one in ember."""
    _ember_not_implemented = True  # tools/compat_table.py counts it as missing

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(f"FSDPModule: {_WHY}")


def register_fsdp_forward_method(module, method_name):
    """torch's hook for FSDP2 modules' non-forward methods: not in ember; raises."""
    raise NotImplementedError(f"register_fsdp_forward_method: {_WHY}")
