"""torch.distributed.distributed_c10d, the module that defines torch.distributed's functions:
libraries import from it by that name (`from torch.distributed.distributed_c10d import
_get_default_group`). Here it names ember.distributed's functions, plus the private helpers
that libraries reach for and the deprecated spellings torch still accepts (with its
FutureWarning)."""
import warnings as _warnings

from . import *  # noqa: F401,F403
from . import __all__ as _public
from . import (GroupMember, all_gather_into_tensor, get_global_rank, is_initialized,
               reduce_scatter_tensor)
from ._collectives_core import ReduceOp

__all__ = list(_public)


def _get_default_group():
    """The default ProcessGroup (ValueError before init_process_group, as torch)."""
    if not is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
    return GroupMember.WORLD


def _rank_not_in_group(group):
    """Whether this rank is outside `group` (new_group returns NON_GROUP_MEMBER there)."""
    return group is not None and group == GroupMember.NON_GROUP_MEMBER


def _deprecated(message):
    _warnings.warn(message, FutureWarning, stacklevel=3)


def _get_global_rank(group, rank):
    """get_global_rank's old name."""
    _deprecated("`torch.distributed.distributed_c10d._get_global_rank` is deprecated, please use "
                "`torch.distributed.distributed_c10d.get_global_rank` instead")
    return get_global_rank(group, rank)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    """all_gather_single's (all_gather_into_tensor's) old name."""
    _deprecated("`torch.distributed._all_gather_base` is a private function and will be deprecated. "
                "Please use `torch.distributed.all_gather_single` instead.")
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """reduce_scatter_single's (reduce_scatter_tensor's) old name."""
    _deprecated("`torch.distributed._reduce_scatter_base` is a private function and will be deprecated. "
                "Please use `torch.distributed.reduce_scatter_single` instead.")
    return reduce_scatter_tensor(output, input, op, group, async_op)
