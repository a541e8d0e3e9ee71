"""torch.distributed.tensor._utils: where a rank's piece of a DTensor lies in the whole, from the
global shape, the mesh and the placements alone (no communication), as checkpoint readers
and writers (transformers' sharded loading, DCP) ask it."""
from .placement_types import Shard, _StridedShard, _StridedShardOffsetMode

__all__ = ["compute_local_shape_and_global_offset"]


def _compute_local_shape_and_global_offset(global_shape, mesh_shape, coordinate, placements,
                                           skip_offset=False):
    """The same from plain data: `coordinate` is this rank's index on each mesh dimension.
    Placements apply left to right; each sharding of a dimension narrows the global indices
    that an earlier one left this rank."""
    local_shape = list(global_shape)
    index = {}  # tensor dim -> the global indices this rank holds along it
    for mesh_dim, p in enumerate(placements):
        if not isinstance(p, (Shard, _StridedShard)):
            continue
        d = p.dim
        if not 0 <= d < len(local_shape):
            raise IndexError(f"compute_local_shape_and_global_offset: sharding dim {d} is out of "
                             f"range for a {len(local_shape)}-d tensor")
        held = index.get(d, range(global_shape[d]))
        if isinstance(p, _StridedShard):
            size, picks = p.local_shard_size_and_offset(local_shape[d], mesh_shape[mesh_dim],
                                                        coordinate[mesh_dim], _StridedShardOffsetMode.ALL)
        else:
            size, start = Shard.local_shard_size_and_offset(local_shape[d], mesh_shape[mesh_dim],
                                                            coordinate[mesh_dim])
            picks = range(start, start + size)
        local_shape[d] = size
        index[d] = [held[i] for i in picks]
    if skip_offset:
        return tuple(local_shape), ()
    # an empty piece starts past the end, as torch's
    offset = [0] * len(global_shape)
    for d, held in index.items():
        offset[d] = held[0] if held else global_shape[d]
    return tuple(local_shape), tuple(offset)


def compute_local_shape_and_global_offset(global_shape, mesh, placements, skip_offset=False):
    """(local shape, global offset) of this rank's piece of a DTensor of `global_shape` laid out
    over `mesh` by `placements` (Shard, _StridedShard, Replicate, Partial); ((0,), ()) on a rank
    outside the mesh.

    >>> import tempfile, ember.distributed as dist
    >>> from ember.distributed.tensor._utils import compute_local_shape_and_global_offset
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> mesh = dist.init_device_mesh("cpu", (1,))
    >>> compute_local_shape_and_global_offset((4, 6), mesh, [dist.tensor.Shard(1)])
    ((4, 6), (0, 0))
    >>> dist.destroy_process_group()
    """
    coordinate = mesh.get_coordinate()
    if coordinate is None:
        return (0,), ()
    return _compute_local_shape_and_global_offset(tuple(global_shape), tuple(mesh.shape),
                                                  coordinate, list(placements), skip_offset)
