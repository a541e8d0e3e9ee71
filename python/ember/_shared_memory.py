"""How ember tensors cross process boundaries (see docs/multiprocessing.md).

multiprocessing pickles what goes through a Queue, a Pipe or (with the spawn and forkserver
start methods) a Process's arguments with its ForkingPickler. ember registers a reducer there,
as torch does: the tensor's storage moves into shared memory in place (an anonymous memfd,
Note [Shared memory]), its fd travels with multiprocessing.reduction.DupFd (SCM_RIGHTS, or an
fd inherited by a spawned child), and the receiver maps the same pages and views them with the
same dtype, shape, strides and offset. Ordinary pickle (pickle.dumps, ember.save) is not
affected: it copies values.

`import ember` does not import multiprocessing (about 8 ms): the reducer is registered when
multiprocessing.reduction is first imported, by a one-shot import hook (or at once when it
already was).

Forked children also start with one ember thread when their parent had started threads:
OpenMP's thread pool (GNU libgomp) is not copied by fork(), and the child's first parallel
region would wait forever for the missing threads (PyTorch children hang there).
"""
import os
import sys
import weakref

from . import _C

__all__ = ["reduce_tensor", "register", "install_hook", "dumps_with_fds", "loads_with_fds"]

_NON_LEAF = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
             "does not support crossing process boundaries.  If you just want to transfer the data, "
             "call detach() on the tensor before serializing (e.g., putting it on the queue).")

# Storage identity -> its _StorageRef while a pickling holds it (the pickler's memo keeps it
# alive), so every view of one storage in one message shares one DupFd and arrives as a view
# of one storage.
_refs = weakref.WeakValueDictionary()


class _StorageRef:
    __slots__ = ("tensor", "fd", "nbytes", "__weakref__")

    def __init__(self, tensor, fd, nbytes):
        self.tensor, self.fd, self.nbytes = tensor, fd, nbytes  # (tensor keeps the storage alive)

    def __reduce__(self):
        fds = getattr(_channel, "sending", None) if _channel is not None else None
        if fds is not None:  # dumps_with_fds: the fd travels beside the bytes
            fds.append(self.fd)
            return (_rebuild_received, (len(fds) - 1, self.nbytes))
        from multiprocessing.reduction import DupFd
        return (_rebuild_storage, (DupFd(self.fd), self.nbytes))


def _rebuild_storage(dup_fd, nbytes):
    # The fd is ours now; the storage owns it (a memfd this process already maps gives back
    # the same storage, and the extra fd is closed).
    return _C._shared_storage_from_fd(dup_fd.detach(), nbytes)


# dumps_with_fds / loads_with_fds: a pickle whose shared-memory fds are returned beside the
# bytes instead of being fetched from the sender's multiprocessing.resource_sharer (a socket
# connection and an authentication handshake per storage). The DataLoader sends them over its
# per-worker socket with SCM_RIGHTS, in one message per batch.
_channel = None  # a threading.local, made on first use (threading is not loaded by `import ember`)


def _local():
    global _channel
    if _channel is None:
        import threading
        _channel = threading.local()
    return _channel


def dumps_with_fds(obj):
    """(pickled bytes, fds): the fds stay owned by their storages (keep obj alive until sent)."""
    from multiprocessing.reduction import ForkingPickler
    ch = _local()
    ch.sending = []
    try:
        return bytes(ForkingPickler.dumps(obj)), ch.sending
    finally:
        ch.sending = None


def loads_with_fds(payload, fds):
    """Unpickles what dumps_with_fds made; takes ownership of the received fds."""
    ch = _local()
    ch.receiving = list(fds)
    try:
        import pickle
        return pickle.loads(payload)
    finally:
        for fd in ch.receiving:  # (any the pickle did not use)
            if fd >= 0:
                os.close(fd)
        ch.receiving = None


def _rebuild_received(index, nbytes):
    fds = _channel.receiving
    fd, fds[index] = fds[index], -1
    return _C._shared_storage_from_fd(fd, nbytes)


def _rebuild_tensor(cls, whole, dtype, shape, strides, offset, requires_grad):
    t = _C._shared_view(whole, dtype, shape, strides, offset)
    if cls is not _C.Tensor:  # nn.Parameter
        return cls(t, requires_grad)
    return t.requires_grad_(True) if requires_grad else t


def reduce_tensor(t):
    """The ForkingPickler reducer: moves t's storage into shared memory (in place, once) and
    pickles the fd and the view. Like torch, a non-leaf tensor that requires grad is refused."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(_NON_LEAF)
    sid, fd, nbytes = _C._share_for_pickle(t)
    ref = _refs.get(sid)
    if ref is None:
        ref = _StorageRef(t.detach(), fd, nbytes)
        _refs[sid] = ref
    return (_rebuild_tensor, (type(t), ref, t.dtype, t._shape, t.stride(), t.storage_offset(),
                              t.requires_grad))


def register():
    from multiprocessing.reduction import ForkingPickler
    from .nn.parameter import Parameter
    # The dispatch table is looked up by exact type, so each class is registered.
    for cls in (_C.Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)


class _Loader:
    """Wraps multiprocessing.reduction's loader: runs the module, then registers."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            register()
        except Exception as e:  # never break `import multiprocessing`
            import warnings
            warnings.warn(f"ember: could not register the shared-memory tensor reducer: {e!r}")

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _Hook:
    """A meta-path finder that only watches for multiprocessing.reduction, once."""

    def find_spec(self, name, path=None, target=None):
        if name != "multiprocessing.reduction":
            return None
        _remove_hook()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


_hook = None


def _remove_hook():
    global _hook
    if _hook is not None and _hook in sys.meta_path:
        sys.meta_path.remove(_hook)
    _hook = None


_threads_at_fork = 1


def _before_fork():
    global _threads_at_fork
    try:
        _threads_at_fork = len(os.listdir("/proc/self/task"))
    except OSError:
        _threads_at_fork = 2  # (cannot tell: assume a pool exists)


def _after_fork_in_child():
    if _threads_at_fork > 1:
        _C.set_num_threads(1)


def install_hook():
    """Called by `import ember`: registers now if multiprocessing is loaded, else on its import;
    and makes forked children start with one thread (see the module docstring)."""
    global _hook
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
    if "multiprocessing.reduction" in sys.modules:
        register()
    elif _hook is None:
        _hook = _Hook()
        sys.meta_path.insert(0, _hook)
