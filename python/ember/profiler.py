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

__all__ = ["ProfilerActivity", "profile", "record_function"]


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


class profile:
    """Context manager that profiles the ember ops run inside it (on every thread).
    torch.profiler.profile's arguments are accepted; only the CPU activity exists here."""

    def __init__(self, activities=None, *, record_shapes=False, profile_memory=True,
                 with_stack=False, enabled=True, **_ignored):
        if activities is not None and any(a is not ProfilerActivity.CPU for a in activities):
            raise ValueError("profile: ember profiles the CPU only (activities=[ProfilerActivity.CPU])")
        self.enabled = enabled
        self._rows = None

    def __enter__(self):
        if self.enabled:
            if _C._profiler_enabled():
                raise RuntimeError("profile: a profiler is already running (profiles cannot nest)")
            self._t0 = time.perf_counter_ns()
            _C._profiler_start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            rows = [OpStats(d) for d in _C._profiler_stop()]
            self._rows = EventList(rows, time.perf_counter_ns() - self._t0)
        return False

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
