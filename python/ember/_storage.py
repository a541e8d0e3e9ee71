"""Storages (Tensor.untyped_storage(), Tensor.storage()), the methods that change which memory
a tensor views (set_, resize_, resize_as_) and the creation functions that take memory or a
layout (empty_strided, empty_permuted, new_empty_strided, frombuffer, from_file, asarray).

A storage object holds a 1-d tensor over all of the tensor's Storage (ember._C's
_storage_view: bytes for UntypedStorage, elements for TypedStorage), so element access, fill_
and copy_ are ember ops on that tensor and every view of one Storage reports the same
data_ptr(). The C++ side (src/ops/inplace_views.cpp) owns resize_ and set_."""
import builtins
import math
import warnings

from . import _C
from ._dtype import to_dtype, uint8, int64, float32, get_default_dtype, TORCH_TYPE_NAMES

Tensor = _C.Tensor


class UntypedStorage:
    """The bytes under a tensor and all its views (torch.UntypedStorage).

    >>> s = ember.tensor([1, 2], dtype=ember.uint8).untyped_storage()
    >>> len(s), s.nbytes()
    (2, 2)
    """

    def __init__(self, size=0, *, device=None):
        if isinstance(size, Tensor):  # internal: the storage of a tensor
            self._tensor = size._storage_view(uint8)
            return
        if isinstance(size, builtins.bool) or not isinstance(size, builtins.int) or size < 0:
            raise TypeError(f"UntypedStorage(): expected a non-negative int size, got {size!r:.40}")
        self._tensor = _C.zeros([size], uint8)

    dtype = uint8
    device = property(lambda self: self._tensor.device)

    def nbytes(self):
        return self._tensor.numel()

    def size(self):
        return self.nbytes()

    __len__ = size

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._tensor._storage_ptr() + self._tensor.storage_offset() * self._tensor.element_size()

    def _index(self, i):
        n = len(self)
        if isinstance(i, builtins.bool) or not isinstance(i, builtins.int):
            raise TypeError(f"{type(self).__name__} indices must be integers, not "
                            f"{type(i).__name__}")
        if not -n <= i < n:
            raise IndexError(f"{type(self).__name__}: index {i} out of range for storage of "
                             f"size {n}")
        return i

    def __getitem__(self, i):
        if isinstance(i, slice):  # a storage over those bytes (elements), sharing them, as torch
            if i.step not in (None, 1):
                raise RuntimeError(f"Trying to slice with a step of {i.step}, but only a step "
                                   "of 1 is supported")
            return self._slice(i)
        return self._tensor[self._index(i)].item()

    def _slice(self, i):
        out = UntypedStorage.__new__(UntypedStorage)
        out._tensor = self._tensor[i]
        return out

    def __setitem__(self, i, value):
        if isinstance(i, slice):
            self._tensor[i] = value
        else:
            self._tensor[self._index(i)] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self):
        return self._tensor.tolist()

    def fill_(self, value):
        self._tensor.fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        if not isinstance(source, UntypedStorage) or len(source) != len(self):
            raise RuntimeError(f"copy_: expected a storage of {len(self)} bytes, got "
                               f"{source!r:.60}")
        self._tensor.copy_(_bytes_of(source))
        return self

    def clone(self):
        out = type(self).__new__(type(self))
        out._tensor = self._tensor.clone()
        return out

    def cpu(self):
        return self

    def untyped(self):
        return self

    def is_shared(self):
        return self._tensor.is_shared()

    def share_memory_(self):
        self._tensor.share_memory_()
        return self

    def is_pinned(self, device="cuda"):
        return False

    @staticmethod
    def from_file(filename, shared=False, nbytes=0):
        """`nbytes` bytes of a file as a storage: shared=True maps the file (writes reach it;
        a missing or shorter file is created or extended), otherwise a private copy-on-write
        map. safetensors' `safe_open(framework="pt")` reads its files through this."""
        import os
        if isinstance(nbytes, builtins.bool) or not isinstance(nbytes, builtins.int) or nbytes < 0:
            raise RuntimeError(f"unable to mmap {nbytes!r} bytes from file <{filename}>")
        if shared:
            with open(filename, "ab") as f:  # creates it if needed
                if f.seek(0, os.SEEK_END) < nbytes:
                    f.truncate(nbytes)
        elif not os.path.exists(filename):
            raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such "
                               "file or directory (2)")
        elif os.path.getsize(filename) < nbytes:
            raise RuntimeError(f"file <{filename}> size <{os.path.getsize(filename)}> is smaller "
                               f"than the required mapping size <{nbytes}>")
        return UntypedStorage(from_file(filename, shared, nbytes, dtype=uint8))

    def type(self, dtype=None, non_blocking=False):
        return f"ember.{type(self).__name__}" if dtype is None else self

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[ember.{type(self).__name__}(device=cpu) of size {len(self)}]"


