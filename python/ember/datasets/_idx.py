"""Reading IDX files (the MNIST family's format), plain or gzip-compressed.

An IDX file is a 4-byte big-endian magic number (0x0000, a type code: 0x08 = uint8, and the
number of dims), one big-endian uint32 per dim, then the data. The whole file is parsed by
NumPy frombuffer calls; every way a file can be damaged raises ValueError naming the file.
"""
import zlib

import numpy as np

IMAGES_MAGIC = 0x00000803  # uint8, 3 dims (N, rows, cols)
LABELS_MAGIC = 0x00000801  # uint8, 1 dim (N,)


def _gunzip(raw, path):
    d = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
    try:
        out = d.decompress(raw)
        if d.unused_data:  # a second gzip member: let gzip handle the rare multi-member file
            import gzip
            out = gzip.decompress(raw)
    except (zlib.error, OSError, EOFError) as e:
        raise ValueError(f"{path}: not a valid gzip file ({e})") from None
    if not d.eof:
        raise ValueError(f"{path}: not a valid gzip file (the compressed stream is truncated)")
    return out


def read_idx(path, magic):
    """The array stored in the IDX file at `path` (uint8, a fresh writable array), checking that
    its magic number is `magic`. A file starting with gzip's signature is decompressed first."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, path)
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    if len(raw) < 4:
        raise ValueError(f"{path}: truncated: {len(raw)} bytes, too short for an IDX header")
    found = int.from_bytes(raw[:4], "big")
    if found != magic:
        raise ValueError(f"{path}: bad magic number 0x{found:08x} (expected 0x{magic:08x}: "
                         f"an IDX file of uint8 with {ndim} dim{'s' if ndim > 1 else ''})")
    if len(raw) < header:
        raise ValueError(f"{path}: truncated: {len(raw)} bytes, the header of {ndim} dims needs {header}")
    dims = tuple(np.frombuffer(raw, dtype=">u4", count=ndim, offset=4).tolist())
    want, have = int(np.prod(dims, dtype=np.int64)), len(raw) - header
    if have < want:
        raise ValueError(f"{path}: truncated: the header says {dims} = {want} bytes of data, "
                         f"the file holds {have}")
    if have > want:
        raise ValueError(f"{path}: {have - want} bytes after the {want} bytes of data the header "
                         f"{dims} describes")
    return np.frombuffer(raw, dtype=np.uint8, count=want, offset=header).reshape(dims).copy()
