"""torch's symbolic-size names (SymInt, SymFloat, SymBool and the sym_* helpers). torch.compile
traces sizes as symbols; ember's sizes are always concrete Python numbers, so no Sym* object
ever exists here (programs name the classes in isinstance checks: kornia, transformers) and
each sym_* helper is what torch's does on concrete values."""
import builtins
import math
import numbers

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min",
           "sym_not", "sym_ite", "sym_sqrt", "sym_sum"]


class _NoInstances:
    def __new__(cls, *args, **kwargs):
        raise TypeError(f"{cls.__name__}: ember's sizes are concrete ints; it makes no symbolic ones")


class SymInt(_NoInstances):
    """A symbolic int of torch's tracer; ember has none (`isinstance(n, SymInt)` is False)."""


class SymFloat(_NoInstances):
    """A symbolic float of torch's tracer; ember has none."""


class SymBool(_NoInstances):
    """A symbolic bool of torch's tracer; ember has none."""


def _number(x, op):
    # ints and floats, NumPy's included (they register as numbers.Integral / numbers.Real)
    if not isinstance(x, numbers.Real):
        raise AssertionError(f"{op}: expected an int or a float, got {type(x)}")
    return x


def _is_float(x):
    return isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral)


def sym_int(a):
    """int(a), truncating a float toward zero.

    >>> ember.sym_int(-3.7), ember.sym_float(3)
    (-3, 3.0)
    """
    return builtins.int(a)


def sym_float(a):
    return builtins.float(a)


def _extreme(pick, a, b, op):
    _number(a, op), _number(b, op)
    out = pick(a, b)
    return builtins.float(out) if _is_float(a) or _is_float(b) else out


def sym_max(a, b):
    """max(a, b), a float when either is (numbers only, as torch's).

    >>> ember.sym_max(2, 3.0), ember.sym_min(4, 2)
    (3.0, 2)
    """
    return _extreme(builtins.max, a, b, "sym_max")


def sym_min(a, b):
    return _extreme(builtins.min, a, b, "sym_min")


def sym_not(a):
    return not a


def sym_ite(b, t, f):
    """`t if b else f`: b a bool, t and f of one type (as torch checks)."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sqrt(a):
    return math.sqrt(a)


def sym_sum(args):
    """sum(args) (torch's one symbolic node for a long sum).

    >>> ember.sym_sum([1, 2, 3])
    6
    """
    return builtins.sum(args)


FUNCTIONS = {name: globals()[name] for name in __all__}
METHODS = {}
