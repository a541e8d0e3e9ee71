"""torch.utils.data.graph_settings: settings applied to every DataPipe of a pipeline's graph
(graph.traverse_dps): sharding (ShardingFilter), shuffling on or off, and the seeds of the
Shufflers. The DataLoader calls them: apply_shuffle_settings(dp, shuffle) when built with
shuffle=True/False, apply_random_seed(dp, rng) at each epoch, apply_sharding(dp, num_workers,
worker_id) in each worker."""
from .datapipes.iter.sharding import SHARDING_PRIORITIES
from .graph import traverse_dps

__all__ = ["SHARDING_PRIORITIES", "apply_random_seed", "apply_sharding", "apply_shuffle_seed",
           "apply_shuffle_settings", "get_all_graph_pipes"]


def get_all_graph_pipes(graph):
    """Every DataPipe in a graph (each once)."""
    out, seen, stack = [], set(), [graph]
    while stack:
        g = stack.pop()
        for key, (dp, sub) in g.items():
            if key not in seen:
                seen.add(key)
                out.append(dp)
                stack.append(sub)
    return out


def _shardable(dp):
    return callable(getattr(type(dp), "apply_sharding", None)) and \
        callable(getattr(type(dp), "is_shardable", None))


def apply_sharding(datapipe, num_of_instances, instance_id,
                   sharding_group=SHARDING_PRIORITIES.DEFAULT):
    """Tells the sharding pipe of the graph (at most one per branch) to keep shard
    instance_id of num_of_instances; returns datapipe."""
    def walk(graph, sharded_above):
        for _, (dp, sub) in graph.items():
            here = False
            if _shardable(dp) and dp.is_shardable():
                if sharded_above is not None:
                    raise RuntimeError("Sharding twice on a single pipeline is likely unintended "
                                       f"and will cause data loss. Sharding already applied to "
                                       f"{sharded_above} while trying to apply to {dp}")
                dp.apply_sharding(num_of_instances, instance_id, sharding_group=sharding_group)
                here = True
            walk(sub, dp if here else sharded_above)
    walk(traverse_dps(datapipe), None)
    return datapipe


def apply_shuffle_settings(datapipe, shuffle=None):
    """Turns every Shuffler of the graph on (shuffle=True) or off (False); None leaves them.
    With shuffle=True and no Shuffler in the graph, warns (nothing would be shuffled)."""
    if shuffle is None:
        return datapipe
    pipes = [dp for dp in get_all_graph_pipes(traverse_dps(datapipe))
             if callable(getattr(dp, "set_shuffle", None)) and
             callable(getattr(dp, "set_seed", None))]
    if not pipes and shuffle:
        import warnings
        warnings.warn("`shuffle=True` was set, but the datapipe does not contain a `Shuffler`. "
                      "Adding one at the end. Be aware that the default buffer size might not "
                      "be sufficient for your task.")
        datapipe = datapipe.shuffle()
        pipes = [datapipe]
    for dp in pipes:
        dp.set_shuffle(shuffle)
    return datapipe


def apply_random_seed(datapipe, rng):
    """Seeds every Shuffler of the graph with a seed drawn from `rng` (an ember.Generator), one
    draw per Shuffler in graph order; returns datapipe."""
    from ..._creation import empty
    from ..._dtype import int64
    pipes = [dp for dp in get_all_graph_pipes(traverse_dps(datapipe))
             if callable(getattr(dp, "set_seed", None))]
    for dp in pipes:
        dp.set_seed(int(empty((), dtype=int64).random_(generator=rng).item()))
    return datapipe


def apply_shuffle_seed(datapipe, rng):
    """The old name of apply_random_seed."""
    import warnings
    warnings.warn("`apply_shuffle_seed` is deprecated since 1.12 and will be removed in the "
                  "future releases. Please use `apply_random_seed` instead.", FutureWarning,
                  stacklevel=2)
    return apply_random_seed(datapipe, rng)
