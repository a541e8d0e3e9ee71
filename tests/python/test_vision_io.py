"""ember.vision.io: image files <-> uint8 (C, H, W) tensors. torchvision cannot be installed
here; Pillow (which writes and reads the files in these tests) and NumPy are the oracle."""
import os

import numpy as np
import pytest
from PIL import Image

import ember
from ember.vision import io


def _rgb(h=5, w=7, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_read_image_modes(tmp_path):
    a = _rgb()
    Image.fromarray(a).save(tmp_path / "a.png")
    x = io.read_image(str(tmp_path / "a.png"))
    assert x.dtype == ember.uint8 and tuple(x.shape) == (3, 5, 7)
    np.testing.assert_array_equal(x.numpy(), a.transpose(2, 0, 1))
    grey = io.read_image(tmp_path / "a.png", io.ImageReadMode.GRAY)
    np.testing.assert_array_equal(grey.numpy()[0], np.asarray(Image.fromarray(a).convert("L")))
    rgba = io.read_image(str(tmp_path / "a.png"), mode=io.ImageReadMode.RGB_ALPHA)
    assert tuple(rgba.shape) == (4, 5, 7) and int(rgba[3].min()) == 255
    Image.fromarray(a[:, :, 0]).save(tmp_path / "g.png")
    assert tuple(io.read_image(str(tmp_path / "g.png")).shape) == (1, 5, 7)
    assert tuple(io.read_image(str(tmp_path / "g.png"), io.ImageReadMode.RGB).shape) == (3, 5, 7)
    Image.fromarray(a).convert("P").save(tmp_path / "p.png")
    assert tuple(io.read_image(str(tmp_path / "p.png")).shape) == (3, 5, 7)  # palette expanded


def test_encode_decode_roundtrip(tmp_path):
    a = _rgb()
    x = ember.from_numpy(a.transpose(2, 0, 1).copy())
    data = io.encode_png(x)
    assert data.dtype == ember.uint8 and data.ndim == 1 and bytes(data.numpy()[:4]) == b"\x89PNG"
    np.testing.assert_array_equal(io.decode_image(data).numpy(), a.transpose(2, 0, 1))
    io.write_png(x, str(tmp_path / "w.png"))
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "w.png")), a)
    io.write_jpeg(x, str(tmp_path / "w.jpg"), quality=95)
    back = io.read_image(str(tmp_path / "w.jpg")).numpy().astype(int)
    np.testing.assert_array_equal(back, np.asarray(Image.open(tmp_path / "w.jpg")).transpose(2, 0, 1))
    raw = io.read_file(str(tmp_path / "w.png"))
    assert bytes(raw.numpy()) == (tmp_path / "w.png").read_bytes()
    io.write_file(str(tmp_path / "copy.png"), raw)
    assert (tmp_path / "copy.png").read_bytes() == (tmp_path / "w.png").read_bytes()


def test_io_bad_inputs(tmp_path):
    with pytest.raises(TypeError, match="encode_png: input tensor dtype should be uint8"):
        io.encode_png(ember.rand(3, 4, 4))
    with pytest.raises(ValueError, match=r"encode_jpeg: input should be a \(C, H, W\) tensor with 1 or 3 channels, got shape \[2, 4, 4\]"):
        io.encode_jpeg(ember.zeros(2, 4, 4, dtype=ember.uint8))
    with pytest.raises(ValueError, match="quality should be a positive number between 1 and 100, got 0"):
        io.encode_jpeg(ember.zeros(3, 4, 4, dtype=ember.uint8), quality=0)
    with pytest.raises(RuntimeError, match="decode_image: unsupported or corrupt image data"):
        io.decode_image(ember.zeros(10, dtype=ember.uint8))
    with pytest.raises(TypeError, match="decode_image: expected a uint8 1-D tensor of bytes"):
        io.decode_image(ember.zeros(2, 5))
    # an int is not a path: open() would take it as a file descriptor and close it
    r, w = os.pipe()
    try:
        with pytest.raises(TypeError, match="read_file: expected a path"):
            io.read_file(r)
        with pytest.raises(TypeError, match="write_file: expected a path"):
            io.write_file(w, ember.zeros(3, dtype=ember.uint8))
        os.fstat(r), os.fstat(w)  # both still open
    finally:
        os.close(r)
        os.close(w)
