"""The collectives every member of a group runs alike (all_reduce, broadcast, all_gather,
reduce_scatter, barrier), this process's rank and the group's size, and the argument checks the
other collective modules share. ember.distributed re-exports them; _collectives.py and
_objects.py build on them (so none of them imports the package itself)."""
from .. import _C
from .._tensor import Tensor as _Tensor
from . import _groups
from ._work_future import attach as _attach

_d = _C._distributed
ReduceOp = _d.ReduceOp
# torch's ReduceOp.SUM is a member of ReduceOp.RedOpType (the enum of the values); ember's
# enum is both (Lightning annotates with ReduceOp.RedOpType).
ReduceOp.RedOpType = ReduceOp


def get_rank(group=None):
    """This process's rank in `group` (-1 when it is not a member).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_rank()
    0
    >>> dist.destroy_process_group()
    """
    if _groups.not_in_group(group):
        return -1
    return _d.get_rank(group)


def get_world_size(group=None):
    """The number of ranks in `group` (-1 when this process is not a member).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_world_size()
    1
    >>> dist.destroy_process_group()
    """
    if _groups.not_in_group(group):
        return -1
    return _d.get_world_size(group)


def _tensor(op, name, t):
    if not isinstance(t, _Tensor):
        raise TypeError(f"{op}: expected parameter `{name}` of type Tensor, got {type(t).__name__}")
    return t


def _tensor_list(op, name, ts):
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{op}: expected parameter `{name}` to be a list of Tensors, got {type(ts).__name__}")
    return [_tensor(op, name, t) for t in ts]


def _op(op, name):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{name}: op must be an ember.distributed.ReduceOp, got {op!r}")
    return op


def _skip(op, group):
    """True (after torch's warning) when this rank is not in `group`: the call is a no-op."""
    if _groups.not_in_group(group):
        _groups.warn_not_in_group(op)
        return True
    return False


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False) -> Work or None

    Reduces tensor across the ranks of group with op (SUM, AVG, PRODUCT, MIN, MAX, ...), in
    place on every rank; with async_op, returns a Work to wait() on.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> t = ember.tensor([1.0, 2.0])
    >>> dist.all_reduce(t, op=dist.ReduceOp.MAX)
    >>> t
    tensor([1., 2.])
    >>> dist.destroy_process_group()
    """

    if _skip("all_reduce", group):
        return None
    return _attach(_d.all_reduce(_tensor("all_reduce", "tensor", tensor), _op(op, "all_reduce"), group,
                                 bool(async_op)), [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """`src` is a global rank (torch's convention), `group_src` a rank within `group`.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> t = ember.tensor([3.0])
    >>> dist.broadcast(t, src=0)
    >>> t
    tensor([3.])
    >>> dist.destroy_process_group()
    """
    if _skip("broadcast", group):
        return None
    src = _groups.peer("broadcast", group, src, group_src, "src")
    return _attach(_d.broadcast(_tensor("broadcast", "tensor", tensor), src, group, bool(async_op)), [tensor])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """all_gather(tensor_list, tensor, group=None, async_op=False) -> Work or None

    Fills tensor_list[i] with rank i's tensor, on every rank.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [ember.zeros(2)]
    >>> dist.all_gather(out, ember.tensor([1.0, 2.0]))
    >>> out
    [tensor([1., 2.])]
    >>> dist.destroy_process_group()
    """

    if _skip("all_gather", group):
        return None
    outs = _tensor_list("all_gather", "tensor_list", tensor_list)
    return _attach(_d.all_gather(outs, _tensor("all_gather", "tensor", tensor), group, bool(async_op)), outs)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False) -> Work or None

    all_gather into one tensor: output_tensor is the ranks' input_tensors concatenated (or
    stacked) along dim 0.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = ember.zeros(2)
    >>> dist.all_gather_into_tensor(out, ember.tensor([1.0, 2.0]))
    >>> out
    tensor([1., 2.])
    >>> dist.destroy_process_group()
    """

    if _skip("all_gather_into_tensor", group):
        return None
    name = "all_gather_into_tensor"
    return _attach(_d.all_gather_into_tensor(_tensor(name, "output_tensor", output_tensor),
                                             _tensor(name, "input_tensor", input_tensor), group,
                                             bool(async_op)), [output_tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False) -> Work or None

    Reduces input_list[i] across the ranks with op and writes the result into rank i's output.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = ember.zeros(2)
    >>> dist.reduce_scatter(out, [ember.tensor([1.0, 2.0])])
    >>> out
    tensor([1., 2.])
    >>> dist.destroy_process_group()
    """

    if _skip("reduce_scatter", group):
        return None
    ins = _tensor_list("reduce_scatter", "input_list", input_list)
    return _attach(_d.reduce_scatter(_tensor("reduce_scatter", "output", output), ins,
                                     _op(op, "reduce_scatter"), group, bool(async_op)), [output])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False) -> Work or None

    reduce_scatter over one tensor: input is split along dim 0 into world_size chunks, and rank
    i's output is the reduction of the ranks' chunk i.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = ember.zeros(2)
    >>> dist.reduce_scatter_tensor(out, ember.tensor([1.0, 2.0]))
    >>> out
    tensor([1., 2.])
    >>> dist.destroy_process_group()
    """

    if _skip("reduce_scatter_tensor", group):
        return None
    name = "reduce_scatter_tensor"
    return _attach(_d.reduce_scatter_tensor(_tensor(name, "output", output), _tensor(name, "input", input),
                                            _op(op, name), group, bool(async_op)), [output])


def barrier(group=None, async_op=False, device_ids=None):
    """barrier(group=None, async_op=False, device_ids=None) -> Work or None

    Blocks until every rank of group has reached the barrier.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.barrier()
    >>> dist.destroy_process_group()
    """

    if _skip("barrier", group):
        return None
    return _attach(_d.barrier(group, bool(async_op)), [])
