"""Elementwise functions that are compositions of ember's C++ ops (hypot, logaddexp, frac,
fmod, float_power, deg2rad, ...) and torch's aliases of existing ops (arccos = acos, fix =
trunc, ...). The alias table is one line per name (STYLE.md, "Breadth without bloat"); each
function gets its Tensor method and, where torch has one, its in-place `_` form."""
import math

from . import _C, _creation
from ._dtype import float32, float64, int64, bfloat16, float16, TORCH_TYPE_NAMES

Tensor = _C.Tensor
_FLOATING = (float32, float64, bfloat16, float16)

# torch name -> the ember op it is another name for (function and Tensor method alike).
ALIASES = {
    "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2",
    "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh",
    "fix": "trunc", "absolute": "abs", "negative": "neg", "sgn": "sign",
    "true_divide": "div", "multiply": "mul", "subtract": "sub", "divide": "div",
    "clip": "clamp", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
    "not_equal": "ne", "swapdims": "transpose", "moveaxis": "movedim", "concat": "cat",
    "concatenate": "cat",
}


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _floating_only(fn, *xs):
    """torch's float-only kernels refuse integer and bool tensors with NotImplementedError."""
    for x in xs:
        if isinstance(x, Tensor) and x.dtype not in _FLOATING:
            name = TORCH_TYPE_NAMES[x.dtype.name]
            raise NotImplementedError(f'"{fn}_cpu" not implemented for \'{name}\'')


def _into(result, out, fn):
    from ._comparison import _into as into
    return into(result, out, fn)


def _binary(fn, input, other):
    from ._comparison import check_broadcast
    _check_tensor(input, fn)
    if isinstance(other, Tensor):
        check_broadcast(fn, input, other)


def hypot(input, other, *, out=None):
    """sqrt(input**2 + other**2), broadcast.

    >>> ember.hypot(ember.tensor([3.0, 5.0]), ember.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
    """
    _check_tensor(other, "hypot", "other")
    _binary("hypot", input, other)
    _floating_only("hypot", input, other)
    return _into(_C.sqrt(_C.add(_C.mul(input, input), _C.mul(other, other))), out, "hypot")


def _log_add_exp(op, input, other, out, exp, tail_scale):
    """log_b(b**input + b**other) for the base b of `exp`: max + log1p(exp(-|input - other|)),
    the log1p term times tail_scale (1 / ln b) unless None."""
    _check_tensor(other, op, "other")
    _binary(op, input, other)
    _floating_only(op, input, other)
    big = _C.maximum(input, other)
    tail = _C.log1p(exp(_C.neg(_C.abs(_C.sub(input, other)))))
    result = _C.add(big, tail if tail_scale is None else _C.mul(tail, tail_scale))
    # Equal infinities: the difference is NaN, the answer is that infinity.
    same_inf = _C.logical_and(_C.isinf(input), _C.eq(input, other))
    return _into(_C.where(same_inf, input, result), out, op)


def logaddexp(input, other, *, out=None):
    """log(exp(input) + exp(other)) without overflow: max + log1p(exp(-|input - other|)).

    >>> ember.logaddexp(ember.tensor([0.0, 100.0]), ember.tensor([0.0, 100.0]))
    tensor([  0.6931, 100.6931])
    """
    return _log_add_exp("logaddexp", input, other, out, _C.exp, None)


def logaddexp2(input, other, *, out=None):
    """log2(2**input + 2**other) without overflow.

    >>> ember.logaddexp2(ember.tensor([1.0, 3.0]), ember.tensor([1.0, 3.0]))
    tensor([2., 4.])
    """
    return _log_add_exp("logaddexp2", input, other, out, _C.exp2, 1.0 / math.log(2.0))


def frac(input, *, out=None):
    """input - trunc(input): the fractional part, with input's sign.

    >>> ember.frac(ember.tensor([-1.25, 2.5]))
    tensor([-0.2500,  0.5000])
    """
    _check_tensor(input, "frac")
    _floating_only("frac", input)
    return _into(_C.sub(input, _C.trunc(input)), out, "frac")


