"""Compare, as torch.utils.benchmark.Compare: Measurements laid out as torch prints them, one
table per label, a row per (num_threads, env, sub_label or stmt), a column per description,
replicates merged; optionally trimmed to significant figures, colored, with variance marks."""
import enum
import itertools

from . import common
from ...._creation import tensor as _tensor

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    """How Compare colors times: not at all, against each column's best, or each row's best.

    >>> from ember.utils.benchmark import Colorize
    >>> [c.value for c in Colorize]
    ['none', 'columnwise', 'rowwise']
    """
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(m, scale):
    return int(_tensor(m.median / scale).log10().ceil()) if m else None


class _Column:
    """One description's numbers: a shared width and number of decimals."""

    def __init__(self, grouped_results, time_scale, trim_significant_figures, highlight_warnings):
        self._grouped_results = grouped_results
        flat = [m for m in itertools.chain.from_iterable(grouped_results)]
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(m.has_warnings for m in flat if m)
        digits = [_leading_digits(m, time_scale) for m in flat]
        unit_digits = max(d for d in digits if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, flat)
                       if m is not None and d is not None) if self._trim else 1
        width = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{width}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, estimated_sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, estimated_sigfigs)
        mark = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._template.format(value, mark)


def _color(text, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Row:
    """One (num_threads, env, name) row; the first of a thread count carries its separator."""

    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize,
                 num_threads=None):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._num_threads = num_threads
        self._columns = ()

    def register_columns(self, columns):
        self._columns = columns

    def as_column_strings(self):
        first = next(m for m in self._results if m is not None)
        env = f"({first.env})" if self._render_env else ""
        out = ["  " + env.ljust(self._env_str_len + 4) + first.as_row_name]
        for m, column in zip(self._results, self._columns):
            if m is None:
                out.append(column.num_to_str(None, 1, None))
            else:
                out.append(column.num_to_str(m.median / self._time_scale, m.significant_figures,
                                             m.iqr / m.median if m.has_warnings else None))
        return out

    def row_separator(self, overall_width):
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(overall_width, "-")]

    def finalize_column_strings(self, column_strings, col_widths):
        best = [-1] * len(column_strings)
        if self._colorize == Colorize.ROWWISE:
            best = [min(m.median for m in self._results if m is not None)] * len(column_strings)
        elif self._colorize == Colorize.COLUMNWISE:
            best = [min((m.median for m in column.get_results_for(self._row_group)
                         if m is not None), default=None) for column in self._columns]
        cells = [column_strings[0].ljust(col_widths[0])]
        for text, width, m, b in zip(column_strings[1:], col_widths[1:], self._results, best):
            text = text.center(width)
            if self._colorize != Colorize.NONE and m is not None and b is not None:
                text = _color(text, m.median, b)
            cells.append(text)
        return cells


class Table:
    """The table of one label's Measurements (already merged)."""

    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        if len({m.label for m in results}) != 1:
            raise ValueError("Compare: a table holds the results of one label, got "
                             f"{sorted({str(m.label) for m in results})}")
        self.results = results
        self._colorize = colorize
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(m.median for m in results))
        self.row_keys = common.ordered_unique(self.row_fn(m) for m in results)
        self.row_keys.sort(key=lambda key: key[:2])  # by threads and env; stmts keep their order
        self.column_keys = common.ordered_unique(self.col_fn(m) for m in results)
        self.rows, self.columns = self.populate_rows_and_columns()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m):
        return m.description

    def populate_rows_and_columns(self):
        grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        row_at = {key: i for i, key in enumerate(self.row_keys)}
        col_at = {key: j for j, key in enumerate(self.column_keys)}
        for m in self.results:
            grid[row_at[self.row_fn(m)]][col_at[self.col_fn(m)]] = m
        envs = {m.env for m in self.results}
        render_env = len(envs) > 1
        env_str_len = max(len(str(e)) for e in envs) if render_env else 0
        rows, groups = [], []
        prior_threads, prior_env = -1, ""
        for (threads, env, _), results in zip(self.row_keys, grid):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env = threads, ""
                groups.append([])
            rows.append(_Row(results, len(groups) - 1, render_env and env != prior_env,
                             env_str_len, self.time_scale, self._colorize,
                             threads if new_group else None))
            groups[-1].append(results)
            prior_env = env
        columns = tuple(_Column([tuple(r[j] for r in group) for group in groups],
                                self.time_scale, self._trim, self._highlight)
                        for j in range(len(self.column_keys)))
        for row in rows:
            row.register_columns(columns)
        return tuple(rows), columns

    def render(self):
        # A Measurement without a description heads its column with nothing (torch raises).
        string_rows = [[""] + ["" if k is None else k for k in self.column_keys]]
        string_rows += [row.as_column_strings() for row in self.rows]
        width = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (width - len(r)))
        col_widths = [max(len(cell) for cell in column) for column in zip(*string_rows)]
        lines = ["  |  ".join(c.center(w) for c, w in zip(string_rows[0], col_widths))]
        overall = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines += row.row_separator(overall)
            lines.append("  |  ".join(row.finalize_column_strings(strings, col_widths)))
        title = f"[{(' ' + (self.label or '') + ' ').center(overall - 2, '-')}]"
        note = ""
        if self._highlight and any(m.has_warnings for m in self.results):
            note = ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100."
                    "\n")
        unit = self.time_unit
        return (f"{title}\n" + "\n".join(lines) +
                f"\n\nTimes are in {common.unit_to_english(unit)}s ({unit}).\n{note}")


class Compare:
    """Compare(results)

    Prints Measurements as tables (one per label; rows: sub_label or stmt, grouped by
    num_threads and env; columns: description), replicates merged. trim_significant_figures(),
    colorize(rowwise=False) and highlight_warnings() change the layout as in torch.

    >>> from ember.utils.benchmark import Compare, Measurement, TaskSpec
    >>> ms = [Measurement(1, [2e-6, 2e-6], TaskSpec("f(x)", "pass", label="f",
    ...                                              sub_label=s, description="n=1"))
    ...       for s in ("ember", "numpy")]
    >>> print(Compare(ms))
    [------- f -------]
                 |  n=1
    1 threads: --------
          ember  |  2.0
          numpy  |  2.0
    <BLANKLINE>
    Times are in microseconds (us).
    <BLANKLINE>
    """

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        """Adds Measurements (ValueError for anything else)."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Prints each time with only the digits its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colors times against the best of their column (or row, with rowwise=True)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Marks the times whose IQR is large against their median: (! XX%)."""
        self._highlight_warnings = True

    def print(self):
        """Prints the tables."""
        print(str(self))

    def _render(self):
        by_label = {}
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [Table(group, self._colorize, self._trim_significant_figures,
                      self._highlight_warnings).render() for group in by_label.values()]
