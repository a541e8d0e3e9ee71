"""ember.save / ember.load (docs/serialization.md).

    ember.save(model.state_dict(), "model.pt")            # PyTorch's format: torch.load reads it
    model.load_state_dict(ember.load("model.pt"))         # and ember reads torch.save's files
    ember.save(model.state_dict(), "model.safetensors")   # safetensors, chosen by the suffix

save writes PyTorch's own zip + pickle format (torch_format.py) unless the path ends in
.safetensors, `format="safetensors"` is given, or `metadata` is (a safetensors feature).
load looks at the bytes: a zip archive is a torch.save file, anything else is read as
safetensors. torch files are unpickled with the restricted, allowlisted unpickler
(unpickler.py) unless weights_only=False.
"""
import errno
import io
import os
import pickle
import stat
from collections.abc import Callable
from typing import TypeAlias

from .._storage import TypedStorage, UntypedStorage
from .._tensor import device as _device
from . import torch_format
from .safetensors import (STRUCTURE_KEY, TENSOR_KEY, _path, load_file, load_safetensors,
                          save_file, save_safetensors)
from .unpickler import (UNSAFE_MESSAGE, FullUnpickler, WeightsUnpickler, add_safe_globals,
                        clear_safe_globals, get_safe_globals, safe_globals)

__all__ = ["save", "load", "save_file", "load_file", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2

# torch.serialization's annotation aliases: libraries annotate their own load/save wrappers with
# them (pyro's ParamStoreDict.load imports MAP_LOCATION).
MAP_LOCATION: TypeAlias = (
    Callable[[UntypedStorage, str], UntypedStorage] | _device | str | dict[str, str] | None)
STORAGE: TypeAlias = UntypedStorage | TypedStorage


def _choose_format(f, format, metadata):
    if format is not None:
        if format not in ("torch", "safetensors"):
            raise ValueError(f"save: format must be 'torch' or 'safetensors', got {format!r}")
        return format
    if metadata is not None:
        return "safetensors"
    if not hasattr(f, "write") and _path(f, "save").endswith(".safetensors"):
        return "safetensors"
    return "torch"


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False, *,
         metadata=None, format=None):
    """Saves `obj` to `f` (a path or a binary file object). By default in PyTorch's format,
    which torch.load reads: tensors of every dtype (views share their storage), Parameters,
    state dicts, optimizer state, nested containers, plain values and whole modules. A path
    ending in .safetensors, format="safetensors" or `metadata` (str -> str) selects
    safetensors instead. Saving to a path is atomic: a failure leaves the old file intact.

    >>> import io
    >>> buf = io.BytesIO()
    >>> ember.save({'w': ember.tensor([1.0, 2.0])}, buf)
    >>> _ = buf.seek(0)
    >>> ember.load(buf)
    {'w': tensor([1., 2.])}
    """
    fmt = _choose_format(f, format, metadata)
    if fmt == "safetensors":
        return save_safetensors(obj, f, metadata)
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError(f"save: pickle_module={pickle_module!r}: ember writes with its own "
                         "pickler (torch's class names); pass None")
    if not _use_new_zipfile_serialization:
        raise ValueError("save: _use_new_zipfile_serialization=False (torch's legacy format) is "
                         "not supported; ember writes the zip format that torch.load reads")
    if not isinstance(pickle_protocol, int) or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"save: pickle_protocol must be an int in [2, {pickle.HIGHEST_PROTOCOL}], "
                         f"got {pickle_protocol!r}")
    byteorder = not _disable_byteorder_record
    if hasattr(f, "write"):
        return torch_format.save_torch(obj, f, "archive", pickle_protocol, byteorder)
    path = _path(f, "save")
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    stem = os.path.splitext(os.path.basename(path))[0] or "archive"
    if os.path.exists(path) and not os.path.isfile(path):  # a device or a fifo: stream into it
        with open(path, "wb") as out:
            return torch_format.save_torch(obj, out, stem, pickle_protocol, byteorder)
    _atomic_write(path, lambda out: torch_format.save_torch(obj, out, stem, pickle_protocol, byteorder))


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write(path, write):
    """write(file) into a hidden temporary file beside the target, fsync, give it the old
    file's permissions (or the umask's), rename it over the target, fsync the folder: as
    the safetensors writer (docs/serialization.md, Atomic saves). Through a symlink, the
    file it points to is replaced."""
    import tempfile
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.tmp.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    dfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _check_map_location(map_location):
    if map_location is None or callable(map_location) and not isinstance(map_location, str):
        return
    dev = map_location.get("cpu", "cpu") if isinstance(map_location, dict) else map_location
    if str(dev) != "cpu" and not str(dev).startswith("cpu:"):
        raise ValueError(f"load: map_location={map_location!r}: ember runs on the CPU only")


def _weights_only_error(e):
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        f"options, do those steps only if you trust the source of the checkpoint.\n\t(1) "
        f"{UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
        f"the recommended steps in the following error message.\n\tWeightsUnpickler error: {e}")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Loads what save() or torch.save wrote (or any safetensors file) from `f`, a path or a
    binary file object. torch files are read with a restricted unpickler that runs no code
    (weights_only=True, the default, as torch's): only torch's default safe globals and
    those marked with add_safe_globals / safe_globals are accepted. weights_only=False uses
    the ordinary unpickler: only for files you trust. mmap=True (paths only) maps the file
    and tensors view it (copy-on-write). A malformed or hostile file raises an error naming
    the file and the problem.

    >>> import io
    >>> buf = io.BytesIO()
    >>> ember.save([ember.tensor([1, 2])], buf)
    >>> _ = buf.seek(0)
    >>> ember.load(buf, weights_only=True)
    [tensor([1, 2])]
    """
    _check_map_location(map_location)
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError(f"load: pickle_module={pickle_module!r}: ember reads with its own unpickler")
    if weights_only is None:
        weights_only = True
    if hasattr(f, "read"):
        if mmap:
            raise ValueError("load: mmap=True needs a file path, not a file object")
        data = f.read()
        if not torch_format.is_zip(data[:4]):
            return _legacy_check(data[:8]) or load_safetensors(io.BytesIO(data))
        arr, where = torch_format.read_bytes(io.BytesIO(data), False, "<file object>"), "<file object>"
    else:
        path = _path(f, "load")
        if not stat.S_ISREG(os.stat(path).st_mode):  # a directory, or a fifo that would block
            raise ValueError(f"load: {path!r} is not a regular file")
        with open(path, "rb") as fh:
            head = fh.read(8)
        if not torch_format.is_zip(head):
            return _legacy_check(head) or load_safetensors(path, bool(mmap))
        arr, where = torch_format.read_bytes(path, bool(mmap), repr(path)), repr(path)
    if not weights_only:
        return torch_format.load_torch(arr, where, FullUnpickler)
    try:
        return torch_format.load_torch(arr, where, WeightsUnpickler)
    except pickle.UnpicklingError as e:
        raise _weights_only_error(e) from None


_LEGACY_MAGIC = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46"  # PROTO 2, LONG1 10 + torch's magic number


def _legacy_check(head):
    if head[:8] == _LEGACY_MAGIC:
        raise RuntimeError("load: this is torch's legacy (pre-1.6, non-zip) format, which ember "
                           "does not read; re-save it with torch.save in the default format")
    return None