def _bytes_of(storage):
    return storage._tensor if isinstance(storage, UntypedStorage) else storage._untyped._tensor


class TypedStorage(UntypedStorage):
    """A storage read as elements of one dtype (torch.TypedStorage, what Tensor.storage()
    returns): indexing gives Python numbers of that dtype.

    >>> s = ember.tensor([1.0, 2.0]).storage()
    >>> len(s), s.dtype
    (2, ember.float32)
    """

    def __init__(self, tensor=None, *, dtype=None):
        if not isinstance(tensor, Tensor):
            raise TypeError("TypedStorage is built by Tensor.storage()")
        self.dtype = tensor.dtype
        self._tensor = tensor._storage_view(tensor.dtype)
        self._untyped = UntypedStorage(tensor)

    def nbytes(self):
        return self._untyped.nbytes()

    def size(self):
        return self._tensor.numel()

    __len__ = size

    def element_size(self):
        return self._tensor.element_size()

    def untyped(self):
        return self._untyped

    def _slice(self, i):
        out = TypedStorage.__new__(TypedStorage)
        out.dtype, out._tensor = self.dtype, self._tensor[i]
        item = self._tensor.element_size()
        start, stop, _ = i.indices(len(self))
        out._untyped = self._untyped._slice(slice(start * item, max(start, stop) * item))
        return out

    def copy_(self, source, non_blocking=None):
        if not isinstance(source, TypedStorage) or len(source) != len(self):
            raise RuntimeError(f"copy_: expected a storage of {len(self)} elements, got "
                               f"{source!r:.60}")
        self._tensor.copy_(source._tensor)
        return self

    def clone(self):
        return TypedStorage(self._tensor.clone())

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[ember.TypedStorage(dtype=ember.{self.dtype.name}, device=cpu) of size {len(self)}]"


_STORAGE_TYPES = {}


def _storage_type(self):
    """storage_type() -> type

    The legacy per-dtype storage class torch names (ember.FloatStorage for float32, ...).

    >>> ember.tensor([1.0]).storage_type().__name__
    'FloatStorage'
    """
    name = TORCH_TYPE_NAMES[self.dtype.name]
    if name not in _STORAGE_TYPES:
        _STORAGE_TYPES[name] = type(f"{name}Storage", (TypedStorage,), {"__module__": "ember"})
    return _STORAGE_TYPES[name]


# ---- which memory a tensor views ----------------------------------------------------------------
def _sizes(args, fn):
    if len(args) == 1 and not isinstance(args[0], builtins.int):
        args = tuple(args[0])
    for s in args:
        if isinstance(s, builtins.bool) or not isinstance(s, builtins.int):
            raise TypeError(f"{fn}(): argument 'size' must be a sequence of ints, got {args!r:.60}")
    return list(args)


