"""torch.distributed.constants: the default timeout of a process group's collectives (30
minutes, as torch's); NCCL's is None (ember has Gloo only)."""
from datetime import timedelta

__all__ = ["default_pg_timeout", "default_pg_nccl_timeout"]

default_pg_timeout = timedelta(minutes=30)
default_pg_nccl_timeout = None
