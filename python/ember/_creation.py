"""Creation functions with PyTorch's signatures. Each is one call into C++; the only
work here is argument shaping (f(2, 3) vs f((2, 3)), dtype=None, device='cpu')."""
import builtins
import sys
from typing import Callable

from . import _C
from ._dtype import dtype as _dtype_cls, int64, uint64, bool as _bool, get_default_dtype
from ._dtype import check_supported as _check_supported
from . import _device
from . import _memory_format


# NumPy loads on first use (building from Python lists), not with `import ember`: it is
# half of a cold import's time. Until something imported it, no value can be a NumPy array.
def _np():
    import numpy
    return numpy


def _is_numpy(x, scalars=True):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, (np.ndarray, np.generic) if scalars else np.ndarray)


def _size(size, op):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


def _check_device(device, op="tensor", pin_memory=False, dtype=None):
    # Only the CPU can hold a tensor; any other device raises as torch's CPU build (_device.py),
    # and so does pinned memory (there is no accelerator to pin it for); so does a dtype that
    # ember only names (bfloat16, float16, ...: _dtype.PlannedDtype).
    dtype = _check_supported(dtype, op)
    if device is not None or _device._default[0] is not None:
        _device.check(device, op)
    if pin_memory:
        raise RuntimeError(_device.NO_PINNED_ALLOCATOR)
    return dtype


def _on_meta(device):
    """Whether a tensor made for `device` (None: the default device) is a meta tensor."""
    d = device if device is not None else _device._default[0]
    if d is None:
        return False
    return (d if isinstance(d, str) else getattr(d, "type", None)) == "meta"


def _finish(t, requires_grad, device=None):
    """t as a creation function returns it: on 'meta' marked so (Note [Meta tensors], its
    bytes never read), and requiring grad when asked."""
    if _on_meta(device):
        t._set_meta()
    if requires_grad:
        t.requires_grad_(True)
    return t


_RANDOM = {"rand": "_rand", "randn": "_randn"}  # the factories that take generator=


_FACTORY_DOCS = {
    "empty": "empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor\n\n"
             "A tensor of the given size whose values are whatever the memory held.\n\n"
             ">>> ember.empty(2, 3).shape\nember.Size([2, 3])",
    "zeros": "zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor\n\n"
             "A tensor of zeros; size as ints or one sequence.\n\n"
             ">>> ember.zeros(2, 3)\ntensor([[0., 0., 0.],\n        [0., 0., 0.]])",
    "ones": "ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor\n\n"
            "A tensor of ones.\n\n>>> ember.ones((2,), dtype=ember.int64)\ntensor([1, 1])",
    "rand": "rand(*size, generator=None, dtype=None, device=None, requires_grad=False) -> "
            "Tensor\n\nValues drawn uniformly from [0, 1).\n\n"
            ">>> bool(((ember.rand(100) >= 0) & (ember.rand(100) < 1)).all())\nTrue",
    "randn": "randn(*size, generator=None, dtype=None, device=None, requires_grad=False) -> "
             "Tensor\n\nValues drawn from the standard normal distribution.\n\n"
             ">>> ember.randn(2, 3).shape\nember.Size([2, 3])",
}


def _factory(name) -> Callable[..., _C.Tensor]:
    fn = getattr(_C, _RANDOM.get(name, name))

    def factory(*size, dtype=None, device=None, requires_grad=False, out=None, generator=None,
                pin_memory=False, **kwargs):
        _check_device(device, name, pin_memory, dtype=dtype)
        if "size" in kwargs:  # zeros(size=(2, 3))
            size = (kwargs.pop("size"),)
        # On 'meta' the values are computed all the same (Note [Meta tensors]); empty's bytes
        # are allocated and never written.
        if name in _RANDOM:
            return _finish(fn(_size(size, name), dtype, generator), requires_grad, device)
        if "memory_format" in kwargs:
            if name != "empty":  # as torch: only empty() takes a layout
                raise TypeError(f"{name}() got an unexpected keyword argument 'memory_format'")
            out = _memory_format.empty(fn(_size(size, name), dtype), kwargs.pop("memory_format"))
            return _finish(out, requires_grad, device)
        return _finish(fn(_size(size, name), dtype), requires_grad, device)

    factory.__name__ = name
    factory.__doc__ = _FACTORY_DOCS[name]
    return factory


