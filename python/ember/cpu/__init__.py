"""ember.cpu: torch.cpu's device-agnostic helpers for the one device ember has. Streams and
events exist so that code written for accelerators runs; on the CPU work is synchronous, so
they do nothing (as torch's)."""
__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device",
           "synchronize", "current_stream", "stream", "Stream", "StreamContext", "Event"]


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """A no-op: the CPU is the only CPU device (torch ignores the argument too)."""


def synchronize(device=None):
    """Waits for the CPU's work: it is already done."""


class Stream:
    """A CPU 'stream': work on the CPU runs in order, so waiting and recording do nothing."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_current_stream = Stream()


def current_stream(device=None):
    return _current_stream


class StreamContext:
    """`with stream(s):` makes s current for its body (None: nothing changes)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _current_stream

    def __enter__(self):
        global _current_stream
        if self.stream is None:
            return
        self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, *exc):
        global _current_stream
        if self.stream is None:
            return
        _current_stream = self.prev_stream


def stream(stream):
    return StreamContext(stream)


def __getattr__(name):
    if name == "amp":  # loads on first use
        import importlib
        return importlib.import_module(f"{__name__}.amp")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