def _float_result(x):
    return x if x.dtype in _FLOATING else x.to(float32)


def deg2rad(input, *, out=None):
    """deg2rad(input, *, out=None) -> Tensor

    Angles in degrees converted to radians (an integer input gives float32).

    >>> ember.deg2rad(ember.tensor([180, 90]))
    tensor([3.1416, 1.5708])
    """
    _check_tensor(input, "deg2rad")
    return _into(_C.mul(_float_result(input), math.pi / 180.0), out, "deg2rad")


def rad2deg(input, *, out=None):
    """rad2deg(input, *, out=None) -> Tensor

    Angles in radians converted to degrees (an integer input gives float32).

    >>> ember.rad2deg(ember.tensor([3.1415927, 1.5707964]))
    tensor([180.,  90.])
    """
    _check_tensor(input, "rad2deg")
    return _into(_C.mul(_float_result(input), 180.0 / math.pi), out, "rad2deg")


def float_power(input, exponent, *, out=None):
    """pow computed in float64 (the result is float64 whatever the inputs).

    >>> ember.float_power(ember.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=ember.float64)
    """
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected input or exponent to be a Tensor")
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        _binary("float_power", input, exponent)
    if isinstance(input, Tensor):
        input = input.to(float64)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(float64)
    else:
        exponent = float(exponent)
    if not isinstance(input, Tensor):
        input = _creation.full([], float(input), dtype=float64)
    return _into(_C.pow(input, exponent), out, "float_power")


def fmod(input, other, *, out=None):
    """The C-style remainder: input - trunc(input / other) * other, with input's sign
    (remainder() is Python's, with other's sign; the two differ by `other` where the signs
    differ).

    >>> ember.fmod(ember.tensor([-3.0, 3.0]), 2.0)
    tensor([-1.,  1.])
    """
    _binary("fmod", input, other)
    r = _C.remainder(input, other)
    fix = _C.logical_and(_C.ne(r, 0), _C.ne(_C.lt(r, 0), _C.lt(input, 0)))
    return _into(_C.where(fix, _C.sub(r, other), r), out, "fmod")


def clamp_min(input, min):
    """clamp_min(input, min) -> Tensor

    clamp(input, min=min): every element below `min` raised to it.

    >>> ember.clamp_min(ember.tensor([-1.0, 0.5, 2.0]), 0.0)
    tensor([0.0000, 0.5000, 2.0000])
    """
    _binary("clamp_min", input, min)
    return _C.clamp(input, min=min)


def clamp_max(input, max):
    """clamp_max(input, max) -> Tensor

    clamp(input, max=max): every element above `max` lowered to it.

    >>> ember.clamp_max(ember.tensor([-1.0, 0.5, 2.0]), 1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """
    _binary("clamp_max", input, max)
    return _C.clamp(input, max=max)


def positive(input):
    """input itself (torch refuses bool tensors).

    >>> ember.positive(ember.tensor([-1, 2]))
    tensor([-1,  2])
    """
    _check_tensor(input, "positive")
    if input.dtype.name == "bool":
        raise RuntimeError("positive: The `+` operator, on a bool tensor is not supported.")
    return input


def rsub(input, other, *, alpha=1):
    """other - alpha * input.

    >>> ember.rsub(ember.tensor([1.0, 2.0]), 10.0)
    tensor([9., 8.])
    """
    _check_tensor(input, "rsub")
    _binary("rsub", input, other)
    scaled = input if alpha == 1 else _C.mul(input, alpha)
    if isinstance(other, Tensor):
        return _C.sub(other, scaled)
    return _C.add(_C.neg(scaled), other)


