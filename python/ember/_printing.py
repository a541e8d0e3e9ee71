"""PyTorch-style printing: tensor([[1.0000, 2.0000], ...], dtype=ember.float64).
Formatting is text work, not math: values come from C++ through tolist(). The rules
(which values are shown, int/fixed/scientific mode, widths, line wrapping) follow
torch/_tensor_str.py and its print options (set_printoptions), so repr(ember_t) matches
repr(torch_t) with 'torch' replaced by 'ember'."""
import math


class _PrintOptions:
    """torch._tensor_str.PRINT_OPTS: what set_printoptions changes."""
    precision, threshold, edgeitems, linewidth, sci_mode = 4, 1000, 3, 80, None


_OPTS = _PrintOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """torch.set_printoptions: a profile ('default', 'short', 'full') first, then the single
    options; sci_mode=None lets each tensor choose (torch resets it on every call, as here).

    >>> ember.set_printoptions(precision=2)
    >>> ember.tensor([1.23456])
    tensor([1.23])
    >>> ember.set_printoptions(profile='default')
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got "
                             f"{profile!r}")
        _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(_OPTS, name, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict (torch._tensor_str.get_printoptions)."""
    return {k: getattr(_OPTS, k) for k in ("precision", "threshold", "edgeitems", "linewidth",
                                           "sci_mode")}
_SKIP = object()  # marks the rows/columns left out when a big tensor is summarized


def _values(t, summarize):
    """Nested lists of the values to show; with `summarize`, each dim longer than
    2 * edgeitems keeps its first and last edgeitems entries around a _SKIP marker."""
    if t.dim() == 0:
        return t.item()
    n, edge = t.shape[0], _OPTS.edgeitems
    if not summarize or n <= 2 * edge:
        if t.dim() == 1 or not summarize:
            return t.tolist()
        return [_values(t.select(0, i), summarize) for i in range(n)]
    if t.dim() == 1:
        return t.narrow(0, 0, edge).tolist() + [_SKIP] + t.narrow(0, n - edge, edge).tolist()
    rows = list(range(edge)) + [None] + list(range(n - edge, n))
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
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4 if _OPTS.sci_mode is None
                         else _OPTS.sci_mode)
        if self.sci_mode:
            widths = [len(f"{v:.{_OPTS.precision}e}") for v in nonzero]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in nonzero]
        else:
            widths = [len(f"{v:.{_OPTS.precision}f}") for v in nonzero]
        self.max_width = max(widths)

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:{self.max_width}.{_OPTS.precision}e}"
        elif self.int_mode:
            s = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            s = f"{v:.{_OPTS.precision}f}"
        return (self.max_width - len(s)) * " " + s


class _ComplexFormatter:
    """torch's formatter pair for complex tensors: one _Formatter for the real parts, one for
    the imaginary parts; an element prints as real + imag + 'j' (1.0000-2.0000j)."""

    def __init__(self, values):
        self.real = _Formatter([v.real for v in values], True)
        self.imag = _Formatter([v.imag for v in values], True)
        self.max_width = self.real.max_width + self.imag.max_width + 1  # + the 'j'

    def format(self, v):
        real = self.real.format(v.real)
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector_str(values, indent, fmt):
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.max_width + 2)))
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


def _add_suffixes(text, suffixes, indent, force_newline=False):
    """`text` + ", suffix" each + ")", wrapping at the line width (and before the first suffix
    with force_newline), as torch._tensor_str._add_suffixes."""
    out = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > _OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
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


def tensor_body(t, indent):
    """The values part of a tensor's repr ("[[1., 2.],\n<indent>[3., 4.]]"), lines after the
    first indented by `indent` + 1 (torch._tensor_str._tensor_str)."""
    if t.numel() == 0:
        return "[]"
    values = _values(t, t.numel() > _OPTS.threshold)
    if t.dtype.is_complex:
        fmt = _ComplexFormatter(_flat(values, []))
    else:
        fmt = _Formatter(_flat(values, []), t.dtype.is_floating_point)
    return _tensor_str(values, t.dim(), indent, fmt)


def tensor_repr(t):
    from ._dtype import float32, int64, complex64, bool as _bool, get_default_dtype
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t._is_meta():  # no data to show (Note [Meta tensors]), as torch prints one
        suffixes = ["device='meta'", f"size={tuple(t.shape)}"]
        if t.dtype != get_default_dtype():
            suffixes.append(f"dtype={t.dtype!r}")
        return _add_suffixes(prefix + "...", suffixes + _grad_suffix(t), indent)
    if t.numel() == 0:
        # An empty tensor shows its shape (unless 1-d) and any dtype but the default one.
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != float32:
            suffixes.append(f"dtype={t.dtype!r}")
    elif t.dtype not in (float32, int64, complex64, _bool):
        suffixes.append(f"dtype={t.dtype!r}")
    body = tensor_body(t, indent)
    return _add_suffixes(prefix + body, suffixes + _grad_suffix(t), indent)
