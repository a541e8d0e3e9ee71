"""Complex tensors under torch's names: view_as_real/view_as_complex (and their _copy forms),
torch.complex, torch.polar, Tensor.real/.imag (writable views), angle, conj, conj_physical,
adjoint, Tensor.H/.mH. The ops are C++ (src/ops/complex.cpp); this module maps arguments.

ember has no lazy conjugate or negative bit: conj() of a complex tensor is a new tensor (as
conj_physical), so is_conj()/is_neg() are False and resolve_conj()/resolve_neg() return
their input."""
from . import _C

Tensor = _C.Tensor


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def _into(result, out, fn):
    from ._comparison import _into as into
    return into(result, out, fn)


def view_as_real(input):
    _check_tensor(input, "view_as_real")
    return _C.view_as_real(input)


def view_as_complex(input):
    _check_tensor(input, "view_as_complex")
    return _C.view_as_complex(input)


def view_as_real_copy(input, *, out=None):
    """view_as_real_copy(input, *, out=None) -> Tensor

    A copy of view_as_real(input): a complex tensor as (..., 2) floats.

    >>> ember.view_as_real_copy(ember.tensor([1 + 2j]))
    tensor([[1., 2.]])
    """
    return _into(view_as_real(input).clone(), out, "view_as_real_copy")


def view_as_complex_copy(input, *, out=None):
    """view_as_complex_copy(input, *, out=None) -> Tensor

    A copy of view_as_complex(input): a (..., 2) float tensor read as complex.

    >>> ember.view_as_complex_copy(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1.+2.j, 3.+4.j])
    """
    return _into(view_as_complex(input).clone(), out, "view_as_complex_copy")


def real(input):
    """real(input) -> Tensor

    The real part of a complex tensor (input itself for a real one).

    >>> ember.real(ember.tensor([1 + 2j, 3 - 4j]))
    tensor([1., 3.])
    """
    _check_tensor(input, "real")
    return _C._real(input)


def imag(input):
    """imag(input) -> Tensor

    The imaginary part of a complex tensor.

    >>> ember.imag(ember.tensor([1 + 2j, 3 - 4j]))
    tensor([ 2., -4.])
    """
    _check_tensor(input, "imag")
    return _C._imag(input)


def complex(real, imag, *, out=None):
    """complex(real, imag, *, out=None) -> Tensor

    A complex tensor real + imag * 1j from two float tensors of one dtype.

    >>> ember.complex(ember.tensor([1.0, 2.0]), ember.tensor([3.0, -1.0]))
    tensor([1.+3.j, 2.-1.j])
    """
    _check_tensor(real, "complex", "real")
    _check_tensor(imag, "complex", "imag")
    return _into(_C._complex(real, imag), out, "complex")


def polar(abs, angle, *, out=None):
    """polar(abs, angle, *, out=None) -> Tensor

    The complex tensor abs * (cos(angle) + sin(angle) * 1j).

    >>> ember.polar(ember.tensor([2.0]), ember.tensor([0.0]))
    tensor([2.+0.j])
    """
    _check_tensor(abs, "polar", "abs")
    _check_tensor(angle, "polar", "angle")
    return _into(_C._polar(abs, angle), out, "polar")


def angle(input, *, out=None):
    _check_tensor(input, "angle")
    return _into(_C.angle(input), out, "angle")


def conj_physical(input, *, out=None):
    _check_tensor(input, "conj_physical")
    return _into(_C.conj_physical(input), out, "conj_physical")


def conj_physical_(input):
    """conj_physical_(input) -> Tensor

    The complex conjugate written into input (no-op for real tensors).

    >>> x = ember.tensor([1 + 2j])
    >>> ember.conj_physical_(x)
    tensor([1.-2.j])
    """
    _check_tensor(input, "conj_physical_")
    return input.conj_physical_()


def resolve_conj(input):
    """resolve_conj(input) -> Tensor

    input with its conjugate bit materialized: input itself in ember (no lazy conjugation).

    >>> ember.resolve_conj(ember.tensor([1 + 2j]).conj()).is_conj()
    False
    """
    _check_tensor(input, "resolve_conj")
    return input


