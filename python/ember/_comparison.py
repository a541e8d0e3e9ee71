"""Comparisons and checks (torch.isclose, allclose, equal, count_nonzero, nan_to_num, signbit,
copysign, heaviside, ...), composed from ember's C++ ops: no element loops here."""
import builtins
from . import _C, _creation
from ._dtype import float32, float64, bool as _bool, bfloat16, float16, TORCH_TYPE_NAMES

Tensor = _C.Tensor

_FLOATING = (float32, float64, bfloat16, float16)


def _tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")
    return x


def check_broadcast(fn, a, b):
    """Raises, naming fn and both shapes, unless tensors (or scalars) a and b broadcast."""
    sa = tuple(a.shape) if isinstance(a, Tensor) else ()
    sb = tuple(b.shape) if isinstance(b, Tensor) else ()
    for x, y in zip(reversed(sa), reversed(sb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"{fn}: shapes {sa} and {sb} cannot be broadcast ({x} != {y})")


_RENAMED = (RuntimeError, ValueError, IndexError, TypeError, NotImplementedError)


def renamed_error(fn, error):
    """`error` (raised by the op that `fn` runs) as raised by `fn`: same type, the message's
    leading `op:` or `op():` replaced by `fn:`; None for another type (re-raise it as is)."""
    if type(error) not in _RENAMED:
        return None
    msg = str(error)
    head, sep, rest = msg.partition(": ")
    if sep and head.rstrip("()").isidentifier():
        msg = rest
    return type(error)(f"{fn}: {msg}")


def check_dims(fn, dim, ndim):
    """Raises IndexError naming fn unless every dim in `dim` (an int or a sequence) is valid."""
    n = max(ndim, 1)
    for d in ([dim] if isinstance(dim, int) else list(dim)):
        if not -n <= d < n:
            raise IndexError(f"{fn}(): Dimension out of range (expected to be in range of [{-n}, "
                             f"{n - 1}], but got {d})")


def _dtype_name(dt):
    return TORCH_TYPE_NAMES[dt.name]


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (broadcast), as torch.isclose.

    >>> ember.isclose(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.1]))
    tensor([ True, False])
    """
    _tensor(input, "isclose")
    _tensor(other, "isclose", "other")
    check_broadcast("isclose", input, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"isclose(): {_dtype_name(input.dtype)} did not match "
                           f"{_dtype_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"isclose(): rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"isclose(): atol must be greater than or equal to zero, but got {atol}")
    a, b = input.detach(), other.detach()  # a bool result: nothing to differentiate
    close = _C.eq(a, b)
    if equal_nan and a.dtype in _FLOATING:
        close = _C.logical_or(close, _C.logical_and(_C.isnan(a), _C.isnan(b)))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype not in _FLOATING:  # the exact difference (uint8 must not wrap around)
        a, b = a.double(), b.double()
    allowed = _C.add(_C.abs(_C.mul(b, rtol)), atol)
    actual = _C.abs(_C.sub(a, b))
    return _C.logical_or(close, _C.logical_and(_C.isfinite(actual), _C.le(actual, allowed)))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool

    True when every |input - other| <= atol + rtol * |other| (see isclose).

    >>> ember.allclose(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-9]))
    True
    """
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        check_broadcast("allclose", input, other)
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input, other):
    """True when both tensors have the same shape and the same values.

    >>> ember.equal(ember.tensor([1, 2]), ember.tensor([1, 2]))
    True
    """
    _tensor(input, "equal")
    _tensor(other, "equal", "other")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return builtins.bool(_C.eq(input.detach(), other.detach()).all().item())


def isreal(input):
    """True where the imaginary part is 0 (everywhere for a real tensor).

    >>> ember.isreal(ember.tensor([1 + 0j, 1 + 1j]))
    tensor([ True, False])
    """
    _tensor(input, "isreal")
    if input.dtype.is_complex:
        return _C.eq(_C._imag(input), 0)
    return _creation.full(list(input.shape), True, dtype=_bool)


def is_floating_point(input):
    """is_floating_point(input) -> bool

    True when input's dtype is a floating-point type.

    >>> ember.is_floating_point(ember.tensor([1.0])), ember.is_floating_point(ember.tensor([1]))
    (True, False)
    """
    return _tensor(input, "is_floating_point").dtype in _FLOATING


def is_complex(input):
    """is_complex(input) -> bool

    True when input's dtype is complex.

    >>> ember.is_complex(ember.tensor([1 + 2j])), ember.is_complex(ember.tensor([1.0]))
    (True, False)
    """
    return _tensor(input, "is_complex").dtype.is_complex


