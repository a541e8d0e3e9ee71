"""The DataLoader's worker processes (torch.utils.data._utils.worker).

Each worker has its own socket pair with the main process (multiprocessing.Pipe). It receives
(task number, key), turns the key into a batch (dataset[i] for each index, then collate_fn; or
one index_select on ember's fast path) and sends back (task number, pickled batch, number of
fds), then the batch's shared-memory fds in one SCM_RIGHTS message. Tensors of the batch are
in shared memory: default_collate and the fast path allocate their output there directly, and
any other tensor is copied there, so the main process maps the worker's pages instead of
receiving bytes. One message per batch replaces multiprocessing's resource_sharer (a socket
connection and an authentication handshake per tensor, ~0.4 ms each). The batch is pickled
in the worker's main thread, so a batch that cannot be pickled becomes an error in the parent.
"""
import collections.abc
import os
import pickle
import random
import socket
import sys
import traceback

from ... import _C
from ..._shared_memory import dumps_with_fds, loads_with_fds

__all__ = ["WorkerInfo", "get_worker_info"]

# How often a waiting worker checks that its parent still lives, and the parent that its
# workers do (seconds). Only the latency of noticing a death depends on it.
STATUS_CHECK_INTERVAL = 1.0


class WorkerInfo:
    """What get_worker_info() returns in a worker: id, num_workers, seed, dataset."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__dict__.get("_WorkerInfo__initialized", False):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process: its WorkerInfo (id, num_workers, seed, dataset, the
    worker's own copy); in the main process: None.

    >>> ember.utils.data.get_worker_info() is None
    True
    """
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the parent with its traceback text."""

    def __init__(self, where):
        exc_type, exc, tb = sys.exc_info()
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where
        try:  # the type must unpickle in the parent (a class defined in a function does not)
            pickle.loads(pickle.dumps(exc_type))
            self.exc_type = exc_type
        except Exception:
            self.exc_type = RuntimeError

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:  # an exception type that cannot be built from one message
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    def __repr__(self):  # KeyError prints repr(arg): keep the traceback readable
        return str(self)


class _IterableDatasetStopIteration:
    """A worker's copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Persistent workers: a new epoch starts (recreate the dataset iterator)."""


class _Fetcher:
    """Turns a key from the main process into a batch, as the single-process loader would."""

    def __init__(self, kind, dataset, auto_collation, collate_fn, drop_last, fast):
        self.kind, self.dataset, self.auto_collation = kind, dataset, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last
        self.fast = dataset._batch_fetcher() if fast else None
        self.it = iter(dataset) if kind == "iterable" else None
        from ._collate import default_collate
        # Collates whose allocations are the batch itself allocate it in shared memory.
        self.born_shared = fast or collate_fn is default_collate

    def __call__(self, key):
        if self.fast is not None:
            return self._shared(self.fast, key)
        if self.kind == "iterable":
            return self._iterable(key)
        if not self.auto_collation:
            return self.collate_fn(self.dataset[key])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(key) if callable(getitems) else [self.dataset[i] for i in key]
        return self._shared(self.collate_fn, data) if self.born_shared else self.collate_fn(data)

    def _iterable(self, batch_size):
        if batch_size is None:  # no auto-collation: one sample at a time
            return self.collate_fn(next(self.it))
        data = []
        for _ in range(batch_size):
            try:
                data.append(next(self.it))
            except StopIteration:
                break
        if not data or (self.drop_last and len(data) < batch_size):
            raise StopIteration
        return self._shared(self.collate_fn, data) if self.born_shared else self.collate_fn(data)

    @staticmethod
    def _shared(fn, arg):
        was = _C._set_shared_allocation(True)
        try:
            return fn(arg)
        finally:
            _C._set_shared_allocation(was)


