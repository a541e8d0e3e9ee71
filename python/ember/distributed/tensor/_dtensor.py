"""DTensor: a tensor laid out over a DeviceMesh, as torch.distributed.tensor's, as far as
making, inspecting and moving one goes: `distribute_tensor` (scatter a whole tensor),
`DTensor.from_local` (wrap each rank's piece), `to_local`, `full_tensor`, `redistribute`
between Shard / Replicate / Partial placements, and the factories (zeros, ones, full, empty,
rand, randn).

Layout: for each mesh dimension i, placements[i] says how the values lie across the ranks of
that dimension (their group is mesh.get_group(i)). Shard(d) splits tensor dimension d in
torch.chunk's pieces, mesh dimensions nesting in order (mesh dimension 1 splits the piece
mesh dimension 0 gave). `redistribute` first makes the tensor whole on every rank (gathers
along the Shard dimensions, last mesh dimension first, and reduces the Partial ones), then
applies the target placements; a change of nothing costs nothing.

Not there: ember's ops do not take DTensors (torch dispatches every op on them through
__torch_dispatch__ with sharding rules): compute on `to_local()` pieces, or on
`full_tensor()`. A DTensor is not an ember.Tensor, so it cannot be an nn.Parameter
(`distribute_module`, tensor parallelism and FSDP2 need that). Collectives run without
autograd: gradients flow through `from_local` / `to_local` of the local pieces only.
"""
import math

from .placement_types import Partial, Placement, Replicate, Shard, _chunk_bounds, _StridedShard

__all__ = ["DTensor", "distribute_tensor", "zeros", "ones", "empty", "full", "rand", "randn"]


def _dist():
    from ... import distributed
    return distributed


def _check(device_mesh, placements, ndim, op):
    from ..device_mesh import DeviceMesh
    if not isinstance(device_mesh, DeviceMesh):
        raise TypeError(f"{op}: device_mesh must be a DeviceMesh, got {type(device_mesh).__name__}")
    placements = tuple(placements)
    if len(placements) != device_mesh.ndim:
        raise ValueError(f"{op}: `placements` must have the same length as `device_mesh.ndim`! "
                         f"Found placements length: {len(placements)}, and device_mesh.ndim: "
                         f"{device_mesh.ndim}.")
    out = []
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"{op}: placements must be Shard, Replicate or Partial, got {p!r}")
        if isinstance(p, _StridedShard):
            raise NotImplementedError(f"{op}: ember's DTensor does not lay out {p!r} (right-to-left "
                                      f"sharding); use Shard, Replicate or Partial")
        if isinstance(p, Shard):
            d = p.dim + ndim if p.dim < 0 else p.dim
            if not 0 <= d < ndim:
                raise IndexError(f"{op}: Shard(dim={p.dim}) is out of range for a {ndim}-d tensor")
            p = Shard(d)
        out.append(p)
    return tuple(out)


def _local_slice(t, mesh, placements):
    """This rank's piece of the whole tensor `t` under `placements`."""
    coord = mesh.get_coordinate()
    for i, p in enumerate(placements):
        if isinstance(p, Shard):
            start, end = _chunk_bounds(t.shape[p.dim], mesh.size(i), coord[i])
            t = t.narrow(p.dim, start, end - start)
        elif isinstance(p, Partial) and p.reduce_op == "sum" and coord[i] != 0:
            t = t.new_zeros(t.shape)  # one rank holds the value, the others add nothing
    return t.contiguous() if not t.is_contiguous() else t


def _gather_dim(local, mesh, i, dim, full_size):
    """all_gather along mesh dimension i of pieces split on tensor dimension `dim`."""
    from ... import cat, no_grad
    dist = _dist()
    group, parts = mesh.get_group(i), mesh.size(i)
    size = math.ceil(full_size / parts) if full_size else 0
    with no_grad():
        pad_shape = list(local.shape)
        pad_shape[dim] = size
        padded = local.new_zeros(pad_shape)
        if local.shape[dim]:
            padded.narrow(dim, 0, local.shape[dim]).copy_(local)
        pieces = [padded.new_empty(pad_shape) for _ in range(parts)]
        dist.all_gather(pieces, padded.contiguous(), group=group)
        kept = []
        for j, piece in enumerate(pieces):
            start, end = _chunk_bounds(full_size, parts, j)
            kept.append(piece.narrow(dim, 0, end - start))
        return cat(kept, dim)


