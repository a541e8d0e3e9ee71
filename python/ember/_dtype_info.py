"""Numeric limits of the dtypes (torch.finfo, torch.iinfo) and the small type queries
(typename, is_storage, numel). Constants only: no tensor math."""
import builtins
import sys

from . import _C
from ._dtype import LEGACY_NAMES, PlannedDtype, dtype as _dtype_cls, bool as _bool, get_default_dtype

# The values torch.finfo reports (IEEE-754 binary32 / binary64); resolution is 10**-digits.
_FLOAT = {
    "float32": dict(bits=32, eps=2.0 ** -23, max=(2 - 2.0 ** -23) * 2.0 ** 127,
                    tiny=2.0 ** -126, resolution=1e-06),
    "float64": dict(bits=64, eps=sys.float_info.epsilon, max=sys.float_info.max,
                    tiny=sys.float_info.min, resolution=1e-15),
    "bfloat16": dict(bits=16, eps=2.0 ** -7, max=(2 - 2.0 ** -7) * 2.0 ** 127, tiny=2.0 ** -126,
                     resolution=0.01),
    "float16": dict(bits=16, eps=2.0 ** -10, max=65504.0, tiny=2.0 ** -14, resolution=0.001),
    # The float8 formats: names ember has (PlannedDtype), limits as torch reports them.
    "float8_e4m3fn": dict(bits=8, eps=2.0 ** -3, max=448.0, tiny=2.0 ** -6, resolution=1.0),
    "float8_e4m3fnuz": dict(bits=8, eps=2.0 ** -3, max=240.0, tiny=2.0 ** -7, resolution=1.0),
    "float8_e5m2": dict(bits=8, eps=2.0 ** -2, max=57344.0, tiny=2.0 ** -14, resolution=1.0),
    "float8_e5m2fnuz": dict(bits=8, eps=2.0 ** -3, max=57344.0, tiny=2.0 ** -15, resolution=1.0),
    "float8_e8m0fnu": dict(bits=8, eps=1.0, max=2.0 ** 127, tiny=2.0 ** -127, resolution=1.0,
                           min=2.0 ** -127),  # exponent only: no sign, no zero
}
_FINFO_OF = {"complex32": "float16", "chalf": "float16", "complex64": "float32",
             "cfloat": "float32", "complex128": "float64", "cdouble": "float64"}
_INT = {"uint8": (8, 0, 255), "int8": (8, -2 ** 7, 2 ** 7 - 1), "int16": (16, -2 ** 15, 2 ** 15 - 1),
        "int32": (32, -2 ** 31, 2 ** 31 - 1),
        "int64": (64, -2 ** 63, 2 ** 63 - 1), "uint16": (16, 0, 2 ** 16 - 1),
        "uint32": (32, 0, 2 ** 32 - 1), "uint64": (64, 0, 2 ** 64 - 1)}


def _as_dtype(type, who):
    if type is None:
        return get_default_dtype()
    if not isinstance(type, _dtype_cls):
        raise TypeError(f"{who}(): argument 'type' must be ember.dtype, not {builtins.type(type).__name__}")
    return type


class finfo:
    """torch.finfo: bits, eps, max, min, tiny, smallest_normal, resolution, dtype.

    >>> ember.finfo(ember.float16).max, ember.finfo(ember.float32).eps
    (65504.0, 1.1920928955078125e-07)
    """

    def __init__(self, type=None):
        dt = type if isinstance(type, PlannedDtype) else _as_dtype(type, "finfo")
        name = _FINFO_OF.get(dt.name, dt.name)  # a complex dtype's limits are its parts'
        if name not in _FLOAT:
            raise TypeError("ember.finfo() requires a floating point input type. Use ember.iinfo "
                            f"to handle 'ember.finfo' (got {dt!r})")
        v = _FLOAT[name]
        self.bits, self.eps, self.max = v["bits"], v["eps"], v["max"]
        self.min = v.get("min", -self.max)
        self.tiny = self.smallest_normal = v["tiny"]
        self.resolution = v["resolution"]
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """torch.iinfo: bits, max, min, dtype.

    >>> ember.iinfo(ember.int32).min, ember.iinfo(ember.uint8).max
    (-2147483648, 255)
    """

    def __init__(self, type):
        if not isinstance(type, _dtype_cls):
            raise TypeError(f"iinfo(): argument 'type' must be ember.dtype, not "
                            f"{builtins.type(type).__name__}")
        if type == _bool:
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if type.name not in _INT:
            raise TypeError("ember.iinfo() requires an integer input type. Use ember.finfo to "
                            f"handle 'ember.iinfo' (got {type!r})")
        self.bits, self.min, self.max = _INT[type.name]
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


def typename(obj):
    """'torch.FloatTensor' for a float32 tensor (torch's spelling, so code comparing it works),
    else the object's qualified class name.

    >>> ember.typename(ember.ones(2)), ember.typename(3)
    ('torch.FloatTensor', 'int')
    """
    if isinstance(obj, _C.Tensor):
        return f"torch.{LEGACY_NAMES[obj.dtype]}"
    module = getattr(type(obj), "__module__", "builtins")
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def is_storage(obj):
    """True for a storage object (ember.UntypedStorage or TypedStorage), False otherwise.

    >>> ember.is_storage(ember.ones(2).untyped_storage()), ember.is_storage(ember.ones(2))
    (True, False)
    """
    from ._storage import UntypedStorage  # TypedStorage derives from it
    return isinstance(obj, UntypedStorage)


def numel(input):
    """numel(input) -> int

    The number of elements of input.

    >>> ember.numel(ember.zeros(2, 3))
    6
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.numel()


FUNCTIONS = {"finfo": finfo, "iinfo": iinfo, "typename": typename, "is_storage": is_storage,
             "numel": numel}
def _other_tensor(fn, other):
    if not isinstance(other, _C.Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    return other


def _type_as(self, other):
    """type_as(other) -> Tensor

    self.to(other.dtype): self converted to other's dtype (self itself when it matches).

    >>> ember.tensor([1.7, 2.2]).type_as(ember.tensor([0]))
    tensor([1, 2])
    """
    return self.to(_other_tensor("type_as", other).dtype)


def _is_same_size(self, other):
    """is_same_size(other) -> bool

    Whether self and other have the same shape.

    >>> x = ember.zeros(2, 3)
    >>> x.is_same_size(ember.ones(2, 3)), x.is_same_size(ember.zeros(3, 2))
    (True, False)
    """
    return tuple(self.shape) == tuple(_other_tensor("is_same_size", other).shape)


def _is_signed(self):
    """is_signed() -> bool

    Whether self's dtype holds negative values (every dtype but bool and the unsigned ones).

    >>> ember.tensor([1]).is_signed(), ember.tensor([1], dtype=ember.uint8).is_signed()
    (True, False)
    """
    return self.dtype.is_signed


METHODS = {"type_as": _type_as, "is_same_size": _is_same_size, "is_signed": _is_signed}