def _nan_aware(fn, pick, example):
    def f(input, other, *, out=None):
        """The elementwise max/min; a NaN loses to a number (both NaN: NaN)."""
        _check_tensor(other, fn, "other")
        _binary(fn, input, other)
        result = pick(input, other)
        if input.dtype in _FLOATING or other.dtype in _FLOATING:
            result = _C.where(_C.isnan(input), other.to(result.dtype), result)
            result = _C.where(_C.isnan(other), input.to(result.dtype), result)
        return _into(result, out, fn)
    f.__name__ = fn
    f.__doc__ = (f"{fn}(input, other, *, out=None) -> Tensor\n\nThe elementwise {fn[1:]}imum; a NaN "
                 f"loses to a number (both NaN: NaN).\n\n{example}")
    return f


fmax = _nan_aware("fmax", _C.maximum, """\
>>> ember.fmax(ember.tensor([1.0, float('nan')]), ember.tensor([float('nan'), 2.0]))
tensor([1., 2.])""")
fmin = _nan_aware("fmin", _C.minimum, """\
>>> ember.fmin(ember.tensor([1.0, float('nan')]), ember.tensor([float('nan'), 2.0]))
tensor([1., 2.])""")


def ldexp(input, other, *, out=None):
    """input * 2**other (a floating result).

    >>> ember.ldexp(ember.tensor([1.0, 3.0]), ember.tensor([2, 1]))
    tensor([4., 6.])
    """
    _check_tensor(input, "ldexp")
    _check_tensor(other, "ldexp", "other")
    _binary("ldexp", input, other)
    x = input if input.dtype in _FLOATING else input.to(float32)
    return _into(_C.mul(x, _C.exp2(other.to(x.dtype))), out, "ldexp")


def _shift(fn, input, other, left):
    """Integer shifts as multiplication/floor division by 2**other, in int64 and wrapped back to
    the promoted dtype; shifts of at least the bit width give 0 (right: -1 for negatives)."""
    _check_tensor(input, fn)
    _binary(fn, input, other)
    other_dt = other.dtype if isinstance(other, Tensor) else input.dtype
    dt = _C.promote_types(input.dtype, other_dt)
    if dt in _FLOATING or dt.name == "bool":
        name = {"float32": "Float", "float64": "Double", "bool": "Bool"}[dt.name]
        raise NotImplementedError(f'"{"lshift" if left else "rshift"}_cpu" not implemented for '
                                  f"'{name}'")
    from ._creation import full
    a = input.to(int64)
    b = other.to(int64) if isinstance(other, Tensor) else full([], int(other), dtype=int64)
    bits = 8 * dt.itemsize
    power = _C.pow(full([], 2, dtype=int64), _C.clamp(b, 0, 62))
    negative = _C.lt(a, 0).to(int64)
    if left:
        result = _C.mul(a, power)
        # 2**63 does not fit: the lowest bit becomes the sign bit
        top = _C.mul(_C.remainder(a, 2), full([], -2 ** 63, dtype=int64))
        result = _C.where(_C.eq(b, 63), top, result)
        result = _C.where(_C.logical_or(_C.ge(b, bits), _C.lt(b, 0)), 0, result)
    else:
        result = _C.floor_divide(a, power)
        result = _C.where(_C.logical_or(_C.ge(b, min(bits, 63)), _C.lt(b, 0)),
                          _C.neg(negative), result)
    return result.to(dt)


def bitwise_left_shift(input, other, *, out=None):
    """bitwise_left_shift(input, other, *, out=None) -> Tensor

    input << other for integer tensors (wrapping as the dtype does; `<<` on a Tensor).

    >>> ember.bitwise_left_shift(ember.tensor([1, 3]), 2)
    tensor([ 4, 12])
    """
    return _into(_shift("bitwise_left_shift", input, other, True), out, "bitwise_left_shift")


def bitwise_right_shift(input, other, *, out=None):
    """bitwise_right_shift(input, other, *, out=None) -> Tensor

    input >> other for integer tensors, an arithmetic shift (`>>` on a Tensor).

    >>> ember.bitwise_right_shift(ember.tensor([8, -8]), 2)
    tensor([ 2, -2])
    """
    return _into(_shift("bitwise_right_shift", input, other, False), out, "bitwise_right_shift")