def _reduce_dim(local, mesh, i, op):
    from ... import no_grad
    dist = _dist()
    ops = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG, "max": dist.ReduceOp.MAX,
           "min": dist.ReduceOp.MIN}
    with no_grad():
        out = local.clone()
        dist.all_reduce(out, op=ops[op], group=mesh.get_group(i))
    return out


class DTensor:
    """A tensor over a DeviceMesh (see the module): `to_local()` is this rank's piece, `shape`
    the whole tensor's.

    >>> ember.distributed.tensor.DTensor.__name__
    'DTensor'
    """

    def __init__(self, local_tensor, device_mesh, placements, shape):
        self._local_tensor = local_tensor
        self.device_mesh = device_mesh
        self.placements = tuple(placements)
        self._shape = tuple(shape)

    # ---- making one --------------------------------------------------------------------
    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False,
                   shape=None, stride=None, grad_placements=None):
        """Wraps each rank's piece: the whole shape is the pieces' along each Shard dimension
        (even pieces assumed, as torch, unless `shape` is given)."""
        from ..device_mesh import _default_mesh
        mesh = device_mesh or _default_mesh()
        placements = _check(mesh, placements or [Replicate()] * mesh.ndim, local_tensor.dim(),
                            "DTensor.from_local")
        if shape is None:
            shape = list(local_tensor.shape)
            for i, p in enumerate(placements):
                if isinstance(p, Shard):
                    shape[p.dim] *= mesh.size(i)
        if run_check:  # the Replicate dimensions' pieces must agree
            dist = _dist()
            for i, p in enumerate(placements):
                if isinstance(p, Replicate) and mesh.size(i) > 1:
                    pieces = [local_tensor.detach().new_empty(local_tensor.shape)
                              for _ in range(mesh.size(i))]
                    dist.all_gather(pieces, local_tensor.detach().contiguous(),
                                    group=mesh.get_group(i))
                    if not all(q.equal(pieces[0]) for q in pieces):
                        raise ValueError("DTensor.from_local(run_check=True): the pieces of a "
                                         f"Replicate mesh dimension ({i}) differ across ranks")
        return DTensor(local_tensor, mesh, placements, shape)

    # ---- what it is --------------------------------------------------------------------
    @property
    def shape(self):
        from ... import Size
        return Size(self._shape)

    def size(self, dim=None):
        return self.shape if dim is None else self._shape[dim]

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    @property
    def dtype(self):
        return self._local_tensor.dtype

    @property
    def device(self):
        return self._local_tensor.device

    @property
    def requires_grad(self):
        return self._local_tensor.requires_grad

    def numel(self):
        return math.prod(self._shape)

    def to_local(self, *, grad_placements=None):
        """This rank's piece (an ember.Tensor; autograd flows through it)."""
        return self._local_tensor

    def full_tensor(self, *, grad_placements=None):
        """The whole tensor on every rank (a collective)."""
        return self.redistribute(placements=[Replicate()] * self.device_mesh.ndim).to_local()

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False,
                     forward_dtype=None, backward_dtype=None):
        """The same values under other placements (a collective over the mesh's ranks)."""
        mesh = device_mesh or self.device_mesh
        if mesh != self.device_mesh:
            raise NotImplementedError("DTensor.redistribute: moving to another device mesh is "
                                      "not supported (the same mesh, other placements)")
        dst = _check(mesh, placements or [Replicate()] * mesh.ndim, self.ndim,
                     "DTensor.redistribute")
        local = self._local_tensor
        if forward_dtype is not None:
            local = local.to(forward_dtype)
        if dst == self.placements:
            return DTensor(local, mesh, dst, self._shape)
        whole = local
        # make it whole: undo the shards innermost first, reduce the partial terms
        shapes = self._piece_shapes()
        for i in reversed(range(mesh.ndim)):
            p = self.placements[i]
            if isinstance(p, Shard):
                whole = _gather_dim(whole, mesh, i, p.dim, shapes[i][p.dim])
            elif isinstance(p, Partial):
                whole = _reduce_dim(whole, mesh, i, p.reduce_op)
        return DTensor(_local_slice(whole, mesh, dst), mesh, dst, self._shape)

    def _piece_shapes(self):
        """The shape of the piece after mesh dimensions 0..i-1 have split it, for each i."""
        coord = self.device_mesh.get_coordinate()
        shape, out = list(self._shape), []
        for i, p in enumerate(self.placements):
            out.append(list(shape))
            if isinstance(p, Shard):
                start, end = _chunk_bounds(shape[p.dim], self.device_mesh.size(i), coord[i])
                shape[p.dim] = end - start
        return out

    def __repr__(self):
        return (f"DTensor(local_tensor={self._local_tensor!r}, device_mesh={self.device_mesh!r}, "
                f"placements={self.placements!r})")


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """Each rank of the mesh gets its piece of `tensor` (rank src_data_rank's; None: each rank's
    own values are used, no communication). Partial placements are not accepted, as torch.

    >>> ember.distributed.tensor.distribute_tensor.__name__
    'distribute_tensor'
    """
    from ... import no_grad
    from ..device_mesh import _default_mesh
    dist = _dist()
    mesh = device_mesh or _default_mesh()
    placements = _check(mesh, placements or [Replicate()] * mesh.ndim, tensor.dim(),
                        "distribute_tensor")
    if any(isinstance(p, Partial) for p in placements):
        raise RuntimeError("distribute_tensor: Partial placements are not supported; "
                           "use DTensor.from_local")
    whole = tensor.detach().clone()
    if src_data_rank is not None:
        with no_grad():
            if mesh.ndim == 1:
                dist.broadcast(whole, src=src_data_rank, group=mesh.get_group())
            elif mesh.size() == dist.get_world_size():
                dist.broadcast(whole, src=src_data_rank)
            else:
                raise NotImplementedError("distribute_tensor: a multi-dimensional mesh over part "
                                          "of the world needs src_data_rank=None")
    local = _local_slice(whole, mesh, placements)
    if tensor.requires_grad:
        local = local.detach().requires_grad_(True)
    return DTensor(local, mesh, placements, tensor.shape)


