"""ember.nn.parallel: DistributedDataParallel and DataParallel (torch.nn.parallel's CPU part)."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel", "DataParallel", "data_parallel"]
