"""Placements: how a DTensor's values lie along one dimension of its device mesh, as
torch.distributed.tensor.placement_types: Shard(dim) splits tensor dimension `dim` in
torch.chunk's pieces over the mesh dimension, Replicate() gives every rank the whole,
Partial(op) gives every rank a term of a pending reduction."""

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


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