def _factory(make, size, device_mesh, placements, op, requires_grad=False, dtype=None,
             random=False, **kw):
    from ... import Generator, int64, randint
    from ..device_mesh import _default_mesh
    dist = _dist()
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    mesh = device_mesh or _default_mesh()
    placements = _check(mesh, placements or [Replicate()] * mesh.ndim, len(size), op)
    if random:  # one stream for the whole tensor, seeded alike on every rank
        seed = randint(0, 2 ** 62, (1,), dtype=int64)
        dist.broadcast(seed, src=0)
        whole = make(*size, generator=Generator().manual_seed(int(seed)), dtype=dtype)
    else:
        whole = make(*size, dtype=dtype, **kw)
    local = _local_slice(whole, mesh, placements).clone()
    return DTensor(local.requires_grad_(requires_grad), mesh, placements, size)


def zeros(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """A DTensor of zeros (each rank makes its piece).

    >>> ember.distributed.tensor.zeros.__name__
    'zeros'
    """
    from ... import zeros as z
    return _factory(z, size, device_mesh, placements, "zeros", requires_grad, dtype)


def ones(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None, placements=None):
    """A DTensor of ones.

    >>> ember.distributed.tensor.ones.__name__
    'ones'
    """
    from ... import ones as o
    return _factory(o, size, device_mesh, placements, "ones", requires_grad, dtype)


def empty(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """An uninitialized DTensor.

    >>> ember.distributed.tensor.empty.__name__
    'empty'
    """
    from ... import empty as e
    return _factory(e, size, device_mesh, placements, "empty", requires_grad, dtype)


def full(size, fill_value, *, dtype=None, layout=None, requires_grad=False, device_mesh=None,
         placements=None):
    """A DTensor filled with fill_value.

    >>> ember.distributed.tensor.full.__name__
    'full'
    """
    from ... import full as f
    return _factory(lambda *s, dtype=None: f(s, fill_value, dtype=dtype), tuple(size),
                    device_mesh, placements, "full", requires_grad, dtype)


def rand(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None, placements=None):
    """A DTensor of uniform [0, 1) values: the pieces of one whole tensor drawn alike on every
    rank (the seed comes from rank 0).

    >>> ember.distributed.tensor.rand.__name__
    'rand'
    """
    from ... import rand as r
    return _factory(r, size, device_mesh, placements, "rand", requires_grad, dtype, random=True)


def randn(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """A DTensor of standard normal values (as rand).

    >>> ember.distributed.tensor.randn.__name__
    'randn'
    """
    from ... import randn as r
    return _factory(r, size, device_mesh, placements, "randn", requires_grad, dtype, random=True)
