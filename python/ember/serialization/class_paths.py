"""The one table between PyTorch's global names and ember's objects (docs/serialization.md).

A pickle names every class and function it needs by "module.qualname". Files written by
torch.save name torch's (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`,
`torch.nn.modules.linear.Linear`); ember writes the same names so that torch.load reads
ember's files, and maps each name back to its own object when loading. Everything that
crosses between the two libraries goes through `to_ember` / `torch_name` below.
"""
import collections

from .. import _dtype
from .._device import device as _device
from .._tensor import Size as _Size, Tensor as _Tensor

__all__ = ["TorchGlobal", "StorageType", "to_ember", "torch_name", "torch_default_safe_names"]


class TorchGlobal:
    """A torch global that ember has no object of its own for (a rebuild function, a
    storage class): the writer emits its name, the reader resolves it to `target`."""
    __slots__ = ("module", "name", "target")

    def __init__(self, module, name, target=None):
        self.module, self.name, self.target = module, name, target

    @property
    def full_name(self):
        return f"{self.module}.{self.name}"

    def __repr__(self):
        return f"<torch global {self.full_name}>"

    def __call__(self, *args, **kwargs):  # pickle's writer checks that a reduce function is callable
        if self.target is None:
            raise TypeError(f"{self.full_name} cannot be called in ember")
        return self.target(*args, **kwargs)


class StorageType(TorchGlobal):
    """torch.FloatStorage and friends: the first field of a storage's persistent id; it
    carries the dtype of the storage's elements."""
    __slots__ = ("dtype",)

    def __init__(self, name, dtype):
        super().__init__("torch", name)
        self.dtype = dtype


# torch.<Name>Storage for each ember dtype (as torch.storage._dtype_to_storage_type_map).
STORAGE_TYPES = {dt: StorageType(name, dt) for dt, name in (
    (_dtype.float32, "FloatStorage"), (_dtype.float64, "DoubleStorage"),
    (_dtype.int64, "LongStorage"), (_dtype.int32, "IntStorage"),
    (_dtype.int16, "ShortStorage"), (_dtype.int8, "CharStorage"),
    (_dtype.uint8, "ByteStorage"), (_dtype.bool, "BoolStorage"),
    (_dtype.complex64, "ComplexFloatStorage"), (_dtype.complex128, "ComplexDoubleStorage"),
    (_dtype.float16, "HalfStorage"), (_dtype.bfloat16, "BFloat16Storage"))}
# The dtypes torch gives no typed storage class (torch.storage._new_dtypes): torch.save writes
# their tensors with _rebuild_tensor_v3 over a torch.storage.UntypedStorage (bytes, read as
# uint8) and the dtype as a separate global.
UNTYPED_DTYPES = (_dtype.uint16, _dtype.uint32, _dtype.uint64)
UNTYPED_STORAGE = StorageType("UntypedStorage", _dtype.uint8)
UNTYPED_STORAGE.module = "torch.storage"

# Storage classes of dtypes ember has no tensor type for: known, so that a file holding
# one fails with the dtype's name instead of "unsupported global".
_FOREIGN_STORAGES = ("UntypedStorage",
                     "TypedStorage", "QInt8Storage", "QUInt8Storage", "QInt32Storage",
                     "QUInt4x2Storage", "QUInt2x4Storage")

# Where torch keeps ember's nn classes. A class's torch path is its ember path with "torch"
# for "ember" (ember.nn.modules.linear.Linear -> torch.nn.modules.linear.Linear), except for
# the ember files below, whose classes torch keeps in another file, and the classes after.
# ember.nn.modules.<torch file> re-exports each of them, so torch's path works in ember too.
NN_FILE_RENAMES = {"activation_pointwise": "activation", "activation_attention": "activation",
                   "conv_transpose": "conv", "pooling_adaptive": "pooling",
                   "pooling_3d": "pooling", "loss_regression": "loss",
                   "group_rms_norm": "normalization", "unpooling": "pooling",
                   "lp_pooling": "pooling", "fractional_pooling": "pooling",
                   "loss_margin": "loss", "loss_ctc": "loss", "linear_cross_entropy": "loss",
                   "sync_batchnorm": "batchnorm"}
NN_CLASS_FILES = {
    "NonDynamicallyQuantizableLinear": "linear", "BatchNorm1d": "batchnorm",
    "BatchNorm2d": "batchnorm",
    "LazyLinear": "linear", "LazyConv1d": "conv", "LazyConv2d": "conv",
    "LazyConvTranspose1d": "conv", "LazyConvTranspose2d": "conv",
    "LazyBatchNorm1d": "batchnorm", "LazyBatchNorm2d": "batchnorm",
    "LazyInstanceNorm1d": "instancenorm", "LazyInstanceNorm2d": "instancenorm",
    "LazyInstanceNorm3d": "instancenorm", "BatchNorm3d": "batchnorm", "LazyConv3d": "conv",
    "LazyConvTranspose3d": "conv", "LazyBatchNorm3d": "batchnorm",
}


