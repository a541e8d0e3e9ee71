"""torch.distributed.Store: the key-value interface every store of ember.distributed derives
from (FileStore, TCPStore, HashStore, PrefixStore), and the key/value checks they share."""
import datetime

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)  # torch's store timeout


def _bytes(value, op):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, list) and all(isinstance(b, int) for b in value):
        return bytes(value)
    raise TypeError(f"{op}(): value must be str or bytes, got {type(value).__name__}")


def _key(key, op):
    if not isinstance(key, str):
        raise TypeError(f"{op}(): key must be str, got {type(key).__name__}")
    return key


class Store:
    """torch.distributed.Store: the key-value interface every store implements. Subclass it
    and override set/get/add/... to make your own; the methods here raise NotImplementedError.

    >>> isinstance(ember.distributed.HashStore(), ember.distributed.Store)
    True
    """

    def _missing(self, op):
        raise NotImplementedError(f"{type(self).__name__}.{op}() is not implemented")

    def set(self, key, value):
        self._missing("set")

    def get(self, key):
        self._missing("get")

    def add(self, key, amount):
        self._missing("add")

    def compare_set(self, key, expected_value, desired_value):
        self._missing("compare_set")

    def append(self, key, value):
        self._missing("append")

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        if len(keys) != len(values):
            raise ValueError(f"multi_set: {len(keys)} keys but {len(values)} values")
        for k, v in zip(keys, values):
            self.set(k, v)

    def check(self, keys):
        self._missing("check")

    def wait(self, keys, timeout=None):
        self._missing("wait")

    def delete_key(self, key):
        self._missing("delete_key")

    def num_keys(self):
        self._missing("num_keys")

    def list_keys(self):
        self._missing("list_keys")

    def queue_push(self, key, value):
        self._missing("queue_push")

    def queue_pop(self, key, block=True):
        self._missing("queue_pop")

    def queue_len(self, key):
        self._missing("queue_len")

    def set_timeout(self, timeout):
        """How long get/wait wait for a key (a datetime.timedelta)."""
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"set_timeout(): timeout must be a datetime.timedelta, got "
                            f"{type(timeout).__name__}")
        self._timeout = timeout

    @property
    def timeout(self):
        return getattr(self, "_timeout", _DEFAULT_TIMEOUT)

    def has_extended_api(self):
        """Whether append/multi_get/multi_set/compare_set are the store's own (they are
        for every store ember has)."""
        return True

    def clone(self):
        """Another handle on the same keys."""
        self._missing("clone")

    def barrier(self, key, world_size, timeout=None):
        """Blocks until `world_size` callers have called barrier(key, ...), as torch's: they
        count themselves in at "<key>/num_members" and the last one sets "<key>/last_member"."""
        if self.add(f"{key}/num_members", 1) == world_size:
            self.set(f"{key}/last_member", "1")
        self.wait([f"{key}/last_member"], timeout)
