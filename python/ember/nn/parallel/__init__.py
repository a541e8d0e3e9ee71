"""ember.nn.parallel: DistributedDataParallel and DataParallel (torch.nn.parallel's CPU part).
DistributedDataParallel (and ember.distributed under it) loads on first use, so that
`import ember` stays light (Note [Lazy imports])."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DistributedDataParallel", "DataParallel", "data_parallel"]


def __getattr__(name):
    if name in ("DistributedDataParallel", "distributed"):
        import importlib
        distributed = importlib.import_module(__name__ + ".distributed")
        return distributed if name == "distributed" else distributed.DistributedDataParallel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
