"""torch.distributed's HashStore (keys in this process's memory) and PrefixStore (a namespace
inside another store), both Stores (_store_api.py).

init_process_group(store=HashStore()) rendezvous through the C++
store that src/distributed/store.cpp keeps under the HashStore's name ("hash://..."): enough for
a group of one process (a common single-process set-up), whose own keys are not the Python
object's; init_process_group(store=PrefixStore(p, s)) puts the group's keys under "p/" in s."""
import datetime
import itertools
import threading
import time

from ._store_api import _DEFAULT_TIMEOUT, Store, _bytes, _key
from ._tcp_store import DistStoreError


class QueueEmptyError(DistStoreError):
    """torch.distributed.QueueEmptyError: queue_pop(block=False) found the queue empty."""


def _deadline(timeout, default, op):
    t = default if timeout is None else timeout
    if not isinstance(t, datetime.timedelta):
        raise TypeError(f"{op}: timeout must be a datetime.timedelta, got {type(t).__name__}")
    return time.monotonic() + t.total_seconds()


class _HashData:
    """What HashStore handles share (clone): the keys, the queues, and one condition."""

    def __init__(self):
        self.kv = {}
        self.queues = {}
        self.cond = threading.Condition()


_names = itertools.count()


class HashStore(Store):
    """HashStore(): torch.distributed.HashStore, keys in this process's memory, safe to share
    between threads (get/wait block until another thread sets the keys, up to the timeout).
    init_process_group(store=HashStore(), rank=0, world_size=1) sets up a one-process group.

    >>> store = ember.distributed.HashStore()
    >>> store.set("a", "1")
    >>> store.get("a"), store.add("n", 5), store.num_keys()
    (b'1', 5, 2)
    """

    def __init__(self):
        self._d = _HashData()
        self._timeout = _DEFAULT_TIMEOUT
        self.url = f"hash://py-{next(_names)}"  # the C++ store init_process_group rendezvous in

    def _wait_for(self, ready, timeout, op):
        deadline = _deadline(timeout, self._timeout, op)
        with self._d.cond:
            while not ready():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DistStoreError("Wait timeout")
                self._d.cond.wait(left)

    def _change(self, fn):
        with self._d.cond:
            out = fn(self._d)
            self._d.cond.notify_all()
        return out

    def set(self, key, value):
        key, data = _key(key, "set"), _bytes(value, "set")
        self._change(lambda d: d.kv.__setitem__(key, data))

    def get(self, key):
        """The value of key, waiting up to the timeout for another thread to set it."""
        key = _key(key, "get")
        self._wait_for(lambda: key in self._d.kv, None, "get")
        with self._d.cond:
            return self._d.kv[key]

    def add(self, key, amount):
        """Adds `amount` to the integer stored at key (0 when unset); returns the new value."""
        key = _key(key, "add")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TypeError(f"add(): amount must be int, got {type(amount).__name__}")

        def add(d):
            old = d.kv.get(key, b"0")
            try:
                value = int(old) + amount
            except ValueError:
                raise ValueError(f"add(): the value at {key!r} is not an integer: {old!r}") from None
            d.kv[key] = str(value).encode()
            return value
        return self._change(add)

    def compare_set(self, key, expected_value, desired_value):
        """Sets key to desired_value if it holds expected_value (or is unset and
        expected_value is empty); returns the value key holds afterwards."""
        key = _key(key, "compare_set")
        expected, desired = _bytes(expected_value, "compare_set"), _bytes(desired_value, "compare_set")

        def compare_set(d):
            old = d.kv.get(key)
            if (old is None and expected == b"") or old == expected:
                d.kv[key] = desired
                return desired
            return expected if old is None else old
        return self._change(compare_set)

    def append(self, key, value):
        key, data = _key(key, "append"), _bytes(value, "append")
        self._change(lambda d: d.kv.__setitem__(key, d.kv.get(key, b"") + data))

    def check(self, keys):
        """True when every key is set (no waiting)."""
        keys = [_key(k, "check") for k in keys]
        with self._d.cond:
            return all(k in self._d.kv for k in keys)

    def wait(self, keys, timeout=None):
        """Blocks until every key is set, or raises DistStoreError after `timeout` (default:
        the store's)."""
        keys = [_key(k, "wait") for k in keys]
        self._wait_for(lambda: all(k in self._d.kv for k in keys), timeout, "wait()")

    def delete_key(self, key):
        key = _key(key, "delete_key")
        return self._change(lambda d: d.kv.pop(key, None) is not None)

    def num_keys(self):
        with self._d.cond:
            return len(self._d.kv)

    def list_keys(self):
        with self._d.cond:
            return list(self._d.kv)

    def queue_push(self, key, value):
        key, data = _key(key, "queue_push"), _bytes(value, "queue_push")
        self._change(lambda d: d.queues.setdefault(key, []).append(data))

    def queue_pop(self, key, block=True):
        """The oldest value pushed to the queue at key; waits (up to the timeout) for one when
        the queue is empty, or raises QueueEmptyError with block=False."""
        key = _key(key, "queue_pop")
        if block:
            self._wait_for(lambda: self._d.queues.get(key), None, "queue_pop()")
        with self._d.cond:
            q = self._d.queues.get(key)
            if not q:
                raise QueueEmptyError("queue is empty")
            return q.pop(0)

    def queue_len(self, key):
        with self._d.cond:
            return len(self._d.queues.get(_key(key, "queue_len"), ()))

    def clone(self):
        """Another HashStore on the same keys (and the same rendezvous name)."""
        other = HashStore.__new__(HashStore)
        other._d, other._timeout, other.url = self._d, self._timeout, self.url
        return other

    def __repr__(self):
        return f"HashStore({self.url[len('hash://'):]!r}, {self.num_keys()} keys)"


