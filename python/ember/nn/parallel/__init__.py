"""ember.nn.parallel: DistributedDataParallel (torch.nn.parallel's CPU part)."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