def nn_classes():
    """{torch's full name: ember class} for every nn.Module class of ember.nn."""
    from .. import nn
    from ..nn.modules.activation_attention import NonDynamicallyQuantizableLinear
    classes = [c for c in vars(nn).values() if isinstance(c, type) and issubclass(c, nn.Module)]
    out = {}
    for cls in classes + [NonDynamicallyQuantizableLinear]:
        package, _, file = cls.__module__.rpartition(".")
        if not package.startswith("ember.nn"):
            continue
        file = NN_CLASS_FILES.get(cls.__name__) or NN_FILE_RENAMES.get(file, file)
        out[f"torch{package[len('ember'):]}.{file}.{cls.__name__}"] = cls
    return out


# torch.nn.functional's activations, which layers keep as attributes
# (TransformerEncoderLayer.activation) and so appear in a pickled module.
NN_FUNCTIONAL = ["relu", "gelu", "silu", "elu", "selu", "celu", "leaky_relu", "tanh",
                 "sigmoid", "softplus", "mish", "hardswish", "hardsigmoid", "glu", "softmax",
                 "log_softmax", "relu6"]

def _tensor_from_tensor(*args):
    """torch.Tensor as a loaded file may call it: on a tensor only. (torch.Tensor(n) makes an
    uninitialised tensor of n elements: a file could ask for terabytes.)"""
    if len(args) > 1 or args and not isinstance(args[0], _Tensor):
        raise TypeError("load: torch.Tensor may only be called on a tensor in a loaded file")
    if args:
        return _Tensor(args[0])
    from .._creation import empty
    return empty(0)


def _bytearray_from_bytes(*args):
    """bytearray as pickle protocol 2 writes it: from bytes, or from a str and an encoding.
    (bytearray(n) would allocate n bytes for a number a file chose.)"""
    if not args or isinstance(args[0], int):
        raise TypeError("load: bytearray may only be built from bytes or a string in a loaded file")
    return bytearray(*args)


_table = None  # torch name -> ember object, built on first use (ember.nn imports late)
_names = None  # id(ember object) -> torch name
_defaults = None  # the names torch.load(weights_only=True) accepts by default


def _build():
    from . import torch_format
    from .. import nn
    from ..nn.parameter import Parameter
    table = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": _Size,
        "torch.Tensor": TorchGlobal("torch", "Tensor", _tensor_from_tensor),
        "torch.device": _device,
        "_codecs.encode": __import__("_codecs").encode,
        "builtins.bytearray": TorchGlobal("builtins", "bytearray", _bytearray_from_bytes),
        "builtins.set": set,
        "builtins.complex": complex,
    }
    for dt in (*STORAGE_TYPES, *UNTYPED_DTYPES):
        table[f"torch.{dt.name}"] = dt
    table[UNTYPED_STORAGE.full_name] = UNTYPED_STORAGE
    for st in STORAGE_TYPES.values():
        table[st.full_name] = st
    for name in _FOREIGN_STORAGES:
        table[f"torch.{name}"] = StorageType(name, None)
    for g in torch_format.REBUILD_GLOBALS:
        table[g.full_name] = g
    global _defaults
    _defaults = list(table)  # torch's default safe globals: all of the above, no layer
    table.update(nn_classes())
    for name in NN_FUNCTIONAL:
        fn = getattr(nn.functional, name, None)
        if fn is not None:
            table[f"torch.nn.functional.{name}"] = fn
    return table


def _ensure():
    global _table, _names
    if _table is None:
        table = _build()
        names = {}
        for name, obj in table.items():
            names.setdefault(id(obj), name)
            # a function stands in the table as fx's router while routing is on (a Tensor
            # subclass exists); the function itself, held by a module, has the same name
            orig = getattr(obj, "__fx_orig__", None)
            if orig is not None:
                names.setdefault(id(orig), name)
        _table, _names = table, names
    return _table


def to_ember(full_name):
    """The ember object for a torch global name, or None when ember has none."""
    return _ensure().get(full_name)


def torch_name(obj):
    """The torch name ember writes for `obj` (TorchGlobals name themselves), or None."""
    if isinstance(obj, TorchGlobal):
        return obj.full_name
    _ensure()
    name = _names.get(id(obj))
    if name is None:  # a router, and the table was built before routing began: its function's
        name = _names.get(id(getattr(obj, "__fx_orig__", None)))
    return name


def torch_default_safe_names():
    """The globals torch.load(weights_only=True) accepts with no allowlisting, that ember
    has: torch.serialization's default list (_weights_only_unpickler._get_allowed_globals),
    which holds no nn layer or function."""
    _ensure()
    return list(_defaults)
