"""DistributedSampler: each of `num_replicas` processes visits its own share of the dataset
(torch.utils.data.distributed.DistributedSampler).

    sampler = DistributedSampler(dataset)              # rank and world size from ember.distributed
    loader = DataLoader(dataset, batch_size=bs, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)                       # a new order each epoch, the same on every rank
        for xb, yb in loader: ...

The split is torch's exactly: the epoch's order (0..n-1, or a permutation seeded by
seed + epoch), padded by repeating its start (or cut, with drop_last) to a multiple of
num_replicas, then rank r takes positions r, r + num_replicas, ... With shuffle=False the
indices are torch's; with shuffle=True the permutation comes from ember.Generator (NumPy's
PCG64), so it differs from torch.randperm's for the same seed (as for every ember sampler).
"""
import math

import numpy as np

from ..._generator import Generator, numpy_rng
from .sampler import T_co, _ArraySampler

__all__ = ["DistributedSampler"]


def _default(what, name):
    from ... import distributed as dist
    if not dist.is_initialized():
        raise RuntimeError(f"DistributedSampler: {name} was not given and the default process group is "
                           "not initialized (call ember.distributed.init_process_group first)")
    return what(dist)


class DistributedSampler(_ArraySampler[T_co]):
    """Rank `rank`'s indices of `dataset` among `num_replicas` processes (torch semantics).

    >>> s = ember.utils.data.DistributedSampler(range(5), num_replicas=2, rank=1,
    ...                                         shuffle=False)
    >>> list(s)
    [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _default(lambda d: d.get_world_size(), "num_replicas")
        if rank is None:
            rank = _default(lambda d: d.get_rank(), "rank")
        if not isinstance(num_replicas, int) or isinstance(num_replicas, bool) or num_replicas < 1:
            raise ValueError("DistributedSampler: num_replicas should be a positive integer, got "
                             f"{num_replicas!r}")
        if not isinstance(rank, int) or isinstance(rank, bool):
            raise TypeError(f"DistributedSampler: rank should be an integer, got {type(rank).__name__}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # Cut the tail so every rank gets the same count (torch's formula).
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def _order(self, n):
        """The whole epoch's order before the split (the same on every rank)."""
        if not self.shuffle:
            return np.arange(n, dtype=np.int64)
        g = Generator().manual_seed(self.seed + self.epoch)
        return numpy_rng(g).permutation(n).astype(np.int64)

    def _index_array(self):
        indices = self._order(len(self.dataset))
        if not self.drop_last:
            # Pad by repeating the order from its start, as often as needed (torch's padding).
            indices = np.resize(indices, self.total_size) if len(indices) else indices
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise RuntimeError(f"DistributedSampler: {len(indices)} indices for a total size of "
                               f"{self.total_size} (did the dataset change size?)")
        return indices[self.rank:self.total_size:self.num_replicas]

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Call at the start of each epoch (before iterating the DataLoader): with shuffle, each
        epoch then has its own order, the same on every rank."""
        self.epoch = epoch
