"""What a measurement is, as torch.utils.benchmark.utils.common: TaskSpec (the statement and its
labels), Measurement (its times and statistics, printed in torch's layout) and the unit helpers.
The statistics are ember ops on the times, as torch computes them with its own."""
import collections
import contextlib
import dataclasses
import textwrap

from .... import _C
from ...._dtype import float64 as _float64
from ...._creation import tensor as _tensor

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
_IQR_WARN_THRESHOLD = 0.1  # IQR / median above which a Measurement warns
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """TaskSpec(stmt, setup, global_setup="", label=None, sub_label=None, description=None,
    env=None, num_threads=1)

    What a Timer measures and how Compare groups it (everything but the globals).

    >>> from ember.utils.benchmark import TaskSpec
    >>> spec = TaskSpec("x + 1", "x = 1", label="add", sub_label="int")
    >>> spec.title
    'add: int'
    >>> print(spec.summarize())
    add: int
    setup: x = 1
    """
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self):
        """The label (or a one-line stmt) with the sub_label: Compare's table title."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        """The title, description and setup lines that head a Measurement's repr."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """Measurement(number_per_run, raw_times, task_spec, metadata=None)

    The times of one statement: raw_times[i] is the time of number_per_run runs; times, mean,
    median, iqr and significant_figures are per run. TaskSpec's fields read through (m.label).
    Pickles, so measurements from several processes can go to one Compare.

    >>> from ember.utils.benchmark import Measurement, TaskSpec
    >>> m = Measurement(10, [2e-5, 3e-5, 2.5e-5, 4e-5], TaskSpec("f()", "pass", label="f"))
    >>> [round(t * 1e6, 3) for t in m.times]
    [2.0, 3.0, 2.5, 4.0]
    >>> round(m.median * 1e6, 3), round(m.iqr * 1e6, 3), m.significant_figures, m.label
    (2.75, 0.875, 1, 'f')
    """
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None  # reserved for the user

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:  # the TaskSpec's fields read through
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """A rough count of trustworthy digits (1 to 4), from the spread of the middle half of
        the times (a 90% interval with z = 1.645); Compare trims to it."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:int(_tensor(3 * n / 4).ceil())]
        std = _tensor(middle).std(unbiased=False).item()
        sqrt_n = _tensor(len(middle)).sqrt().item()
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        digits = int(_tensor(_tensor(self._median / interval).log10().item()).floor())
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        times = _tensor(self._sorted_times, dtype=_float64)
        self._median = times.quantile(0.5).item()
        self._mean = times.mean().item()
        self._p25 = times.quantile(0.25).item()
        self._p75 = times.quantile(0.75).item()
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._add_warning("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._add_warning("This could indicate system fluctuation.")

    def _add_warning(self, msg):
        self._warnings += (f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% "
                           f"of the median measurement.\n           {msg}",)

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        """Whether iqr / median is below `threshold`."""
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        return self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} "
                     f"thread{'s' if self.num_threads > 1 else ''}")
        lines += self._warnings
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements):
        """One Measurement per TaskSpec, holding all their per-run times (number_per_run 1)."""
        groups = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].append(m)
        return [Measurement(1, [t for m in group for t in m.times], spec)
                for spec, group in groups.items()]


def select_unit(t):
    """select_unit(t) -> (unit, scale)

    The unit ("ns", "us", "ms" or "s") in which the time `t` (seconds) reads with 1-3 digits.

    >>> from ember.utils.benchmark import select_unit
    >>> select_unit(3.2e-5), select_unit(12.0)
    (('us', 1e-06), ('s', 1))
    """
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_tensor(t).log10().item() // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u):
    """unit_to_english(u) -> str

    >>> from ember.utils.benchmark import unit_to_english
    >>> unit_to_english("us")
    'microsecond'
    """
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """trim_sigfig(x, n) -> float

    `x` rounded to `n` significant figures (in float32, as torch's).

    >>> from ember.utils.benchmark import trim_sigfig
    >>> trim_sigfig(1234.5, 3), round(trim_sigfig(3.14159, 2), 6)
    (1230.0, 3.1)
    """
    if n != int(n):
        raise ValueError(f"trim_sigfig: the number of significant figures must be an integer, "
                         f"got {n}")
    magnitude = int(_tensor(x).abs().log10().ceil().item())
    scale = 10 ** (magnitude - n)
    return float(_tensor(x / scale).round() * scale)


def ordered_unique(elements):
    """ordered_unique(elements) -> list

    The distinct elements in first-seen order.

    >>> from ember.utils.benchmark import ordered_unique
    >>> ordered_unique([3, 1, 3, 2, 1])
    [3, 1, 2]
    """
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    """set_torch_threads(n)

    A context in which ember runs on `n` threads (ember.set_num_threads), restored after.

    >>> from ember.utils.benchmark import set_torch_threads
    >>> before = ember.get_num_threads()
    >>> with set_torch_threads(1):
    ...     ember.get_num_threads()
    1
    >>> ember.get_num_threads() == before
    True
    """
    prior = _C.get_num_threads()
    try:
        _C.set_num_threads(n)
        yield
    finally:
        _C.set_num_threads(prior)
