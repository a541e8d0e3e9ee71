"""One FSDP unit's parameters as one flat, sharded tensor (torch's FlatParameter and its handle).

Flattening: the unit's parameters (those of its module not inside a nested unit, shared ones
once) are laid end to end in one 1-d tensor, padded to a multiple of the world size; rank r
keeps elements [r*c, (r+1)*c), c = padded/world, as the `FlatParameter` the optimizer updates.
The module's original Parameters leave its `_parameters`; their names become plain attributes
holding views of the gathered tensor, so the module's own forward runs unchanged.

Each forward (`unshard`) all-gathers the shards into a fresh whole tensor, which is a leaf of
the autograd graph when gradients are wanted, and points the attributes at views of it. When
backward has accumulated that leaf's gradient, a post-accumulate-grad hook reduce-scatters it
(sum, then divided by the world size) into the shard's `.grad`, added to what is there. The
whole tensor lives from forward until that hook (torch's SHARD_GRAD_OP memory profile for
FULL_SHARD too: ember does not free and re-gather between forward and backward).

NO_SHARD (and any unit of a one-rank group, as torch switches to it) needs no gather: the flat
parameter is the whole tensor, the attributes are views of it, and a hook on it all-reduces
its gradient. Mixed precision gathers, then casts the whole tensor to `param_dtype`; the
gradient is reduced in `reduce_dtype` and lands in the shard's dtype.
"""
import contextlib
import math

from ... import empty, zeros
from ..._grad_mode import no_grad
from ...nn.parameter import Parameter

__all__ = ["FlatParameter"]


class FlatParameter(Parameter):
    """The 1-d shard of an FSDP unit's parameters that this rank keeps and its optimizer
    updates (the whole unit, unpadded, under NO_SHARD or on one rank).

    >>> p = ember.distributed.fsdp.FlatParameter(ember.zeros(4))
    >>> p.shape, p.requires_grad
    (ember.Size([4]), True)
    """
    _is_flat_param = True


