"""ember.distributed.FileStore: torch's key-value Store on a folder shared by the processes.

The folder is the one Gloo's FileStore uses for init_process_group(store=...): the keys set
here live beside Gloo's rendezvous files, one file per key named "kv-" + the key in hex, so
neither side sees the other's. A write goes to a temporary file renamed into place (a reader
never sees half a value); add, compare_set, append and delete_key hold an exclusive lock
(flock on "kv.lock") for their read-modify-write, so processes sharing the folder agree."""
import fcntl
import os
import tempfile
import time

from ._store_api import _DEFAULT_TIMEOUT, Store, _bytes, _key

_POLL = 0.005  # seconds between looks for a key that is not there yet


class FileStore(Store):
    """FileStore(file_name, world_size=-1): torch.distributed.FileStore. Pass it to
    init_process_group(store=...) to rendezvous through the folder, or use it directly as a
    key-value store (set/get/add/compare_set/check/wait/delete_key/num_keys/append/multi_*).

    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = ember.distributed.FileStore(os.path.join(tmp.name, "store"), 1)
    >>> ember.distributed.init_process_group("gloo", store=store, rank=0)
    >>> ember.distributed.get_world_size()
    1
    >>> ember.distributed.destroy_process_group()
    """

    def __init__(self, file_name, world_size=-1):
        if not isinstance(file_name, (str, os.PathLike)):
            raise TypeError(f"FileStore(): file_name must be str, got {type(file_name).__name__}")
        if not isinstance(world_size, int) or isinstance(world_size, bool):
            raise TypeError(f"FileStore(): world_size must be int, got {type(world_size).__name__}")
        self.path = os.fspath(file_name)
        self.url = "file://" + self.path  # what init_process_group rendezvous through
        self.world_size = world_size
        self._timeout = _DEFAULT_TIMEOUT

    # ---- files ----------------------------------------------------------------------------
    def _folder(self):
        if os.path.exists(self.path) and not os.path.isdir(self.path):
            raise RuntimeError(f"FileStore: {self.path} is a file; ember's FileStore keeps its "
                               f"keys in a folder at that path")
        os.makedirs(self.path, exist_ok=True)
        return self.path

    def _file(self, key):
        return os.path.join(self._folder(), "kv-" + key.encode().hex())

    def _read(self, key):
        try:
            with open(self._file(key), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def _write(self, key, data):
        fd, tmp = tempfile.mkstemp(dir=self._folder(), prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, self._file(key))

    def _locked(self):
        lock = open(os.path.join(self._folder(), "kv.lock"), "a+b")
        fcntl.flock(lock, fcntl.LOCK_EX)
        return lock  # closing it releases the lock

    def _await(self, keys, timeout, op):
        limit = self._timeout if timeout is None else timeout
        seconds = limit.total_seconds() if hasattr(limit, "total_seconds") else float(limit)
        deadline = time.monotonic() + seconds
        while True:
            missing = [k for k in keys if not os.path.exists(self._file(k))]
            if not missing:
                return
            if time.monotonic() >= deadline:
                raise RuntimeError(f"{op}: Timeout waiting for key: {missing[0]} after "
                                   f"{int(seconds * 1000)} ms")
            time.sleep(_POLL)

    # ---- torch's Store API ----------------------------------------------------------------
    def set(self, key, value):
        data = _bytes(value, "set")
        with self._locked():
            self._write(_key(key, "set"), data)

    def get(self, key):
        """The value of key, waiting up to the timeout for another process to set it."""
        self._await([_key(key, "get")], None, "get")
        return self._read(key)

    def add(self, key, amount):
        """Adds `amount` to the integer stored at key (0 when unset); returns the new value."""
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TypeError(f"add(): amount must be int, got {type(amount).__name__}")
        with self._locked():
            old = self._read(_key(key, "add"))
            value = (int(old) if old else 0) + amount
            self._write(key, str(value).encode())
        return value

    def compare_set(self, key, expected_value, desired_value):
        """Sets key to desired_value if it holds expected_value (or is unset and
        expected_value is empty); returns the value key holds afterwards."""
        expected = _bytes(expected_value, "compare_set")
        desired = _bytes(desired_value, "compare_set")
        with self._locked():
            old = self._read(_key(key, "compare_set"))
            if (old is None and expected == b"") or old == expected:
                self._write(key, desired)
                return desired
            return expected if old is None else old

    def append(self, key, value):
        data = _bytes(value, "append")
        with self._locked():
            self._write(_key(key, "append"), (self._read(key) or b"") + data)

    def check(self, keys):
        """True when every key is set (no waiting)."""
        return all(os.path.exists(self._file(_key(k, "check"))) for k in keys)

    def wait(self, keys, timeout=None):
        """Blocks until every key is set, or raises after `timeout` (default: the store's)."""
        self._await([_key(k, "wait") for k in keys], timeout, "wait")

    def delete_key(self, key):
        with self._locked():
            try:
                os.remove(self._file(_key(key, "delete_key")))
                return True
            except FileNotFoundError:
                return False

    def num_keys(self):
        return sum(1 for n in os.listdir(self._folder()) if n.startswith("kv-"))

    def __repr__(self):
        return f"FileStore({self.path!r}, world_size={self.world_size})"
