"""ember.device, and what using a device means in a CPU-only library.

As PyTorch's CPU build: any device can be NAMED (`device('cuda', 0)`, `device('mps')`: type,
index, repr, equality, hashing, pickling), only the CPU can be USED. Using another device raises
what torch's CPU build raises: `AssertionError: Torch not compiled with CUDA enabled` for cuda,
NotImplementedError when a tensor is created on another backend, RuntimeError when one is moved
there. A bare integer names the current accelerator, and there is none. (docs/devices.md)
"""
import builtins

# torch's list, in torch's order (its error message names them all).
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
NO_CUDA = "Torch not compiled with CUDA enabled"
NO_PINNED_ALLOCATOR = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned "
                       "memory allocator is available on this system.")


def raising(name, doc, exc_type, message, *, device_only=False):
    """A function of torch's device namespaces that ember's CPU-only build answers by raising
    exc_type(message), as torch's CPU build does: named `name`, documented `doc`; its only
    argument an optional positional device when device_only, else anything."""
    if device_only:
        def fn(device=None, /):
            raise exc_type(message)
    else:
        def fn(*args, **kwargs):
            raise exc_type(message)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _parse(spec):
    """'cuda:1' -> ('cuda', 1); 'cpu' -> ('cpu', None), with torch's errors."""
    name, sep, idx = spec.partition(":")
    if name not in DEVICE_TYPES:
        if sep and not name.isalnum() or spec != spec.strip():
            raise RuntimeError(f"Invalid device string: '{spec}'")
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {spec}")
    if not sep:
        return name, None
    if not idx.isdigit() or not idx.isascii() or (len(idx) > 1 and idx[0] == "0"):
        raise RuntimeError(f"Invalid device string: '{spec}'")
    return name, builtins.int(idx)


class device:
    """A device name: `device('cpu')`, `device('cuda', 0)`, `device('cuda:1')`, `device(other)`.

    Usable as a context manager that sets the default device of the creation functions,
    as torch.device is.

    >>> ember.device('cpu'), ember.device('cuda', 1).index
    (device(type='cpu'), 1)
    """
    __slots__ = ("_type", "_index", "_previous")
    __module__ = "ember"

    def __init__(self, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device and an index were given; pass only the device")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, builtins.int) and not isinstance(type, builtins.bool):
            raise RuntimeError(NO_ACCELERATOR)  # device(0): the current accelerator's index 0
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, device or int, not "
                            f"{builtins.type(type).__name__}")
        name, parsed = _parse(type)
        if index is not None:
            if isinstance(index, builtins.bool) or not isinstance(index, builtins.int):
                raise TypeError("device(): argument 'index' (position 2) must be int, not "
                                f"{builtins.type(index).__name__}")
            if parsed is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            parsed = index
        self._type, self._index = name, parsed

    type = property(lambda self: self._type)
    index = property(lambda self: self._index)

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):  # device('cpu') == 'cpu' is False in torch too
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self):
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (str(self),))

    def __enter__(self):
        self._previous = _default[0]
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        _default[0] = self._previous


_Device = device  # (the methods below take an argument named `device`)
CPU = device("cpu")
_default = [None]  # set_default_device's device (None: the CPU)


def get_default_device():
    """The device creation functions use when given none (the CPU unless changed).

    >>> ember.get_default_device()
    device(type='cpu')
    """
    d = _default[0]
    if d is None:
        return CPU
    check(d, "get_default_device", moving=True)
    return d


def set_default_device(dev):
    """Sets the device of creation functions given none; None restores the CPU. As torch,
    naming a device ember cannot use is accepted here and fails when a tensor is created.

    >>> ember.set_default_device('cpu')
    >>> ember.get_default_device()
    device(type='cpu')
    """
    _default[0] = None if dev is None else device(dev)


def check(dev, op, moving=False):
    """Raises unless `dev` (a device, a string, an int or None) is the CPU, as torch's CPU build:
    creating a tensor elsewhere raises NotImplementedError, moving one raises RuntimeError."""
    if dev is None:
        dev = _default[0]
        if dev is None:
            return
    elif not isinstance(dev, device):
        if isinstance(dev, str) and dev == "cpu":
            return
        dev = device(dev)
    kind = dev._type
    if kind == "cpu" or kind == "meta":  # meta: Note [Meta tensors] (storage.h)
        return
    if kind == "cuda":
        raise AssertionError(NO_CUDA)
    if moving:
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices (ember runs "
                           "on the CPU only)")
    raise NotImplementedError(f"{op}: ember runs on the CPU only; it cannot create a tensor on "
                              f"device '{dev}' (torch's CPU build has no {kind} backend either)")


# ---- Tensor methods about devices --------------------------------------------------------
def tensor_to_device(dev, op):
    """The device argument of Tensor.to/Module.to, validated (a moving use)."""
    check(dev, op, moving=True)


def tensor_cuda(self, device=None, non_blocking=False, memory_format=None):
    """cuda(device=None, non_blocking=False, memory_format=None) -> Tensor

    A copy on a CUDA device in torch; ember, like torch's CPU build, has no CUDA and raises.

    >>> ember.zeros(2).cuda()
    Traceback (most recent call last):
    ...
    AssertionError: Torch not compiled with CUDA enabled
    """
    if device is not None and not isinstance(device, (builtins.int, str, _Device)):
        raise TypeError("cuda(): argument 'device' must be torch.device, str or int, not "
                        f"{builtins.type(device).__name__}")
    if isinstance(device, builtins.int) and not isinstance(device, builtins.bool):
        raise RuntimeError(NO_ACCELERATOR)
    if device is not None and _Device(device)._type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    raise AssertionError(NO_CUDA)


