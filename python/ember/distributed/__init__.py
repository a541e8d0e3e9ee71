"""ember.distributed: torch.distributed's collectives on Gloo (CPU, TCP).

    import ember.distributed as dist
    dist.init_process_group("gloo", init_method="file:///tmp/rdzv", rank=r, world_size=2)
    dist.all_reduce(t)                                  # in place, SUM by default
    work = dist.all_reduce(g, op=dist.ReduceOp.AVG, async_op=True)
    ...                                                 # keep computing
    work.wait()                                         # raises RuntimeError if it failed

Each process group runs its collectives in issue order on one communication thread
(C++, include/ember/distributed.h); this module only shapes arguments like torch.
all_reduce, broadcast, all_gather, reduce_scatter, barrier and the ranks are in
_collectives_core.py, subgroups (new_group, new_subgroups) in _groups.py, reduce/gather/scatter/all_to_all,
send/recv and monitored_barrier in _collectives.py, the object collectives in _objects.py;
docs/distributed.md has the table of what is supported.
"""
import atexit as _atexit
import datetime as _datetime

from .. import _C
from . import _errors, _groups
from ._file_store import FileStore
from ._tcp_store import TCPStore, DistError, DistBackendError, DistNetworkError, DistStoreError
from ._store_api import Store
from ._kv_stores import HashStore, PrefixStore, QueueEmptyError
from ._grad_bucket import GradBucket
from ._groups import new_group, new_subgroups, new_subgroups_by_enumeration
from ._collectives_core import (get_rank, get_world_size, all_reduce,  # noqa: F401
                                broadcast, all_gather, all_gather_into_tensor,
                                reduce_scatter, reduce_scatter_tensor, barrier)

_d = _C._distributed

from ._collectives_core import ReduceOp  # noqa: E402
Work = _d.Work
ProcessGroup = _d.ProcessGroup

from .constants import default_pg_timeout  # noqa: E402

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group",
           "get_rank", "get_world_size", "get_backend", "ReduceOp", "Work", "ProcessGroup",
           "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter",
           "reduce_scatter_tensor", "all_gather_single", "reduce_scatter_single", "get_backend_config",
           "barrier", "Backend", "group", "GroupMember", "FileStore",
           "RedisStore", "new_group", "new_subgroups", "new_subgroups_by_enumeration", "get_group_rank",
           "get_global_rank", "get_process_group_ranks", "reduce", "gather", "scatter", "all_to_all",
           "all_to_all_single", "send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv",
           "monitored_barrier", "all_gather_object", "broadcast_object_list", "gather_object",
           "scatter_object_list", "send_object_list", "recv_object_list", "GradBucket",
           "all_reduce_coalesced", "all_gather_coalesced", "is_torchelastic_launched",
           "get_node_local_rank", "is_backend_available", "is_ucc_available", "is_xccl_available",
           "get_default_backend_for_device", "supports_complex", "DeviceMesh", "init_device_mesh",
           "TCPStore", "DistError", "DistBackendError", "DistNetworkError", "DistStoreError", "Store",
           "HashStore", "PrefixStore", "QueueEmptyError"]


class Backend(str):
    """torch.distributed.Backend: ember has one, Gloo.

    >>> ember.distributed.Backend("GLOO") == ember.distributed.Backend.GLOO
    True
    """
    GLOO = "gloo"
    UNDEFINED = "undefined"
    # torch's other backends, by name (none of them is available: is_nccl_available() etc.)
    NCCL, XCCL, UCC, MPI, FAKE = "nccl", "xccl", "ucc", "mpi", "fake"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]
    # Which backend each device type uses by default, and the devices each backend can serve:
    # torch's tables (ember's devices are the CPU: gloo).
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL, "xpu": XCCL, "mps": GLOO}
    backend_capability = {GLOO: ["cpu", "cuda"], NCCL: ["cuda"], XCCL: ["xpu"], UCC: ["cpu", "cuda"],
                          MPI: ["cpu", "cuda"], FAKE: ["cpu", "cuda", "hpu", "xpu"]}

    def __new__(cls, name):
        return str.__new__(cls, str(name).lower())


class _GroupMemberType(type):
    @property
    def WORLD(cls):
        """The default ProcessGroup once init_process_group ran, else None (as torch)."""
        return _d.default_group() if _d.is_initialized() else None


class GroupMember(metaclass=_GroupMemberType):
    """torch's GroupMember: WORLD (the default group) and NON_GROUP_MEMBER. A collective's
    group=None also means the default group.

    >>> G = ember.distributed.GroupMember
    >>> G.WORLD is None, G.NON_GROUP_MEMBER
    (True, -100)
    """
    NON_GROUP_MEMBER = _groups.NON_GROUP_MEMBER  # -100, as torch


group = GroupMember


class RedisStore(Store):
    """A rendezvous through a redis server (Gloo's RedisStore): init_process_group(store=...).

    >>> store = ember.distributed.RedisStore("localhost", 6379, world_size=2)
    >>> store.url
    'redis://localhost:6379'
    """

    def __init__(self, host, port=6379, world_size=-1):
        self.url = f"redis://{host}:{int(port)}"
        self.world_size = world_size


def is_available():
    """is_available() -> bool

    True: ember.distributed is always built (Gloo over TCP, CPU tensors).

    >>> ember.distributed.is_available()
    True
    """

    return True


def is_gloo_available():
    return True


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_initialized():
    """is_initialized() -> bool

    Whether init_process_group has set up the default group (and destroy_process_group not yet
    closed it).

    >>> ember.distributed.is_initialized()
    False
    """

    return _d.is_initialized()


