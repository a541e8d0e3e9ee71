"""Placements: how a DTensor's values lie along one dimension of its device mesh, as
torch.distributed.tensor.placement_types: Shard(dim) splits tensor dimension `dim` in
torch.chunk's pieces over the mesh dimension, Replicate() gives every rank the whole,
Partial(op) gives every rank a term of a pending reduction; _StridedShard(dim, split_factor)
is FSDP2 + tensor parallelism's right-to-left sharding (here its sizes and offsets; ember's
DTensor does not lay one out)."""
import enum
import math

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


def _chunk_bounds(n, parts, index):
    """[start, end) of piece `index` when n elements are split as torch.chunk(n, parts) does."""
    size = math.ceil(n / parts) if n else 0
    return min(index * size, n), min((index + 1) * size, n)


class Placement:
    """Base class of Shard, Replicate and Partial.

    >>> t = ember.distributed.tensor
    >>> t.Shard(0).is_shard(), t.Replicate().is_shard()
    (True, False)
    """

    def is_shard(self, dim=None):
        return isinstance(self, Shard) and (dim is None or self.dim == dim)

    def is_replicate(self):
        return isinstance(self, Replicate)

    def is_partial(self, reduce_op=None):
        return isinstance(self, Partial) and (reduce_op is None or self.reduce_op == reduce_op)


class Shard(Placement):
    """Tensor dimension `dim` split over the mesh dimension, in torch.chunk's pieces (the last
    ones smaller or empty when it does not divide).

    >>> ember.distributed.tensor.Shard(1)
    Shard(dim=1)
    """

    def __init__(self, dim):
        self.dim = dim

    def __eq__(self, other):
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self):
        return hash(("Shard", self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"

    @staticmethod
    def local_shard_size_and_offset(curr_local_size, num_chunks, rank):
        """(size, offset) of piece `rank` when `curr_local_size` elements are split in
        torch.chunk's pieces over `num_chunks` ranks; the offset is relative to those elements.

        >>> ember.distributed.tensor.Shard.local_shard_size_and_offset(5, 4, 3)
        (0, 5)
        """
        start, end = _chunk_bounds(curr_local_size, num_chunks, rank)
        return end - start, start

    def _local_shard_size_and_offset(self, curr_local_size, num_chunks, rank):
        return Shard.local_shard_size_and_offset(curr_local_size, num_chunks, rank)


class _StridedShardOffsetMode(enum.IntEnum):
    """What _StridedShard.local_shard_size_and_offset returns as the offset: the FIRST index
    (-1 for an empty piece), ALL of them, or NONE."""
    FIRST = 0
    ALL = 1
    NONE = 2


class _StridedShard(Placement):
    """Tensor dimension `dim` split right to left: first into `split_factor` torch.chunk pieces
    (the shards of a mesh dimension to the right, as tensor parallelism makes them), then each
    of those over this mesh dimension; a rank holds its piece of every one. Not a Shard, as
    torch's (`isinstance(_StridedShard(0, split_factor=2), Shard)` is False).

    >>> s = ember.distributed.tensor.placement_types._StridedShard(0, split_factor=2)
    >>> s, s.local_shard_size_and_offset(8, 2, 1, 1)
    (_StridedShard(dim=0, sf=2), (4, [2, 3, 6, 7]))
    """

    def __init__(self, dim, *, split_factor=1, sf=None):
        if sf is not None:
            if split_factor != 1:
                raise TypeError("_StridedShard received both split_factor and sf")
            split_factor = sf
        if not isinstance(split_factor, int) or split_factor < 1:
            raise ValueError(f"_StridedShard: split_factor must be a positive int, got {split_factor!r}")
        self.dim, self.split_factor = dim, split_factor

    def __eq__(self, other):
        return (isinstance(other, _StridedShard) and other.dim == self.dim
                and other.split_factor == self.split_factor)

    def __hash__(self):
        return hash(("_StridedShard", self.dim, self.split_factor))

    def __repr__(self):
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self):
        return f"_S({self.dim}, {self.split_factor})"

    def local_shard_size_and_offset(self, curr_local_size, num_chunks, rank,
                                    offset_mode=_StridedShardOffsetMode.FIRST):
        """(size, offsets) of this rank's piece of `curr_local_size` elements: offsets as
        `offset_mode` says (the first index or -1, every index, or None)."""
        mode = _StridedShardOffsetMode(offset_mode)
        index = []
        for split in range(self.split_factor):
            a, b = _chunk_bounds(curr_local_size, self.split_factor, split)
            c, d = _chunk_bounds(b - a, num_chunks, rank)
            index.extend(range(a + c, a + d))
        if mode is _StridedShardOffsetMode.NONE:
            return len(index), None
        if mode is _StridedShardOffsetMode.FIRST:
            return len(index), index[0] if index else -1
        return len(index), index

    def _local_shard_size_and_offset(self, curr_local_size, num_chunks, rank,
                                     offset_mode=_StridedShardOffsetMode.FIRST):
        return self.local_shard_size_and_offset(curr_local_size, num_chunks, rank, offset_mode)


class Replicate(Placement):
    """Every rank of the mesh dimension holds the whole tensor.

    >>> ember.distributed.tensor.Replicate()
    Replicate()
    """

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Every rank holds a term: the value is their reduction with `reduce_op` ("sum", "avg",
    "max", "min"), done when redistributed to Replicate or Shard.

    >>> ember.distributed.tensor.Partial()
    Partial(sum)
    """

    def __init__(self, reduce_op="sum"):
        if reduce_op not in ("sum", "avg", "max", "min"):
            raise ValueError(f"Partial: reduce_op must be 'sum', 'avg', 'max' or 'min', got "
                             f"{reduce_op!r}")
        self.reduce_op = reduce_op

    def __eq__(self, other):
        return isinstance(other, Partial) and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("Partial", self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
