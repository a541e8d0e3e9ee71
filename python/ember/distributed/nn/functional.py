"""torch.distributed.nn.functional: collectives that record a gradient, so that a loss computed
from other ranks' tensors trains this rank's (CLIP-style losses gather every rank's features
with `all_gather`). Each returns new tensors and leaves its input alone.

Each collective's backward is its adjoint, sent back along the same group:

    forward            backward (on the output gradients)
    broadcast(src)     reduce (sum) to src; the other ranks' inputs get zeros
    reduce(dst)        broadcast from dst
    all_reduce         all_reduce with the same op (torch's rule, right for SUM and AVG)
    all_gather         reduce_scatter (sum): each rank gets the sum of its block's gradients
    reduce_scatter     all_gather
    gather(dst)        scatter from dst
    scatter(src)       gather to src
    all_to_all(_single) the all-to-all back, with the splits swapped

As in torch, broadcast, reduce_scatter, all_gather, all_to_all_single and all_reduce warn
(FutureWarning) that torch.distributed._functional_collectives is the newer API, and none of
them runs under `ember.compile`."""
import warnings as _warnings

from ... import autograd as _autograd, compiler as _compiler
from ..._tensor import Tensor as _Tensor
from .. import _collectives, _collectives_core as _core
from .._collectives_core import ReduceOp
from .. import group

__all__ = ["broadcast", "gather", "scatter", "reduce", "reduce_scatter", "all_gather",
           "all_to_all", "all_to_all_single", "all_reduce", "ReduceOp", "group"]

_NEWER = "torch.distributed._functional_collectives."


def _start(name, newer=None):
    if _compiler.is_compiling():
        hint = f" Use {_NEWER}{newer} instead." if newer else ""
        raise RuntimeError(f"torch.distributed.nn.functional.{name} is not supported under "
                           f"torch.compile.{hint}")
    if newer:
        _warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use "
                       f"{_NEWER}{newer} instead.", FutureWarning, stacklevel=3)


def _tensor(name, t):
    if not isinstance(t, _Tensor):
        raise TypeError(f"torch.distributed.nn.functional.{name}: expected a Tensor, got "
                        f"{type(t).__name__}")
    return t


class _Broadcast(_autograd.Function):
    @staticmethod
    def forward(ctx, src, group, x):
        ctx.src, ctx.group = src, group
        out = x.detach().clone()
        _core.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, g):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, g)
        if _core.get_rank(ctx.group) != ctx.src:
            gx = gx.detach().zero_()  # only src's tensor reached the others
        return None, None, gx


class _Reduce(_autograd.Function):
    @staticmethod
    def forward(ctx, dst, op, group, x):
        ctx.dst, ctx.group = dst, group
        out = x.detach().clone()
        _collectives.reduce(out, dst, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, g):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, g)


class _AllReduce(_autograd.Function):
    @staticmethod
    def forward(ctx, op, group, x):
        ctx.op, ctx.group = op, group
        out = x.detach().contiguous().clone()
        _core.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, g):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, g)


class _AllGather(_autograd.Function):
    @staticmethod
    def forward(ctx, group, x):
        ctx.group = group
        x = x.detach().contiguous()
        outs = [x.new_empty(x.shape) for _ in range(_core.get_world_size(group))]
        _core.all_gather(outs, x, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *gs):
        gs = [g.contiguous() for g in gs]
        gx = gs[0].new_empty(gs[0].shape)
        return None, _ReduceScatter.apply(ReduceOp.SUM, ctx.group, gx, *gs)


class _ReduceScatter(_autograd.Function):
    @staticmethod
    def forward(ctx, op, group, out, *xs):
        ctx.group = group
        out = out.detach().contiguous()
        _core.reduce_scatter(out, [x.detach().contiguous() for x in xs], op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, g):
        return (None, None, None) + _AllGather.apply(ctx.group, g)


class _Gather(_autograd.Function):
    @staticmethod
    def forward(ctx, dst, group, x):
        ctx.dst, ctx.group = dst, group
        x = x.detach().contiguous()
        outs = [x.new_zeros(x.shape) for _ in range(_core.get_world_size(group))]
        here = _core.get_rank(group) == dst
        _collectives.gather(x, outs if here else None, dst, group=group)
        return tuple(outs)  # zeros on the other ranks, as torch

    @staticmethod
    def backward(ctx, *gs):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *[g.contiguous() for g in gs])


