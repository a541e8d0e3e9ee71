"""PyTorch-style printing: tensor([[1.0000, 2.0000], ...], dtype=ember.float64).
Formatting is text work, not math: values come from C++ through tolist(). The rules
(which values are shown, int/fixed/scientific mode, widths, line wrapping) follow
torch/_tensor_str.py with its default print options, so repr(ember_t) matches
repr(torch_t) with 'torch' replaced by 'ember'."""
import math

_PRECISION, _THRESHOLD, _EDGE, _LINE = 4, 1000, 3, 80
_SKIP = object()  # marks the rows/columns left out when a big tensor is summarized


def _values(t, summarize):
    """Nested lists of the values to show; with `summarize`, each dim longer than
    2 * edgeitems keeps its first and last edgeitems entries around a _SKIP marker."""
    if t.dim() == 0:
        return t.item()
    n = t.shape[0]
    if not summarize or n <= 2 * _EDGE:
        if t.dim() == 1 or not summarize:
            return t.tolist()
        return [_values(t.select(0, i), summarize) for i in range(n)]
    if t.dim() == 1:
        return t.narrow(0, 0, _EDGE).tolist() + [_SKIP] + t.narrow(0, n - _EDGE, _EDGE).tolist()
    rows = list(range(_EDGE)) + [None] + list(range(n - _EDGE, n))
    return [_SKIP if i is None else _values(t.select(0, i), summarize) for i in rows]


def _flat(v, out):
    if isinstance(v, list):
        for x in v:
            _flat(x, out)
    elif v is not _SKIP:
        out.append(v)
    return out


class _Formatter:
    """torch._tensor_str._Formatter: one width and one mode for every element."""

    def __init__(self, values, floating):
        self.floating, self.int_mode, self.sci_mode, self.max_width = floating, True, False, 1
        if not floating:
            self.max_width = max([1] + [len(str(v)) for v in values])
            return
        nonzero = [v for v in values if math.isfinite(v) and v != 0]
        if not nonzero:
            return
        absolute = [abs(v) for v in nonzero]
        lo, hi = min(absolute), max(absolute)
        self.int_mode = all(v == math.ceil(v) for v in nonzero)
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if self.sci_mode:
            widths = [len(f"{v:.{_PRECISION}e}") for v in nonzero]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in nonzero]
        else:
            widths = [len(f"{v:.{_PRECISION}f}") for v in nonzero]
        self.max_width = max(widths)

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:{self.max_width}.{_PRECISION}e}"
        elif self.int_mode:
            s = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            s = f"{v:.{_PRECISION}f}"
        return (self.max_width - len(s)) * " " + s


def _vector_str(values, indent, fmt):
    per_line = max(1, math.floor((_LINE - indent) / (fmt.max_width + 2)))
    data = [" ..." if v is _SKIP else fmt.format(v) for v in values]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(values, dim, indent, fmt):
    if dim == 0:
        return fmt.format(values)
    if dim == 1:
        return _vector_str(values, indent, fmt)
    parts = ["..." if v is _SKIP else _tensor_str(v, dim - 1, indent + 1, fmt) for v in values]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > _LINE:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def _grad_suffix(t):
    fn = getattr(t, "grad_fn", None)
    if fn is not None:
        name = fn.name() if hasattr(fn, "name") else type(fn).__name__
        return [f"grad_fn=<{name}>"]
    if getattr(t, "requires_grad", False):
        return ["requires_grad=True"]
    return []


def tensor_repr(t):
    from ._dtype import float32, int64, bool as _bool
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.numel() == 0:
        # An empty tensor shows its shape (unless 1-d) and any dtype but the default one.
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != float32:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if t.dtype not in (float32, int64, _bool):
            suffixes.append(f"dtype={t.dtype!r}")
        values = _values(t, t.numel() > _THRESHOLD)
        fmt = _Formatter(_flat(values, []), t.dtype.is_floating_point)
        body = _tensor_str(values, t.dim(), indent, fmt)
    return _add_suffixes(prefix + body, suffixes + _grad_suffix(t), indent)