def movedim(input, source, destination):
    """Moves the dims in `source` to the positions in `destination`; the others keep their order.

    >>> ember.movedim(ember.zeros(2, 3, 4), (0, 1), (2, 0)).shape
    ember.Size([3, 4, 2])
    """
    _check_tensor(input, "movedim")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.dim()
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")

    def wrap(d):
        lo, hi = (-n, n - 1) if n else (-1, 0)
        if not lo <= d <= hi:
            raise IndexError(f"movedim: Dimension out of range (expected to be in range of "
                             f"[{lo}, {hi}], but got {d})")
        return d % n if n else 0
    src, dst = [wrap(d) for d in src], [wrap(d) for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src}) or `destination` ({dst})")
    if n == 0:
        return input.view([])
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(*order)


def _inplace(fn, name):
    """The in-place `_` form of an out-of-place function: same dtype and shape as self."""
    from ._inplace_and_copy import inplace_form
    return inplace_form(fn, name)


FUNCTIONS = {
    "hypot": hypot, "logaddexp": logaddexp, "logaddexp2": logaddexp2, "frac": frac,
    "deg2rad": deg2rad, "rad2deg": rad2deg, "float_power": float_power, "fmod": fmod,
    "clamp_min": clamp_min, "clamp_max": clamp_max, "movedim": movedim, "positive": positive,
    "rsub": rsub, "fmax": fmax, "fmin": fmin, "ldexp": ldexp,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
}
# Functions whose Tensor method has an in-place form in torch (name_).
_WITH_INPLACE = ("hypot", "frac", "deg2rad", "rad2deg", "float_power", "fmod", "clamp_min",
                 "clamp_max", "ldexp", "bitwise_left_shift", "bitwise_right_shift")


_RETHROWN = (RuntimeError, ValueError, IndexError, TypeError, NotImplementedError)


def _alias(alias, target, fn, example=None):
    """fn under torch's other name; its errors say which name was called."""
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _RETHROWN as e:
            if type(e) not in _RETHROWN:
                raise
            raise type(e)(f"{alias} (an alias of {target}): {e}") from None
    call.__name__ = call.__qualname__ = alias
    call.__doc__ = f"Alias of {target}." + (f"\n\n{example}" if example else "")
    return call


