"""DeviceMesh: the ranks of a job laid out as an n-d array, with one process group per line
of each dimension, as torch.distributed.device_mesh.

    mesh = init_device_mesh("cpu", (2, 4), mesh_dim_names=("replicate", "shard"))
    mesh["shard"].get_group()        # this rank's group of 4 (the ranks its row holds)
    mesh.get_local_rank("replicate") # this rank's coordinate along dimension 0

Every rank builds the same mesh: for each dimension, one `new_group` per line of the mesh
along it (all ranks call new_group for every line, in the same order, as ember's new_group
requires), and keeps the group of the line it is on. Slicing by dimension names
(`mesh["shard"]`, `mesh["replicate", "shard"]`) reuses those groups.
"""
import math

__all__ = ["DeviceMesh", "init_device_mesh"]


def _dist():
    from .. import distributed
    return distributed


class DeviceMesh:
    """An n-d array of global ranks (`mesh`) on `device_type` ("cpu": ember's only device),
    with a process group per mesh dimension for this rank.

    >>> ember.distributed.device_mesh.DeviceMesh.__name__
    'DeviceMesh'
    """

    def __init__(self, device_type, mesh=None, *, mesh_dim_names=None, backend_override=None,
                 _init_backend=True, _groups=None):
        from .. import int32, tensor, Tensor
        dist = _dist()
        if str(device_type) != "cpu":
            raise RuntimeError(f"DeviceMesh: device_type '{device_type}' is not available; "
                               "ember runs on the CPU ('cpu')")
        if not dist.is_initialized():
            dist.init_process_group()
        mesh = mesh if isinstance(mesh, Tensor) else tensor(mesh, dtype=int32)
        self.mesh = mesh.to(int32).detach().clone()
        self.device_type = "cpu"
        flat = self.mesh.reshape(-1).tolist()
        if len(set(flat)) != len(flat):
            raise RuntimeError(f"DeviceMesh: the mesh {self.mesh.tolist()} repeats a rank")
        world = dist.get_world_size()
        if flat and max(flat) >= world:
            raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but "
                               f"found {len(flat)} ranks!")
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(mesh_dim_names) != self.mesh.ndim:
                raise RuntimeError(f"DeviceMesh: mesh_dim_names {mesh_dim_names} must have one "
                                   f"name per mesh dimension ({self.mesh.ndim})")
            if len(set(mesh_dim_names)) != len(mesh_dim_names):
                raise RuntimeError(f"DeviceMesh: each mesh_dim_name must be unique, got "
                                   f"{mesh_dim_names}")
        self.mesh_dim_names = mesh_dim_names
        rank = dist.get_rank()
        self._coordinate = self._find(rank)
        self._groups = list(_groups) if _groups is not None else (
            self._make_groups() if _init_backend else [None] * self.mesh.ndim)

    def _find(self, rank):
        hits = (self.mesh == rank).nonzero().tolist()
        return tuple(hits[0]) if hits else None

    def _lines(self, dim):
        """The lists of ranks along `dim`, one per position of the other dimensions."""
        moved = self.mesh.movedim(dim, -1).reshape(-1, self.mesh.shape[dim])
        return moved.tolist()

    def _make_groups(self):
        dist = _dist()
        rank = dist.get_rank()
        groups = []
        for dim in range(self.mesh.ndim):
            mine = None
            for line in self._lines(dim):
                g = dist.new_group(line)
                if rank in line:
                    mine = g
            groups.append(mine)
        return groups

    # ---- shape and this rank's place ------------------------------------------------------
    @property
    def ndim(self):
        return self.mesh.ndim

    @property
    def shape(self):
        return tuple(self.mesh.shape)

    def size(self, mesh_dim=None):
        """The number of ranks in the mesh, or along one dimension."""
        return self.mesh.numel() if mesh_dim is None else self.mesh.shape[self._dim(mesh_dim)]

    def get_rank(self):
        """This process's global rank."""
        return _dist().get_rank()

    def get_coordinate(self):
        """This rank's index in the mesh (a tuple), None when it is not in the mesh."""
        return self._coordinate

    def get_local_rank(self, mesh_dim=None):
        """This rank's coordinate along `mesh_dim` (which a 1-d mesh may omit)."""
        dim = self._dim(mesh_dim, "get_local_rank")
        if self._coordinate is None:
            raise RuntimeError("get_local_rank: this rank is not part of the mesh")
        return self._coordinate[dim]

    def get_group(self, mesh_dim=None):
        """The process group of this rank's line along `mesh_dim`."""
        return self._groups[self._dim(mesh_dim, "get_group")]

    def get_all_groups(self):
        """This rank's group of every dimension, in dimension order."""
        return list(self._groups)

    def _dim(self, mesh_dim, op=None):
        if mesh_dim is None:
            if self.ndim > 1 and op is not None:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions: optional "
                                   f"kwarg `mesh_dim` needs to be specified when "
                                   f"device_mesh.ndim > 1 ({op}); get_all_groups() lists them all")
            return 0
        if isinstance(mesh_dim, str):
            names = self.mesh_dim_names or ()
            if mesh_dim not in names:
                raise KeyError(f"Invalid mesh_dim_names ('{mesh_dim}',) specified. Valid "
                               f"mesh_dim_names are {list(names)}.")
            return names.index(mesh_dim)
        if not -self.ndim <= int(mesh_dim) < self.ndim:
            raise IndexError(f"DeviceMesh: mesh_dim {mesh_dim} is out of range for a "
                             f"{self.ndim}-d mesh")
        return int(mesh_dim) % self.ndim

    # ---- slicing by names --------------------------------------------------------------
    def __getitem__(self, names):
        names = (names,) if isinstance(names, str) else tuple(names)
        valid = list(self.mesh_dim_names or ())
        if not names or any(n not in valid for n in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names "
                           f"are {valid}.")
        dims = [valid.index(n) for n in names]
        if dims != sorted(dims):
            raise KeyError(f"Invalid mesh_dim_names {names} specified: they must be in the "
                           f"mesh's order {valid}")
        if dims == list(range(self.ndim)):
            return self
        if self._coordinate is None:
            raise RuntimeError("DeviceMesh: this rank is not part of the mesh it slices")
        index = tuple(slice(None) if d in dims else self._coordinate[d] for d in range(self.ndim))
        return DeviceMesh("cpu", self.mesh[index], mesh_dim_names=names,
                          _groups=[self._groups[d] for d in dims])

    @staticmethod
    def from_group(group, device_type, mesh=None, *, mesh_dim_names=None):
        """A 1-d mesh over an existing process group (or an n-d one over a list of groups,
        one per dimension, with `mesh` given)."""
        dist = _dist()
        groups = list(group) if isinstance(group, (list, tuple)) else [group]
        if mesh is None:
            if len(groups) != 1:
                raise ValueError("DeviceMesh.from_group: give `mesh` with several groups")
            mesh = dist.get_process_group_ranks(groups[0])
        return DeviceMesh(device_type, mesh, mesh_dim_names=mesh_dim_names, _groups=groups)

    # ---- identity ------------------------------------------------------------------------
    def _key(self):
        return (tuple(self.mesh.shape), tuple(self.mesh.reshape(-1).tolist()),
                self.mesh_dim_names)

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        sizes = self.shape
        if self.mesh_dim_names:
            body = "(" + ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, sizes)) + ")"
        else:
            body = "(" + ", ".join(map(str, sizes)) + ("," if len(sizes) == 1 else "") + ")"
        return f"DeviceMesh({body}, 'cpu', stride={self._stride_text()})"

    def _stride_text(self):
        """The ranks' stride along each dimension (torch's layout; () for a size-1 one)."""
        flat = self.mesh.reshape(-1).tolist()
        parts = []
        for d, n in enumerate(self.shape):
            if n == 1:
                parts.append("()")
                continue
            step = math.prod(self.shape[d + 1:])
            parts.append(str(flat[step] - flat[0]) if len(flat) > step else "()")
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    __str__ = __repr__


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """The mesh of all ranks (0 .. world-1 in row-major order) in `mesh_shape`, its groups
    made (every rank calls it); starts the default group from the environment if needed.

    >>> ember.distributed.device_mesh.init_device_mesh.__name__
    'init_device_mesh'
    """
    from .. import arange, int32
    dist = _dist()
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None and len(tuple(mesh_dim_names)) != len(mesh_shape):
        raise RuntimeError(f"init_device_mesh: mesh_shape {mesh_shape} and mesh_dim_names "
                           f"{tuple(mesh_dim_names)} should have same length!")
    if not dist.is_initialized():
        dist.init_process_group()
    world = dist.get_world_size()
    if math.prod(mesh_shape) != world:
        raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but "
                           f"found {math.prod(mesh_shape)} ranks!" if math.prod(mesh_shape) > world
                           else f"init_device_mesh: mesh_shape {mesh_shape} holds "
                                f"{math.prod(mesh_shape)} ranks, the world has {world}")
    mesh = arange(world, dtype=int32).reshape(mesh_shape)
    return DeviceMesh(device_type, mesh, mesh_dim_names=mesh_dim_names)


_DEFAULT_MESHES = {}


def _default_mesh():
    """A 1-d mesh over every rank of the default group (made once per default group; every
    rank calls it, as the DTensor calls that need it are collective)."""
    dist = _dist()
    key = id(dist.group.WORLD)
    if key not in _DEFAULT_MESHES:
        _DEFAULT_MESHES.clear()
        _DEFAULT_MESHES[key] = init_device_mesh("cpu", (dist.get_world_size(),))
    return _DEFAULT_MESHES[key]
