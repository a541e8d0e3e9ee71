"""Reading and writing image files as uint8 tensors, as torchvision.io (decoded and encoded
by Pillow; bytes move through NumPy arrays)."""
import io
import os
from enum import Enum

import numpy as np

import ember


class ImageReadMode(Enum):
    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


_PIL_MODE = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA", ImageReadMode.RGB: "RGB",
             ImageReadMode.RGB_ALPHA: "RGBA"}


def _check_path(path, op):
    # An int would be opened as a file descriptor (and closed afterwards): paths only.
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{op}: expected a path (str or os.PathLike), got {type(path).__name__}")
    return path


def read_file(path):
    """The bytes of the file as a uint8 1-D tensor."""
    with open(_check_path(path, "read_file"), "rb") as f:
        return ember.from_numpy(np.frombuffer(f.read(), dtype=np.uint8).copy())


def write_file(filename, data):
    """Write the bytes of a uint8 1-D tensor."""
    _check_path(filename, "write_file")
    _check_bytes(data, "write_file")
    with open(filename, "wb") as f:
        f.write(data.numpy().tobytes())


def _check_bytes(data, op):
    if not ember.is_tensor(data) or data.dtype != ember.uint8 or data.ndim != 1:
        raise TypeError(f"{op}: expected a uint8 1-D tensor of bytes, got "
                        f"{(data.dtype, list(data.shape)) if ember.is_tensor(data) else type(data)}")


def _to_tensor(img, mode, op):
    if isinstance(mode, str):
        mode = ImageReadMode[mode.upper()]
    if mode == ImageReadMode.UNCHANGED:
        if img.mode in ("1", "P", "CMYK", "YCbCr"):
            want = "RGBA" if img.mode == "P" and "transparency" in img.info else \
                "L" if img.mode == "1" else "RGB"
            img = img.convert(want)
        elif img.mode not in ("L", "LA", "RGB", "RGBA"):
            raise RuntimeError(f"{op}: images of mode {img.mode!r} (e.g. 16-bit) are not supported: ember "
                               "has no uint16 dtype; pass mode=ImageReadMode.GRAY or RGB")
    else:
        img = img.convert(_PIL_MODE[mode])
    arr = np.asarray(img, dtype=np.uint8)
    arr = arr[:, :, None] if arr.ndim == 2 else arr
    return ember.from_numpy(np.array(arr.transpose(2, 0, 1), order="C"))  # a writable copy


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """A uint8 (C, H, W) tensor from encoded bytes (uint8 1-D tensor) or a file path."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    data = input if isinstance(input, (str, os.PathLike)) else None
    if data is None:
        _check_bytes(input, "decode_image")
        data = io.BytesIO(input.numpy().tobytes())
    try:
        with Image.open(data) as img:
            img.load()
            if apply_exif_orientation:
                img = ImageOps.exif_transpose(img)
            return _to_tensor(img, mode, "decode_image")
    except UnidentifiedImageError as e:
        raise RuntimeError(f"decode_image: unsupported or corrupt image data ({e})") from None


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """The image file at `path` as a uint8 (C, H, W) tensor."""
    return decode_image(path, mode, apply_exif_orientation)


decode_png = decode_jpeg = decode_image


def _pil_image(input, op):
    from PIL import Image

    if not ember.is_tensor(input) or input.dtype != ember.uint8:
        raise TypeError(f"{op}: input tensor dtype should be uint8, got "
                        f"{input.dtype if ember.is_tensor(input) else type(input)}")
    if input.ndim != 3 or input.shape[0] not in (1, 3):
        raise ValueError(f"{op}: input should be a (C, H, W) tensor with 1 or 3 channels, got shape "
                         f"{list(input.shape)}")
    arr = np.ascontiguousarray(input.detach().numpy().transpose(1, 2, 0))
    return Image.fromarray(arr[:, :, 0] if arr.shape[2] == 1 else arr)


def _encode(img, **kwargs):
    buffer = io.BytesIO()
    img.save(buffer, **kwargs)
    return ember.from_numpy(np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy())


def encode_png(input, compression_level=6):
    """PNG bytes (uint8 1-D tensor) of a uint8 (C, H, W) image, C in (1, 3)."""
    if not 0 <= compression_level <= 9:
        raise ValueError(f"encode_png: compression level should be between 0 and 9, got {compression_level}")
    return _encode(_pil_image(input, "encode_png"), format="PNG", compress_level=compression_level)


def encode_jpeg(input, quality=75):
    """JPEG bytes (uint8 1-D tensor) of a uint8 (C, H, W) image, C in (1, 3)."""
    if not 1 <= quality <= 100:
        raise ValueError(f"encode_jpeg: image quality should be a positive number between 1 and 100, "
                         f"got {quality}")
    return _encode(_pil_image(input, "encode_jpeg"), format="JPEG", quality=quality)


def write_png(input, filename, compression_level=6):
    write_file(filename, encode_png(input, compression_level))


def write_jpeg(input, filename, quality=75):
    write_file(filename, encode_jpeg(input, quality))