def resize_(self, *sizes, memory_format=None):
    """resize_(*sizes, memory_format=None) -> Tensor

    Gives self the shape `sizes` (contiguous) over the same memory, growing it when more
    elements are needed (their values uninitialised), as torch.

    >>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    >>> x.resize_(2, 2)
    tensor([[1., 2.],
            [3., 4.]])
    >>> x.resize_(3).shape
    ember.Size([3])
    """
    return self._resize_(_sizes(sizes, "resize_"))


def resize_as_(self, the_template, memory_format=None):
    """resize_as_(the_template, memory_format=None) -> Tensor

    self.resize_(the_template.shape).

    >>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    >>> x.resize_as_(ember.zeros(2, 2))
    tensor([[1., 2.],
            [3., 4.]])
    """
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' must be Tensor, not "
                        f"{type(the_template).__name__}")
    return self._resize_(list(the_template.shape))


def resize(self, *sizes):
    """resize(*sizes) -> Tensor

    Deprecated in torch (it warns): a reshape that refuses to change the number of elements.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     ember.tensor([1.0, 2.0, 3.0, 4.0]).resize(2, 2)
    tensor([[1., 2.],
            [3., 4.]])
    """
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    sizes = _sizes(sizes, "resize")
    if math.prod(sizes) != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({math.prod(sizes)} "
                           f"elements in total), but the given tensor has a size of "
                           f"{'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while "
                           "preserving the number of elements.")
    return self.reshape(sizes)


