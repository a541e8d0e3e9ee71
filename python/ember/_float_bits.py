"""torch.frexp and torch.nextafter with torch's signatures (the work: src/ops/float_bits.cpp)."""
from . import _C, return_types
from ._comparison import _into


def frexp(input, *, out=None):
    """(mantissa, exponent) with input == mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1.

    >>> ember.frexp(ember.tensor([8.0, 0.5]))
    ember.return_types.frexp(
    mantissa=tensor([0.5000, 0.5000]),
    exponent=tensor([4, 0], dtype=ember.int32))
    """
    mantissa, exponent = _C._frexp(input)
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("frexp(): out must be a tuple of two tensors (mantissa, exponent)")
        _into(mantissa, out[0], "frexp")
        _into(exponent, out[1], "frexp")
        mantissa, exponent = out
    return return_types.frexp(mantissa, exponent)


def nextafter(input, other, *, out=None):
    """nextafter(input, other, *, out=None) -> Tensor

    The next representable floating-point value after input in the direction of other.

    >>> ember.nextafter(ember.tensor([1.0]), ember.tensor([2.0])) - 1
    tensor([1.1921e-07])
    """
    return _into(_C._nextafter(input, other), out, "nextafter")


def nextafter_(self, other):
    """nextafter_(other) -> Tensor

    The in-place form of Tensor.nextafter: each element becomes the next representable
    value after it towards other.

    >>> x = ember.tensor([0.0])
    >>> x.nextafter_(ember.tensor([1.0]))
    tensor([1.4013e-45])
    """
    _C._nextafter_(self, other)
    return self


FUNCTIONS = {"frexp": frexp, "nextafter": nextafter}
METHODS = {"frexp": frexp, "nextafter": nextafter, "nextafter_": nextafter_}
