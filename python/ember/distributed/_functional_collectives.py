"""torch.distributed._functional_collectives: collectives that return a new tensor and leave
their input alone, for code written in the functional style (diffusers' context-parallel
attention, DTensor). Each one runs the matching collective of ember.distributed on a copy.

torch's versions return an AsyncCollectiveTensor that waits on first use; ember's collectives
are synchronous, so these return plain tensors, already complete, and wait_tensor returns its
argument. The results have no gradient history, except all_to_all_single_autograd's (its backward
is the all-to-all back, with the splits swapped); the other *_autograd variants are not here.

A group is a ProcessGroup, a 1-d DeviceMesh, (DeviceMesh, dim), or a list of global ranks
naming the whole default group (other rank lists would need a group created on the fly, which
ember's groups, made collectively by new_group, cannot do)."""
from .. import _C, autograd as _autograd
from .._tensor import Tensor
from . import _collectives, _collectives_core as _core, _groups
from .device_mesh import DeviceMesh

_REDUCE_OPS = {"sum": _core.ReduceOp.SUM, "avg": _core.ReduceOp.AVG, "max": _core.ReduceOp.MAX,
               "min": _core.ReduceOp.MIN, "product": _core.ReduceOp.PRODUCT}


class AsyncCollectiveTensor(Tensor):
    """The type torch's functional collectives return before the result is waited on. ember's
    collectives finish before returning, so no tensor is ever of this type; it exists for
    `isinstance` checks. It opts out of __torch_function__, so defining it leaves routing off
    (docs/overrides.md)."""
    __torch_function__ = _C._disabled_torch_function_impl


def _group(op, group):
    if isinstance(group, _groups._d.ProcessGroup):
        return group
    if isinstance(group, DeviceMesh):
        if group.ndim != 1:
            raise ValueError(f"{op}: only a 1-d DeviceMesh is a group; pass (DeviceMesh, dim)")
        return group.get_group()
    if isinstance(group, tuple) and len(group) == 2 and isinstance(group[0], DeviceMesh) \
            and isinstance(group[1], int):
        return group[0].get_group(group[1])
    if isinstance(group, list):
        world = _groups.ranks_of(None, op)
        if sorted(group) == world:
            return _groups.world()
        raise NotImplementedError(f"{op}: a list of ranks other than the whole default group "
                                  f"({group}); pass a ProcessGroup from new_group")
    raise ValueError(f"{op}: group must be a ProcessGroup, a DeviceMesh, (DeviceMesh, int) or a "
                     f"list of ranks, got {type(group).__name__}")


def _reduce_op(op, name):
    if not isinstance(name, str) or name.lower() not in _REDUCE_OPS:
        raise ValueError(f"{op}: reduceOp must be one of {sorted(_REDUCE_OPS)}, got {name!r}")
    return _REDUCE_OPS[name.lower()]