# alias -> its docstring example (the doctests of tests/python/test_docstring_examples.py)
ALIAS_EXAMPLES = {
    "arccos": """\
>>> ember.arccos(ember.tensor([1.0, 0.0]))
tensor([0.0000, 1.5708])""",
    "arcsin": """\
>>> ember.arcsin(ember.tensor([0.0, 1.0]))
tensor([0.0000, 1.5708])""",
    "arctan": """\
>>> ember.arctan(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.7854])""",
    "arctan2": """\
>>> ember.arctan2(ember.tensor([1.0, 1.0]), ember.tensor([1.0, -1.0]))
tensor([0.7854, 2.3562])""",
    "arccosh": """\
>>> ember.arccosh(ember.tensor([1.0, 2.0]))
tensor([0.0000, 1.3170])""",
    "arcsinh": """\
>>> ember.arcsinh(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.8814])""",
    "arctanh": """\
>>> ember.arctanh(ember.tensor([0.0, 0.5]))
tensor([0.0000, 0.5493])""",
    "fix": """\
>>> ember.fix(ember.tensor([-1.7, 1.7]))
tensor([-1.,  1.])""",
    "absolute": """\
>>> ember.absolute(ember.tensor([-1, 2]))
tensor([1, 2])""",
    "negative": """\
>>> ember.negative(ember.tensor([1, -2]))
tensor([-1,  2])""",
    "sgn": """\
>>> ember.sgn(ember.tensor([-3.0, 0.0, 2.0]))
tensor([-1.,  0.,  1.])""",
    "true_divide": """\
>>> ember.true_divide(ember.tensor([1, 3]), 2)
tensor([0.5000, 1.5000])""",
    "multiply": """\
>>> ember.multiply(ember.tensor([1, 2]), ember.tensor([3, 4]))
tensor([3, 8])""",
    "subtract": """\
>>> ember.subtract(ember.tensor([5, 5]), ember.tensor([1, 2]), alpha=2)
tensor([3, 1])""",
    "divide": """\
>>> ember.divide(ember.tensor([7.0, -7.0]), 2, rounding_mode='floor')
tensor([ 3., -4.])""",
    "clip": """\
>>> ember.clip(ember.tensor([-2.0, 0.5, 3.0]), -1.0, 1.0)
tensor([-1.0000,  0.5000,  1.0000])""",
    "greater": """\
>>> ember.greater(ember.tensor([1, 2, 3]), 2)
tensor([False, False,  True])""",
    "greater_equal": """\
>>> ember.greater_equal(ember.tensor([1, 2, 3]), 2)
tensor([False,  True,  True])""",
    "less": """\
>>> ember.less(ember.tensor([1, 2, 3]), 2)
tensor([ True, False, False])""",
    "less_equal": """\
>>> ember.less_equal(ember.tensor([1, 2, 3]), 2)
tensor([ True,  True, False])""",
    "not_equal": """\
>>> ember.not_equal(ember.tensor([1, 2, 3]), 2)
tensor([ True, False,  True])""",
    "swapdims": """\
>>> ember.swapdims(ember.zeros(2, 3, 4), 0, 2).shape
ember.Size([4, 3, 2])""",
    "moveaxis": """\
>>> ember.moveaxis(ember.zeros(2, 3, 4), 0, -1).shape
ember.Size([3, 4, 2])""",
    "concat": """\
>>> ember.concat([ember.tensor([1, 2]), ember.tensor([3])])
tensor([1, 2, 3])""",
    "concatenate": """\
>>> ember.concatenate([ember.tensor([[1, 2]]), ember.tensor([[3, 4]])], dim=1)
tensor([[1, 2, 3, 4]])""",
    "movedim": """\
>>> ember.movedim(ember.zeros(2, 3, 4), (0, 1), (2, 0)).shape
ember.Size([3, 4, 2])""",
}


def _resolve_aliases():
    """The alias functions and methods that name an op ember has."""
    functions, methods = {}, {}
    for alias, target in ALIASES.items():
        fn = getattr(_C, target, None) or FUNCTIONS.get(target)
        if fn is not None:
            functions[alias] = _alias(alias, target, fn, ALIAS_EXAMPLES[alias])
        meth = getattr(Tensor, target, None) or FUNCTIONS.get(target)
        if meth is not None:
            methods[alias] = _alias(alias, target, meth)
        if hasattr(Tensor, target + "_"):
            methods[alias + "_"] = _alias(alias + "_", target + "_", getattr(Tensor, target + "_"))
    return functions, methods


def _methods():
    methods = dict(FUNCTIONS)
    methods.update({n + "_": _inplace(FUNCTIONS[n], n + "_") for n in _WITH_INPLACE})
    return methods


METHODS = _methods()
del METHODS["rsub"]  # torch.rsub has no Tensor method
METHODS["__lshift__"] = bitwise_left_shift
METHODS["__rshift__"] = bitwise_right_shift
METHODS["__ilshift__"] = METHODS["bitwise_left_shift_"]
METHODS["__irshift__"] = METHODS["bitwise_right_shift_"]
_alias_functions, _alias_methods = _resolve_aliases()
FUNCTIONS.update(_alias_functions)
METHODS.update(_alias_methods)


