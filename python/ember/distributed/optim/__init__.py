"""ember.distributed.optim: ZeroRedundancyOptimizer, as torch.distributed.optim's."""
from . import zero_redundancy_optimizer
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer", "zero_redundancy_optimizer"]