def resolve_neg(input):
    """resolve_neg(input) -> Tensor

    input with its negative bit materialized: input itself in ember (no lazy negation).

    >>> ember.resolve_neg(ember.tensor([1.0, -2.0]))
    tensor([ 1., -2.])
    """
    _check_tensor(input, "resolve_neg")
    return input


def is_conj(input):
    """is_conj(input) -> bool

    Whether input's conjugate bit is set: always False in ember, whose conj() materializes
    (torch sets the bit lazily, so torch.is_conj(x.conj()) is True there).

    >>> ember.is_conj(ember.tensor([1 + 2j]))
    False
    """
    _check_tensor(input, "is_conj")
    return False


def is_neg(input):
    """is_neg(input) -> bool

    Whether input's negative bit is set: always False in ember (no lazy negation).

    >>> ember.is_neg(ember.tensor([1.0]))
    False
    """
    _check_tensor(input, "is_neg")
    return False


def adjoint(input):
    """The conjugate transpose of the last two dims (a view for real tensors).

    >>> ember.adjoint(ember.tensor([[1 + 1j, 2], [3, 4]]))
    tensor([[1.-1.j, 3.-0.j],
            [2.-0.j, 4.-0.j]])
    """
    _check_tensor(input, "adjoint")
    if input.dim() < 2:
        raise RuntimeError(f"adjoint: tensor.adjoint() is only supported on matrices or batches "
                           f"of matrices. Got {input.dim()}-D tensor.")
    return _C.conj(input.transpose(-2, -1))


def _real(self):
    """real -> Tensor

    The real part of a complex tensor as a float view (assigning to it writes into self);
    for a real tensor, a view of self (torch returns self itself).

    >>> z = ember.tensor([1 + 2j, 3 - 1j])
    >>> z.real
    tensor([1., 3.])
    >>> z.real = ember.tensor([0.0, 5.0])
    >>> z
    tensor([0.+2.j, 5.-1.j])
    """
    return real(self)


def _imag(self):
    """imag -> Tensor

    The imaginary part of a complex tensor as a float view (assigning to it writes into
    self); a real tensor raises, as torch.

    >>> z = ember.tensor([1 + 2j, 3 - 1j])
    >>> z.imag
    tensor([ 2., -1.])
    """
    return imag(self)


def _H(self):
    """H -> Tensor

    The conjugate transpose of a matrix (self itself conjugated when 0-d); mH for batches.

    >>> ember.tensor([[1 + 1j, 2], [3, 4 - 2j]]).H
    tensor([[1.-1.j, 3.-0.j],
            [2.-0.j, 4.+2.j]])
    """
    if self.dim() not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.")
    return _C.conj(self.t() if self.dim() == 2 else self)


def _mH(self):
    """The conjugate transpose of the last two dimensions (a view); mT for real tensors.

    >>> ember.tensor([[1 + 2j, 3j]]).mH
    tensor([[1.-2.j],
            [0.-3.j]])
    """
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self.dim()}-D tensor.")
    return adjoint(self)


def _set_real(self, value):
    real(self).copy_(value)


def _set_imag(self, value):
    imag(self).copy_(value)


FUNCTIONS = {
    "view_as_real": view_as_real, "view_as_complex": view_as_complex,
    "view_as_real_copy": view_as_real_copy, "view_as_complex_copy": view_as_complex_copy,
    "real": real, "imag": imag, "complex": complex, "polar": polar, "angle": angle,
    "conj": _C.conj, "conj_physical": conj_physical, "conj_physical_": conj_physical_,
    "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "is_conj": is_conj,
    "is_neg": is_neg, "adjoint": adjoint,
}
METHODS = {"resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "is_conj": is_conj,
           "is_neg": is_neg, "adjoint": adjoint}
PROPERTIES = {"real": property(_real, _set_real), "imag": property(_imag, _set_imag),
              "H": property(_H), "mH": property(_mH)}
