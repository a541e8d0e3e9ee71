"""PyTorch's own checkpoint format: what torch.save writes and torch.load reads.

A zip archive (stored, not compressed), every member under one top-level folder:

    archive/data.pkl                 the object, pickled (protocol 2) with persistent ids
    archive/.format_version          "1"
    archive/.storage_alignment       "64": each data/N record starts at a multiple of 64
    archive/byteorder                "little"
    archive/data/0, data/1, ...      each storage's raw bytes, whole
    archive/version                  "3\\n"
    archive/.data/serialization_id   40 decimal digits

A tensor pickles as `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())`, its storage as the persistent id `("storage",
torch.FloatStorage, "0", "cpu", numel)`; views of one storage name one key, so they load
as views of one storage. A Parameter wraps that in `torch._utils._rebuild_parameter`.
Class and function names go through class_paths (torch's names in, ember's objects out).
Loading reads the file once (or maps it, mmap=True) and views each record in place.
"""
import copyreg
import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import types
import zipfile
import zlib
from collections import OrderedDict

from .. import _C
from .._lazy_numpy import np  # NumPy loads when a file is read (Note [Lazy imports])
from .._device import device as _device
from .._dtype import dtype as _dtype_cls, uint8 as _uint8
from .._tensor import Tensor
from .._tensor_attributes import layout as _layout
from .class_paths import (STORAGE_TYPES, UNTYPED_DTYPES, UNTYPED_STORAGE, StorageType, TorchGlobal,
                          to_ember, torch_name)

__all__ = ["save_torch", "load_torch", "REBUILD_FUNCTIONS", "is_zip"]

_ITEMSIZE = {dt: dt.itemsize for dt in STORAGE_TYPES}
_V3_DTYPES = set(UNTYPED_DTYPES)
_ALIGN = 64
_MAX_INT = 2 ** 62           # sizes, strides and offsets beyond this are refused
_INFLATE_RATIO = 1100        # deflate cannot expand more than 1032:1; a record claiming more lies
_FORMAT_ERROR = RuntimeError  # what torch's PytorchStreamReader raises for a broken archive


# ---- rebuild functions (the targets of torch._utils.*) -------------------------------------
class _LoadedStorage:
    """A storage read from a data/N record: a uint8 tensor over its bytes, and its dtype."""
    __slots__ = ("whole", "dtype", "numel", "key")

    def __init__(self, whole, dtype, numel, key):
        self.whole, self.dtype, self.numel, self.key = whole, dtype, numel, key