class _Scatter(_autograd.Function):
    @staticmethod
    def forward(ctx, src, group, *xs):
        ctx.src, ctx.group = src, group
        if any(x.shape != xs[0].shape for x in xs):
            raise ValueError("torch.distributed.nn.functional.scatter: the tensors to scatter "
                             f"must have one shape, got {[tuple(x.shape) for x in xs]}")
        out = xs[0].detach().new_zeros(xs[0].shape)
        here = _core.get_rank(group) == src
        _collectives.scatter(out, [x.detach().contiguous() for x in xs] if here else None, src,
                             group=group)
        return out

    @staticmethod
    def backward(ctx, g):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, g)


class _AllToAll(_autograd.Function):
    @staticmethod
    def forward(ctx, group, outs, *xs):
        ctx.group, ctx.shapes = group, [x.shape for x in xs]
        outs = [o.detach() for o in outs]
        _collectives.all_to_all(outs, [x.detach().contiguous() for x in xs], group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *gs):
        back = [gs[0].new_empty(s) for s in ctx.shapes]
        return (None, None) + _AllToAll.apply(ctx.group, back, *[g.contiguous() for g in gs])


class _AllToAllSingle(_autograd.Function):
    @staticmethod
    def forward(ctx, group, out, out_splits, in_splits, x):
        ctx.group, ctx.shape, ctx.splits = group, x.shape, (out_splits, in_splits)
        out = out.detach()
        _collectives.all_to_all_single(out, x.detach().contiguous(), out_splits, in_splits,
                                       group=group)
        return out

    @staticmethod
    def backward(ctx, g):
        out_splits, in_splits = ctx.splits
        back = g.new_empty(ctx.shape)
        return (None, None, None, None,
                _AllToAllSingle.apply(ctx.group, back, in_splits, out_splits, g.contiguous()))


def broadcast(tensor, src, group=group.WORLD):
    """Rank src's tensor on every rank; its gradient sums every rank's gradient on src."""
    _start("broadcast", "broadcast")
    return _Broadcast.apply(src, group, _tensor("broadcast", tensor))


def gather(tensor, dst=0, group=group.WORLD):
    """Every rank's tensor, as a tuple on rank dst (zeros elsewhere)."""
    _start("gather")
    return _Gather.apply(dst, group, _tensor("gather", tensor))


def scatter(tensors, src=0, group=group.WORLD):
    """Rank r gets tensors[r] of rank src. Every rank passes tensors of the result's shape
    (torch's receivers pass a list too: only its length and shapes are read there)."""
    _start("scatter")
    return _Scatter.apply(src, group, *[_tensor("scatter", t) for t in tensors])


def reduce(tensor, dst, op=ReduceOp.SUM, group=group.WORLD):
    """The reduction of every rank's tensor, complete on rank dst."""
    _start("reduce")
    return _Reduce.apply(dst, op, group, _tensor("reduce", tensor))


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=group.WORLD):
    """Rank r gets the reduction of every rank's input_list[r] (written into output too)."""
    _start("reduce_scatter", "reduce_scatter_single")
    return _ReduceScatter.apply(op, group, _tensor("reduce_scatter", output),
                                *[_tensor("reduce_scatter", t) for t in input_list])


def all_gather(tensor, group=group.WORLD):
    """A tuple of every rank's tensor, on every rank."""
    _start("all_gather", "all_gather_single")
    return _AllGather.apply(group, _tensor("all_gather", tensor))


def all_to_all(output_tensor_list, input_tensor_list, group=group.WORLD):
    """Rank r's input_tensor_list[s] becomes rank s's output r; returns the outputs."""
    _start("all_to_all")
    return _AllToAll.apply(group, [_tensor("all_to_all", t) for t in output_tensor_list],
                           *[_tensor("all_to_all", t) for t in input_tensor_list])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=group.WORLD):
    """all_to_all on blocks of dim 0 (even blocks when the split sizes are None)."""
    _start("all_to_all_single", "all_to_all_single")
    return _AllToAllSingle.apply(group, _tensor("all_to_all_single", output), output_split_sizes,
                                 input_split_sizes, _tensor("all_to_all_single", input))


def all_reduce(tensor, op=ReduceOp.SUM, group=group.WORLD):
    """The reduction of every rank's tensor, on every rank (bitwise equal across ranks)."""
    _start("all_reduce", "all_reduce")
    return _AllReduce.apply(op, group, _tensor("all_reduce", tensor))
