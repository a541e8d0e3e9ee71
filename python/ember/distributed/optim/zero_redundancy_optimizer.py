"""ZeroRedundancyOptimizer: each rank keeps the optimizer state of a share of the parameters
(ZeRO stage 1), as torch.distributed.optim.ZeroRedundancyOptimizer.

    opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=ember.optim.AdamW, lr=1e-3)
    loss.backward()        # under DDP: every rank has the averaged gradients of all parameters
    opt.step()             # each rank updates its share, then broadcasts it to the others

The partition is torch's: within each parameter group, largest parameters first, each to the
rank holding the fewest elements so far (ties: the lowest rank). `self.optim` is the local
optimizer over this rank's share; `param_groups` are the whole groups (an LR scheduler
changes them; step copies their hyper-parameters into the local groups first). After the
local step, each rank's updated parameters travel as one flat buffer broadcast from it.
`consolidate_state_dict(to)` gathers every rank's state on rank `to`, whose `state_dict()`
then has the format (and parameter numbering) of an unsharded optimizer's.
"""
from ...optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]


def _dist():
    from ... import distributed
    return distributed


class ZeroRedundancyOptimizer(Optimizer):
    """Shards `optimizer_class`'s state over the ranks of `process_group` (see the module).

    >>> ember.distributed.optim.ZeroRedundancyOptimizer.__name__
    'ZeroRedundancyOptimizer'
    """

    def __init__(self, params, optimizer_class, process_group=None,
                 parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults):
        dist = _dist()
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp=True needs "
                                      "DDP's ZeRO comm hooks, which ember does not have")
        if not dist.is_initialized():
            raise RuntimeError("ZeroRedundancyOptimizer: the default process group has not "
                               "been initialized; call init_process_group")
        self._optimizer_class, self._zero_defaults = optimizer_class, dict(defaults)
        self.process_group = process_group or dist.group.WORLD
        self.world_size = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self.global_rank = dist.get_rank()
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._all_state_dicts = None
        self.optim = None
        super().__init__(params, defaults)
        self._partition()

    # ---- the partition and the local optimizer ----------------------------------------
    def _partition(self):
        sizes = [0] * self.world_size
        self._owner = {}                              # id(param) -> group rank
        self._per_rank = [[] for _ in range(self.world_size)]   # params in partition order
        local_groups, self._local_to_global = [], []
        for gi, group in enumerate(self.param_groups):
            mine = []
            for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                r = sizes.index(min(sizes))
                sizes[r] += p.numel()
                self._owner[id(p)] = r
                self._per_rank[r].append(p)
                if r == self.rank:
                    mine.append(p)
            if mine:
                local_groups.append({**{k: v for k, v in group.items() if k != "params"},
                                     "params": mine})
                self._local_to_global.append(gi)
        self.optim = (self._optimizer_class(local_groups, **self._zero_defaults)
                      if local_groups else None)

    def add_param_group(self, param_group):
        """Adds a group to the whole groups and re-partitions (the local states are kept for
        parameters that stay on this rank)."""
        super().add_param_group(param_group)
        if self.optim is not None:  # after construction: rebuild the local optimizer
            old = {id(p): self.optim.state[p] for g in self.optim.param_groups
                   for p in g["params"] if p in self.optim.state}
            self._partition()
            if self.optim is not None:
                for g in self.optim.param_groups:
                    for p in g["params"]:
                        if id(p) in old:
                            self.optim.state[p] = old[id(p)]

    def _sync_param_groups(self):
        if self.optim is None:
            return
        for local, gi in zip(self.optim.param_groups, self._local_to_global):
            for k, v in self.param_groups[gi].items():
                if k != "params":
                    local[k] = v

    # ---- the step ----------------------------------------------------------------------
    def step(self, closure=None, **kwargs):
        """The local optimizer's step on this rank's share, then every share broadcast from
        its rank; returns the closure's loss, if any."""
        self._sync_param_groups()
        if self.optim is not None:
            loss = self.optim.step(closure=closure, **kwargs) if closure is not None or kwargs \
                else self.optim.step()
        else:
            loss = closure() if closure is not None else None
        self._sync_params()
        return loss

    def _sync_params(self):
        from ... import cat, empty, no_grad
        dist = _dist()
        with no_grad():
            for r, params in enumerate(self._per_rank):
                if not params:
                    continue
                dtypes = {p.dtype for p in params}
                for dtype in sorted(dtypes, key=str):   # one flat buffer per dtype and rank
                    ps = [p for p in params if p.dtype == dtype]
                    n = sum(p.numel() for p in ps)
                    buf = (cat([p.detach().reshape(-1) for p in ps]) if r == self.rank
                           else empty(n, dtype=dtype))
                    src = dist.get_global_rank(self.process_group, r) \
                        if self.process_group is not dist.group.WORLD else r
                    dist.broadcast(buf, src=src, group=self.process_group)
                    if r != self.rank:
                        offset = 0
                        for p in ps:
                            p.detach().copy_(buf[offset:offset + p.numel()].view(p.shape))
                            offset += p.numel()

    # ---- state dicts -------------------------------------------------------------------
    def _global_index(self):
        index, start = {}, 0
        for g in self.param_groups:
            for i, p in enumerate(g["params"], start):
                index.setdefault(id(p), i)
            start += len(g["params"])
        return index

    def _local_state_dict(self):
        """This rank's optimizer state keyed by global parameter index."""
        if self.optim is None:
            return {}
        index = self._global_index()
        return {index[id(p)]: v for p, v in self.optim.state.items()}

    def consolidate_state_dict(self, to=0):
        """Gathers every rank's share of the state on rank `to` (a collective: every rank
        calls it); state_dict() then works there."""
        dist = _dist()
        gathered = [None] * self.world_size if self.rank == to else None
        dst = dist.get_global_rank(self.process_group, to) \
            if self.process_group is not dist.group.WORLD else to
        dist.gather_object(self._local_state_dict(), gathered, dst=dst, group=self.process_group)
        self._all_state_dicts = gathered

    def state_dict(self):
        """An unsharded optimizer's state dict (call consolidate_state_dict first, on every
        rank; only rank `to` holds it)."""
        if self._all_state_dicts is None:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please "
                               "call `consolidate_state_dict(to=...)` on all ranks beforehand "
                               "if you meant to save the global state.")
        self._sync_param_groups()
        state_dict = super().state_dict()
        state = {}
        for part in self._all_state_dicts:
            state.update(part)
        state_dict["state"] = dict(sorted(state.items()))
        return state_dict

    def load_state_dict(self, state_dict):
        """Loads an unsharded state dict (as state_dict() gives): each rank keeps its share."""
        super().load_state_dict(state_dict)        # hyper-parameters; state keyed by param
        whole = dict(self.state)
        self.state.clear()
        if self.optim is not None:
            for local, gi in zip(self.optim.param_groups, self._local_to_global):
                for k, v in self.param_groups[gi].items():
                    if k != "params":
                        local[k] = v
                for p in local["params"]:
                    if p in whole:
                        self.optim.state[p] = whole[p]

    def __repr__(self):
        inner = repr(self.optim) if self.optim is not None else "(no parameters on this rank)"
        return f"ZeroRedundancyOptimizer (rank {self.rank} of {self.world_size}): {inner}"