def resize_as(self, tensor):
    """resize_as(tensor) -> Tensor

    Deprecated in torch (it warns): self.resize(tensor.shape).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     ember.tensor([1.0, 2.0, 3.0, 4.0]).resize_as(ember.zeros(1, 4))
    tensor([[1., 2., 3., 4.]])
    """
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return resize(self, list(tensor.shape))


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """set_(source=None, storage_offset=0, size=None, stride=None) -> Tensor

    self views source's memory: a tensor's (its geometry, or size/stride from
    storage_offset), a storage's (all of it, or size/stride), or nothing (set_()).

    >>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    >>> y = ember.tensor([0.0])
    >>> y.set_(x, 1, (2,), (2,))
    tensor([2., 4.])
    >>> y.set_(x)
    tensor([1., 2., 3., 4.])
    >>> y.is_set_to(x)
    True
    """
    if source is None:
        return self._set_empty()
    if isinstance(source, Tensor) and size is None:
        return self._set_to(source)
    if isinstance(source, TypedStorage) and source.dtype != self.dtype:
        raise RuntimeError(f"set_: Expected a Storage of type {self.dtype} but got type "
                           f"{source.dtype} for argument 1 'storage'")
    if isinstance(source, Tensor):
        if source.dtype != self.dtype:
            raise RuntimeError(f"set_: Could not set tensor of type {source.dtype} to a tensor "
                               f"of type {self.dtype}")
        memory = source._storage_view(self.dtype)
        storage_offset += source.storage_offset()  # torch counts from the source's offset
    elif isinstance(source, UntypedStorage):
        b = _bytes_of(source)  # a slice of a storage starts inside its memory
        memory = b._storage_view(self.dtype)
        item = memory.element_size()
        storage_offset += b.storage_offset() * b.element_size() // item
        if size is None:
            size = [b.numel() * b.element_size() // item]
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    if size is None:
        size = [memory.numel()]
    size = _sizes((size,), "set_")
    if stride is None:
        stride = [math.prod(size[i + 1:]) for i in range(len(size))]
    return self._set_storage(memory, storage_offset, size, _sizes((stride,), "set_"))


def is_set_to(self, tensor):
    """is_set_to(tensor) -> bool

    True when both tensors view the same memory with the same geometry (offset, shape,
    strides).

    >>> x = ember.tensor([1.0, 2.0])
    >>> x.is_set_to(x), x.is_set_to(x.view(2)), x.is_set_to(x.clone())
    (True, True, False)
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    return (self._shares_storage(tensor) and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride())


# ---- creation with a layout or over memory --------------------------------------------------------
def _new_strided(size, stride, dtype, requires_grad, fn):
    size, stride = _sizes((size,), fn), _sizes((stride,), fn)
    if len(size) != len(stride):
        raise RuntimeError(f"{fn}: mismatch in length of strides {stride} and shape {size}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"{fn}: Trying to create tensor with negative dimension: {size}")
    n = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    base = _C.empty([n], dtype)
    out = base.as_strided(size, stride, 0)
    return out.requires_grad_(requires_grad) if requires_grad else out


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Uninitialised memory viewed with the given sizes and strides.

    >>> ember.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    from ._device import tensor_to_device
    if device is not None:
        tensor_to_device(device, "empty_strided")
    dtype = to_dtype(dtype) if dtype is not None else get_default_dtype()
    return _new_strided(size, stride, dtype, requires_grad, "empty_strided")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """Uninitialised memory of shape `size` laid out in memory in the order physical_layout
    (its last entry the fastest-moving dim), as torch.

    >>> ember.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    size = _sizes((size,), "empty_permuted")
    order = _sizes((physical_layout,), "empty_permuted")
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"empty_permuted: physical_layout {order} must be a permutation of "
                           f"the {len(size)} dims of size {size}")
    stride, step = [0] * len(size), 1
    for d in reversed(order):
        stride[d] = step
        step *= max(size[d], 1)
    return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    """new_empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False) -> Tensor

    ember.empty_strided(size, stride) with self's dtype unless `dtype` is given
    (uninitialised values).

    >>> y = ember.tensor([1], dtype=ember.int32).new_empty_strided((2, 3), (1, 2))
    >>> y.shape, y.stride(), y.dtype
    (ember.Size([2, 3]), (1, 2), ember.int32)
    """
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device,
                         requires_grad=requires_grad)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor sharing the memory of a Python buffer (bytes-like object).

    >>> ember.frombuffer(bytearray([1, 2, 3]), dtype=ember.uint8)
    tensor([1, 2, 3], dtype=ember.uint8)
    """
    import numpy as np
    from ._creation import from_numpy
    dtype = to_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError(f"frombuffer(): object of type {type(buffer).__name__} does not "
                        "implement the buffer protocol") from None
    nbytes, item = view.nbytes, _C.zeros([0], dtype).element_size()
    if not 0 <= offset < max(nbytes, 1) or nbytes == 0:
        raise ValueError(f"frombuffer: both buffer length ({nbytes}) and offset ({offset}) must "
                         "be > 0 and offset must be < buffer length")
    if count == 0 or count < -1:
        raise ValueError(f"frombuffer: count ({count}) must be > 0 or -1")
    if count == -1:
        if (nbytes - offset) % item:
            raise ValueError(f"frombuffer: buffer length ({nbytes - offset} after offset) must be "
                             f"a multiple of the element size ({item})")
        count = (nbytes - offset) // item
    if offset + count * item > nbytes:
        raise ValueError(f"frombuffer: requested buffer length ({count} * {item} bytes) after "
                         f"offset ({offset}) must not be greater than actual buffer length "
                         f"({nbytes})")
    array = np.frombuffer(view, dtype=np.dtype(dtype.name), count=count, offset=offset)
    if not array.flags.writeable:  # bytes: torch shares read-only memory, ember copies it
        array = array.copy()
    out = from_numpy(array)
    return out.requires_grad_(requires_grad) if requires_grad else out


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """`size` elements read from a file (shared=True: a shared memory map, writes reach the
    file; otherwise a private copy).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, 'x.bin')
    ...     with open(path, 'wb') as f:
    ...         _ = f.write(bytes([1, 2, 3]))
    ...     print(ember.from_file(path, size=3, dtype=ember.uint8))
    tensor([1, 2, 3], dtype=ember.uint8)
    """
    import numpy as np
    from ._creation import from_numpy
    dtype = to_dtype(dtype) if dtype is not None else get_default_dtype()
    if isinstance(size, builtins.bool) or not isinstance(size, builtins.int) or size < 0:
        raise TypeError(f"from_file(): argument 'size' must be a non-negative int, got {size!r}")
    import os
    item = _C.zeros([0], dtype).element_size()
    have = os.path.getsize(filename)
    if size * item > have:
        raise RuntimeError(f"from_file: unable to read {size * item} bytes from {filename!r} "
                           f"({have} bytes)")
    if size == 0:
        return _C.zeros([0], dtype)
    mode = "r+" if shared else "c"
    return from_numpy(np.memmap(filename, dtype=np.dtype(dtype.name), mode=mode, shape=(size,)))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing its memory when it is a tensor (or a NumPy array) of the
    requested dtype and copy is not True; copy=False refuses when a copy is needed.

    >>> ember.asarray([1, 2, 3]), ember.asarray([1.0], dtype=ember.float64)
    (tensor([1, 2, 3]), tensor([1.], dtype=ember.float64))
    """
    from ._creation import tensor, from_numpy
    import numpy as np
    if device is not None:
        from ._device import tensor_to_device
        tensor_to_device(device, "asarray")
    want = to_dtype(dtype) if dtype is not None else None
    if isinstance(obj, UntypedStorage):
        # the storage's memory read as `dtype` (torch: its buffer; an UntypedStorage without a
        # dtype reads as int64, a TypedStorage as its own dtype); whole elements only
        b = _bytes_of(obj)
        want = want or (obj.dtype if isinstance(obj, TypedStorage) else int64)
        item = _C.zeros([0], want).element_size()
        nbytes = b.numel() * b.element_size()
        obj = _C.zeros([0], uint8).set_(obj.untyped())[:nbytes // item * item].view(want) if nbytes else \
            _C.zeros([0], want)
    if isinstance(obj, np.ndarray) and not isinstance(obj, Tensor):
        try:
            obj = from_numpy(obj)
        except (TypeError, ValueError):
            if copy is False:
                raise
            obj = tensor(obj)
    if isinstance(obj, Tensor):
        out = obj
        if want is not None and want != obj.dtype:
            if copy is False:
                raise ValueError(f"asarray: can't alias a {obj.dtype} tensor as {want} "
                                 "(copy=False)")
            out = obj.to(want)
        elif copy:
            out = obj.clone()
        return out.requires_grad_(requires_grad) if requires_grad else out
    if copy is False:
        raise ValueError(f"asarray: can't alias a {type(obj).__name__} without a copy "
                         "(copy=False)")
    out = tensor(obj, dtype=want)
    return out.requires_grad_(requires_grad) if requires_grad else out


FUNCTIONS = {
    "empty_strided": empty_strided, "empty_permuted": empty_permuted, "frombuffer": frombuffer,
    "from_file": from_file, "asarray": asarray, "UntypedStorage": UntypedStorage,
    "TypedStorage": TypedStorage,
}
def _untyped_storage(self):
    """untyped_storage() -> ember.UntypedStorage

    The bytes under self and all its views (shared, not copied).

    >>> x = ember.tensor([1.0, 2.0])
    >>> s = x.untyped_storage()
    >>> s.nbytes(), s.data_ptr() == x.data_ptr()
    (8, True)
    """
    return UntypedStorage(self)


def _storage(self):
    """storage() -> ember.TypedStorage

    self's memory read as elements of self's dtype (torch's legacy TypedStorage).

    >>> ember.tensor([1, 2, 3]).storage().tolist()
    [1, 2, 3]
    """
    return TypedStorage(self)


METHODS = {
    "untyped_storage": _untyped_storage,
    "storage": _storage,
    "storage_type": _storage_type,
    "resize_": resize_, "resize_as_": resize_as_, "resize": resize, "resize_as": resize_as,
    "set_": set_, "is_set_to": is_set_to, "new_empty_strided": new_empty_strided,
}