def _to_shared(data):
    """The batch with every tensor in shared memory: a tensor that is not (a sample that views
    the dataset, a custom collate's output) is copied there, so the parent maps only the
    batch, never a whole dataset storage, and the worker's own tensors stay private."""
    if isinstance(data, _C.Tensor):
        if data.is_shared() or (data.requires_grad and not data.is_leaf):
            return data  # (the reducer refuses the second kind with torch's message)
        was = _C._set_shared_allocation(True)
        try:
            out = data.detach().clone()
        finally:
            _C._set_shared_allocation(was)
        return out.requires_grad_(True) if data.requires_grad else out
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        out = {k: _to_shared(v) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_to_shared(d) for d in data))
    if isinstance(data, (list, tuple)):
        out = [_to_shared(d) for d in data]
        return out if type(data) is list else (tuple(out) if type(data) is tuple else type(data)(out))
    return data


def _seed_worker(seed, worker_id, base_seed):
    random.seed(seed)
    _C.manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:  # (torch seeds NumPy's global stream too, from base seed and worker id)
        np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))


_MAX_FDS = 250  # per SCM_RIGHTS message (the kernel's limit is 253)


class Channel:
    """One end of a worker's socket pair: send/recv (task, object) with shared-memory fds."""

    def __init__(self, conn):
        self.conn = conn
        self.sock = None  # (made on first use: the fd must be this process's own)

    def _socket(self):
        if self.sock is None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(self.conn.fileno()))
        return self.sock

    def send(self, task, payload, fds):
        from multiprocessing.reduction import sendfds
        self.conn.send((task, payload, len(fds)))
        for i in range(0, len(fds), _MAX_FDS):
            sendfds(self._socket(), fds[i:i + _MAX_FDS])

    def recv(self):
        from multiprocessing.reduction import recvfds
        task, payload, nfds = self.conn.recv()
        fds = []
        try:
            while len(fds) < nfds:
                fds += recvfds(self._socket(), min(_MAX_FDS, nfds - len(fds)))
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        return task, None if payload is None else loads_with_fds(payload, fds)

    def close(self):
        if self.sock is not None:
            self.sock.close()
        self.conn.close()


def _worker_loop(kind, dataset, conn, auto_collation, collate_fn, drop_last, fast, base_seed, init_fn,
                 worker_id, num_workers):
    global _worker_info
    channel = Channel(conn)
    try:
        # N workers on 2 cores: one thread each (torch does the same), and OpenMP's pool
        # from before fork() is not used in the child.
        _C.set_num_threads(1)
        seed = base_seed + worker_id
        _seed_worker(seed, worker_id, base_seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"
        init_error, fetch = None, None
        try:
            from .datapipes.datapipe import IterDataPipe
            if isinstance(dataset, IterDataPipe):  # each worker reads its own shard, as torch
                from . import graph_settings
                graph_settings.apply_sharding(dataset, num_workers, worker_id)
            if init_fn is not None:
                init_fn(worker_id)
            fetch = _Fetcher(kind, dataset, auto_collation, collate_fn, drop_last, fast)
        except Exception:
            init_error = ExceptionWrapper(where)
        parent, exhausted = os.getppid(), False
        while True:
            if not conn.poll(STATUS_CHECK_INTERVAL):
                if os.getppid() != parent:  # the main process died: nobody will read
                    break
                continue
            r = conn.recv()
            if r is None:  # shut down
                break
            if isinstance(r, _ResumeIteration):
                if fetch is not None and kind == "iterable":
                    try:
                        fetch.it = iter(dataset)
                    except Exception:
                        init_error = ExceptionWrapper(where)
                exhausted = False
                channel.send(r, None, [])
                continue
            if exhausted:  # (the main process expects nothing more from this worker)
                continue
            task, key = r
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = _to_shared(fetch(key))
                except StopIteration:
                    if kind != "iterable":
                        data = ExceptionWrapper(where)
                    else:
                        data, exhausted = _IterableDatasetStopIteration(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where)
            try:
                payload, fds = dumps_with_fds(data)
            except Exception:
                payload, fds = dumps_with_fds(ExceptionWrapper(where + " while sending its batch"))
            channel.send(task, payload, fds)  # (data stays alive until its fds are sent)
            del data, payload, fds, r, key
    except (KeyboardInterrupt, EOFError, BrokenPipeError, ConnectionResetError):
        pass  # Ctrl-C reaches the whole process group; or the main process is gone