class FlatParamHandle:
    """Owns one unit's flat parameter: flattening, gathers, gradient reduction, summoning."""

    def __init__(self, owner, infos, group, shard, mixed_precision, replicate_group=None):
        from .. import get_rank, get_world_size
        self.owner = owner                  # the wrapped module: holds `_flat_param`
        self.group, self.replicate_group = group, replicate_group
        self.world, self.rank = get_world_size(group), get_rank(group)
        self.shard = shard and self.world > 1
        self.mp = mixed_precision
        self.sync = True                    # False inside no_sync(): keep gradients unsharded
        self._unsynced = None               # gradients held back by no_sync()
        self._summoned = None               # (whole tensor, params) while summoned
        self.slots = []                     # (module, name, offset, numel, shape, fqn)
        first = {}
        dtypes, needs_grad = set(), set()
        offset = 0
        for module, name, p, fqn in infos:
            if id(p) not in first:
                first[id(p)] = offset
                dtypes.add(p.dtype)
                needs_grad.add(p.requires_grad)
                offset += p.numel()
            self.slots.append((module, name, first[id(p)], p.numel(), tuple(p.shape), fqn))
        if len(dtypes) > 1:
            raise ValueError(f"FullyShardedDataParallel: must flatten tensors with uniform dtype "
                             f"but got {sorted(map(str, dtypes))}")
        if len(needs_grad) > 1:
            raise ValueError("FullyShardedDataParallel: must flatten tensors with uniform "
                             "`requires_grad` when `use_orig_params=False`")
        self.numel = offset
        self.chunk = math.ceil(offset / self.world) if self.shard else offset
        padded = self.chunk * self.world if self.shard else offset
        whole = zeros(padded, dtype=dtypes.pop())
        with no_grad():
            for module, name, start, n, *_ in self.slots:
                whole[start:start + n].copy_(module._parameters[name].reshape(-1))
        local = whole[self._mine()].clone() if self.shard else whole
        flat = FlatParameter(local, requires_grad=needs_grad.pop())
        for module, name, *_ in self.slots:
            module._parameters.pop(name, None)
        owner.register_parameter("_flat_param", flat)
        if self.direct and self.world > 1 and flat.requires_grad:
            flat.register_post_accumulate_grad_hook(self._all_reduce_direct)
        self._point_at(whole.detach() if self.shard else flat.detach())

    def _mine(self):
        """This rank's slice of the padded whole."""
        return slice(self.rank * self.chunk, (self.rank + 1) * self.chunk)

    # ---- the flat parameter and the attributes that view it ---------------------------
    @property
    def flat(self):
        return self.owner._parameters["_flat_param"]

    @property
    def direct(self):
        """The forward views the flat parameter itself: nothing to gather or cast."""
        return not self.shard and (self.mp is None or self.mp.param_dtype is None)

    def _point_at(self, whole):
        for module, name, start, n, shape, _ in self.slots:
            module.__dict__[name] = whole[start:start + n].view(shape)

    def _gather(self, source):
        """The whole unit (padded) from every rank's shard of `source` (a 1-d tensor)."""
        from .. import all_gather_into_tensor
        if not self.shard:
            return source.detach().clone()
        whole = empty(self.chunk * self.world, dtype=source.dtype)
        all_gather_into_tensor(whole, source.detach().contiguous(), group=self.group)
        return whole

    # ---- forward and backward ----------------------------------------------------------
    def unshard(self, grad_wanted):
        """Points the module's attributes at this forward's whole parameters."""
        if self.direct:
            self._point_at(self.flat)
            return
        whole = self._gather(self.flat)
        if self.mp is not None and self.mp.param_dtype is not None:
            whole = whole.to(self.mp.param_dtype)
        if grad_wanted and self.flat.requires_grad:
            whole.requires_grad_(True)
            whole.register_post_accumulate_grad_hook(self._reduce)
        self._point_at(whole)

    def _reduce(self, whole):
        """Backward's hook on the gathered leaf: its gradient, reduced, into the shard's .grad."""
        from .. import all_reduce, reduce_scatter_tensor
        grad, whole.grad = whole.grad, None
        if grad is None:
            return
        if not self.sync:
            self._unsynced = grad if self._unsynced is None else self._unsynced + grad
            return
        if self._unsynced is not None:
            grad, self._unsynced = grad + self._unsynced, None
        mp = self.mp
        reduce_dtype = mp and (mp.reduce_dtype or mp.param_dtype)
        if reduce_dtype is not None:
            grad = grad.to(reduce_dtype)
        with no_grad():
            if self.shard:
                out = empty(self.chunk, dtype=grad.dtype)
                reduce_scatter_tensor(out, grad.contiguous(), group=self.group)
            else:
                out = grad.clone()
                if self.world > 1:
                    all_reduce(out, group=self.group)
            out.div_(self.world)
            self._across_replicas(out)
            if not (mp and mp.keep_low_precision_grads):
                out = out.to(self.flat.dtype)
            flat = self.flat
            if flat.grad is None:
                flat.grad = out
            else:
                flat.grad.add_(out)

    def _all_reduce_direct(self, flat):
        """NO_SHARD's hook on the flat parameter: average its gradient over the ranks (what an
        earlier no_sync() left in .grad is averaged with it, as DistributedDataParallel)."""
        from .. import all_reduce
        if self.sync and flat.grad is not None:
            with no_grad():
                all_reduce(flat.grad, group=self.group)
                flat.grad.div_(self.world)
                self._across_replicas(flat.grad)

    def _across_replicas(self, grad):
        """HYBRID strategies: the shard group's average, averaged over the replicas too."""
        from .. import all_reduce, get_world_size
        if self.replicate_group is not None:
            n = get_world_size(self.replicate_group)
            if n > 1:
                all_reduce(grad, group=self.replicate_group)
                grad.div_(n)

    # ---- the original parameters back, for state dicts and summon_full_params ----------
    @contextlib.contextmanager
    def summoned(self, writeback, with_grads):
        """The module's original names as Parameters holding the whole values (views of one
        gathered tensor); written back into this rank's shard on exit if `writeback`."""
        if self._summoned is not None:  # already summoned by an enclosing call
            yield
            return
        flat = self.flat
        whole = flat.detach() if not self.shard else self._gather(flat)
        grads = self._gather(flat.grad) if with_grads and flat.grad is not None else None
        self.owner._parameters.pop("_flat_param")
        try:
            made = {}
            for module, name, start, n, shape, _ in self.slots:
                if start not in made:
                    p = Parameter(whole[start:start + n].view(shape),
                                  requires_grad=flat.requires_grad)
                    if grads is not None:
                        p.grad = grads[start:start + n].view(shape)
                    made[start] = p
                module.__dict__.pop(name, None)
                module._parameters[name] = made[start]
            self._summoned = whole
            yield
        finally:
            self._summoned = None
            for module, name, *_ in self.slots:
                module._parameters.pop(name, None)
            self.owner._parameters["_flat_param"] = flat
            if writeback and self.shard:
                with no_grad():
                    flat.copy_(whole[self._mine()])
            self._point_at(whole if self.shard else flat.detach())
