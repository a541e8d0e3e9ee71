"""ember.distributed.TCPStore: torch's key-value Store served by one process over TCP
(include/ember/tcp_store.h, src/distributed/tcp_store.cpp), and torch's DistError classes.

env:// rendezvous through one when no $EMBER_RENDEZVOUS names another store: rank 0 serves it
on $MASTER_ADDR:$MASTER_PORT, as PyTorch does. A program may also make its own and pass it to
init_process_group(store=...)."""
import datetime
import time

from .. import _C
from ._store_api import Store, _bytes, _key


class DistError(RuntimeError):
    """torch.distributed.DistError: the base of the errors below."""


class DistBackendError(DistError):
    """torch.distributed.DistBackendError: a collective's backend failed."""


class DistNetworkError(DistError):
    """torch.distributed.DistNetworkError: a store or peer cannot be reached or listened on."""


class DistStoreError(DistError):
    """torch.distributed.DistStoreError: a store operation timed out."""


def _seconds(timeout, op):
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"{op}: timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    seconds = timeout.total_seconds()
    if seconds <= 0:
        raise ValueError(f"{op}: timeout must be positive, got {timeout}")
    return seconds


def _store_error(e):
    return DistStoreError(str(e)) if "wait timeout" in str(e) else DistNetworkError(str(e))


class TCPStore(Store):
    """TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
    wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
    torch.distributed.TCPStore. The master (is_master=True) serves the keys on `port` (0: any
    free port, see .port) on every interface; every store, master included, is a client of it.
    With world_size and wait_for_workers, each store counts itself in and the master waits
    until world_size stores have (DistStoreError after the timeout). get/wait block until the
    keys are set, up to the timeout.

    >>> store = ember.distributed.TCPStore("127.0.0.1", 0, 1, True)
    >>> store.set("first", "ready")
    >>> store.get("first"), store.add("count", 2), store.check(["first", "missing"])
    (b'ready', 2, False)
    """

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=datetime.timedelta(seconds=300), wait_for_workers=True,
                 multi_tenant=False, master_listen_fd=None, use_libuv=True):
        if not isinstance(host_name, str):
            raise TypeError(f"TCPStore(): host_name must be str, got {type(host_name).__name__}")
        if not isinstance(port, int) or isinstance(port, bool):
            raise TypeError(f"TCPStore(): port must be int, got {type(port).__name__}")
        if world_size is not None and (not isinstance(world_size, int) or world_size < 1):
            raise ValueError(f"TCPStore(): world_size must be None or a positive int, got {world_size!r}")
        if master_listen_fd is not None:
            raise NotImplementedError("TCPStore(): master_listen_fd (a socket listened on by the "
                                      "caller) is not supported by ember; pass the port")
        seconds = _seconds(timeout, "TCPStore()")
        try:
            self._store = _C._distributed.TCPStore(host_name, port, bool(is_master), seconds)
        except (RuntimeError, ValueError) as e:
            raise (DistNetworkError(str(e)) if isinstance(e, RuntimeError) else e) from None
        self.world_size = world_size
        self.url = f"tcp://{host_name}:{self._store.port}"  # init_process_group(store=...)
        if wait_for_workers and world_size is not None:
            self._wait_for_workers(world_size, seconds)

    def _wait_for_workers(self, world_size, seconds):
        # torch's protocol: every store adds 1 to "init/"; the master waits for world_size.
        self.add("init/", 1)
        if not self._store.is_master:
            return
        deadline = time.monotonic() + seconds
        while (joined := int(self._store.get("init/"))) < world_size:
            if time.monotonic() >= deadline:
                raise DistStoreError(f"Timed out after {int(seconds)} seconds waiting for clients. "
                                     f"{joined}/{world_size} clients joined.")
            time.sleep(0.01)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except RuntimeError as e:
            raise _store_error(e) from None

    # ---- torch's Store API ----------------------------------------------------------------
    def set(self, key, value):
        self._call(self._store.set, _key(key, "set"), _bytes(value, "set"))

    def get(self, key):
        """The value of key, waiting up to the timeout for another process to set it."""
        return self._call(self._store.get, _key(key, "get"))

    def add(self, key, amount):
        """Adds `amount` to the integer stored at key (0 when unset); returns the new value."""
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TypeError(f"add(): amount must be int, got {type(amount).__name__}")
        return self._call(self._store.add, _key(key, "add"), amount)

    def compare_set(self, key, expected_value, desired_value):
        """Sets key to desired_value if it holds expected_value (or is unset and
        expected_value is empty); returns the value key holds afterwards."""
        return self._call(self._store.compare_set, _key(key, "compare_set"),
                          _bytes(expected_value, "compare_set"), _bytes(desired_value, "compare_set"))

    def append(self, key, value):
        self._call(self._store.append, _key(key, "append"), _bytes(value, "append"))

    def multi_get(self, keys):
        return self._call(self._store.multi_get, [_key(k, "multi_get") for k in keys])

    def multi_set(self, keys, values):
        if len(keys) != len(values):
            raise ValueError(f"multi_set: {len(keys)} keys but {len(values)} values")
        self._call(self._store.multi_set, [_key(k, "multi_set") for k in keys],
                   [_bytes(v, "multi_set") for v in values])

    def check(self, keys):
        """True when every key is set (no waiting)."""
        return self._call(self._store.check, [_key(k, "check") for k in keys])

    def wait(self, keys, timeout=None):
        """Blocks until every key is set, or raises DistStoreError after `timeout` (default:
        the store's)."""
        seconds = self._store.timeout if timeout is None else _seconds(timeout, "wait()")
        self._call(self._store.wait, [_key(k, "wait") for k in keys], seconds)

    def delete_key(self, key):
        return self._call(self._store.delete_key, _key(key, "delete_key"))

    def num_keys(self):
        return self._call(self._store.num_keys)

    def set_timeout(self, timeout):
        self._store.set_timeout(_seconds(timeout, "set_timeout()"))

    @property
    def timeout(self):
        return datetime.timedelta(seconds=self._store.timeout)

    @property
    def host(self):
        return self._store.host

    @property
    def port(self):
        return self._store.port

    @property
    def libuvBackend(self):  # noqa: N802 (torch's name); ember's server is its own poll loop
        return False

    def __repr__(self):
        role = "master" if self._store.is_master else "client"
        return f"TCPStore({self.host!r}, {self.port}, {role})"