# Tensor alias method -> (its signature, an example): the alias methods' docstrings.
_METHOD_DOCS = {
    "absolute": ("absolute() -> Tensor",
                 ">>> ember.tensor([-1.5, 2.0]).absolute()\n"
                 "tensor([1.5000, 2.0000])"),
    "absolute_": ("absolute_() -> Tensor",
                  ">>> x = ember.tensor([-1.5, 2.0])\n"
                  ">>> x.absolute_()\n"
                  "tensor([1.5000, 2.0000])"),
    "arccos": ("arccos() -> Tensor",
               ">>> ember.tensor([1.0, 0.0]).arccos()\n"
               "tensor([0.0000, 1.5708])"),
    "arccos_": ("arccos_() -> Tensor",
                ">>> x = ember.tensor([1.0, 0.0])\n"
                ">>> x.arccos_()\n"
                "tensor([0.0000, 1.5708])"),
    "arccosh": ("arccosh() -> Tensor",
                ">>> ember.tensor([1.0, 2.0]).arccosh()\n"
                "tensor([0.0000, 1.3170])"),
    "arccosh_": ("arccosh_() -> Tensor",
                 ">>> x = ember.tensor([1.0, 2.0])\n"
                 ">>> x.arccosh_()\n"
                 "tensor([0.0000, 1.3170])"),
    "arcsin": ("arcsin() -> Tensor",
               ">>> ember.tensor([0.0, 1.0]).arcsin()\n"
               "tensor([0.0000, 1.5708])"),
    "arcsin_": ("arcsin_() -> Tensor",
                ">>> x = ember.tensor([0.0, 1.0])\n"
                ">>> x.arcsin_()\n"
                "tensor([0.0000, 1.5708])"),
    "arcsinh": ("arcsinh() -> Tensor",
                ">>> ember.tensor([0.0, 1.0]).arcsinh()\n"
                "tensor([0.0000, 0.8814])"),
    "arcsinh_": ("arcsinh_() -> Tensor",
                 ">>> x = ember.tensor([0.0, 1.0])\n"
                 ">>> x.arcsinh_()\n"
                 "tensor([0.0000, 0.8814])"),
    "arctan": ("arctan() -> Tensor",
               ">>> ember.tensor([0.0, 1.0]).arctan()\n"
               "tensor([0.0000, 0.7854])"),
    "arctan_": ("arctan_() -> Tensor",
                ">>> x = ember.tensor([0.0, 1.0])\n"
                ">>> x.arctan_()\n"
                "tensor([0.0000, 0.7854])"),
    "arctan2": ("arctan2(other) -> Tensor",
                ">>> ember.tensor([1.0, -1.0]).arctan2(ember.tensor([1.0, 1.0]))\n"
                "tensor([ 0.7854, -0.7854])"),
    "arctan2_": ("arctan2_(other) -> Tensor",
                 ">>> y = ember.tensor([1.0, -1.0])\n"
                 ">>> y.arctan2_(ember.tensor([1.0, 1.0]))\n"
                 "tensor([ 0.7854, -0.7854])"),
    "arctanh": ("arctanh() -> Tensor",
                ">>> ember.tensor([0.0, 0.5]).arctanh()\n"
                "tensor([0.0000, 0.5493])"),
    "arctanh_": ("arctanh_() -> Tensor",
                 ">>> x = ember.tensor([0.0, 0.5])\n"
                 ">>> x.arctanh_()\n"
                 "tensor([0.0000, 0.5493])"),
    "clip": ("clip(min=None, max=None) -> Tensor",
             ">>> ember.tensor([-2.0, 0.5, 3.0]).clip(-1.0, 1.0)\n"
             "tensor([-1.0000,  0.5000,  1.0000])"),
    "clip_": ("clip_(min=None, max=None) -> Tensor",
              ">>> x = ember.tensor([-2.0, 0.5, 3.0])\n"
              ">>> x.clip_(min=0.0)\n"
              "tensor([0.0000, 0.5000, 3.0000])"),
    "divide": ("divide(other, *, rounding_mode=None) -> Tensor",
               ">>> ember.tensor([7.0, -7.0]).divide(2, rounding_mode='floor')\n"
               "tensor([ 3., -4.])"),
    "divide_": ("divide_(other, *, rounding_mode=None) -> Tensor",
                ">>> x = ember.tensor([3.0, 5.0])\n"
                ">>> x.divide_(2)\n"
                "tensor([1.5000, 2.5000])"),
    "fix": ("fix() -> Tensor",
            ">>> ember.tensor([-1.7, 1.7]).fix()\n"
            "tensor([-1.,  1.])"),
    "fix_": ("fix_() -> Tensor",
             ">>> x = ember.tensor([-1.7, 1.7])\n"
             ">>> x.fix_()\n"
             "tensor([-1.,  1.])"),
    "greater": ("greater(other) -> Tensor",
                ">>> ember.tensor([1, 2, 3]).greater(2)\n"
                "tensor([False, False,  True])"),
    "greater_equal": ("greater_equal(other) -> Tensor",
                      ">>> ember.tensor([1, 2, 3]).greater_equal(2)\n"
                      "tensor([False,  True,  True])"),
    "less": ("less(other) -> Tensor",
             ">>> ember.tensor([1, 2, 3]).less(2)\n"
             "tensor([ True, False, False])"),
    "less_equal": ("less_equal(other) -> Tensor",
                   ">>> ember.tensor([1, 2, 3]).less_equal(2)\n"
                   "tensor([ True,  True, False])"),
    "not_equal": ("not_equal(other) -> Tensor",
                  ">>> ember.tensor([1, 2, 3]).not_equal(2)\n"
                  "tensor([ True, False,  True])"),
    "moveaxis": ("moveaxis(source, destination) -> Tensor",
                 ">>> ember.zeros(2, 3, 4).moveaxis(0, -1).shape\n"
                 "ember.Size([3, 4, 2])"),
    "swapdims": ("swapdims(dim0, dim1) -> Tensor",
                 ">>> ember.zeros(2, 3, 4).swapdims(0, 2).shape\n"
                 "ember.Size([4, 3, 2])"),
    "multiply": ("multiply(other) -> Tensor",
                 ">>> ember.tensor([1.0, 2.0]).multiply(3)\n"
                 "tensor([3., 6.])"),
    "multiply_": ("multiply_(other) -> Tensor",
                  ">>> x = ember.tensor([1.0, 2.0])\n"
                  ">>> x.multiply_(ember.tensor([3.0, 4.0]))\n"
                  "tensor([3., 8.])"),
    "negative": ("negative() -> Tensor",
                 ">>> ember.tensor([1.0, -2.0]).negative()\n"
                 "tensor([-1.,  2.])"),
    "negative_": ("negative_() -> Tensor",
                  ">>> x = ember.tensor([1.0, -2.0])\n"
                  ">>> x.negative_()\n"
                  "tensor([-1.,  2.])"),
    "sgn": ("sgn() -> Tensor",
            ">>> ember.tensor([-3.0, 0.0, 2.0]).sgn()\n"
            "tensor([-1.,  0.,  1.])"),
    "sgn_": ("sgn_() -> Tensor",
             ">>> x = ember.tensor([-3.0, 0.0, 2.0])\n"
             ">>> x.sgn_()\n"
             "tensor([-1.,  0.,  1.])"),
    "subtract": ("subtract(other, *, alpha=1) -> Tensor",
                 ">>> ember.tensor([5.0, 6.0]).subtract(ember.tensor([1.0, 2.0]), alpha=2)\n"
                 "tensor([3., 2.])"),
    "subtract_": ("subtract_(other, *, alpha=1) -> Tensor",
                  ">>> x = ember.tensor([5.0, 6.0])\n"
                  ">>> x.subtract_(1)\n"
                  "tensor([4., 5.])"),
    "true_divide": ("true_divide(other) -> Tensor",
                    ">>> ember.tensor([1, 3]).true_divide(2)\n"
                    "tensor([0.5000, 1.5000])"),
    "true_divide_": ("true_divide_(other) -> Tensor",
                     ">>> x = ember.tensor([1.0, 3.0])\n"
                     ">>> x.true_divide_(2)\n"
                     "tensor([0.5000, 1.5000])"),
}
for _name, (_sig, _example) in _METHOD_DOCS.items():
    _target = ALIASES[_name.rstrip("_")] + ("_" if _name.endswith("_") else "")
    METHODS[_name].__doc__ = f"{_sig}\n\nAlias of Tensor.{_target}.\n\n{_example}"
