"""Timer, as torch.utils.benchmark.Timer: Python's timeit.Timer around a statement, with ember's
thread count set for the measurement, a warmup, replicates and Measurement results.

Every time is real: timeit runs `stmt` in a compiled loop between two calls of `timer`
(time.perf_counter); ember runs its ops to completion before they return, so there is nothing
to synchronize."""
import enum
import sys
import textwrap
import time
import timeit

from . import common
from ...._creation import tensor as _tensor

__all__ = ["Timer", "timer", "Language"]


def timer():
    """timer() -> float

    The clock Timer reads by default: time.perf_counter (ember's CPU ops are done when they
    return, so unlike torch with an accelerator it has nothing to synchronize).

    >>> from ember.utils.benchmark import timer
    >>> t0 = timer(); t1 = timer(); t1 >= t0
    True
    """
    return time.perf_counter()


class Language(enum.Enum):
    """The language of a Timer's statement: PYTHON (ember's), or CPP (torch compiles C++
    snippets against its headers; ember's Timer refuses it).

    >>> from ember.utils.benchmark import Language
    >>> Language.PYTHON, Language.CPP.value
    (<Language.PYTHON: 0>, 1)
    """
    PYTHON = 0
    CPP = 1


class Timer:
    """Timer(stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
    sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON)

    Measures `stmt` (a string; `setup` runs once first; `globals` are its names, `torch` is
    ember unless given) on num_threads ember threads. timeit(number) times one block;
    blocked_autorange and adaptive_autorange pick a block size and take replicates. label,
    sub_label, description and env say how Compare lays the Measurements out.

    >>> from ember.utils.benchmark import Timer
    >>> t = Timer("x + y", setup="x = torch.ones(8); y = torch.ones(8)", label="add")
    >>> m = t.timeit(100)
    >>> m.number_per_run, len(m.times), m.median > 0, m.label
    (100, 1, True, 'add')
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "Timer: language='cpp' compiles the statement against torch's C++ headers; "
                "ember's Timer times Python statements (time ember's C++ API with a C++ timer: "
                "docs/cpp.md)")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this "
                             "code can simply be moved to `setup`.")
        self._globals = dict(globals or {})  # a copy: exec adds __builtins__
        self._globals.setdefault("torch", sys.modules[__name__.partition(".")[0]])  # ember
        self._language = Language.PYTHON
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        # No real statement takes under 1 ns; the floor also keeps ratios finite.
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """Runs `stmt` `number` times (after a warmup of number // 100, at least 2) and returns
        a Measurement of that one block."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        """Not offered, as in torch: blocked_autorange merges timeit's repeat and autorange."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not offered, as in torch: blocked_autorange merges timeit's repeat and autorange."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        """Times blocks of `number` runs until min_run_time has passed and stop(times) holds
        (or max_run_time has passed)."""
        total, times = 0.0, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                if total >= min_run_time and stop(times):
                    break
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """The block size whose timer overhead is <= 1e-4 of its time and that takes at least
        min_run_time / 1000 (or min_run_time itself): powers of ten from 1. Also the warmup."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = _tensor([self._timeit(0) for _ in range(5)]).median().item()
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Times blocks of a size chosen so the clock's overhead is negligible, until
        min_run_time seconds have been spent; callback(number, time) sees each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """blocked_autorange that continues until iqr / median < threshold (with more than 3
        blocks and min_run_time spent) or max_run_time has been spent."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times):
            return len(times) > 3 and common.Measurement(
                number, times, self._task_spec).meets_confidence(threshold)
        times = self._measurement_loop(number, stop, min_run_time, max_run_time, callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)


def _clean(code):
    """Dedented, without the first newline of a block string and trailing space: runs the same
    and prints well in a Measurement."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()