def _input(op, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{op}: expected a Tensor, got {type(t).__name__}")
    return t.detach().contiguous()


def wait_tensor(tensor):
    """The result of a functional collective, complete (ember's already are)."""
    return tensor


def broadcast(self, src, group, tag=""):
    """A copy of rank `src`'s tensor on every rank of `group`."""
    out = _input("broadcast", self).clone()
    _core.broadcast(out, src=src, group=_group("broadcast", group))
    return out


def all_reduce(self, reduceOp, group, tag=""):
    """The reduction ('sum', 'avg', 'max', 'min', 'product') of every rank's tensor."""
    op = _reduce_op("all_reduce", reduceOp)
    out = _input("all_reduce", self).clone()
    _core.all_reduce(out, op=op, group=_group("all_reduce", group))
    return out


def all_reduce_coalesced(self, reduceOp, group, tag=""):
    """all_reduce of each tensor of a list."""
    return [all_reduce(t, reduceOp, group, tag) for t in self]


def all_gather_single(self, gather_dim, group, tag=""):
    """Every rank's tensor, concatenated along gather_dim in rank order."""
    pg = _group("all_gather_tensor", group)
    x = _input("all_gather_tensor", self)
    n = _core.get_world_size(pg)
    out = x.new_empty((n * x.shape[0],) + tuple(x.shape[1:])) if x.dim() else x.new_empty((n,))
    _core.all_gather_into_tensor(out, x, group=pg)
    if gather_dim != 0 and x.dim():
        out = _C.cat(list(out.chunk(n, 0)), gather_dim)
    return out


all_gather_tensor = all_gather_single


def reduce_scatter_single(self, reduceOp, scatter_dim, group, tag=""):
    """This rank's block along scatter_dim of the reduction of every rank's tensor."""
    op = _reduce_op("reduce_scatter_tensor", reduceOp)
    pg = _group("reduce_scatter_tensor", group)
    x = _input("reduce_scatter_tensor", self)
    n = _core.get_world_size(pg)
    if x.dim() == 0 or x.shape[scatter_dim] % n:
        raise ValueError(f"reduce_scatter_tensor: dim {scatter_dim} of a tensor of shape "
                         f"{tuple(x.shape)} does not split into {n} equal blocks")
    if scatter_dim != 0:
        x = _C.cat(list(x.chunk(n, scatter_dim)), 0)
    shape = list(x.shape)
    shape[0] //= n
    out = x.new_empty(shape)
    _core.reduce_scatter_tensor(out, x, op=op, group=pg)
    return out


reduce_scatter_tensor = reduce_scatter_single


def all_to_all_single(self, output_split_sizes, input_split_sizes, group, tag=""):
    """Rows of this rank's tensor, split by input_split_sizes, sent to the ranks in order; the
    rows received, by output_split_sizes, concatenated (equal blocks when both are None)."""
    pg = _group("all_to_all_single", group)
    x = _input("all_to_all_single", self)
    n = _core.get_world_size(pg)
    if (output_split_sizes is None) != (input_split_sizes is None):
        raise ValueError("all_to_all_single: give output_split_sizes and input_split_sizes "
                         "together, or neither")
    if output_split_sizes is None:
        output_split_sizes = input_split_sizes = [x.shape[0] // n] * n
    out = x.new_empty((sum(output_split_sizes),) + tuple(x.shape[1:]))
    _collectives.all_to_all_single(out, x, list(output_split_sizes), list(input_split_sizes),
                                   group=pg)
    return out


class _AllToAllSingle(_autograd.Function):
    @staticmethod
    def forward(ctx, x, output_split_sizes, input_split_sizes, group):
        ctx.splits, ctx.group = (output_split_sizes, input_split_sizes), group
        return all_to_all_single(x, output_split_sizes, input_split_sizes, group)

    @staticmethod
    def backward(ctx, grad):
        # each row's gradient goes back to the rank it came from
        out_splits, in_splits = ctx.splits
        return all_to_all_single(grad.contiguous(), in_splits, out_splits, ctx.group), None, None, None


def all_to_all_single_autograd(self, output_split_sizes, input_split_sizes, group, tag=""):
    """all_to_all_single that records a gradient: the backward sends each row's gradient back
    to the rank the row came from (mixture-of-experts dispatch and combine)."""
    return _AllToAllSingle.apply(self, output_split_sizes, input_split_sizes, group)


def permute_tensor(self, src_dst, group, tag=""):
    """Rank m's tensor sent to rank src_dst[m] (ranks of `group`); returns the one received."""
    pg = _group("permute_tensor", group)
    n, me = _core.get_world_size(pg), _core.get_rank(pg)
    if sorted(src_dst) != list(range(n)):
        raise ValueError(f"permute_tensor: src_dst must be a permutation of range({n}), got {src_dst}")
    outs, ins = [0] * n, [0] * n
    for src, dst in enumerate(src_dst):
        if src == me:
            ins[dst] = self.numel()
        if dst == me:
            outs[src] = self.numel()
    return all_to_all_single(self.reshape(-1), outs, ins, pg, tag).reshape(self.shape)
