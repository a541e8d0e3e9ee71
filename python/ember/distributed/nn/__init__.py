"""torch.distributed.nn: collectives with gradients (`functional`), also named here as torch
does. RemoteModule (torch.distributed.rpc) is not: ember has no RPC framework."""
from . import functional  # noqa: F401
from .functional import (ReduceOp, all_gather, all_reduce, all_to_all,  # noqa: F401
                         all_to_all_single, broadcast, gather, group, reduce, reduce_scatter,
                         scatter)
