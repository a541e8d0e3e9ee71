"""torch.nn.modules.batchnorm's path for ember's batch norms (in normalization.py, lazy.py),
so that a pickle naming torch.nn.modules.batchnorm.BatchNorm1d finds them."""
from .normalization import BatchNorm1d, BatchNorm2d  # noqa: F401
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d  # noqa: F401
from .sync_batchnorm import SyncBatchNorm  # noqa: F401

__all__ = ["BatchNorm1d", "BatchNorm2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "SyncBatchNorm"]
