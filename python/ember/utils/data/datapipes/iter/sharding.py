"""ShardingFilter (`.sharding_filter`): one shard of the stream per worker / process."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe

__all__ = ["SHARDING_PRIORITIES", "ShardingFilter"]


class SHARDING_PRIORITIES:
    """The sharding groups of torch (DEFAULT applies to every group)."""
    DEFAULT = 1
    DISTRIBUTED = 2
    MULTIPROCESSING = 3


@functional_datapipe("sharding_filter")
class ShardingFilter(IterDataPipe):
    """Keeps the items i with i % num_of_instances == instance_id, set by apply_sharding (the
    DataLoader calls it in each worker: instance = worker id, instances = num_workers)."""

    def __init__(self, source_datapipe, sharding_group_filter=None):
        self.source_datapipe = source_datapipe
        self.sharding_group_filter = sharding_group_filter
        self.groups = {}
        self.num_of_instances = 1
        self.instance_id = 0
        self._update_num_of_instances()

    def is_shardable(self):
        return True

    def apply_sharding(self, num_of_instances, instance_id,
                       sharding_group=SHARDING_PRIORITIES.DEFAULT):
        if instance_id >= num_of_instances:
            raise ValueError(f"instance_id({instance_id}) should be smaller than "
                             f"num_of_instances({num_of_instances})")
        if sharding_group == SHARDING_PRIORITIES.DEFAULT:
            if len(self.groups) and SHARDING_PRIORITIES.DEFAULT not in self.groups:
                raise RuntimeError("ShardingFilter cannot mix DEFAULT and non DEFAULT groups")
        elif SHARDING_PRIORITIES.DEFAULT in self.groups:
            raise RuntimeError("ShardingFilter cannot mix DEFAULT and non DEFAULT groups")
        self.groups[sharding_group] = (num_of_instances, instance_id)
        self._update_num_of_instances()

    def _update_num_of_instances(self):
        # several groups nest, the highest priority number varying fastest:
        # instance = id_hi + n_hi * (id_next + n_next * ...)
        self.num_of_instances, self.instance_id = 1, 0
        for group in sorted(self.groups, reverse=True):
            if self.sharding_group_filter is None or group == self.sharding_group_filter:
                n, i = self.groups[group]
                self.instance_id += self.num_of_instances * i
                self.num_of_instances *= n

    def __iter__(self):
        for i, item in enumerate(self.source_datapipe):
            if i % self.num_of_instances == self.instance_id:
                yield item

    def __len__(self):
        if hasattr(self.source_datapipe, "__len__"):
            n = len(self.source_datapipe)
            return n // self.num_of_instances + (
                1 if self.instance_id < n % self.num_of_instances else 0)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")
