"""dtypes under PyTorch's names, and the names of the legacy tensor types (ember.FloatTensor)."""
import builtins
import typing

from . import _C

dtype = _C.dtype

float32 = float = dtype.float32
float64 = double = dtype.float64
int64 = long = dtype.int64
int32 = int = dtype.int32
uint8 = dtype.uint8
int8 = dtype.int8
int16 = short = dtype.int16
bool = dtype.bool
complex64 = cfloat = dtype.complex64
complex128 = cdouble = dtype.complex128
bfloat16 = dtype.bfloat16
float16 = half = dtype.float16
# torch's "limited support" unsigned types: casts, copies, indexing, eq/ne, mul, bitwise
# and/or/xor; no promotion with other integer types (docs/dtypes.md).
uint16 = dtype.uint16
uint32 = dtype.uint32
uint64 = dtype.uint64

_PY_NAMES = {"bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16",
             "int32": "int32", "int64": "int64",
             "float32": "float32", "float64": "float64", "complex64": "complex64",
             "complex128": "complex128", "bfloat16": "bfloat16", "float16": "float16",
             "uint16": "uint16", "uint32": "uint32", "uint64": "uint64"}
_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float32": 4, "float64": 8,
             "complex64": 8, "complex128": 16, "bfloat16": 2, "float16": 2, "uint16": 2, "uint32": 4,
             "uint64": 8}
# torch's C++ ScalarType names, as its "not implemented for 'Long'" errors and storage classes
# (ShortStorage) spell them.
TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                    "int32": "Int", "int64": "Long", "float32": "Float", "float64": "Double",
                    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
                    "bfloat16": "BFloat16", "float16": "Half", "uint16": "UInt16",
                    "uint32": "UInt32", "uint64": "UInt64"}
_FLOATING = ("float32", "float64", "bfloat16", "float16")
_TO_REAL = {"complex64": "float32", "complex128": "float64"}
_TO_COMPLEX = {"float32": "complex64", "float64": "complex128"}


def _abbr(name):
    """torch's short dtype name: kind letter + bits ('f32', 'bf16', 'i64', 'u8', 'c64', 'b8')."""
    if name == "bfloat16":
        return "bf16"
    if name == "bool":
        return "b8"
    if name.startswith(("float8_", "float4_")):  # 'f8e4m3fn', 'f4e2m1fnx2'
        return "f" + name[5:].replace("_", "")
    if name[:-1] in ("int", "uint") and name[-1] in "1234567":
        return name  # the sub-byte integers keep their names: 'int4', 'uint1'
    kind = {"float": "f", "int": "i", "uint": "u", "complex": "c"}[name.rstrip("0123456789")]
    return kind + name[len(name.rstrip("0123456789")):]


def _to_real(self):
    """torch.dtype.to_real(): complex64 -> float32, complex128 -> float64, others unchanged."""
    return getattr(dtype, _TO_REAL.get(self.name, self.name))


def _to_complex(self):
    """torch.dtype.to_complex(): float32 -> complex64, float64 -> complex128; complex unchanged."""
    if self.is_complex:
        return self
    if self.name not in _TO_COMPLEX:
        raise RuntimeError(f"to_complex: unsupported dtype {self!r}: only floating types have a "
                           "complex counterpart")
    return getattr(dtype, _TO_COMPLEX[self.name])


dtype.__repr__ = lambda self: f"ember.{self.name}"
dtype.__str__ = dtype.__repr__
dtype.is_floating_point = property(lambda self: self.name in _FLOATING)
dtype.is_complex = property(lambda self: self.name in ("complex64", "complex128"))
dtype.is_signed = property(lambda self: self.name not in ("bool", "uint8", "uint16", "uint32",
                                                          "uint64"))
dtype.itemsize = property(lambda self: _ITEMSIZE[self.name])
dtype.abbr = property(lambda self: _abbr(self.name))  # torch.dtype.abbr: "f32", "bf16", "b8"
dtype.to_real = _to_real
dtype.to_complex = _to_complex


class PlannedDtype:
    """A dtype of torch's that ember does not implement yet (complex32, the float8
    and float4 formats, the sub-byte integers int1..int7 and uint1..uint7).

    The name exists so that programs that merely name it run. Making a tensor of one raises
    NotImplementedError saying so; nothing silently falls back to another dtype."""
    __module__ = "ember"

    def __init__(self, name, itemsize, kind, signed=None):
        self.name, self.itemsize, self._kind = name, itemsize, kind
        self._signed = kind != "u" if signed is None else signed

    is_floating_point = property(lambda self: self._kind == "f")
    is_complex = property(lambda self: self._kind == "c")
    is_signed = property(lambda self: self._signed)
    abbr = property(lambda self: _abbr(self.name))

    def __repr__(self):
        return f"ember.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module attribute ember.<name>


def unsupported(dt, op):
    """NotImplementedError for a tensor of a planned dtype, naming the op and the dtype."""
    return NotImplementedError(f"{op}: ember does not implement dtype {dt!r} yet; its tensors are "
                               "bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
                               "bfloat16, float16, float32, float64, complex64 and complex128")


_PY_TYPE_DTYPES = {builtins.bool: "bool", builtins.int: "int64", builtins.float: "float64",
                   builtins.complex: "complex128"}


