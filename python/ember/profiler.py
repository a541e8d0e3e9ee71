"""ember.profiler: where the time goes, per op.

    with ember.profiler.profile() as p:
        loss = model(x).sum()
        loss.backward()
    print(p.table())

Every ember op (forward, with its autograd recording) and every backward node is timed in
C++ (include/ember/profiler.h). The table lists, per op: calls, self time (the op's own
work, without the ops it calls), total time, and the bytes ember's allocator handed out.
The last line is the time spent outside ember's ops: Python, the binding layer, and the
user's own code. torch.profiler's spelling works too:

    with ember.profiler.profile(activities=[ProfilerActivity.CPU]) as prof: ...
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
"""
import enum
import time

from . import _C

__all__ = ["ProfilerActivity", "ProfilerAction", "profile", "record_function", "schedule",
           "kineto_available", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """ProfilerActivity

    What a profiler records (torch.autograd.ProfilerActivity): CPU for ember, whose profiler
    times its C++ ops; CUDA and the other device kinds exist as names only.

    >>> ember.autograd.ProfilerActivity.CPU.name
    'CPU'
    """

    CPU = "cpu"


class OpStats:
    """One row: an op or a backward node."""
    __slots__ = ("name", "backward", "calls", "self_ns", "total_ns", "self_bytes", "total_bytes")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    # torch.profiler's FunctionEventAvg names, in microseconds
    key = property(lambda self: self.name)
    count = property(lambda self: self.calls)
    self_cpu_time_total = property(lambda self: self.self_ns / 1e3)
    cpu_time_total = property(lambda self: self.total_ns / 1e3)
    self_cpu_memory_usage = property(lambda self: self.self_bytes)
    cpu_memory_usage = property(lambda self: self.total_bytes)

    def __repr__(self):
        return (f"<OpStats {self.name} calls={self.calls} self={self.self_ns / 1e3:.1f}us "
                f"total={self.total_ns / 1e3:.1f}us>")


_SORT_KEYS = {"self_cpu_time_total": "self_ns", "cpu_time_total": "total_ns", "count": "calls",
              "calls": "calls", "self_cpu_memory_usage": "self_bytes", "cpu_memory_usage": "total_bytes",
              "self_time": "self_ns", "total_time": "total_ns"}


def _fmt_time(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.3f}s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f}ms"
    return f"{ns / 1e3:.3f}us"


def _fmt_bytes(n):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


class EventList(list):
    """The ops a profile saw, one OpStats per op name (torch.autograd.profiler.EventList's name
    and .table(); ember aggregates as it records, so the rows are torch's key_averages())."""

    def __init__(self, rows, wall_ns):
        super().__init__(rows)
        self.wall_ns = wall_ns

    def key_averages(self, *args, **kwargs):
        return self

    @property
    def self_cpu_time_total(self):
        """The ops' own time, microseconds (torch's unit)."""
        return sum(r.self_ns for r in self) / 1e3

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        key = _SORT_KEYS.get(sort_by or "self_cpu_time_total")
        if key is None:
            raise ValueError(f"profile.table: unknown sort_by {sort_by!r} (one of {', '.join(_SORT_KEYS)})")
        rows = sorted(self, key=lambda r: getattr(r, key), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        ops_ns = sum(r.self_ns for r in self)
        wall = max(self.wall_ns, 1)
        head = ["Name", "Self %", "Self time", "Total time", "Calls", "Avg self", "Self alloc"]

        def name(r):
            n = r.name + (" (backward)" if r.backward else "")
            w = max_name_column_width
            return n if w is None or len(n) <= w else n[:max(w - 3, 0)] + "..."
        body = [[name(r), f"{100 * r.self_ns / wall:.1f}%",
                 _fmt_time(r.self_ns), _fmt_time(r.total_ns), str(r.calls),
                 _fmt_time(r.self_ns / max(r.calls, 1)), _fmt_bytes(r.self_bytes)] for r in rows]
        widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
        line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                       for i, (c, w) in enumerate(zip(cells, widths)))
        rule = "-" * (sum(widths) + 2 * (len(widths) - 1))
        out = ([header] if header else []) + [rule, line(head), rule] + [line(b) for b in body] \
            + [rule]
        outside = max(self.wall_ns - ops_ns, 0)
        out.append(f"Wall time: {_fmt_time(self.wall_ns)}; in ember ops: {_fmt_time(ops_ns)} "
                   f"({100 * ops_ns / wall:.1f}%); outside them (Python, bindings, your code): "
                   f"{_fmt_time(outside)} ({100 * outside / wall:.1f}%)")
        return "\n".join(out)