class PrefixStore(Store):
    """PrefixStore(prefix, store): torch.distributed.PrefixStore, the keys of `store` that
    start with "<prefix>/", seen without it. Given to init_process_group, the group's own keys
    go under the prefix too.

    >>> inner = ember.distributed.HashStore()
    >>> run = ember.distributed.PrefixStore("run1", inner)
    >>> run.set("step", "7")
    >>> inner.get("run1/step"), run.list_keys()
    (b'7', ['step'])
    """

    def __init__(self, prefix, store):
        if not isinstance(prefix, str):
            raise TypeError(f"PrefixStore(): prefix must be str, got {type(prefix).__name__}")
        if not isinstance(store, Store):
            raise TypeError(f"PrefixStore(): store must be a torch.distributed.Store, got "
                            f"{type(store).__name__}")
        self._prefix, self._store = prefix, store
        self.url = getattr(store, "url", None)
        self.world_size = getattr(store, "world_size", -1)

    @property
    def underlying_store(self):
        return self._store

    @property
    def _group_prefix(self):
        """The prefix of every key this store maps to, outermost first (init_process_group)."""
        inner = getattr(self._store, "_group_prefix", "")
        return f"{inner}/{self._prefix}" if inner else self._prefix

    def _k(self, key, op):
        return f"{self._prefix}/{_key(key, op)}"

    def set(self, key, value):
        self._store.set(self._k(key, "set"), value)

    def get(self, key):
        return self._store.get(self._k(key, "get"))

    def add(self, key, amount):
        return self._store.add(self._k(key, "add"), amount)

    def compare_set(self, key, expected_value, desired_value):
        return self._store.compare_set(self._k(key, "compare_set"), expected_value, desired_value)

    def append(self, key, value):
        self._store.append(self._k(key, "append"), value)

    def multi_get(self, keys):
        return self._store.multi_get([self._k(k, "multi_get") for k in keys])

    def multi_set(self, keys, values):
        self._store.multi_set([self._k(k, "multi_set") for k in keys], values)

    def check(self, keys):
        return self._store.check([self._k(k, "check") for k in keys])

    def wait(self, keys, timeout=None):
        self._store.wait([self._k(k, "wait") for k in keys], timeout)

    def delete_key(self, key):
        return self._store.delete_key(self._k(key, "delete_key"))

    def num_keys(self):
        """The underlying store's count, as torch's (keys outside the prefix included)."""
        return self._store.num_keys()

    def list_keys(self):
        start = self._prefix + "/"
        return [k[len(start):] for k in self._store.list_keys() if k.startswith(start)]

    def queue_push(self, key, value):
        self._store.queue_push(self._k(key, "queue_push"), value)

    def queue_pop(self, key, block=True):
        return self._store.queue_pop(self._k(key, "queue_pop"), block)

    def queue_len(self, key):
        return self._store.queue_len(self._k(key, "queue_len"))

    def set_timeout(self, timeout):
        self._store.set_timeout(timeout)

    @property
    def timeout(self):
        return self._store.timeout

    def has_extended_api(self):
        return self._store.has_extended_api()

    def clone(self):
        return PrefixStore(self._prefix, self._store.clone())

    def __repr__(self):
        return f"PrefixStore({self._prefix!r}, {self._store!r})"