def from_python_type(dt):
    """ember's dtype for Python's bool, int, float and complex, as torch reads them where it
    takes a dtype (Note [Python types as dtypes], python/bindings/common.h); dt otherwise."""
    name = _PY_TYPE_DTYPES.get(dt) if isinstance(dt, type) else None
    return dt if name is None else getattr(dtype, name)


def check_supported(dt, op):
    """dt for a dtype argument of `op`: a Python type read as torch reads it; a dtype ember only
    names raises."""
    if isinstance(dt, PlannedDtype):
        raise unsupported(dt, op)
    return from_python_type(dt)


complex32 = chalf = PlannedDtype("complex32", 4, "c")
# Named by libraries' quantization code at import (diffusers' ModelMixin defaults a layerwise-
# casting argument to float8_e4m3fn); torch's own itemsize and signedness.
float8_e4m3fn = PlannedDtype("float8_e4m3fn", 1, "f")
float8_e4m3fnuz = PlannedDtype("float8_e4m3fnuz", 1, "f")
float8_e5m2 = PlannedDtype("float8_e5m2", 1, "f")
float8_e5m2fnuz = PlannedDtype("float8_e5m2fnuz", 1, "f")
float8_e8m0fnu = PlannedDtype("float8_e8m0fnu", 1, "f", signed=False)
float4_e2m1fn_x2 = PlannedDtype("float4_e2m1fn_x2", 1, "f")
_SUB_BYTE = {f"{u}int{b}": PlannedDtype(f"{u}int{b}", 1, "u" if u else "i")
             for u in ("", "u") for b in range(1, 8)}
globals().update(_SUB_BYTE)
PLANNED = ("complex32", "chalf", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", *_SUB_BYTE)


# The legacy tensor-type names (torch.FloatTensor): the objects, which build tensors, are in
# _legacy_types.py, above _creation; a dtype only needs their names here.
LEGACY_NAMES = {float32: "FloatTensor", float64: "DoubleTensor", int64: "LongTensor",
                int32: "IntTensor", int16: "ShortTensor", int8: "CharTensor",
                uint8: "ByteTensor", bool: "BoolTensor",
                float16: "HalfTensor", bfloat16: "BFloat16Tensor"}
_TYPE_NAMES = {f"{prefix}.{name}": dt for dt, name in LEGACY_NAMES.items()
               for prefix in ("ember", "torch")}


class LegacyTypeBase:
    """What a legacy type (ember.FloatTensor) is to a dtype: a name and a dtype; its
    constructor is added by _legacy_types.LegacyType."""

    def __init__(self, name, dt):
        self.__name__ = self.name = name
        self.dtype = dt

    def __repr__(self):
        return f"ember.{self.name}"

    def __instancecheck__(self, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == self.dtype

    # torch's legacy types are classes, so annotations spell `torch.LongTensor | None`
    # (diffusers' normalization layers, at import): the same union, of this object.
    def __or__(self, other):
        return typing.Union[self, other]

    def __ror__(self, other):
        return typing.Union[other, self]


def to_dtype(spec):
    """A dtype from a dtype, a legacy type (FloatTensor) or its name ('torch.FloatTensor')."""
    if isinstance(spec, dtype):
        return spec
    if isinstance(spec, PlannedDtype):
        raise unsupported(spec, "to")
    if isinstance(spec, LegacyTypeBase):
        return spec.dtype
    if isinstance(spec, str) and spec in _TYPE_NAMES:
        return _TYPE_NAMES[spec]
    raise TypeError(f"invalid type: {spec!r}")


def get_default_dtype():
    """get_default_dtype() -> dtype

    The dtype of floating tensors made without one (float32 unless set_default_dtype changed it).

    >>> ember.get_default_dtype()
    ember.float32"""
    return _C._get_default_dtype()


def set_default_dtype(d):
    """set_default_dtype(d) -> None

    Makes d (float32, float64, bfloat16 or float16) the dtype of floating tensors made without
    one: factories, tensors of Python floats, a float scalar with an integer tensor, and floating
    ops of integer inputs (sin, true division). Process-wide, as torch.

    >>> ember.set_default_dtype(ember.float64)
    >>> ember.tensor([1.5]).dtype, (ember.arange(3) / 2).dtype
    (ember.float64, ember.float64)
    >>> ember.set_default_dtype(ember.float32)"""
    if not isinstance(d, dtype):
        raise TypeError(f"set_default_dtype: expected a dtype, got {type(d).__name__}")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C._set_default_dtype(d)


def set_default_tensor_type(t):
    """set_default_tensor_type(t) -> None

    The legacy form of set_default_dtype: t is a floating tensor type (ember.DoubleTensor) or
    its name ('torch.DoubleTensor').

    >>> ember.set_default_tensor_type(ember.DoubleTensor)
    >>> ember.zeros(1).dtype
    ember.float64
    >>> ember.set_default_tensor_type("torch.FloatTensor")"""
    if not isinstance(t, (LegacyTypeBase, str)):
        raise TypeError(f"set_default_tensor_type: expected a tensor type or its name, got "
                        f"{type(t).__name__}")
    set_default_dtype(to_dtype(t))
