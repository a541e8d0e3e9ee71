"""The option types of FullyShardedDataParallel, as torch.distributed.fsdp.api: how parameters
are sharded, mixed precision, CPU offload, and which state dict a wrapped model gives.

    from ember.distributed.fsdp import ShardingStrategy, MixedPrecision
    FSDP(model, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP,
         mixed_precision=MixedPrecision(param_dtype=ember.bfloat16))
"""
from dataclasses import dataclass
from enum import Enum, auto

__all__ = ["ShardingStrategy", "BackwardPrefetch", "MixedPrecision", "CPUOffload",
           "StateDictType", "StateDictConfig", "FullStateDictConfig", "LocalStateDictConfig",
           "ShardedStateDictConfig", "OptimStateDictConfig", "FullOptimStateDictConfig",
           "LocalOptimStateDictConfig", "ShardedOptimStateDictConfig", "StateDictSettings"]


class ShardingStrategy(Enum):
    """How a wrapped module's parameters are split over the ranks.

    FULL_SHARD: each rank keeps 1/world of every parameter (and of its gradient and optimizer
    state); the whole parameters are gathered for forward and backward. SHARD_GRAD_OP: the
    same storage, parameters kept gathered from forward to backward. NO_SHARD: every rank keeps
    everything and gradients are all-reduced, as DistributedDataParallel. The HYBRID ones shard
    inside a node and replicate across nodes; on ember's one-host Gloo groups they behave as
    FULL_SHARD and SHARD_GRAD_OP.

    >>> ember.distributed.fsdp.ShardingStrategy.FULL_SHARD.value
    1
    """
    FULL_SHARD = auto()
    SHARD_GRAD_OP = auto()
    NO_SHARD = auto()
    HYBRID_SHARD = auto()
    _HYBRID_SHARD_ZERO2 = auto()


class BackwardPrefetch(Enum):
    """When the next unit's parameters are gathered during backward (a scheduling hint; ember's
    collectives run in program order, so every choice gives the same results).

    >>> ember.distributed.fsdp.BackwardPrefetch.BACKWARD_PRE.name
    'BACKWARD_PRE'
    """
    BACKWARD_PRE = auto()
    BACKWARD_POST = auto()


class StateDictType(Enum):
    """What `state_dict()` of a wrapped model holds: FULL_STATE_DICT the original names and whole
    tensors (as the unwrapped model's), LOCAL_STATE_DICT each unit's local flat shard,
    SHARDED_STATE_DICT sharded tensors (needs DTensor, which ember does not have).

    >>> ember.distributed.fsdp.StateDictType.FULL_STATE_DICT.value
    1
    """
    FULL_STATE_DICT = auto()
    LOCAL_STATE_DICT = auto()
    SHARDED_STATE_DICT = auto()


@dataclass
class MixedPrecision:
    """Dtypes for compute: `param_dtype` for the gathered parameters forward and backward,
    `reduce_dtype` for the gradient reduction (default: param_dtype), `buffer_dtype` for
    buffers. The sharded parameters (what the optimizer updates) keep their own dtype.

    >>> ember.distributed.fsdp.MixedPrecision(param_dtype=ember.bfloat16).reduce_dtype is None
    True
    """
    param_dtype: object = None
    reduce_dtype: object = None
    buffer_dtype: object = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = ()


@dataclass
class CPUOffload:
    """Keep the sharded parameters in CPU memory between uses. ember runs on the CPU, where
    they always are: accepted for torch's programs, nothing to move.

    >>> ember.distributed.fsdp.CPUOffload(offload_params=True).offload_params
    True
    """
    offload_params: bool = False


@dataclass
class StateDictConfig:
    """Base of the state-dict options; `offload_to_cpu` (always true on ember).

    >>> ember.distributed.fsdp.StateDictConfig().offload_to_cpu
    False
    """
    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    """FULL_STATE_DICT options: `rank0_only` gives the whole state dict on rank 0 and an empty
    one on the others (the others still take part in the gathers).

    >>> ember.distributed.fsdp.FullStateDictConfig(rank0_only=True).rank0_only
    True
    """
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    """LOCAL_STATE_DICT options (none beyond the base).

    >>> ember.distributed.fsdp.LocalStateDictConfig().offload_to_cpu
    False
    """


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    """SHARDED_STATE_DICT options (the type itself needs DTensor: not in ember).

    >>> ember.distributed.fsdp.ShardedStateDictConfig().offload_to_cpu
    False
    """
    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    """Base of the optimizer-state-dict options.

    >>> ember.distributed.fsdp.OptimStateDictConfig().offload_to_cpu
    True
    """
    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    """Whole optimizer state, optionally only on rank 0.

    >>> ember.distributed.fsdp.FullOptimStateDictConfig(rank0_only=True).rank0_only
    True
    """
    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    """Local optimizer state (kept where it is).

    >>> ember.distributed.fsdp.LocalOptimStateDictConfig().offload_to_cpu
    False
    """
    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    """Sharded optimizer state (needs DTensor: not in ember).

    >>> ember.distributed.fsdp.ShardedOptimStateDictConfig().offload_to_cpu
    True
    """
    _use_dtensor: bool = False


@dataclass
class StateDictSettings:
    """What `FSDP.get_state_dict_type` returns: the type and both configs.

    >>> fsdp = ember.distributed.fsdp
    >>> fsdp.StateDictSettings(fsdp.StateDictType.FULL_STATE_DICT, fsdp.FullStateDictConfig(),
    ...                        fsdp.FullOptimStateDictConfig()).state_dict_type.name
    'FULL_STATE_DICT'
    """
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
