"""DDP communication hooks (torch.distributed.algorithms.ddp_comm_hooks)."""
from . import default_hooks

__all__ = ["default_hooks"]