empty = _factory("empty")
zeros = _factory("zeros")
ones = _factory("ones")
rand = _factory("rand")
randn = _factory("randn")


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False,
         pin_memory=False) -> _C.Tensor:
    """full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of shape `size` filled with `fill_value` (dtype: the default float dtype for a
    float, int64 for an int, bool for a bool, unless given).

    >>> ember.full((2,), 7.5)
    tensor([7.5000, 7.5000])"""
    _check_device(device, "full", pin_memory, dtype=dtype)
    return _finish(_C.full(tuple(size), fill_value, dtype), requires_grad, device)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False) -> _C.Tensor:
    """randint(low=0, high, size, *, generator=None, dtype=None, device=None) -> Tensor

    Integers drawn uniformly from [low, high), int64 unless dtype says otherwise.

    >>> ember.randint(0, 10, (2, 3)).shape
    ember.Size([2, 3])"""
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint: missing the size argument")
    if high is None:
        low, high = 0, low
    _check_device(device, "randint", dtype=dtype)
    return _finish(_C._randint(low, high, tuple(size), dtype, generator), False, device)


def randperm(n, *, generator=None, dtype=None, device=None) -> _C.Tensor:
    """randperm(n, *, generator=None, dtype=None, device=None) -> Tensor

    A random permutation of 0, ..., n - 1 (int64).

    >>> ember.randperm(4).sort().values
    tensor([0, 1, 2, 3])"""
    _check_device(device, "randperm", dtype=dtype)
    return _finish(_C._randperm(n, dtype, generator), False, device)


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
           pin_memory=False) -> _C.Tensor:
    """arange(start=0, end, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor

    The values start, start + step, ... up to, not including, end (int64 when all three are
    ints, else the default float dtype).

    >>> ember.arange(5)
    tensor([0, 1, 2, 3, 4])"""
    _check_device(device, "arange", pin_memory, dtype=dtype)
    if end is None:
        start, end = 0, start
    # torch takes 0-d tensors as the numbers they hold (arange(mask.sum())).
    start, end, step = (v.item() if isinstance(v, _C.Tensor) and v.dim() == 0 else v
                        for v in (start, end, step))
    return _finish(_C.arange(start, end, step, dtype), requires_grad, device)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False,
             pin_memory=False) -> _C.Tensor:
    """linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor

    `steps` values evenly spaced from start to end, both included.

    >>> ember.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])"""
    _check_device(device, "linspace", pin_memory, dtype=dtype)
    return _finish(_C.linspace(float(start), float(end), steps, dtype), requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> _C.Tensor:
    """eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor

    An n x m (n x n) matrix with ones on the diagonal.

    >>> ember.eye(2)
    tensor([[1., 0.],
            [0., 1.]])"""
    _check_device(device, "eye", pin_memory, dtype=dtype)
    return _finish(_C.eye(n, m, dtype), requires_grad, device)


def _like_input(name, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(t).__name__}")
    return t


def _like_device(t, device):
    # *_like keeps input's device unless told: a meta tensor's is 'meta'
    return device if device is not None else ("meta" if t._is_meta() else "cpu")


def _like(name) -> Callable[..., _C.Tensor]:
    fn = globals()[name]

    def like(t, *, dtype=None, device=None, requires_grad=False, memory_format=None,
             **kwargs):  # generator= (rand)
        _like_input(name + "_like", t)
        out = fn(t.shape, dtype=dtype or t.dtype, device=_like_device(t, device), **kwargs)
        return _finish(_memory_format.like(out, memory_format, name + "_like"), requires_grad)

    like.__name__ = name + "_like"
    like.__doc__ = (f"{name}_like(input, *, dtype=None, device=None, requires_grad=False, "
                    f"memory_format=None) -> Tensor\n\n{name}() with input's shape (and dtype, "
                    f"unless given), laid out as memory_format asks (default: row-major).\n\n"
                    f">>> ember.{name}_like(ember.ones(2, 3)).shape\nember.Size([2, 3])")
    return like


empty_like = _like("empty")
zeros_like = _like("zeros")
ones_like = _like("ones")
rand_like = _like("rand")
randn_like = _like("randn")


def full_like(t, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None) -> _C.Tensor:
    """full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
    memory_format=None) -> Tensor

    full() with input's shape (and dtype, unless given).

    >>> ember.full_like(ember.zeros(2), 3.0)
    tensor([3., 3.])"""
    _like_input("full_like", t)
    out = full(t.shape, fill_value, dtype=dtype or t.dtype, device=_like_device(t, device))
    return _finish(_memory_format.like(out, memory_format, "full_like"), requires_grad)


def randint_like(t, low, high=None, *, generator=None, dtype=None, device=None) -> _C.Tensor:
    """randint_like(input, low=0, high, *, generator=None, dtype=None, device=None) -> Tensor

    randint() with input's shape and dtype.

    >>> ember.randint_like(ember.zeros(2, 2), 5).shape
    ember.Size([2, 2])"""
    _like_input("randint_like", t)
    return randint(low, high, t.shape, generator=generator, dtype=dtype or t.dtype,
                   device=_like_device(t, device))


def _import_array(a):
    """_C._from_numpy, plus ml_dtypes.bfloat16 arrays (NumPy has no bfloat16 of its own; the
    bytes arrive as their uint16 view and are read as bfloat16)."""
    if a.dtype.name == "bfloat16" and a.dtype.kind == "V":
        from ._dtype import bfloat16
        return _C._from_numpy_as(a.view(_np().uint16), bfloat16)
    return _C._from_numpy(a)


def from_numpy(a) -> _C.Tensor:
    """from_numpy(ndarray) -> Tensor

    A tensor sharing the array's memory (a write to one shows in the other).

    >>> import numpy as np
    >>> a = np.array([1.0, 2.0])
    >>> t = ember.from_numpy(a)
    >>> t[0] = 5.0
    >>> a
    array([5., 2.])"""
    if not _is_numpy(a, scalars=False):
        raise TypeError(f"from_numpy: expected np.ndarray (got {type(a).__name__})")
    if not a.flags.writeable:
        # As torch: the tensor shares the array's memory, and tensors are always writable.
        import warnings
        warnings.warn("from_numpy: the given NumPy array is not writable, and ember tensors "
                      "always are: writing to this tensor writes to memory NumPy considers "
                      "read-only. Copy the array (a.copy()) to protect its data.",
                      UserWarning, stacklevel=2)
    return _import_array(a)


def from_dlpack(obj) -> _C.Tensor:
    """from_dlpack(ext_tensor) -> Tensor

    A tensor sharing the memory of any object with __dlpack__ (a NumPy array, a torch tensor).

    >>> import numpy as np
    >>> ember.from_dlpack(np.arange(3))
    tensor([0, 1, 2])"""
    return _C._from_dlpack(obj)


def _infer_dtype(arr):
    """The dtype torch.tensor infers from Python data (as NumPy read it): bool, int64, or the
    default dtype (its complex partner for complex numbers)."""
    np = _np()
    if arr.dtype == np.bool_:
        return _bool
    if np.issubdtype(arr.dtype, np.integer):
        return int64
    if np.issubdtype(arr.dtype, np.floating):
        return get_default_dtype()
    if arr.dtype.name == "bfloat16":  # an ml_dtypes scalar among the data
        return _dtype_cls.bfloat16
    if np.issubdtype(arr.dtype, np.complexfloating):
        return _C._get_default_complex_dtype()  # complex64, or complex128 under float64
    raise TypeError(f"tensor: could not infer the dtype of the data (numpy sees {arr.dtype})")


def _legacy_tensor(*args, dtype=None, name="Tensor"):
    """torch.Tensor(...), the legacy constructor (and FloatTensor(...) and friends, which pass
    their dtype): no argument -> an empty tensor; ints or a Size -> an uninitialized one of that
    shape; data (nested sequences, NumPy) -> one of those values. (Tensor(t) of a tensor aliases
    t: bindings/tensor.cpp; FloatTensor(t) too, when t is float32: _legacy_types.)"""
    from ._tensor import Size
    dtype = get_default_dtype() if dtype is None else dtype
    ints = all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args)
    if ints:
        return empty(*args, dtype=dtype) if args else empty(0, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Size):
        return empty(tuple(args[0]), dtype=dtype)
    if len(args) == 1 and not isinstance(args[0], (str, bytes, builtins.float, builtins.bool)):
        return tensor(args[0], dtype=dtype)
    raise TypeError(f"{name}(): expected sizes (ints or a Size), data (a sequence or an array) or "
                    f"a tensor, but got {', '.join(type(a).__name__ for a in args)}")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> _C.Tensor:
    """tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor

    A new tensor holding a copy of `data` (a number, nested lists, a NumPy array, or a tensor);
    the dtype is inferred as torch does (bool, int64, or the default float dtype) unless given.

    >>> ember.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> ember.tensor([0.5, 1.0], requires_grad=True).requires_grad
    True"""
    dtype = _check_device(device, "tensor", pin_memory, dtype=dtype)
    if isinstance(data, _C.Tensor):
        t = data.clone().detach()
        return _finish(t._to_dtype(dtype) if dtype is not None else t, requires_grad, device)
    if _is_numpy(data):  # NumPy data keeps its dtype
        np = _np()
        arr = np.asarray(data)  # (np.ascontiguousarray would make a 0-d array 1-d)
        t = _import_array(arr if arr.flags.c_contiguous else arr.copy()).clone()
        return _finish(t._to_dtype(dtype) if dtype is not None else t, requires_grad, device)
    # full checks the range; floats go through NumPy (1e300 -> inf), and so do ints for uint64
    # (its values reach 2**64 - 1, beyond full's int64)
    if isinstance(data, (builtins.bool, builtins.int)) and dtype != uint64:
        return _finish(_C.full((), data, dtype), requires_grad, device)
    if isinstance(data, (list, tuple)) and _contains_tensors(data):
        data = _tensors_to_lists(data)
    # NumPy reads the nesting as bool, int64 or float64; ember then converts to the dtype
    # asked for (or inferred) as .to() does, so tensor([-1], dtype=uint8) wraps to 255.
    np = _np()
    try:
        arr = np.array(data)
    except (ValueError, OverflowError) as e:
        raise ValueError(f"tensor: could not build a tensor from the data: {e}") from None
    if dtype == uint64 and arr.dtype.kind in "fO":  # NumPy reads [2**64 - 1, 5] as float64
        arr = _uint64_array(np, data)
    # NumPy's answer to ints >= 2**63: only uint64 holds them
    if arr.dtype.kind == "u" and arr.dtype != np.uint8 and dtype != uint64:
        raise ValueError("tensor: value out of range of int64 (overflow when unpacking long long)")
    dt = dtype if dtype is not None else _infer_dtype(arr)
    if arr.dtype.kind == "c" and not dt.is_complex:  # torch: tensor([1j], dtype=float32)
        raise TypeError(f"tensor: must be real number, not complex (dtype={dt!r})")
    _check_fits(arr, dt)
    t = _C._from_numpy(arr)
    return _finish(t._to_dtype(dt) if t.dtype != dt else t.clone(), requires_grad, device)


