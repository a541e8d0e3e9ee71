"""torch.distributed._composable: the module-level (composable) forms of torch's data
parallelism; ember has its FSDP2 names (fsdp), see ember.distributed.fsdp._fully_shard."""
from . import fsdp  # noqa: F401
