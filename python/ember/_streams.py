"""torch.Stream and torch.Event as torch answers them on the CPU. ember runs every op on the
calling thread before returning, so the CPU stream is always idle: query() is True and
synchronize() has nothing to wait for. Recording an event is refused, as torch's CPU backend
refuses it ("cpu backend doesn't support events")."""
import builtins

from ._tensor import device as _device

_NO_EVENTS = "cpu backend doesn't support events."


def _cpu(dev, what):
    if dev is None:
        return
    d = _device(dev) if not isinstance(dev, _device) else dev
    if d.type != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices ({what} on "
                           f"the CPU only)")


class Stream:
    """The CPU stream: in-order and synchronous, so every query finds it done.

    >>> s = ember.Stream()
    >>> s.query(), s.device
    (True, device(type='cpu'))
    """

    def __init__(self, device=None, *, priority=0, device_index=-1, device_type=0, stream_id=0):
        _cpu(device, "Stream")
        if isinstance(priority, builtins.bool) or not isinstance(priority, builtins.int):
            raise TypeError(f"Stream(): argument 'priority' must be int, not {type(priority).__name__}")
        self.device_index = device_index
        self.device_type = device_type
        self.stream_id = stream_id

    @property
    def device(self):
        return _device("cpu")

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def query(self):
        """True: all work submitted to the CPU stream has completed."""
        return True

    def synchronize(self):
        """Returns at once: CPU work is complete when each op returns."""

    def is_capturing(self):
        return False

    def wait_event(self, event):
        if not isinstance(event, Event):
            raise TypeError(f"wait_event(): expected a torch.Event, got {type(event).__name__}")

    def wait_stream(self, stream):
        raise RuntimeError(_NO_EVENTS)

    def record_event(self, event=None):
        raise RuntimeError(_NO_EVENTS)

    def __eq__(self, other):
        return (isinstance(other, Stream) and (self.device_index, self.device_type, self.stream_id)
                == (other.device_index, other.device_type, other.stream_id))

    def __hash__(self):
        return hash((self.device_index, self.device_type, self.stream_id))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return (f"torch.Stream device_type=cpu, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A CPU event: never pending (query() is True, wait/synchronize return at once); it
    cannot be recorded on the CPU backend, as in torch.

    >>> e = ember.Event()
    >>> e.query(), e.device
    (True, device(type='cpu'))
    """

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        _cpu(device, "Event")
        self._timing = builtins.bool(enable_timing)
        self.event_id = 0

    @property
    def device(self):
        return _device("cpu")

    def query(self):
        return True

    def synchronize(self):
        """Returns at once: nothing on the CPU is pending."""

    def wait(self, stream=None):
        """Returns at once: nothing on the CPU is pending."""

    def record(self, stream=None):
        raise RuntimeError(_NO_EVENTS)

    def elapsed_time(self, end_event):
        if not isinstance(end_event, Event):
            raise RuntimeError("expected other to be a torch.Event object")
        if not (self._timing and end_event._timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if "
                                  "you need this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if "
                                  "you need this!")

    def __repr__(self):
        return (f"torch.Event device_type=cpu, device_index=-1, event_flag={int(self._timing)}, "
                f"event_id={self.event_id}")


FUNCTIONS = {"Stream": Stream, "Event": Event}
METHODS = {}
