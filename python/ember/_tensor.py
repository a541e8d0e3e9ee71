"""Tensor methods that only shape arguments or format output. Anything that loops over
elements lives in C++ (ember._C); this file holds no math."""
import copy
import sys

from . import _C, _memory_format
from ._dtype import dtype as _dtype_cls, to_dtype, LEGACY_NAMES, TORCH_TYPE_NAMES
from ._dtype import float32, float64, int64, int32, int16, int8, uint8
from ._dtype import bool as _bool
from ._dtype import PlannedDtype, check_supported, bfloat16, float16, complex64, complex128
from ._dtype import from_python_type
from ._printing import tensor_repr
from ._device import device, tensor_to_device as _to_device, TENSOR_METHODS as _DEVICE_METHODS  # noqa: F401

Tensor = _C.Tensor


Size = _C.Size  # torch.Size, a tuple subclass made in C (python/bindings/size.cpp)


def _size(self, dim=None):
    """size(dim=None) -> ember.Size or int

    The shape as an ember.Size, or the size of dimension `dim` (negative counts from the end).

    >>> x = ember.zeros(2, 3)
    >>> x.size(), x.size(1), x.size(-2)
    (ember.Size([2, 3]), 3, 2)
    """
    return self.shape if dim is None else self._size(dim)


def _package_name():
    return sys.modules[__package__].__name__


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """type(dtype=None, non_blocking=False) -> str or Tensor

    Without dtype, the legacy type name ('ember.FloatTensor', ...); with one, self converted
    to it (self itself when the dtype is the same).

    >>> x = ember.tensor([1.5, 2.5])
    >>> x.type()
    'ember.FloatTensor'
    >>> x.type(ember.int64)
    tensor([1, 2])
    >>> ember.tensor([1, 2]).type(ember.Tensor)  # the Tensor class: the default dtype
    tensor([1., 2.])
    """
    if dtype is None:  # 'torch.FloatTensor' under the drop-in runner, where ember answers to torch
        # (uint16/32/64 have no legacy type object; torch still names one: 'torch.UInt16Tensor')
        name = LEGACY_NAMES.get(self.dtype) or f"{TORCH_TYPE_NAMES[self.dtype.name]}Tensor"
        return f"{_package_name()}.{name}"
    if dtype is _C.Tensor:
        dtype = _C._get_default_dtype()
    elif isinstance(dtype, type):  # torch names the class it cannot convert to (a subclass)
        raise ValueError(f"invalid type: {dtype.__name__!r}")
    dtype = to_dtype(dtype)
    return self if dtype == self.dtype else self._to_dtype(dtype)


def _to(self, *args, dtype=None, device=None, copy=False, non_blocking=False,
        memory_format=None):
    """to(*args, dtype=None, device=None, copy=False, non_blocking=False, memory_format=None)
    -> Tensor

    self converted: t.to(dtype), t.to('cpu'), t.to(other_tensor) (its dtype), t.to(device, dtype),
    t.to(memory_format=ember.channels_last). self itself when nothing changes (unless copy=True),
    as in PyTorch; the device is CPU.

    >>> x = ember.tensor([1.5, 2.5])
    >>> x.to(ember.int32)
    tensor([1, 2], dtype=ember.int32)
    >>> x.to('cpu', ember.float64)
    tensor([1.5000, 2.5000], dtype=ember.float64)
    >>> x.to(x.dtype) is x
    True
    """
    for a in args:
        if isinstance(a, (_dtype_cls, PlannedDtype)) or from_python_type(a) is not a:
            dtype = a  # also bool, int, ...: Note [Python types as dtypes]
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif not isinstance(a, bool):  # t.to(dtype, non_blocking) positionally
            device = a
    dtype = check_supported(dtype, "to")
    if device is not None:
        _to_device(device, "to")
        if device == "meta" or getattr(device, "type", None) == "meta" or self._is_meta():
            return _to_or_from_meta(self, device, dtype, copy)
    elif self._is_meta():
        return _to_or_from_meta(self, "meta", dtype, copy)
    # The same Python object when nothing changes (t.to(t.dtype) is t), as in PyTorch.
    out = _memory_format.convert(self, dtype, memory_format, "to")
    return out.clone() if copy and out is self else out


