"""torch's PyTorchFileReader and PyTorchFileWriter: the record-level access to the zip container
that torch.save writes (torch_format.py reads and writes whole objects through the same layout).
Every record sits under one top-level folder (the archive name) and, as written here, starts at
a multiple of 64 bytes; write_end_of_file adds torch's version, byteorder and serialization id."""
import io
import os
import struct
import sys
import zipfile

from .._lazy_numpy import np  # NumPy loads when a file is read (Note [Lazy imports])

from .torch_format import _aligned_extra

__all__ = ["PyTorchFileReader", "PyTorchFileWriter"]


def _serialization_id():
    return str(int.from_bytes(os.urandom(17), "little") % 10 ** 40).zfill(40)


class PyTorchFileWriter:
    """Writes named records into a torch container at a path or into a writable binary file.

    >>> import io
    >>> buf = io.BytesIO()
    >>> w = ember.PyTorchFileWriter(buf)
    >>> w.write_record('data/0', b'abc', 3)
    >>> w.write_end_of_file()
    >>> ember.PyTorchFileReader(io.BytesIO(buf.getvalue())).get_all_records()
    ['data/0', 'version', 'byteorder', '.data/serialization_id']
    """

    def __init__(self, file_name, compute_crc32=True, storage_alignment=64):
        if isinstance(file_name, (str, os.PathLike)):
            path = os.fspath(file_name)
            self._name = os.path.splitext(os.path.basename(path))[0] or "archive"
            self._zip = zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True)
        elif hasattr(file_name, "write"):
            self._name = "archive"
            self._zip = zipfile.ZipFile(file_name, "w", zipfile.ZIP_STORED, allowZip64=True)
        else:
            raise TypeError(f"PyTorchFileWriter(): expected a file name or a writable file, got "
                            f"{type(file_name).__name__}")
        self._written = set()
        self._version = 3
        self._id = _serialization_id()
        self._closed = False

    def archive_name(self):
        return self._name

    def serialization_id(self):
        return self._id

    def set_min_version(self, version):
        self._version = max(self._version, int(version))

    def get_all_written_records(self):
        return set(self._written)

    def write_record(self, name, data, size):
        """Writes the first `size` bytes of `data` (bytes-like, or a tensor's bytes) as record `name`."""
        if self._closed:
            raise RuntimeError("PyTorchFileWriter: write_record after write_end_of_file")
        if name in self._written:
            raise RuntimeError(f"PyTorchFileWriter: record {name!r} was already written")
        if hasattr(data, "numpy"):
            data = data.detach().contiguous().numpy().view(np.uint8)
        view = memoryview(data).cast("B")
        if size < 0 or size > len(view):
            raise RuntimeError(f"PyTorchFileWriter: size {size} out of range for a record of "
                               f"{len(view)} bytes")
        info = zipfile.ZipInfo(f"{self._name}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        info.extra = _aligned_extra(self._zip.fp.tell(), info.filename, size)
        self._zip.writestr(info, bytes(view[:size]))
        self._written.add(name)

    def write_end_of_file(self):
        """Adds the version (.data/version from version 6 on), byteorder and serialization id
        records, then closes the archive."""
        if self._closed:
            return
        version = f"{self._version}\n".encode()
        self.write_record(".data/version" if self._version >= 6 else "version", version, len(version))
        if "byteorder" not in self._written:
            order = sys.byteorder.encode()
            self.write_record("byteorder", order, len(order))
        self.write_record(".data/serialization_id", self._id.encode(), len(self._id))
        self._zip.close()
        self._closed = True


class PyTorchFileReader:
    """Reads the named records of a torch container from a path or a readable binary file.

    >>> import io
    >>> buf = io.BytesIO()
    >>> w = ember.PyTorchFileWriter(buf)
    >>> w.write_record('x', b'hi', 2)
    >>> w.write_end_of_file()
    >>> r = ember.PyTorchFileReader(io.BytesIO(buf.getvalue()))
    >>> r.has_record('x'), bytes(r.get_record('x'))
    (True, b'hi')
    """

    def __init__(self, file_name):
        if isinstance(file_name, (str, os.PathLike)):
            with open(os.fspath(file_name), "rb") as f:
                self._bytes = f.read()
        elif hasattr(file_name, "read"):
            self._bytes = file_name.read()
        else:
            raise TypeError(f"PyTorchFileReader(): expected a file name or a readable file, got "
                            f"{type(file_name).__name__}")
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(self._bytes))
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {e}") from None
        names = self._zip.namelist()
        prefix = names[0].split("/")[0] + "/" if names else ""
        self._records = {}
        for info in self._zip.infolist():
            if not info.filename.startswith(prefix):
                raise RuntimeError(f"PytorchStreamReader: record {info.filename!r} lies outside the "
                                   f"archive folder {prefix!r}")
            self._records[info.filename[len(prefix):]] = info

    def _info(self, name):
        info = self._records.get(name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        return info

    def has_record(self, name):
        return name in self._records

    def get_all_records(self):
        return list(self._records)

    def get_record(self, name):
        return self._zip.read(self._info(name))

    def get_record_size(self, name):
        return self._info(name).file_size

    def get_record_offset(self, name):
        """Where the record's bytes start in the file (after its local header)."""
        info = self._info(name)
        n, e = struct.unpack("<HH", self._bytes[info.header_offset + 26:info.header_offset + 30])
        return info.header_offset + 30 + n + e

    def serialization_id(self):
        for name in (".data/serialization_id",):
            if name in self._records:
                return self.get_record(name).decode()
        return ""

    def get_storage_from_record(self, name, numel, dtype):
        """The record's bytes as a 1-d tensor of `numel` elements of `dtype`."""
        from .. import _creation
        data = self.get_record(name)
        itemsize = dtype.itemsize
        if len(data) != numel * itemsize:
            raise RuntimeError(f"record size ({len(data)} bytes) does not match expected size "
                               f"({numel * itemsize} bytes = {numel} elements * {itemsize} "
                               f"bytes/element) for dtype {dtype}")
        values = np.frombuffer(data, np.dtype(str(dtype).split(".")[-1])).copy()
        return _creation.from_numpy(values)
