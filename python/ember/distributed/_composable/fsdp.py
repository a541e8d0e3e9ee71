"""torch.distributed._composable.fsdp: FSDP2's names, where older code imports them from."""
from ..fsdp._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy,  # noqa: F401
                                 OffloadPolicy, fully_shard, register_fsdp_forward_method)
