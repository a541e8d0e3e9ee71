"""PyTorch-style printing: tensor([[1.0000, 2.0000], ...], dtype=ember.float64).
Formatting is text work, not math: values come from C++ through tolist()."""
import math

_THRESHOLD, _EDGE, _LINE = 1000, 3, 80


def _summarize(t):
    """Nested lists of the values to show, with '...' where rows were elided."""
    if t.dim() == 0:
        return t.item()
    n = t.shape[0]
    if t.numel() > _THRESHOLD and n > 2 * _EDGE:
        rows = [t.select(0, i) for i in range(_EDGE)] + [None] + [t.select(0, i) for i in range(n - _EDGE, n)]
    else:
        rows = [t.select(0, i) for i in range(n)] if t.dim() > 1 else None
    if t.dim() == 1:
        if rows is None:
            return t.tolist()
        return [r.item() if r is not None else None for r in rows]
    return [_summarize(r) if r is not None else None for r in rows]


def _flat(v, out):
    if isinstance(v, list):
        for x in v:
            _flat(x, out)
    elif v is not None:
        out.append(v)
    return out


def _float_formatter(values):
    finite = [abs(v) for v in values if math.isfinite(v)]
    if not finite:
        return lambda v: _special(v) or f"{v}"
    ints = all(v == int(v) for v in finite)
    big, small = max(finite), min(finite)
    if ints and big < 1e8:
        return lambda v: _special(v) or f"{v:.0f}."
    if big >= 1e8 or (small != 0 and (small < 1e-4 or big / small > 1e3 and big > 1e4)) or \
            (small < 1e-4 and small != 0):
        return lambda v: _special(v) or f"{v:.4e}"
    return lambda v: _special(v) or f"{v:.4f}"


def _special(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _render(v, fmt, width, indent):
    if not isinstance(v, list):
        return fmt(v).rjust(width)
    if not v or not isinstance(v[0], list) and v[0] is not None or \
            (v[0] is None and len(v) > 1 and not isinstance(v[1], list)):
        items = ["..." if x is None else fmt(x).rjust(width) for x in v]
        return "[" + ", ".join(items) + "]"
    sep = ",\n" + "\n" * (_depth(v) - 2) + " " * (indent + 1)
    parts = ["..." if x is None else _render(x, fmt, width, indent + 1) for x in v]
    return "[" + sep.join(parts) + "]"


def _depth(v):
    d = 0
    while isinstance(v, list):
        d += 1
        v = next((x for x in v if x is not None), None)
    return d


def tensor_repr(t):
    from ._dtype import float32, int64, bool as _bool
    suffix = ""
    if t.dtype not in (float32, int64, _bool):
        suffix = f", dtype={t.dtype!r}"
    if t.numel() == 0:
        shape = "" if t.dim() == 1 else f", size={tuple(t.shape)}"
        return f"tensor([]{shape}{suffix})"
    data = _summarize(t)
    values = _flat(data, [])
    if t.dtype.is_floating_point:
        fmt = _float_formatter(values)
    elif t.dtype == _bool:
        fmt = lambda v: "True" if v else "False"
    else:
        fmt = str
    width = max(len(fmt(v)) for v in values)
    body = _render(data, fmt, width, len("tensor("))
    grad = ""
    fn = getattr(t, "grad_fn", None)
    if fn is not None:
        grad = f", grad_fn=<{fn.name()}>"
    elif getattr(t, "requires_grad", False):
        grad = ", requires_grad=True"
    return f"tensor({body}{suffix}{grad})"