class ProfilerAction(enum.Enum):
    """What a profile does at a step of its schedule (torch.profiler.ProfilerAction): NONE
    records nothing, WARMUP records and throws it away, RECORD records, RECORD_AND_SAVE records
    and, at the end of the step, hands the cycle's results to on_trace_ready.

    >>> ember.profiler.ProfilerAction.RECORD_AND_SAVE.value
    3
    """

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule for profile(schedule=...): after skip_first steps, cycles of `wait` steps of
    nothing, `warmup` steps recorded and dropped and `active` steps recorded (the last one
    saves), `repeat` times (0: forever); torch.profiler.schedule's steps exactly.

    >>> s = ember.profiler.schedule(wait=1, warmup=1, active=2)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")

    def schedule_fn(step):
        if step < 0:
            raise AssertionError("schedule: the step must be non-negative")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def kineto_available():
    """False: ember's profiler is its own C++ op timer, not PyTorch's Kineto library (programs
    ask before choosing Kineto-only features such as traces).

    >>> ember.profiler.kineto_available()
    False
    """
    return False


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready handler that writes each cycle's trace (profile.export_chrome_trace:
    per-op totals, not a timeline) into dir_name as `<worker>.<ms>.pt.trace.json[.gz]`, the
    names TensorBoard's profiler plugin lists.

    >>> callable(ember.profiler.tensorboard_trace_handler("/tmp/ember_traces"))
    True
    """
    import os
    import socket

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler


_RECORDING = (ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """Context manager that profiles the ember ops run inside it (on every thread).
    torch.profiler.profile's arguments are accepted; only the CPU activity exists here. With a
    `schedule`, call step() once per training step: ops are recorded during the schedule's
    WARMUP (then dropped), RECORD and RECORD_AND_SAVE steps, and at the end of each cycle the
    results go to on_trace_ready(prof) (key_averages() then holds that cycle)."""

    def __init__(self, activities=None, *, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=True, with_stack=False, enabled=True,
                 **_ignored):
        if activities is not None and any(a is not ProfilerActivity.CPU for a in activities):
            raise ValueError("profile: ember profiles the CPU only (activities=[ProfilerActivity.CPU])")
        self.enabled = enabled
        self.schedule = schedule or (lambda step: ProfilerAction.RECORD)
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._rows = None
        self._recording = False

    def _start(self):
        if _C._profiler_enabled():
            raise RuntimeError("profile: a profiler is already running (profiles cannot nest)")
        self._t0 = time.perf_counter_ns()
        _C._profiler_start()
        self._recording = True

    def _stop(self, save):
        rows = [OpStats(d) for d in _C._profiler_stop()]
        self._recording = False
        if save:
            self._rows = EventList(rows, time.perf_counter_ns() - self._t0)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def start(self):
        if self.enabled and self.current_action in _RECORDING:
            self._start()
        return self

    def stop(self):
        if self.enabled and self._recording:
            self._stop(save=self.current_action is not ProfilerAction.WARMUP)

    def step(self):
        """The end of a training step: moves along the schedule."""
        if not self.enabled:
            return
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        now = self.current_action
        if prev is ProfilerAction.WARMUP and now is not ProfilerAction.WARMUP and self._recording:
            self._stop(save=False)  # the warm-up's records are dropped
        elif prev in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and self._recording \
                and (prev is ProfilerAction.RECORD_AND_SAVE or now not in _RECORDING):
            self._stop(save=True)
        if now in _RECORDING and not self._recording:
            self._start()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def export_chrome_trace(self, path):
        """Writes the ops as a Chrome trace (JSON, chrome://tracing and TensorBoard open it).
        ember keeps per-op totals, not a timeline: each op is one complete event as long as
        its total self time, laid end to end in the order of the table, with its call count
        and bytes in `args`; `otherData` says so."""
        import json
        events, ts = [], 0.0
        for r in sorted(self.key_averages(), key=lambda r: r.self_ns, reverse=True):
            dur = r.self_ns / 1e3
            events.append({"name": r.name + (" (backward)" if r.backward else ""), "ph": "X",
                           "cat": "cpu_op", "ts": ts, "dur": dur, "pid": 0, "tid": 0,
                           "args": {"calls": r.calls, "total_us": r.total_ns / 1e3,
                                    "self_bytes": r.self_bytes}})
            ts += dur
        trace = {"traceEvents": events, "displayTimeUnit": "ms",
                 "otherData": {"profiler": "ember", "note": "per-op totals laid end to end, "
                                                            "not a timeline"}}
        opener = open
        if str(path).endswith(".gz"):
            import gzip
            opener = gzip.open
        with opener(path, "wt") as f:
            json.dump(trace, f)

    def key_averages(self, **_ignored):
        if self._rows is None:
            raise RuntimeError("profile: no results yet (use it as `with profile() as p:` first)")
        return self._rows

    def table(self, sort_by="self_cpu_time_total", row_limit=100):
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit)

    def events(self):
        return list(self.key_averages())

    def __str__(self):  # print(prof) prints the table, as torch's
        return self.table() if self._rows is not None else object.__repr__(self)


class record_function:
    """Labels a block in the profile: `with record_function("data"): ...` (its self time is
    the block's time outside the ember ops it runs). A class, as torch's, so that __enter__ and
    __exit__ can be replaced (pytorch/examples' fx profiling_tracer.py does)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._scope = None

    def __enter__(self):
        self._scope = _C._UserScope(str(self.name))
        self._scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._scope is not None:
            self._scope.__exit__(*exc)
            self._scope = None
        return False