def _to_or_from_meta(self, dev, dtype, copy):
    """t.to() where the tensor or the target is on 'meta' (Note [Meta tensors]): onto 'meta', a
    meta tensor of the same shape (self itself when nothing changes); off it, nothing to copy."""
    from ._device import device as _device_t, META_COPY_OUT, meta_like
    if _device_t(dev).type != "meta":
        raise NotImplementedError(META_COPY_OUT)
    if self._is_meta() and (dtype is None or dtype == self.dtype) and not copy:
        return self
    return meta_like(self, dtype)


def _format(self, spec):
    """f"{t}": a 0-d tensor formats as its value (f"{t:.2f}" too), as in PyTorch."""
    if self.dim() == 0:
        return format(self.item(), spec)
    return format(tensor_repr(self), spec)


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


# Tensor.new_<factory> -> its example (the docstrings of the methods _new generates).
_NEW_EXAMPLES = {
    "new_empty": (">>> ember.tensor([1], dtype=ember.int32).new_empty(2, 3).dtype\n"
                  "ember.int32"),
    "new_zeros": (">>> ember.tensor([1.0], dtype=ember.float64).new_zeros(2)\n"
                  "tensor([0., 0.], dtype=ember.float64)"),
    "new_ones": (">>> ember.tensor([1, 2]).new_ones((2, 2))\n"
                 "tensor([[1, 1],\n"
                 "        [1, 1]])"),
}


def _new(factory):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
        from . import _creation
        return getattr(_creation, factory)(*size, dtype=dtype or self.dtype, device=device,
                                           requires_grad=requires_grad)
    method.__name__ = method.__qualname__ = f"new_{factory}"
    method.__doc__ = (f"new_{factory}(*size, dtype=None, device=None, requires_grad=False) -> "
                      f"Tensor\n\nember.{factory}(*size) with self's dtype unless `dtype` is "
                      "given.\n\n"
                      + _NEW_EXAMPLES[method.__name__])
    return method


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    """new_tensor(data, dtype=None, device=None, requires_grad=False) -> Tensor

    ember.tensor(data) with self's dtype unless `dtype` is given (a copy of data).

    >>> ember.tensor([1], dtype=ember.int32).new_tensor([5, 6])
    tensor([5, 6], dtype=ember.int32)
    """
    from ._creation import tensor
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """new_full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor

    ember.full(size, fill_value) with self's dtype unless `dtype` is given.

    >>> ember.tensor([1.0]).new_full((2,), 7)
    tensor([7., 7.])
    """
    from ._creation import full
    return full(size, fill_value, dtype=dtype or self.dtype, device=device,
                requires_grad=requires_grad)


# Tensor.float/.double/... -> its example (the docstrings of the methods _cast generates).
_CAST_EXAMPLES = {
    "float": (">>> ember.tensor([1, 2]).float()\n"
              "tensor([1., 2.])"),
    "double": (">>> ember.tensor([1, 2]).double()\n"
               "tensor([1., 2.], dtype=ember.float64)"),
    "cfloat": (">>> ember.tensor([1.0, 2.0]).cfloat()\n"
               "tensor([1.+0.j, 2.+0.j])"),
    "cdouble": (">>> ember.tensor([1.0, -2.0]).cdouble()\n"
                "tensor([ 1.+0.j, -2.+0.j], dtype=ember.complex128)"),
    "long": (">>> ember.tensor([1.7, -2.7]).long()\n"
             "tensor([ 1, -2])"),
    "int": (">>> ember.tensor([1.7, -2.7]).int()\n"
            "tensor([ 1, -2], dtype=ember.int32)"),
    "short": (">>> ember.tensor([1.7, -32768.0]).short()\n"
              "tensor([     1, -32768], dtype=ember.int16)"),
    "char": (">>> ember.tensor([1.7, -128.0]).char()\n"
             "tensor([   1, -128], dtype=ember.int8)"),
    "byte": (">>> ember.tensor([1.0, 255.0]).byte()\n"
             "tensor([  1, 255], dtype=ember.uint8)"),
    "bool": (">>> ember.tensor([0.0, 0.5]).bool()\n"
             "tensor([False,  True])"),
    "half": (">>> ember.tensor([1.0, 0.1]).half()\n"
             "tensor([1.0000, 0.1000], dtype=ember.float16)"),
    "bfloat16": (">>> ember.tensor([1.0, 0.1]).bfloat16()\n"
                 "tensor([1.0000, 0.1001], dtype=ember.bfloat16)"),
}


