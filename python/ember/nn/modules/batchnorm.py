"""torch.nn.modules.batchnorm's path for ember's batch norms (in normalization.py, lazy.py),
so that a pickle naming torch.nn.modules.batchnorm.BatchNorm1d finds them."""
from .normalization import _BatchNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d  # noqa: F401
# _BatchNorm: the base programs test against (Lightning's BaseFinetuning freezes its instances)
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d  # noqa: F401
from .sync_batchnorm import SyncBatchNorm  # noqa: F401

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "SyncBatchNorm"]