def _int(x, what):
    if isinstance(x, bool) or not isinstance(x, int) or not -2 ** 63 <= x < 2 ** 63:
        raise TypeError(f"load: tensor {what} must be a 64-bit int, got {x!r:.100}")
    if not 0 <= x < _MAX_INT:
        raise RuntimeError(f"load: tensor {what} must be an int in [0, 2**62), got {x}")
    return x


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    if not isinstance(storage, _LoadedStorage):
        raise TypeError(f"load: _rebuild_tensor_v2 expects a storage, got {type(storage).__name__}")
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)) \
            or len(size) != len(stride) or len(size) > 64:
        raise RuntimeError(f"load: tensor size {size!r:.100} and stride {stride!r:.100} must be "
                           "tuples of the same length (at most 64)")
    offset = _int(storage_offset, "storage offset")
    size = [_int(s, "size") for s in size]
    stride = [_int(s, "stride") for s in stride]
    if 0 not in size:
        last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= storage.numel:
            raise RuntimeError(
                f"load: a tensor of size {tuple(size)}, stride {tuple(stride)} and offset "
                f"{offset} reaches element {last} of storage {storage.key!r}, which holds "
                f"{storage.numel} elements")
    t = _C._shared_view(storage.whole, storage.dtype, size, stride, offset)
    if requires_grad is True:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """torch._utils._rebuild_tensor_v3: the tensor over an untyped (byte) storage, read as
    `dtype` (what torch.save writes for uint16/uint32/uint64)."""
    if not isinstance(storage, _LoadedStorage) or storage.dtype != _uint8:
        raise TypeError(f"load: _rebuild_tensor_v3 expects an untyped storage, got {storage!r:.100}")
    if not isinstance(dtype, _dtype_cls):
        raise TypeError(f"load: _rebuild_tensor_v3 expects a dtype, got {dtype!r:.100}")
    typed = _LoadedStorage(storage.whole, dtype, storage.numel // dtype.itemsize, storage.key)
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn.parameter import Parameter
    if not isinstance(data, Tensor):
        raise TypeError(f"load: _rebuild_parameter expects a tensor, got {type(data).__name__}")
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    if isinstance(state, dict):
        for k, v in state.items():
            setattr(param, k, v)
    return param


def _set_obj_state(obj, state):
    """A tensor's Python attributes from torch's pickled state: its __dict__, or a
    (__dict__, slots) pair (torch._utils._set_obj_state)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"load: invalid serialized state: {state!r:.100}")
        parts = state
    else:
        parts = (state,)
    for part in parts:
        if part is None:
            continue
        if not isinstance(part, dict):
            raise TypeError(f"load: a tensor's state must be a dict, got {type(part).__name__}")
        for k, v in part.items():
            setattr(obj, k, v)
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: what torch.save writes for a tensor that carries
    Python attributes (or is of a subclass): the tensor, then its attributes."""
    # (the unpickler hands over what the names resolve to: the functions themselves)
    if not any(func is g or func is g.target for g in REBUILD_FUNCTIONS):
        raise TypeError(f"load: _rebuild_from_type_v2 expects a tensor rebuild function, "
                        f"got {func!r:.100}")
    if not isinstance(args, tuple):
        raise TypeError(f"load: _rebuild_from_type_v2 expects a tuple of arguments, got "
                        f"{type(args).__name__}")
    ret = func(*args)
    torch_tensor = to_ember("torch.Tensor")
    if new_type is torch_tensor or new_type is torch_tensor.target:
        new_type = Tensor
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise TypeError(f"load: _rebuild_from_type_v2 expects a Tensor class, got {new_type!r:.100}")
    if not isinstance(ret, new_type):
        ret = ret.as_subclass(new_type)
    return _set_obj_state(ret, state)


def _rebuild_sparse_tensor(layout, data):
    """torch._utils._rebuild_sparse_tensor: a COO tensor from (indices, values, size[,
    is_coalesced]), a CSR/CSC one from (compressed indices, plain indices, values, size), as
    torch.save writes them."""
    from .._sparse_tensor import sparse_coo, sparse_coo_tensor, sparse_csr, sparse_csc
    from .._sparse_compressed import sparse_compressed_tensor
    if layout in (sparse_csr, sparse_csc):
        if not isinstance(data, tuple) or len(data) != 4:
            raise TypeError("load: _rebuild_sparse_tensor expects (compressed_indices, "
                            "plain_indices, values, size) for a compressed layout")
        return sparse_compressed_tensor(*data[:3], data[3], layout=layout)
    if layout is not sparse_coo:
        raise NotImplementedError(f"load: a sparse tensor of layout {layout!r:.100}: ember has "
                                  f"sparse_coo, sparse_csr and sparse_csc (docs/sparse.md)")
    if not isinstance(data, tuple) or len(data) not in (3, 4):
        raise TypeError("load: _rebuild_sparse_tensor expects (indices, values, size[, "
                        "is_coalesced])")
    indices, values, size = data[:3]
    return sparse_coo_tensor(indices, values, size,
                             is_coalesced=data[3] if len(data) == 4 else None)


def _rebuild_nested_tensor(buffer, sizes, strides, storage_offsets):
    """torch._utils._rebuild_nested_tensor: a strided nested tensor from its flat buffer and,
    per component, its size, strides and offset in the buffer (int64 tensors), as torch.save
    writes one (docs/nested.md)."""
    for name, t in (("buffer", buffer), ("sizes", sizes), ("strides", strides),
                    ("storage_offsets", storage_offsets)):
        if not isinstance(t, Tensor):
            raise TypeError(f"load: _rebuild_nested_tensor expects tensors, got "
                            f"{type(t).__name__} for {name}")
    from ..nested._nested_tensor import from_components
    requires_grad = buffer.requires_grad
    flat = buffer.detach().reshape(-1)
    rows = sizes.tolist()
    comps = [flat.as_strided(tuple(sz), tuple(st), int(off))
             for sz, st, off in zip(rows, strides.tolist(), storage_offsets.tolist())]
    out = from_components(comps, dtype=flat.dtype)
    return out.requires_grad_() if requires_grad else out


def _get_layout(name):
    """torch.serialization._get_layout: a layout as torch.save writes it, by its name."""
    from .. import _sparse_tensor, _tensor_attributes
    layouts = {f"torch.{n}": getattr(_sparse_tensor, n) for n in (
        "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")}
    layouts["torch.strided"] = _tensor_attributes.strided
    if name not in layouts:
        raise RuntimeError(f"load: unknown layout {name!r:.100}")
    return layouts[name]


GET_LAYOUT = TorchGlobal("torch.serialization", "_get_layout", _get_layout)
REBUILD_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2", _rebuild_tensor_v2)
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter", _rebuild_parameter)
REBUILD_FUNCTIONS = [
    REBUILD_TENSOR_V2, REBUILD_PARAMETER,
    TorchGlobal("torch._utils", "_rebuild_tensor", _rebuild_tensor),
    TorchGlobal("torch._utils", "_rebuild_parameter_with_state", _rebuild_parameter_with_state),
    TorchGlobal("torch._utils", "_rebuild_sparse_tensor", _rebuild_sparse_tensor),
]
REBUILD_TENSOR_V3 = TorchGlobal("torch._utils", "_rebuild_tensor_v3", _rebuild_tensor_v3)
REBUILD_FUNCTIONS.append(REBUILD_TENSOR_V3)
REBUILD_NESTED = TorchGlobal("torch._utils", "_rebuild_nested_tensor", _rebuild_nested_tensor)
REBUILD_FUNCTIONS.append(REBUILD_NESTED)
REBUILD_FROM_TYPE_V2 = TorchGlobal("torch._tensor", "_rebuild_from_type_v2", _rebuild_from_type_v2)
REBUILD_PARAMETER_WITH_STATE = REBUILD_FUNCTIONS[3]
REBUILD_GLOBALS = REBUILD_FUNCTIONS + [REBUILD_FROM_TYPE_V2, GET_LAYOUT]


# ---- saving ------------------------------------------------------------------------------
class _StorageRef:
    """What a tensor's storage pickles as: its persistent id."""
    __slots__ = ("type", "key", "numel")

    def __init__(self, storage_type, key, numel):
        self.type, self.key, self.numel = storage_type, key, numel


class _TensorData:
    """A Parameter's data: pickled as a plain tensor with requires_grad False, as torch's."""
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


class _Pickler(pickle._Pickler):
    """pickle's Python Pickler, writing torch's global names (class_paths) and each tensor
    as torch does. The Python pickler, not the C one, because only it lets a name be
    written for an object that lives elsewhere (ember's Linear as torch.nn...Linear)."""
    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        from ..nn.modules.module import Module
        from ..nn.parameter import Parameter
        self._Module, self._Parameter = Module, Parameter
        self.records = {}   # key -> uint8 tensor over the storage's bytes
        self._by_ptr = {}   # storage address -> (_StorageRef, dtype)

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return ("storage", obj.type, obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        if getattr(obj, "is_nested", False) is True:  # as torch: buffer, sizes, strides, offsets
            from ..nested._nested_tensor import nested_parts
            return (REBUILD_NESTED, nested_parts(obj))
        if isinstance(obj, Tensor) and _C._sparse_layout(obj) > 0:  # CSR/CSC: as torch, its parts
            from .._sparse_compressed import compressed_parts, layout_of
            return (REBUILD_FUNCTIONS[4], (layout_of(obj), (
                *compressed_parts(obj), obj.shape)))
        if isinstance(obj, Tensor) and _C._is_sparse(obj):  # as torch: its parts and coalesced flag
            from .._sparse_tensor import sparse_coo
            return (REBUILD_FUNCTIONS[4], (sparse_coo, (
                _C._sparse_indices(obj), _C._sparse_values(obj).detach(), tuple(obj.shape),
                _C._is_coalesced(obj))))
        if isinstance(obj, Tensor):
            state = obj.__dict__  # Python attributes travel as torch writes them
            if isinstance(obj, self._Parameter):
                if state:
                    return (REBUILD_PARAMETER_WITH_STATE,
                            (_TensorData(obj), obj.requires_grad, OrderedDict(), dict(state)))
                return (REBUILD_PARAMETER, (_TensorData(obj), obj.requires_grad, OrderedDict()))
            if state and type(obj) is Tensor:
                func, args = self._reduce_tensor(obj, obj.requires_grad)
                return (REBUILD_FROM_TYPE_V2, (func, to_ember("torch.Tensor"), args, dict(state)))
            return self._reduce_tensor(obj, obj.requires_grad)
        if type(obj) is _TensorData:
            return self._reduce_tensor(obj.tensor, False)
        if type(obj) is _layout:
            return (GET_LAYOUT, (f"torch.{obj._name}",))
        if type(obj) is _device:
            return (_device, (str(obj),))
        if isinstance(obj, self._Module) and "__reduce__" not in _class_dicts(type(obj)):
            return (copyreg.__newobj__, (type(obj),), torch_module_state(obj))
        return NotImplemented

    def _reduce_tensor(self, t, requires_grad):
        dt = t.dtype
        whole = _C._storage_bytes(t)
        nbytes = whole.numel()
        ptr = whole.data_ptr() if nbytes else None
        ref, seen_dtype = self._by_ptr.get(ptr, (None, None))
        if ref is None:
            ref = (_StorageRef(UNTYPED_STORAGE, str(len(self.records)), nbytes) if dt in _V3_DTYPES
                   else _StorageRef(STORAGE_TYPES[dt], str(len(self.records)), nbytes // _ITEMSIZE[dt]))
            self.records[ref.key] = whole
            if ptr is not None:
                self._by_ptr[ptr] = (ref, dt)
        elif seen_dtype != dt:
            raise RuntimeError("save: cannot save multiple tensors or storages that view the same "
                               f"data as different types ({seen_dtype} and {dt})")
        if dt in _V3_DTYPES:  # as torch: the bytes, and the dtype beside them
            return (REBUILD_TENSOR_V3, (ref, t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                                        bool(requires_grad), OrderedDict(), dt))
        return (REBUILD_TENSOR_V2, (ref, t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                                    bool(requires_grad), OrderedDict()))

    def save_global(self, obj, name=None):
        full = torch_name(obj)
        if full is None:
            return super().save_global(obj, name)
        module, _, qualname = full.rpartition(".")
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{qualname}\n".encode("utf-8"))
        self.memoize(obj)


def _class_dicts(cls):
    """The names the classes of cls's MRO define (a Module subclass that defines __reduce__,
    as fx.GraphModule, pickles itself)."""
    return {k for c in cls.__mro__ if c is not object for k in vars(c)}


# The attributes torch's Module.__init__ sets that ember's Module does not keep (it has no
# backward hooks): a pickled ember module carries them, so torch's forward finds them.
_TORCH_MODULE_ATTRS = (("_backward_pre_hooks", OrderedDict), ("_backward_hooks", OrderedDict),
                       ("_is_full_backward_hook", lambda: None),
                       ("_forward_hooks_always_called", OrderedDict))


def torch_module_state(module):
    """The module's __dict__ in torch's layout: what torch.nn.Module.__setstate__ reads."""
    state = dict(module.__dict__)
    for name, make in _TORCH_MODULE_ATTRS:
        if name not in state:
            state[name] = make()
    if "_flat_weights_names" in state:  # torch's RNNBase keeps its weights in a list too
        state["_flat_weights"] = [getattr(module, n, None) for n in state["_flat_weights_names"]]
    return state


def _save_global(pickler, obj):
    pickler.save_global(obj)


for _t in (TorchGlobal, StorageType, _dtype_cls, types.FunctionType):  # (pickle's own entry for
    _Pickler.dispatch[_t] = _save_global                                 # functions skips overrides)


def _aligned_extra(pos, name, size):
    """A local-header extra field (id 'FB', as torch's writer) padding the record's data to
    a multiple of 64 bytes from the start of the file."""
    zip64 = 20 if size * 1.05 > zipfile.ZIP64_LIMIT else 0
    pad = -(pos + 30 + len(name.encode("utf-8")) + 4 + zip64) % _ALIGN
    return b"FB" + struct.pack("<H", pad) + b"Z" * pad


def save_torch(obj, f, archive_name, pickle_protocol=2, byteorder=True):
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    records = [("data.pkl", buf.getbuffer()), (".format_version", b"1"),
               (".storage_alignment", str(_ALIGN).encode())]
    if byteorder:
        records.append(("byteorder", sys.byteorder.encode()))
    for key, whole in pickler.records.items():
        records.append((f"data/{key}", memoryview(whole.numpy()) if whole.numel() else b""))
    records.append(("version", b"3\n"))
    if not byteorder:  # torch 2.13's writer adds it at the end anyway
        records.append(("byteorder", sys.byteorder.encode()))
    records.append((".data/serialization_id", str(int.from_bytes(os.urandom(17), "little")
                                                  % 10 ** 40).zfill(40).encode()))
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, data in records:
            info = zipfile.ZipInfo(f"{archive_name}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.extra = _aligned_extra(zf.fp.tell(), info.filename, len(data))
            zf.writestr(info, data)


# ---- loading -----------------------------------------------------------------------------
def is_zip(head):
    return head[:4] in (b"PK\x03\x04", b"PK\x05\x06")


class _ArrayFile:
    """A read-only seekable file over a NumPy byte array, so that zipfile and the
    unpicklers read the bytes already in memory (or mapped). read(n) returns at most what
    is left: a length field claiming gigabytes allocates nothing."""

    def __init__(self, arr):
        self.arr, self.pos = arr, 0

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, pos, whence=0):
        self.pos = max(0, (0, self.pos, len(self.arr))[whence] + pos)
        return self.pos

    def read(self, n=-1):
        end = len(self.arr) if n is None or n < 0 else min(len(self.arr), self.pos + n)
        data = self.arr[self.pos:end].tobytes() if end > self.pos else b""
        self.pos = max(self.pos, end)
        return data

    def readinto(self, b):
        data = self.read(len(b))
        memoryview(b)[:len(data)] = data
        return len(data)

    def readline(self, limit=-1):
        end = len(self.arr) if limit is None or limit < 0 else min(len(self.arr), self.pos + limit)
        for start in range(self.pos, end, 4096):
            hit = self.arr[start:min(end, start + 4096)].tobytes().find(b"\n")
            if hit >= 0:
                return self.read(start + hit + 1 - self.pos)
        return self.read(end - self.pos)


def read_bytes(f, mmap, where):
    """The file's bytes as a writable uint8 array: read once, or mapped copy-on-write."""
    if hasattr(f, "read"):
        if mmap:
            raise ValueError("load: mmap=True needs a file path, not a file object")
        data = f.read()
        arr = _aligned_empty(len(data))
        arr[:] = np.frombuffer(data, np.uint8)
        return arr
    with open(f, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if mmap:  # (a mapping starts on a page boundary)
            if size == 0:
                raise _FORMAT_ERROR(f"load: {where}: the file is empty")
            return np.frombuffer(_mmap.mmap(fh.fileno(), 0, access=_mmap.ACCESS_COPY), np.uint8)
        arr = _aligned_empty(size)
        if fh.readinto(memoryview(arr)) != size:
            raise _FORMAT_ERROR(f"load: {where}: the file changed size while being read")
        return arr


def _aligned_empty(n):
    """n bytes starting at a multiple of 64, so the file's 64-aligned records are aligned
    in memory too and are viewed, not copied."""
    raw = np.empty(n + _ALIGN, np.uint8)
    start = -raw.ctypes.data % _ALIGN
    return raw[start:start + n]


class _Archive:
    """The records of a torch.save archive, checked, each as a view of the file's bytes."""

    def __init__(self, arr, where):
        self.arr, self.where = arr, where
        try:
            self.zf = zipfile.ZipFile(_ArrayFile(arr))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as e:
            raise self.error(f"not a readable zip archive ({e})") from None
        infos = self.zf.infolist()
        pkl = [i for i in infos if i.filename.endswith("/data.pkl") and i.filename.count("/") == 1]
        if len(pkl) != 1:
            raise self.error("expected one <archive>/data.pkl record, found "
                             f"{len(pkl)} (a torch.save file holds exactly one)")
        prefix = pkl[0].filename[:-len("data.pkl")]
        self.records = {}
        for info in infos:
            if not info.filename.startswith(prefix):
                raise self.error(f"record {info.filename!r} lies outside the archive folder {prefix!r}")
            name = info.filename[len(prefix):]
            if name in self.records:
                raise self.error(f"the record {info.filename!r} appears twice")
            self.records[name] = info

    def error(self, msg):
        return _FORMAT_ERROR(f"load: {self.where}: {msg}")

    def has(self, name):
        return name in self.records

    def read(self, name, limit=None):
        """The record's bytes as a uint8 array (a view of the file when stored)."""
        info = self.records.get(name)
        if info is None:
            raise self.error(f"the archive has no record {name!r}")
        if limit is not None and info.file_size > limit:
            raise self.error(f"record {name!r} declares {info.file_size} bytes (at most {limit})")
        if info.compress_type == zipfile.ZIP_STORED:
            return self._stored(info, name)
        if info.compress_type != zipfile.ZIP_DEFLATED:
            raise self.error(f"record {name!r} uses compression method {info.compress_type}; "
                             "torch files are stored or deflated")
        if info.file_size > _INFLATE_RATIO * info.compress_size + 1024:
            raise self.error(f"record {name!r} declares {info.file_size} bytes from "
                             f"{info.compress_size} compressed: not possible with deflate")
        try:
            with self.zf.open(info) as src:  # reads at most file_size bytes, checks the CRC
                data = src.read(info.file_size)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as e:
            raise self.error(f"record {name!r} is corrupt ({e})") from None
        if len(data) != info.file_size:
            raise self.error(f"record {name!r} holds {len(data)} bytes, its header says {info.file_size}")
        arr = np.empty(len(data), np.uint8)
        arr[:] = np.frombuffer(data, np.uint8)
        return arr

    def _stored(self, info, name):
        start = info.header_offset
        head = bytes(self.arr[start:start + 30])
        if len(head) != 30 or head[:4] != b"PK\x03\x04":
            raise self.error(f"record {name!r}: no local header at offset {start}")
        n, e = struct.unpack("<HH", head[26:30])
        begin = start + 30 + n + e
        if info.compress_size != info.file_size or begin + info.file_size > len(self.arr):
            raise self.error(f"record {name!r}: {info.file_size} bytes at offset {begin} run past "
                             f"the end of the file ({len(self.arr)} bytes): truncated?")
        return self.arr[begin:begin + info.file_size]


def load_torch(arr, where, unpickler_factory):
    """The object in a torch.save archive. `unpickler_factory(file)` gives the unpickler
    (restricted for weights_only); this sets its persistent_load."""
    archive = _Archive(arr, where)
    if archive.has("byteorder"):
        order = bytes(archive.read("byteorder", 16))
        if order not in (b"little", b"big"):
            raise archive.error(f"unknown byte order {order!r}")
        if order.decode() != sys.byteorder:
            raise archive.error(f"the file is {order.decode()}-endian; ember reads "
                                f"{sys.byteorder}-endian files only")
    storages = {}

    def persistent_load(pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"load: unsupported persistent id {pid!r:.200}")
        _, stype, key, location, numel = pid
        if not isinstance(stype, StorageType):
            raise pickle.UnpicklingError(f"load: persistent id names {stype!r:.100}, not a storage type")
        if stype.dtype is None:
            raise RuntimeError(f"load: {where}: storage {key!r} is a torch.{stype.name}; ember "
                               "has no tensor type for its dtype")
        if not isinstance(key, str) or not isinstance(numel, int) or isinstance(numel, bool):
            raise pickle.UnpicklingError(f"load: bad storage key {key!r:.100} or size {numel!r:.100}")
        if key in storages:
            s = storages[key]
            if s.dtype != stype.dtype:
                raise pickle.UnpicklingError(f"load: storage {key!r} is read as both {s.dtype} "
                                             f"and {stype.dtype}")
            return s
        itemsize = _ITEMSIZE[stype.dtype]
        info = archive.records.get(f"data/{key}")
        if info is None:
            raise RuntimeError(f"load: {where}: the pickle names storage {key!r} but the "
                               f"archive has no record data/{key}")
        if not 0 <= numel < _MAX_INT or info.file_size != numel * itemsize:
            raise RuntimeError(
                f"load: {where}: storage {key!r} declares {numel} elements of {itemsize} bytes "
                f"but its record holds {info.file_size} bytes")
        data = archive.read(f"data/{key}")
        if data.ctypes.data % _ALIGN:  # a writer that did not align: copy, so SIMD loads are aligned
            data = data.copy()
        s = storages[key] = _LoadedStorage(_C._from_numpy(data), stype.dtype, numel, key)
        return s

    pkl = archive.read("data.pkl")
    unpickler = unpickler_factory(_ArrayFile(pkl))
    unpickler.persistent_load = persistent_load
    try:
        return unpickler.load()
    except (ValueError, KeyError, IndexError, struct.error) as e:  # (UnicodeDecodeError too)
        raise pickle.UnpicklingError(f"load: {where}: data.pkl is malformed "
                                     f"({type(e).__name__}: {e})") from None
