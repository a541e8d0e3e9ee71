"""Collectives of picklable Python objects, as torch: each object is pickled into a uint8
tensor, the sizes travel first (int64), then the bytes padded to the largest size."""
import io
import pickle


from . import _groups
from ._collectives import gather, recv, scatter, send
from ._collectives_core import _skip, all_gather_into_tensor, broadcast, get_rank, get_world_size
from .. import _creation
from .. import int64 as _int64, uint8 as _uint8, zeros as _zeros

_Pickler = pickle.Pickler


def _to_bytes(obj):
    f = io.BytesIO()
    _Pickler(f).dump(obj)
    return f.getvalue()


def _byte_tensor(data, size):
    """A uint8 tensor of `size` bytes starting with `data` (the rest zero)."""
    import numpy as np  # loaded on first use (Note [Lazy imports])
    a = np.zeros(size, dtype=np.uint8)
    a[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    return _creation.from_numpy(a)


def _load(t, size):
    return pickle.loads(t.numpy()[:size].tobytes())


def _sizes(n):
    return _zeros(n, dtype=_int64)


def _gathered_sizes(data, world, group):
    """Every rank's pickled size (all_gather), as a list."""
    sizes = _sizes(world)
    all_gather_into_tensor(sizes, _creation.tensor([len(data)], dtype=_int64), group=group)
    return sizes.tolist()


def _check_list(op, name, lst, min_len):
    if not isinstance(lst, list):
        raise TypeError(f"{op}: {name} must be a list, got {type(lst).__name__}")
    if len(lst) < min_len:
        raise ValueError(f"{op}: {name} has {len(lst)} entries, expected at least {min_len}")


def all_gather_object(object_list, obj, group=None):
    """object_list[r] becomes rank r's `obj` on every rank (object_list: one entry per rank).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [None]; dist.all_gather_object(out, {"a": 1}); out
    [{'a': 1}]
    >>> dist.destroy_process_group()
    """
    if _skip("all_gather_object", group):
        return
    world = get_world_size(group)
    _check_list("all_gather_object", "object_list", object_list, world)
    data = _to_bytes(obj)
    sizes = _gathered_sizes(data, world, group)
    out = _zeros(world * max(sizes), dtype=_uint8)
    all_gather_into_tensor(out, _byte_tensor(data, max(sizes)), group=group)
    chunks = out.reshape(world, max(sizes))
    for r in range(world):
        object_list[r] = _load(chunks[r], sizes[r])


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank `dst`'s object_gather_list[r] becomes rank r's `obj` (None on the other ranks).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [None]; dist.gather_object("hi", out, dst=0); out
    ['hi']
    >>> dist.destroy_process_group()
    """
    op = "gather_object"
    if _skip(op, group):
        return
    dst = _groups.root(op, group, dst, group_dst, "dst")
    me, world = get_rank(group), get_world_size(group)
    if me == dst:
        if object_gather_list is None:
            raise ValueError(f"{op}: argument `object_gather_list` must be specified on the destination rank")
        _check_list(op, "object_gather_list", object_gather_list, world)
    elif object_gather_list is not None:
        raise ValueError(f"{op}: argument `object_gather_list` must NOT be specified on non-destination ranks")
    data = _to_bytes(obj)
    sizes = _gathered_sizes(data, world, group)
    outs = [_zeros(max(sizes), dtype=_uint8) for _ in range(world)] if me == dst else None
    gather(_byte_tensor(data, max(sizes)), outs, group_dst=dst, group=group)
    if me == dst:
        for r in range(world):
            object_gather_list[r] = _load(outs[r], sizes[r])


def _unpickle_into(object_list, raw, sizes):
    import numpy as np  # loaded on first use (Note [Lazy imports])
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64).tolist()
    for i in range(len(sizes)):
        object_list[i] = pickle.loads(raw[offsets[i]:offsets[i + 1]])


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    """Sends the objects to `dst` (which calls recv_object_list with a list of the same length).

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.send_object_list([1], dst=0)  # one process: no peer to send to
    Traceback (most recent call last):
    ValueError: send: rank 0 cannot send to itself
    >>> dist.destroy_process_group()
    """
    op = "send_object_list"
    if _skip(op, group):
        return
    _check_list(op, "object_list", object_list, 0)
    blobs = [_to_bytes(o) for o in object_list]
    send(_creation.tensor([len(b) for b in blobs], dtype=_int64), dst=dst, group=group, group_dst=group_dst)
    data = b"".join(blobs)
    send(_byte_tensor(data, len(data)), dst=dst, group=group, group_dst=group_dst)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Fills object_list in place with the objects sent by `src` (None: any rank); returns
    the sender's global rank.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> dist.recv_object_list([None], src=0)  # one process: no peer to receive from
    Traceback (most recent call last):
    ValueError: recv: rank 0 cannot receive from itself
    >>> dist.destroy_process_group()
    """
    op = "recv_object_list"
    if _skip(op, group):
        return -1
    _check_list(op, "object_list", object_list, 0)
    sizes = _sizes(len(object_list))
    sender = recv(sizes, src=src, group=group, group_src=group_src)
    sizes = sizes.tolist()
    block = _zeros(sum(sizes), dtype=_uint8)
    recv(block, src=sender, group=group)
    _unpickle_into(object_list, block.numpy().tobytes(), sizes)
    return sender


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every rank's object_list (same length everywhere) becomes the one of `src`.

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> objs = ["x", 2]; dist.broadcast_object_list(objs, src=0); objs
    ['x', 2]
    >>> dist.destroy_process_group()
    """
    op = "broadcast_object_list"
    if _skip(op, group):
        return
    src = _groups.root(op, group, src, group_src, "src")
    _check_list(op, "object_list", object_list, 0)
    n = len(object_list)
    sizes = _sizes(n)
    if get_rank(group) == src:
        blobs = [_to_bytes(o) for o in object_list]
        sizes = _creation.tensor([len(b) for b in blobs], dtype=_int64)
    broadcast(sizes, group_src=src, group=group)
    sizes = sizes.tolist()
    total = sum(sizes)
    block = _byte_tensor(b"".join(blobs), total) if get_rank(group) == src else _zeros(total, dtype=_uint8)
    broadcast(block, group_src=src, group=group)
    if get_rank(group) != src:
        _unpickle_into(object_list, block.numpy().tobytes(), sizes)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """scatter_object_output_list[0] becomes `src`'s scatter_object_input_list[this rank].

    >>> import tempfile, ember.distributed as dist
    >>> tmp = tempfile.TemporaryDirectory()
    >>> dist.init_process_group("gloo", init_method="file://" + tmp.name, rank=0, world_size=1)
    >>> out = [None]; dist.scatter_object_list(out, [42], src=0); out
    [42]
    >>> dist.destroy_process_group()
    """
    op = "scatter_object_list"
    if _skip(op, group):
        return
    src = _groups.root(op, group, src, group_src, "src")
    _check_list(op, "scatter_object_output_list", scatter_object_output_list, 1)
    me, world = get_rank(group), get_world_size(group)
    if me == src:
        _check_list(op, "scatter_object_input_list", scatter_object_input_list, world)
        blobs = [_to_bytes(o) for o in scatter_object_input_list[:world]]
        longest = _creation.tensor([max(len(b) for b in blobs)], dtype=_int64)
    else:
        longest = _sizes(1)
    broadcast(longest, group_src=src, group=group)
    longest = int(longest.item())
    out, size = _zeros(longest, dtype=_uint8), _sizes(1)
    ins = [_byte_tensor(b, longest) for b in blobs] if me == src else None
    scatter(out, ins, group_src=src, group=group)
    lens = [_creation.tensor([len(b)], dtype=_int64) for b in blobs] if me == src else None
    scatter(size, lens, group_src=src, group=group)
    scatter_object_output_list[0] = _load(out, int(size.item()))