def _view_dtype(self, dtype):
    """t.view(dtype): the same bytes read as `dtype` (torch's view.dtype; the bindings' view calls
    this for a dtype argument). Geometry only: a view of the storage with the last dim scaled by
    the ratio of the element sizes; no gradient flows through it, as torch's."""
    dtype = check_supported(dtype, "view")
    old, new = self.element_size(), dtype.itemsize
    shape, strides, offset = list(self.shape), list(self.stride()), self.storage_offset()
    if old != new:
        what = (f"to view {TORCH_TYPE_NAMES[self.dtype.name]} as {TORCH_TYPE_NAMES[dtype.name]} "
                "(different element sizes)")
        if not shape:
            raise RuntimeError(f"view: self.dim() cannot be 0 {what}")
        if strides[-1] != 1:
            raise RuntimeError(f"view: self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if new > old:
            r = new // old
            if shape[-1] % r:
                raise RuntimeError(f"view: self.size(-1) must be divisible by {r} {what}, but got "
                                   f"{shape[-1]}")
            if offset % r:
                raise RuntimeError(f"view: self.storage_offset() must be divisible by {r} {what}, "
                                   f"but got {offset}")
            for d, s in enumerate(strides[:-1]):
                if s % r:
                    raise RuntimeError(f"view: self.stride({d}) must be divisible by {r} {what}, "
                                       f"but got {s}")
            shape[-1] //= r
            strides, offset = [s // r for s in strides[:-1]] + [1], offset // r
        else:
            r = old // new
            shape[-1] *= r
            strides, offset = [s * r for s in strides[:-1]] + [1], offset * r
    return self._storage_view(dtype).as_strided(shape, strides, offset)


def _cast(dt, name):
    def method(self, memory_format=None):
        check_supported(dt, f"Tensor.{name}")
        return _memory_format.convert(self, dt, memory_format, name)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"{name}(memory_format=None) -> Tensor\n\nself.to(ember.{dt.name}): self "
                      f"itself when it already has that dtype.\n\n{_CAST_EXAMPLES[name]}")
    return method


def _is_floating_point(self):
    """is_floating_point() -> bool

    Whether self's dtype is a floating point type (float16/bfloat16/float32/float64).

    >>> ember.tensor([1.0]).is_floating_point(), ember.tensor([1]).is_floating_point()
    (True, False)
    """
    return self.dtype.is_floating_point


def _nbytes(self):
    """nbytes -> int

    The bytes self's elements take: numel() * element_size().

    >>> ember.zeros(2, 3).nbytes
    24
    """
    return self.numel() * self.element_size()


def _itemsize(self):
    """itemsize -> int

    The bytes one element takes: element_size().

    >>> ember.zeros(2, dtype=ember.float64).itemsize
    8
    """
    return self.element_size()


def _contains(self, x):
    if not isinstance(x, (_C.Tensor, bool, int, float, complex)):
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in "
                           f"a {type(x)}.")
    return bool((self == x).any())


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """backward(gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None

    Computes the gradient of self (a scalar, or weighted by `gradient`) with respect to the graph
    leaves and accumulates it into their .grad, as ember.autograd.backward.

    >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    # Straight to the engine (ember.autograd.backward does the same for lists of tensors).
    _C._backward(self, gradient, create_graph if retain_graph is None else retain_graph,
                 create_graph, inputs)


class _RemovableHandle:
    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def remove(self):
        self._hooks.pop(self._key, None)


def _register_hook(self, hook):
    """register_hook(hook) -> RemovableHandle

    Calls hook(grad) when this tensor's gradient is computed; a non-None result replaces it.
    handle.remove() unregisters it.

    >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> x.sum().backward()
    >>> x.grad
    tensor([10., 10.])
    >>> h.remove()
    """
    hooks = {}
    key = object()
    hooks[key] = hook
    self._register_hook(lambda g: hooks[key](g) if key in hooks else None)
    return _RemovableHandle(hooks, key)


def _register_post_accumulate_grad_hook(self, hook):
    """register_post_accumulate_grad_hook(hook) -> RemovableHandle

    Calls hook(self) each time backward() has accumulated a gradient into self.grad (leaves
    only; the hook returns None). DistributedDataParallel starts its all-reduces from here.

    >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    >>> (3 * x).sum().backward()
    >>> seen
    [[3.0, 3.0]]
    """
    import weakref
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook: expected a callable, got {type(hook).__name__}")
    hooks = {}
    key = object()
    hooks[key] = hook
    ref = weakref.ref(self)  # the hook lives in self's autograd state: no reference cycle

    def call(leaf):
        if key in hooks:
            me = ref()
            return hooks[key](leaf if me is None else me)
    self._register_post_accumulate_grad_hook(call)
    return _RemovableHandle(hooks, key)


def _deepcopy(self, memo):
    """A leaf's values, requires_grad, .grad and Python attributes (its __dict__, deep-copied),
    in new memory (torch refuses non-leaves too)."""
    if self.grad_fn is not None:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                           "deepcopy protocol at the moment.")
    if id(self) in memo:
        return memo[id(self)]
    out = self.detach().clone().requires_grad_(self.requires_grad)
    memo[id(self)] = out
    if self.grad is not None:
        out.grad = _deepcopy(self.grad, memo)
    if self.__dict__:
        out.__dict__ = copy.deepcopy(self.__dict__, memo)
    return out


def _rebuild(array, requires_grad, state=None):
    from ._creation import from_numpy
    t = from_numpy(array).requires_grad_(requires_grad)
    if state:
        t.__dict__.update(state)
    return t


def _reduce_ex(self, proto):
    """Pickling stores the values as a NumPy array and the Python attributes (pickle is for
    copying between processes, not for model files: unpickling can run code, so never
    unpickle a file you did not write)."""
    args = (self.detach().numpy().copy(), self.requires_grad)
    return (_rebuild, args + (self.__dict__,) if self.__dict__ else args)


_METHODS = {
    "backward": _backward,
    "register_hook": _register_hook,
    "register_post_accumulate_grad_hook": _register_post_accumulate_grad_hook,
    "size": _size,
    "type": _type,
    "to": _to,
    "is_floating_point": _is_floating_point,
    "__iter__": _iter,
    "__repr__": tensor_repr,
    "__str__": tensor_repr,
    "__format__": _format,
    "__array_priority__": 1000,
    "__contains__": _contains,
    "float": _cast(float32, "float"),
    "double": _cast(float64, "double"),
    "cfloat": _cast(complex64, "cfloat"),
    "cdouble": _cast(complex128, "cdouble"),
    "long": _cast(int64, "long"),
    "int": _cast(int32, "int"),
    "short": _cast(int16, "short"),
    "char": _cast(int8, "char"),
    "byte": _cast(uint8, "byte"),
    "bool": _cast(_bool, "bool"),
    "half": _cast(float16, "half"),
    "bfloat16": _cast(bfloat16, "bfloat16"),
    "new_empty": _new("empty"),
    "new_zeros": _new("zeros"),
    "new_ones": _new("ones"),
    "new_tensor": _new_tensor,
    "new_full": _new_full,
    "__deepcopy__": _deepcopy,
    "__reduce_ex__": _reduce_ex,
    "nbytes": property(_nbytes),
    "itemsize": property(_itemsize),
}

_METHODS.update(_DEVICE_METHODS)  # device, is_cuda, cpu(), cuda(), pin_memory(), ...

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
