"""The collectives beyond all_reduce/broadcast/all_gather/reduce_scatter/barrier:
reduce, gather, scatter, all_to_all(_single), point to point (send/recv, isend/irecv,
batch_isend_irecv) and monitored_barrier, with torch.distributed's signatures. Ranks given
as `dst`/`src`/`peer` are global ranks, `group_dst`/`group_src`/`group_peer` ranks within
`group` (torch's convention); the C++ side (src/distributed/collectives_rooted.cpp,
all_to_all.cpp, point_to_point.cpp) works with group ranks."""
from . import _groups
from ._collectives_core import ReduceOp, _op, _skip, _tensor, _tensor_list
from .. import _C
from ._work_future import attach as _attach

_d = _C._distributed


def _optional_list(op, name, ts):
    return [] if ts is None else _tensor_list(op, name, ts)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` of every rank into `tensor` on `dst`; the others' tensors are unchanged.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> t = ember.tensor([1.0, 2.0]); dist.reduce(t, dst=0); t
    tensor([1., 2.])
    >>> dist.destroy_process_group()
    """
    if _skip("reduce", group):
        return None
    dst = _groups.peer("reduce", group, dst, group_dst, "dst")
    work = _d.reduce(_tensor("reduce", "tensor", tensor), dst, _op(op, "reduce"), group, bool(async_op))
    return _attach(work, [tensor])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Gathers `tensor` of every rank into `gather_list` on `dst` (None on the other ranks).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [ember.zeros(2)]; dist.gather(ember.tensor([1.0, 2.0]), out, dst=0); out
    [tensor([1., 2.])]
    >>> dist.destroy_process_group()
    """
    if _skip("gather", group):
        return None
    dst = _groups.root("gather", group, dst, group_dst, "dst")
    outs = _optional_list("gather", "gather_list", gather_list)
    return _attach(_d.gather(_tensor("gather", "tensor", tensor), outs, dst, group, bool(async_op)),
                   outs)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Scatters `scatter_list` (given on `src` only) to `tensor` of every rank, in rank order.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> t = ember.zeros(2); dist.scatter(t, [ember.tensor([3.0, 4.0])], src=0); t
    tensor([3., 4.])
    >>> dist.destroy_process_group()
    """
    if _skip("scatter", group):
        return None
    src = _groups.root("scatter", group, src, group_src, "src")
    work = _d.scatter(_tensor("scatter", "tensor", tensor),
                      _optional_list("scatter", "scatter_list", scatter_list), src, group, bool(async_op))
    return _attach(work, [tensor])


def _splits(op, name, sizes):
    if sizes is None:
        return []
    if not isinstance(sizes, (list, tuple)) or not all(isinstance(x, int) for x in sizes):
        raise TypeError(f"{op}: {name} must be a list of ints, got {sizes!r}")
    return [int(x) for x in sizes]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Rank r sends its input's r-th part (along dim 0) to rank r; `output` receives the
    parts of every rank in rank order. Split sizes None: equal parts.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = ember.zeros(2); dist.all_to_all_single(out, ember.tensor([7.0, 8.0])); out
    tensor([7., 8.])
    >>> dist.destroy_process_group()
    """
    name = "all_to_all_single"
    if _skip(name, group):
        return None
    work = _d.all_to_all_single(_tensor(name, "output", output), _tensor(name, "input", input),
                                _splits(name, "output_split_sizes", output_split_sizes),
                                _splits(name, "input_split_sizes", input_split_sizes), group, bool(async_op))
    return _attach(work, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """input_tensor_list[r] goes to rank r, arriving in its output_tensor_list[this rank].

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [ember.zeros(2)]; dist.all_to_all(out, [ember.tensor([5.0, 6.0])]); out
    [tensor([5., 6.])]
    >>> dist.destroy_process_group()
    """
    name = "all_to_all"
    if _skip(name, group):
        return None
    work = _d.all_to_all(_tensor_list(name, "output_tensor_list", output_tensor_list),
                         _tensor_list(name, "input_tensor_list", input_tensor_list), group, bool(async_op))
    return _attach(work, output_tensor_list)


def _tag(op, tag):
    if not isinstance(tag, int) or isinstance(tag, bool):
        raise TypeError(f"{op}: tag must be an int, got {type(tag).__name__}")
    return tag


def _send(op, tensor, dst, group, tag, group_dst, async_op):
    """The checked send of send/isend: the C++ call's result (a Work when async_op)."""
    dst = _groups.peer(op, group, dst, group_dst, "dst")
    return _d.send(_tensor(op, "tensor", tensor), dst, _tag(op, tag), group, async_op)


def _recv(op, tensor, src, group, tag, group_src, async_op):
    """The checked receive of recv/irecv, from any rank (-1) when neither src nor group_src
    is given: the C++ call's result (the sender, or a Work when async_op)."""
    src = -1 if src is None and group_src is None else _groups.peer(op, group, src, group_src, "src")
    return _d.recv(_tensor(op, "tensor", tensor), src, _tag(op, tag), group, async_op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to `dst` without waiting; returns a Work (None when not in `group`).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.isend(ember.ones(1), dst=0)  # one process: no peer to send to
    Traceback (most recent call last):
    ValueError: send: rank 0 cannot send to itself
    >>> dist.destroy_process_group()
    """
    if _skip("isend", group):
        return None
    return _attach(_send("isend", tensor, dst, group, tag, group_dst, True), [tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from `src` (None: any rank) without waiting; returns a Work.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.irecv(ember.zeros(1), src=0)  # one process: no peer to receive from
    Traceback (most recent call last):
    ValueError: recv: rank 0 cannot receive from itself
    >>> dist.destroy_process_group()
    """
    if _skip("irecv", group):
        return None
    return _attach(_recv("irecv", tensor, src, group, tag, group_src, True), [tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to `dst` and waits until it was received.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.send(ember.ones(1), dst=0)  # one process: no peer to send to
    Traceback (most recent call last):
    ValueError: send: rank 0 cannot send to itself
    >>> dist.destroy_process_group()
    """
    if _skip("send", group):
        return None
    _send("send", tensor, dst, group, tag, group_dst, False)
    return None


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from `src` (None: any rank); returns the sender's global rank
    (-1 when this rank is not in `group`).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.recv(ember.zeros(1), src=0)  # one process: no peer to receive from
    Traceback (most recent call last):
    ValueError: recv: rank 0 cannot receive from itself
    >>> dist.destroy_process_group()
    """
    if _skip("recv", group):
        return -1
    got = _recv("recv", tensor, src, group, tag, group_src, False)
    return got if group is None else _groups.global_rank(group, got, "recv")


class P2POp:
    """One operation of batch_isend_irecv: P2POp(dist.isend or dist.irecv, tensor, peer).

    >>> import ember.distributed as dist
    >>> op = dist.P2POp(dist.irecv, ember.zeros(2), 1)
    >>> op.op is dist.irecv, op.tensor, op.peer
    (True, tensor([0., 0.]), 1)
    """

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("P2POp: op must be ember.distributed.isend or ember.distributed.irecv, "
                             f"got {op!r}")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = \
            op, _tensor("P2POp", "tensor", tensor), peer, group, tag, group_peer

    def __repr__(self):
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list):
    """Posts every P2POp and returns their Works (wait on each).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.batch_isend_irecv([dist.P2POp(dist.isend, ember.ones(1), 0)])  # one process
    Traceback (most recent call last):
    ValueError: send: rank 0 cannot send to itself
    >>> dist.destroy_process_group()
    """
    if not isinstance(p2p_op_list, (list, tuple)) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("batch_isend_irecv: expected a list of P2POp")
    if not p2p_op_list:
        raise ValueError("batch_isend_irecv: the list of P2POp is empty")
    works = []
    for p in p2p_op_list:
        key = "group_dst" if p.op is isend else "group_src"
        peer = "dst" if p.op is isend else "src"
        works.append(p.op(p.tensor, **{peer: p.peer, key: p.group_peer}, group=p.group, tag=p.tag))
    return works


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that fails on rank 0 naming the rank (wait_all_ranks: every rank) that did not
    arrive within `timeout` (None: the group's timeout); the others fail when rank 0 does.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.monitored_barrier()  # returns once every rank arrived
    >>> dist.destroy_process_group()
    """
    if _skip("monitored_barrier", group):
        return None
    _d.monitored_barrier(group, _groups.seconds(timeout, "monitored_barrier"), bool(wait_all_ranks))
    return None


def _coalesced_flat(op, tensors):
    """The tensors (all one dtype) laid end to end in one contiguous 1-d buffer."""
    from .. import Tensor, cat
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    for t in tensors:
        _tensor(op, "tensors", t)
    if len({t.dtype for t in tensors}) > 1:
        found = ", ".join(sorted({str(t.dtype) for t in tensors}))
        raise ValueError(f"{op}: invalid usage of tensors with different dtypes: found {found}")
    return tensors, cat([t.reshape(-1) for t in tensors]) if tensors else None


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """all_reduce of several tensors (one dtype) in one collective: they travel as one flat
    buffer and are written back in place. With async_op, a Future completed with them.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> a, b = ember.tensor([1.0, 2.0]), ember.tensor([[3.0]])
    >>> dist.all_reduce_coalesced([a, b])
    >>> a, b
    (tensor([1., 2.]), tensor([[3.]]))
    >>> dist.destroy_process_group()
    """
    from ._collectives_core import all_reduce
    from ._work_future import get_future
    if _skip("all_reduce_coalesced", group):
        return None
    tensors, flat = _coalesced_flat("all_reduce_coalesced", tensors)
    if flat is None:
        return None
    work = all_reduce(flat, op=op, group=group, async_op=True)

    def write_back(_=None):
        offset = 0
        for t in tensors:
            t.copy_(flat[offset:offset + t.numel()].view(t.shape))
            offset += t.numel()
        return tensors
    if async_op:
        return get_future(work).then(write_back)
    work.wait()
    write_back()
    return None


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """all_gather of several tensors in one collective: output_tensor_lists[i][j] receives
    rank i's input_tensor_list[j]. With async_op, a Future completed with the outputs.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [[ember.zeros(2), ember.zeros(1)]]
    >>> dist.all_gather_coalesced(out, [ember.tensor([1.0, 2.0]), ember.tensor([3.0])])
    >>> out
    [[tensor([1., 2.]), tensor([3.])]]
    >>> dist.destroy_process_group()
    """
    from .. import empty
    from ._collectives_core import all_gather_into_tensor, get_world_size
    from ._work_future import get_future
    if _skip("all_gather_coalesced", group):
        return None
    inputs, flat = _coalesced_flat("all_gather_coalesced", input_tensor_list)
    world = get_world_size(group)
    if not isinstance(output_tensor_lists, (list, tuple)) or len(output_tensor_lists) != world \
            or any(len(row) != len(inputs) for row in output_tensor_lists):
        raise ValueError(f"all_gather_coalesced: output_tensor_lists must hold {world} lists "
                         f"(one per rank) of {len(inputs)} tensors each")
    for row in output_tensor_lists:
        for out, x in zip(row, inputs):
            if out.shape != x.shape or out.dtype != x.dtype:
                raise ValueError(f"all_gather_coalesced: an output of shape {tuple(out.shape)} "
                                 f"({out.dtype}) for an input of shape {tuple(x.shape)} ({x.dtype})")
    if flat is None:
        return None
    gathered = empty(world * flat.numel(), dtype=flat.dtype)
    work = all_gather_into_tensor(gathered, flat, group=group, async_op=True)

    def write_back(_=None):
        for r, row in enumerate(output_tensor_lists):
            offset = r * flat.numel()
            for out in row:
                out.copy_(gathered[offset:offset + out.numel()].view(out.shape))
                offset += out.numel()
        return output_tensor_lists
    if async_op:
        return get_future(work).then(write_back)
    work.wait()
    write_back()
    return None