def tensor_pin_memory(self, device=None):
    """pin_memory(device=None) -> Tensor

    A copy in pinned (page-locked) host memory, which an accelerator copies from; with no
    accelerator, torch raises, and so does ember.

    >>> ember.zeros(2).pin_memory()
    Traceback (most recent call last):
    ...
    RuntimeError: Cannot access accelerator device when none is available.
    """
    raise RuntimeError(NO_ACCELERATOR)


def tensor_xpu(self, device=None, non_blocking=False, memory_format=None):
    """xpu(device=None, non_blocking=False, memory_format=None) -> Tensor

    A copy on an Intel XPU in torch; torch's build without XPU raises, and so does ember.

    >>> ember.zeros(2).xpu()
    Traceback (most recent call last):
    ...
    AssertionError: Torch not compiled with XPU enabled
    """
    raise AssertionError("Torch not compiled with XPU enabled")


def tensor_mtia(self, device=None, non_blocking=False, memory_format=None):
    """mtia(device=None, non_blocking=False, memory_format=None) -> Tensor

    A copy on a Meta MTIA device in torch; torch's build without MTIA raises, and so does ember.

    >>> ember.zeros(2).mtia()  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    AssertionError: Torch not compiled with MTIA enabled.
    """
    from .mtia import _NOT_COMPILED
    raise AssertionError(_NOT_COMPILED)


META = device("meta")


def _device(self):
    """device -> ember.device

    The device self's data lives on: the CPU, or 'meta' for a meta tensor (shape and dtype,
    no data: Note [Meta tensors]).

    >>> ember.zeros(2).device, ember.zeros(2, device='meta').device
    (device(type='cpu'), device(type='meta'))
    """
    return META if self._is_meta() else CPU


def _is_cpu(self):
    """is_cpu -> bool

    Whether self lives on the CPU: every ember tensor but a meta tensor.

    >>> ember.zeros(2).is_cpu
    True
    """
    return not self._is_meta()


def _is_meta(self):
    """is_meta -> bool

    Whether self is a meta tensor: made for device 'meta' (or a view of one); it has a shape and
    a dtype but no data (Note [Meta tensors]).

    >>> ember.zeros(2).is_meta, ember.empty(2, device='meta').is_meta
    (False, True)
    """
    return self._is_meta()


def _get_device(self):
    """get_device() -> int

    The index of self's accelerator device, -1 for a CPU tensor (every ember tensor).

    >>> ember.zeros(2).get_device()
    -1
    """
    return -1


def _is_pinned(self, device=None):
    """is_pinned(device=None) -> bool

    Whether self is in pinned host memory: always False (ember has no accelerator to pin for).

    >>> ember.zeros(2).is_pinned()
    False
    """
    return False


META_COPY_OUT = "Cannot copy out of meta tensor; no data!"


def meta_like(t, dtype=None):
    """A meta tensor of t's shape (Note [Meta tensors]): its bytes allocated, never written."""
    from . import _C
    out = _C.empty(tuple(t.shape), t.dtype if dtype is None else dtype)
    out._set_meta()
    return out


def _cpu(self, memory_format=None):
    """cpu(memory_format=None) -> Tensor

    self on the CPU: self itself, as torch does for a CPU tensor; a meta tensor has no data to
    copy and raises, as torch's.

    >>> x = ember.zeros(2)
    >>> x.cpu() is x
    True
    """
    if self._is_meta():
        raise NotImplementedError(META_COPY_OUT)
    return self


# Every ember tensor is a dense, strided CPU tensor: torch's other backend and layout flags
# all answer False (dcgan's model checks `input.is_cuda or input.is_xpu`). Flag -> what torch
# means by it; the properties' docstrings.
_FALSE_FLAGS = {
    "is_cuda": "on a CUDA GPU", "is_mps": "on an Apple MPS GPU", "is_xpu": "on an Intel XPU",
    "is_ipu": "on a Graphcore IPU", "is_maia": "on a MAIA device", "is_mtia": "on a Meta MTIA device",
    "is_xla": "on an XLA device (TPU)", "is_vulkan": "on a Vulkan device",
    "is_mkldnn": "in MKL-DNN layout", "is_quantized": "quantized",
    "is_sparse": "sparse in COO layout", "is_sparse_csr": "sparse in CSR layout",
}


def _false_flag(name, what):
    return property(lambda self: False, doc=f"{name} -> bool\n\nWhether self is {what}: always "
                    f"False in ember (dense CPU tensors only).\n\n>>> ember.zeros(2).{name}\nFalse")


TENSOR_METHODS = {
    "device": property(_device),
    "is_cpu": property(_is_cpu),
    "is_meta": property(_is_meta),
    **{name: _false_flag(name, what) for name, what in _FALSE_FLAGS.items()},
    "get_device": _get_device,
    "is_pinned": _is_pinned,
    "pin_memory": tensor_pin_memory,
    "cuda": tensor_cuda,
    "xpu": tensor_xpu,
    "mtia": tensor_mtia,
    "cpu": _cpu,
}