def is_nonzero(input):
    """is_nonzero(input) -> bool

    The truth value of a one-element tensor (RuntimeError for any other size).

    >>> ember.is_nonzero(ember.tensor([0.5]))
    True
    """
    _tensor(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise RuntimeError("is_nonzero(): Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError(f"is_nonzero(): Boolean value of Tensor with more than one value is "
                           f"ambiguous (shape {tuple(input.shape)})")
    return builtins.bool(input.item())


def count_nonzero(input, dim=None):
    """count_nonzero(input, dim=None) -> Tensor

    The number of non-zero elements (over `dim`, an int or a tuple, or over all).

    >>> ember.count_nonzero(ember.tensor([[0, 1], [2, 3]]), dim=0)
    tensor([1, 2])
    """
    _tensor(input, "count_nonzero")
    if dim is not None:
        check_dims("count_nonzero", dim, input.dim())
    nz = _C.ne(input.detach(), 0)
    return nz.long().sum() if dim is None else nz.long().sum(dim)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN -> nan, +inf -> posinf (the dtype's max), -inf -> neginf (the dtype's lowest).

    >>> ember.nan_to_num(ember.tensor([float('nan'), float('inf'), -1.0]), posinf=9.0)
    tensor([ 0.,  9., -1.])
    """
    _tensor(input, "nan_to_num")
    if input.dtype not in _FLOATING:
        result = input.clone()
    else:
        from ._dtype_info import finfo
        info = finfo(input.dtype)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
        result = _C.where(_C.isnan(input), _full(input, nan), input)
        result = _C.where(_C.isposinf(input), _full(input, posinf), result)
        result = _C.where(_C.isneginf(input), _full(input, neginf), result)
    return _into(result, out, "nan_to_num")


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """nan_to_num_(input, nan=0.0, posinf=None, neginf=None) -> Tensor

    The in-place form of nan_to_num: returns input.

    >>> x = ember.tensor([float('nan'), 2.0])
    >>> ember.nan_to_num_(x)
    tensor([0., 2.])
    >>> x
    tensor([0., 2.])
    """
    _tensor(input, "nan_to_num_")
    return input.copy_(nan_to_num(input, nan, posinf, neginf))


def _full(like, value):
    return _creation.full([], value, dtype=like.dtype)


def _into(result, out, fn):
    """Writes result into `out` (its dtype must hold result's) and returns out. An `out` of
    another shape is resized, with torch's warning unless it was empty (as the C++ ops do)."""
    if out is None:
        return result
    _tensor(out, fn, "out")
    if not _C.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"{fn}(): result type {_dtype_name(result.dtype)} can't be cast to the "
                           f"desired output type {_dtype_name(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            import warnings
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{tuple(out.shape)}, which does not match the required output shape "
                          f"{tuple(result.shape)} ({fn})", UserWarning, stacklevel=3)
        out.resize_(result.shape)
    return out.copy_(result)


def signbit(input, *, out=None):
    """True where the sign bit is set: negatives and -0.0 (a NaN's sign is not read).

    >>> ember.signbit(ember.tensor([-1.0, 0.0, -0.0, 2.0]))
    tensor([ True, False,  True, False])
    """
    _tensor(input, "signbit")
    x = input.detach()
    if x.dtype in _FLOATING:
        result = _C.logical_or(_C.lt(x, 0), _C.logical_and(_C.eq(x, 0), _C.lt(_C.reciprocal(x), 0)))
    elif x.dtype.is_signed:
        result = _C.lt(x, 0)
    else:
        result = _creation.zeros(list(x.shape), dtype=_bool)
    return _into(result, out, "signbit")


def copysign(input, other, *, out=None):
    """|input| with the sign of other (broadcast; a floating result).

    >>> ember.copysign(ember.tensor([1.0, 2.0]), ember.tensor([-1.0, 0.0]))
    tensor([-1.,  2.])
    """
    _tensor(input, "copysign")
    if not isinstance(other, Tensor):
        other = _creation.full([], other, dtype=float32 if isinstance(other, (builtins.int, builtins.float))
                        and input.dtype not in _FLOATING else input.dtype)
    check_broadcast("copysign", input, other)
    dt = _C.promote_types(input.dtype, other.dtype)
    if dt not in _FLOATING:
        dt = float32
    magnitude = _C.abs(input.to(dt))
    result = _C.where(signbit(other), _C.neg(magnitude), magnitude)
    return _into(result, out, "copysign")


def heaviside(input, values, *, out=None):
    """0 where input < 0, values where input == 0, 1 where input > 0 (no gradient, as torch).

    >>> ember.heaviside(ember.tensor([-1.0, 0.0, 2.0]), ember.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    _tensor(input, "heaviside")
    _tensor(values, "heaviside", "values")
    check_broadcast("heaviside", input, values)
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes "
                           f"({input.dtype} and {values.dtype}).")
    x, v = input.detach(), values.detach()
    result = _C.where(_C.eq(x, 0), v, _C.gt(x, 0).to(x.dtype))
    return _into(result, out, "heaviside")


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` occurs in `test_elements` (a broadcast comparison).

    >>> ember.isin(ember.tensor([1, 2, 3, 4]), ember.tensor([2, 4]))
    tensor([False,  True, False,  True])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): expected elements or test_elements to be a Tensor")
    if not isinstance(elements, Tensor):
        elements = _creation.full([], elements, dtype=test_elements.dtype)
    if not isinstance(test_elements, Tensor):
        test_elements = _creation.full([], test_elements, dtype=elements.dtype)
    e, t = elements.detach(), test_elements.detach().reshape(-1)
    found = _C.eq(e.unsqueeze(-1), t).any(-1) if t.numel() else \
        _creation.zeros(list(e.shape), dtype=_bool)
    return _C.logical_not(found) if invert else found


FUNCTIONS = {
    "isin": isin,
    "isclose": isclose, "allclose": allclose, "equal": equal, "isreal": isreal,
    "is_floating_point": is_floating_point, "is_complex": is_complex, "is_nonzero": is_nonzero,
    "count_nonzero": count_nonzero, "nan_to_num": nan_to_num, "nan_to_num_": nan_to_num_,
    "signbit": signbit, "copysign": copysign, "heaviside": heaviside,
}
# Tensor methods: the same functions with the tensor first (is_floating_point is in _tensor.py).
METHODS = {n: f for n, f in FUNCTIONS.items() if n != "is_floating_point"}
# In-place method -> (its signature, an example): the docstrings of the methods below.
_INPLACE_DOCS = {
    "copysign_": ("copysign_(other) -> Tensor",
                  ">>> x = ember.tensor([1.0, -2.0, 3.0])\n"
                  ">>> x.copysign_(ember.tensor([-1.0, 1.0, -0.0]))\n"
                  "tensor([-1.,  2., -3.])"),
    "heaviside_": ("heaviside_(values) -> Tensor",
                   ">>> x = ember.tensor([-1.5, 0.0, 2.0])\n"
                   ">>> x.heaviside_(ember.tensor([0.5]))\n"
                   "tensor([0.0000, 0.5000, 1.0000])"),
    "eq_": ("eq_(other) -> Tensor",
            ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
            ">>> x.eq_(2)\n"
            "tensor([0., 1., 0.])"),
    "ne_": ("ne_(other) -> Tensor",
            ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
            ">>> x.ne_(2)\n"
            "tensor([1., 0., 1.])"),
    "lt_": ("lt_(other) -> Tensor",
            ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
            ">>> x.lt_(2)\n"
            "tensor([1., 0., 0.])"),
    "le_": ("le_(other) -> Tensor",
            ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
            ">>> x.le_(2)\n"
            "tensor([1., 1., 0.])"),
    "gt_": ("gt_(other) -> Tensor",
            ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
            ">>> x.gt_(2)\n"
            "tensor([0., 0., 1.])"),
    "ge_": ("ge_(other) -> Tensor",
            ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
            ">>> x.ge_(2)\n"
            "tensor([0., 1., 1.])"),
    "logical_and_": ("logical_and_(other) -> Tensor",
                     ">>> x = ember.tensor([0.0, 1.0, 2.0])\n"
                     ">>> x.logical_and_(ember.tensor([1.0, 0.0, 3.0]))\n"
                     "tensor([0., 0., 1.])"),
    "logical_or_": ("logical_or_(other) -> Tensor",
                    ">>> x = ember.tensor([0.0, 1.0, 0.0])\n"
                    ">>> x.logical_or_(ember.tensor([0.0, 0.0, 3.0]))\n"
                    "tensor([0., 1., 1.])"),
    "logical_xor_": ("logical_xor_(other) -> Tensor",
                     ">>> x = ember.tensor([0.0, 1.0, 2.0])\n"
                     ">>> x.logical_xor_(ember.tensor([1.0, 1.0, 0.0]))\n"
                     "tensor([1., 0., 1.])"),
    "logical_not_": ("logical_not_() -> Tensor",
                     ">>> x = ember.tensor([0, 1, 5])\n"
                     ">>> x.logical_not_()\n"
                     "tensor([1, 0, 0])"),
}


def _documented(name, method, what):
    method.__name__ = method.__qualname__ = name
    sig, example = _INPLACE_DOCS[name]
    method.__doc__ = f"{sig}\n\n{what}\n\n{example}"
    return method


METHODS["copysign_"] = _documented("copysign_",
                                   lambda self, other: self.copy_(copysign(self, other)),
                                   "The in-place form of Tensor.copysign.")
METHODS["heaviside_"] = _documented("heaviside_",
                                    lambda self, values: self.copy_(heaviside(self, values)),
                                    "The in-place form of Tensor.heaviside.")
# In-place comparisons: self keeps its dtype and holds 1/0 (torch's eq_, lt_, ...).
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"):
    METHODS[_name + "_"] = _documented(
        _name + "_", (lambda f: lambda self, other: self.copy_(f(self, other)))(getattr(_C, _name)),
        f"Tensor.{_name}(other) written into self, which keeps its dtype: 1 where true, 0 "
        "elsewhere.")
METHODS["logical_not_"] = _documented("logical_not_", lambda self: self.copy_(_C.logical_not(self)),
                                      "Tensor.logical_not() written into self, which keeps its "
                                      "dtype: 1 where self is 0, 0 elsewhere.")
