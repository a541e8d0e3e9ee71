"""ember.futures: torch.futures' Future (a result that arrives later, from another thread or a
callback), collect_all and wait_all, on Python's threading primitives."""
import threading
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]


_T = TypeVar("_T")


class Future(Generic[_T]):
    """A value or an exception set once; wait() blocks until then. then() and
    add_done_callback() run callbacks when it completes (at once if it already has).

    >>> fut = ember.futures.Future()
    >>> doubled = fut.then(lambda f: f.value() * 2)
    >>> fut.set_result(21)
    >>> doubled.wait()
    42
    """

    def __init__(self, *, devices=None):
        if devices:
            from .._device import check
            for d in devices:
                check(d, "Future", moving=True)
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._result = None
        self._error = None
        self._callbacks = []

    def __repr__(self):
        return f"<ember.futures.Future object at {hex(id(self))}>"

    def done(self):
        """True once a result or an exception has been set."""
        return self._done.is_set()

    def wait(self):
        """Blocks until complete; returns the result or raises the exception set."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._result

    def value(self):
        """The result of a completed Future (raises its exception); RuntimeError if not done."""
        if not self.done():
            raise RuntimeError("Future.value(): the Future is not completed yet (call wait())")
        return self.wait()

    def _complete(self, result, error):
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note "
                                   "that a Future can only be marked completed once.")
            self._result, self._error = result, error
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result):
        """Completes the Future with `result` and runs its callbacks."""
        self._complete(result, None)

    def set_exception(self, result):
        """Completes the Future with an exception, which wait() and value() will raise."""
        if not isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def add_done_callback(self, callback):
        """callback(self) when complete (now, if it already is); its return value is dropped."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new Future completed with callback(self) once self completes (or with the
        callback's exception, wrapped in RuntimeError as torch's)."""
        fut = Future()

        def run(done):
            try:
                fut.set_result(callback(done))
            except Exception as e:  # noqa: BLE001  (the callback's error goes into the Future)
                fut.set_exception(RuntimeError(f"Got the following error when running the callback: "
                                               f"{type(e).__name__}: {e}"))
        self.add_done_callback(run)
        return fut


def collect_all(futures):
    """A Future completed, with the list of the given Futures, once all of them are."""
    futures = list(futures)
    for f in futures:
        if not isinstance(f, Future):
            raise TypeError(f"collect_all(): expected a list of Futures, got {type(f).__name__}")
    out = Future()
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])
        return out

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures):
    """The results of all the Futures, waiting for each; raises the first error met."""
    return [f.wait() for f in collect_all(futures).wait()]