def _seconds(timeout):
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if isinstance(timeout, _datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    raise TypeError(f"init_process_group: timeout must be a datetime.timedelta, got {type(timeout).__name__}")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Joins the default group; blocks until all `world_size` ranks have joined.

    init_method: "file:///path" (Gloo FileStore in that folder), "redis://host:port"
    (Gloo RedisStore), "tcp://host:port" (a TCPStore that rank 0 serves on that port) or
    "env://" (the default): RANK and WORLD_SIZE from the environment, the store from
    $EMBER_RENDEZVOUS, else tcp://$MASTER_ADDR:$MASTER_PORT, as PyTorch. store: a FileStore,
    RedisStore, TCPStore, HashStore (a group of one process) or a PrefixStore of one, whose
    prefix the group's keys get (kept until destroy_process_group). Keys are prefixed with
    $EMBER_RUN_ID (else "default") so runs sharing a store do not mix.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.is_initialized(), dist.get_world_size()
    (True, 1)
    >>> dist.destroy_process_group()
    """
    backend = "gloo" if backend is None else str(backend).lower()
    if store is not None:
        if init_method is not None:
            raise ValueError("init_process_group: give either init_method or store, not both")
        url = getattr(store, "url", None)
        if not isinstance(url, str):
            raise TypeError("init_process_group: store must be an ember.distributed.FileStore, TCPStore, "
                            f"HashStore, RedisStore or a PrefixStore of one, got {type(store).__name__}")
        init_method = url
        if world_size == -1:
            world_size = getattr(store, "world_size", -1)
    if init_method is None:
        init_method = "env://"
    if not isinstance(init_method, str):
        raise TypeError(f"init_process_group: init_method must be a string, got {type(init_method).__name__}")
    # A given TCPStore is served by whoever made it (its master lives while we hold it).
    _d.init_process_group(backend, init_method, int(rank), int(world_size), _seconds(timeout),
                          store is None, getattr(store, "_group_prefix", ""))
    global _store
    _store = store
    _errors.install()  # under the launcher, an uncaught exception is reported to it
    global _exit_hook
    if not _exit_hook:
        # At exit, finish the queued collectives and stop the thread while Python still
        # runs (a queued tensor may hold a NumPy array).
        _atexit.register(lambda: _d.is_initialized() and _d.destroy_process_group())
        _exit_hook = True


_exit_hook = False
_store = None  # the store given to init_process_group, until destroy_process_group


def destroy_process_group(group=None):
    """Finishes the queued collectives and closes the connections: of `group` (a subgroup
    made by new_group), or of every group when None (or the default group). The store keys
    the group wrote are removed once all its members had connected.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.destroy_process_group()
    >>> dist.is_initialized()
    False
    """
    _groups.destroy(group)
    if not _d.is_initialized():
        global _store
        _store = None


def get_backend(group=None):
    """get_backend(group=None) -> Backend

    The group's backend: always Backend.GLOO, ember's only one.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_backend()
    'gloo'
    >>> dist.destroy_process_group()
    """

    if _groups.not_in_group(group):
        raise ValueError("get_backend: invalid process group specified (this rank is not a member)")
    _d.get_rank(group)  # raises when not initialized
    return Backend.GLOO


def get_backend_config(group=None):
    """The group's backends by device, as torch spells them: 'cpu:gloo' (ember's one).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_backend_config()
    'cpu:gloo'
    >>> dist.destroy_process_group()
    """
    if _groups.not_in_group(group):
        raise ValueError("get_backend_config: invalid process group specified (this rank is not "
                         "a member)")
    return f"cpu:{get_backend(group)}"


def get_group_rank(group, global_rank):
    """The rank in `group` of the default group's rank `global_rank` (ValueError if not a member).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_group_rank(dist.new_group([0]), 0)
    0
    >>> dist.destroy_process_group()
    """
    return _groups.group_rank(group, int(global_rank), "get_group_rank")


def get_global_rank(group, group_rank):
    """The default group's rank of `group`'s rank `group_rank`.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_global_rank(dist.new_group([0]), 0)
    0
    >>> dist.destroy_process_group()
    """
    return _groups.global_rank(group, int(group_rank), "get_global_rank")


def get_process_group_ranks(group):
    """The global ranks of `group`'s members, in group-rank order.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.get_process_group_ranks(dist.new_group([0]))
    [0]
    >>> dist.destroy_process_group()
    """
    return _groups.ranks_of(group, "get_process_group_ranks")


from ._collectives import (reduce, gather, scatter, all_to_all, all_to_all_single, send, recv,  # noqa: E402
                           isend, irecv, P2POp, batch_isend_irecv, monitored_barrier,
                           all_reduce_coalesced, all_gather_coalesced)
# torch 2.13's names for the single-tensor forms (the same collectives)
all_gather_single = all_gather_into_tensor
reduce_scatter_single = reduce_scatter_tensor
from ._environment import (is_torchelastic_launched, get_node_local_rank,  # noqa: E402
                           is_backend_available, is_ucc_available, is_xccl_available,
                           get_default_backend_for_device, supports_complex)
from .device_mesh import DeviceMesh, init_device_mesh  # noqa: E402
from . import device_mesh  # noqa: E402,F401
from ._objects import (all_gather_object, broadcast_object_list, gather_object,  # noqa: E402
                       scatter_object_list, send_object_list, recv_object_list)


def __getattr__(name):
    # The subpackages load on first use (torch imports some of them with torch.distributed).
    if name in ("tensor", "fsdp", "optim", "algorithms", "nn", "distributed_c10d"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
