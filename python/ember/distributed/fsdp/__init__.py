"""ember.distributed.fsdp: FullyShardedDataParallel, as torch.distributed.fsdp (the FSDP1
API with use_orig_params=False; docs/distributed.md). Each rank keeps a shard of every wrapped
unit's parameters; forward gathers them, backward reduce-scatters the gradients.

    from ember.distributed.fsdp import FullyShardedDataParallel as FSDP
    model = FSDP(model)                     # after init_process_group
"""
from . import api, wrap
from ._flat_param import FlatParameter
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision,
                  OptimStateDictConfig, ShardedOptimStateDictConfig, ShardedStateDictConfig,
                  ShardingStrategy, StateDictConfig, StateDictSettings, StateDictType)
from . import fully_sharded_data_parallel
from .fully_sharded_data_parallel import FullyShardedDataParallel
from ._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy,
                           fully_shard, register_fsdp_forward_method)

__all__ = ["FullyShardedDataParallel", "FlatParameter", "ShardingStrategy", "BackwardPrefetch",
           "MixedPrecision", "CPUOffload", "StateDictType", "StateDictConfig",
           "FullStateDictConfig", "LocalStateDictConfig", "ShardedStateDictConfig",
           "OptimStateDictConfig", "FullOptimStateDictConfig", "LocalOptimStateDictConfig",
           "ShardedOptimStateDictConfig", "StateDictSettings", "api", "wrap",
           "fully_sharded_data_parallel", "MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy",
           "fully_shard", "FSDPModule", "register_fsdp_forward_method"]
