"""FlopCounterMode: the floating point operations of the matrix products, convolutions and
attention run inside it, in total and per module, as torch.utils.flop_counter.

    with FlopCounterMode(display=False) as fc:
        model(x)
    fc.get_total_flops(); fc.get_flop_counts()   # {"Global": {...}, "Sequential": {...}, ...}

torch counts ATen ops under a dispatch mode, the backward's included. ember counts the calls
its __torch_function__ protocol sees (a TorchFunctionMode: ember.overrides), which are the
forward's: a backward run inside the block adds nothing (its products run in ember's C++
autograd engine). The formulas and the op names of the counts are torch's (a Linear with bias
is "aten.addmm", without "aten.mm"; 2*m*n*k per product, convolutions 2 * output elements *
in-channels/groups * kernel size). Module names are torch's too: the outermost module by its
class name, the modules inside it by their path below it.
"""
import math
from collections import defaultdict

from ..overrides import TorchFunctionMode

__all__ = ["FlopCounterMode"]


def _shape(t):
    return tuple(t.shape)


def _mm(a, b):
    """2 m n k for (..., m, k) @ (..., k, n), batch dims multiplied in (broadcast)."""
    sa, sb = _shape(a), _shape(b)
    if len(sa) == 1:
        sa = (1,) + sa
    if len(sb) == 1:
        sb = sb + (1,)
    batch = math.prod(max(x, y) for x, y in zip(
        (1,) * (len(sb) - len(sa)) + sa[:-2], (1,) * (len(sa) - len(sb)) + sb[:-2])) \
        if len(sa) > 2 or len(sb) > 2 else 1
    return 2 * batch * sa[-2] * sa[-1] * sb[-1]


def _linear(args, kwargs):
    x, w = args[0], args[1]
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    rows = math.prod(_shape(x)[:-1])
    return ("aten.addmm" if bias is not None else "aten.mm"), 2 * rows * w.shape[1] * w.shape[0]


def _count(func, args, kwargs, result):
    """(op name as torch counts it, flops) of a call, or None for ops that are not counted."""
    name = getattr(func, "__name__", "")
    if name == "linear":
        return _linear(args, kwargs)
    if name in ("mm", "matmul", "__matmul__", "__rmatmul__"):
        a, b = (args[1], args[0]) if name == "__rmatmul__" else (args[0], args[1])
        if a.dim() == 2 and b.dim() == 2:
            return "aten.mm", _mm(a, b)
        return ("aten.bmm" if a.dim() > 2 or b.dim() > 2 else "aten.mm"), _mm(a, b)
    if name in ("addmm", "baddbmm"):
        return f"aten.{name}", _mm(args[1], args[2])
    if name == "bmm":
        return "aten.bmm", _mm(args[0], args[1])
    if name in ("conv1d", "conv2d", "conv3d"):
        return "aten.convolution", 2 * math.prod(_shape(result)) * math.prod(_shape(args[1])[1:])
    if name in ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"):
        return "aten.convolution", 2 * math.prod(_shape(args[0])) * math.prod(_shape(args[1])[1:])
    if name == "scaled_dot_product_attention":
        q, k, v = args[0], args[1], args[2]
        b = math.prod(_shape(q)[:-2])
        sq, d, sk, dv = q.shape[-2], q.shape[-1], k.shape[-2], v.shape[-1]
        # torch counts its CPU attention as the two batched products it runs
        return "aten.bmm", 2 * b * sq * sk * d + 2 * b * sq * sk * dv
    return None


class FlopCounterMode(TorchFunctionMode):
    """Counts the flops of the products, convolutions and attention called inside `with`:
    get_total_flops(), get_flop_counts() ({module: {op: flops}}, "Global" for all), and a
    table printed on exit when display=True (down to `depth` levels of modules).

    >>> with ember.utils.flop_counter.FlopCounterMode(display=False) as fc:
    ...     _ = ember.nn.Linear(8, 4)(ember.ones(3, 8))
    >>> fc.get_total_flops()
    192
    """

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        self.depth, self.display = depth, display
        self.custom_mapping = dict(custom_mapping or {})
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self._stack, self._names, self._handles = [], {}, []

    # ---- which modules are running ------------------------------------------------------
    def _pre(self, module, args):
        if not self._stack:
            root = type(module).__name__
            self._names = {id(m): (root + "." + n if n else root)
                           for n, m in module.named_modules()}
        self._stack.append(self._names.get(id(module), type(module).__name__))

    def _post(self, module, args, output):
        if self._stack:
            self._stack.pop()

    def __enter__(self):
        from ..nn.modules import _global_hooks as hooks
        self.flop_counts.clear()
        self._handles = [hooks.register_module_forward_pre_hook(self._pre),
                         hooks.register_module_forward_hook(self._post)]
        return super().__enter__()

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles, self._stack = [], []
        super().__exit__(*exc)
        if self.display:
            print(self.get_table(self.depth))
        return False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        counted = (self.custom_mapping[func](*args, **kwargs) if func in self.custom_mapping
                   else _count(func, args, kwargs, result))
        if counted is not None:
            op, flops = counted if isinstance(counted, tuple) else (str(func), counted)
            for scope in ["Global"] + list(dict.fromkeys(self._stack)):
                self.flop_counts[scope][op] += int(flops)
        return result

    # ---- results -----------------------------------------------------------------------
    def get_total_flops(self):
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self):
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        depth = self.depth if depth is None else depth
        rows = [("Module", "FLOP", "% Total")]
        total = max(self.get_total_flops(), 1)
        for mod, ops in self.flop_counts.items():
            if mod != "Global" and mod.count(".") + 1 > depth:
                continue
            n = sum(ops.values())
            rows.append((mod, f"{n:,}", f"{100 * n / total:.2f}%"))
            for op, f in ops.items():
                rows.append((" - " + op, f"{f:,}", f"{100 * f / total:.2f}%"))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths))) for r in rows)