# Negative values wrap into the unsigned types (-1 -> 255), as torch, except into uint64.
_INT_RANGE = {"uint8": (-255, 255), "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1),
              "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
              "uint16": (-2**16 + 1, 2**16 - 1), "uint32": (-2**32 + 1, 2**32 - 1),
              "uint64": (0, 2**64 - 1)}


def _uint64_array(np, data):
    """Python ints in [0, 2**64) as a uint64 array, each exact: torch reads uint64 data as
    unsigned ints (TypeError for a float, OverflowError for a negative int)."""
    obj = np.array(data, dtype=object)
    for v in obj.flat:
        if not isinstance(v, (builtins.int, np.integer)):
            raise TypeError(f"tensor: an integer is required for dtype uint64 (got "
                            f"{type(v).__name__})")
        if v < 0:
            raise OverflowError("tensor: can't convert negative int to unsigned (dtype uint64)")
    return obj.astype(np.uint64)


def _check_fits(arr, dt):
    """Python numbers that overflow an integer dtype are refused, as torch.tensor does
    (negative integers may wrap into uint8; NaN and inf fit no integer type)."""
    if dt.name not in _INT_RANGE or arr.size == 0 or arr.dtype.kind not in "iuf":
        return
    lo, hi = _INT_RANGE[dt.name]
    if dt == uint64 and arr.dtype.kind == "f":  # torch reads uint64 data as Python ints only
        raise TypeError("tensor: an integer is required for dtype uint64 (got a float)")
    if dt == uint64 and int(arr.min()) < 0:
        raise OverflowError("tensor: can't convert negative int to unsigned (dtype uint64)")
    if arr.dtype.kind == "f":
        lo = 0 if not dt.is_signed else lo
        bad = not _np().isfinite(arr).all() or arr.min() < lo or arr.max() > hi
    else:
        bad = int(arr.min()) < lo or int(arr.max()) > hi
    if bad:
        raise RuntimeError(f"tensor: a value cannot be converted to type {dt.name} without overflow")


def _contains_tensors(data):
    return builtins.any(isinstance(x, _C.Tensor) or
                        (isinstance(x, (list, tuple)) and _contains_tensors(x)) for x in data)


def _tensors_to_lists(data):
    return [x.tolist() if isinstance(x, _C.Tensor) else
            _tensors_to_lists(x) if isinstance(x, (list, tuple)) else x for x in data]


def as_tensor(data, dtype=None, device=None) -> _C.Tensor:
    """as_tensor(data, dtype=None, device=None) -> Tensor

    `data` as a tensor, sharing memory where it can: a tensor of the right dtype is returned as
    is, a NumPy array is viewed (from_numpy); anything else is copied (tensor()).

    >>> t = ember.ones(2)
    >>> ember.as_tensor(t) is t
    True"""
    dtype = _check_device(device, "as_tensor", dtype=dtype)
    if isinstance(data, _C.Tensor):
        return data if dtype is None or data.dtype == dtype else data._to_dtype(dtype)
    if dtype is None and _is_numpy(data, scalars=False):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


manual_seed = _C.manual_seed
initial_seed = _C.initial_seed
