"""ember.vision.utils.make_grid and save_image.

torchvision cannot be installed beside torch 2.13 here: the grids are checked against layouts
computed by hand with NumPy (cell (r, c) starts at padding + r*(H+padding), padding +
c*(W+padding)) and the saved files are read back with Pillow.
"""
import numpy as np
import pytest
from PIL import Image

import ember
from ember.vision.utils import make_grid, save_image


def _grid_by_hand(batch, nrow, padding, pad_value):
    n, c, h, w = batch.shape
    xmaps = min(nrow, n)
    ymaps = -(-n // xmaps)
    grid = np.full((c, ymaps * (h + padding) + padding, xmaps * (w + padding) + padding), pad_value, batch.dtype)
    for k in range(n):
        r, col = divmod(k, xmaps)
        top, left = padding + r * (h + padding), padding + col * (w + padding)
        grid[:, top:top + h, left:left + w] = batch[k]
    return grid


@pytest.mark.parametrize("n,nrow,padding", [(5, 2, 2), (8, 8, 0), (3, 4, 1), (7, 3, 3)])
def test_make_grid_layout(n, nrow, padding):
    x = ember.rand(n, 3, 4, 5)
    out = make_grid(x, nrow=nrow, padding=padding, pad_value=0.25)
    np.testing.assert_array_equal(out.numpy(), _grid_by_hand(x.numpy(), nrow, padding, 0.25))


def test_make_grid_channels_lists_and_single():
    x = ember.rand(4, 1, 3, 3)
    out = make_grid(x, nrow=2)
    assert tuple(out.shape) == (3, 12, 12)  # one channel is repeated three times
    np.testing.assert_array_equal(out.numpy()[0], out.numpy()[2])
    lst = make_grid([ember.rand(3, 3, 3) for _ in range(3)], nrow=3, padding=0)
    assert tuple(lst.shape) == (3, 3, 9)
    one = ember.rand(1, 3, 4, 4)
    np.testing.assert_array_equal(make_grid(one).numpy(), one.numpy()[0])  # one image: no padding
    assert tuple(make_grid(ember.rand(4, 4)).shape) == (3, 4, 4)
    with pytest.raises(TypeError, match="tensor or list of tensors expected, got a list containing"):
        make_grid([ember.rand(3, 2, 2), np.zeros((3, 2, 2))])
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        make_grid(np.zeros((2, 3, 2, 2)))
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        make_grid(ember.rand(2, 3, 2, 2), normalize=True, value_range=[0, 1])


def test_make_grid_normalize():
    x = ember.rand(3, 3, 4, 4) * 10 - 3
    a = x.numpy()
    out = make_grid(x, normalize=True, padding=0, nrow=3).numpy()
    want = (a - a.min()) / (a.max() - a.min())
    np.testing.assert_allclose(out, _grid_by_hand(want, 3, 0, 0.0), rtol=1e-5, atol=1e-6)
    each = make_grid(x, normalize=True, scale_each=True, padding=0, nrow=3).numpy()
    lo, hi = a.min(axis=(1, 2, 3), keepdims=True), a.max(axis=(1, 2, 3), keepdims=True)
    np.testing.assert_allclose(each, _grid_by_hand((a - lo) / (hi - lo), 3, 0, 0.0), rtol=1e-5, atol=1e-6)
    ranged = make_grid(x, normalize=True, value_range=(-1.0, 1.0), padding=0, nrow=3).numpy()
    np.testing.assert_allclose(ranged, _grid_by_hand((np.clip(a, -1, 1) + 1) / 2, 3, 0, 0.0), rtol=1e-5, atol=1e-6)
    flat = make_grid(ember.full((2, 3, 2, 2), 4.0), normalize=True)  # max == min: no division by 0
    assert np.isfinite(flat.numpy()).all()
    assert float(x.min()) < 0  # the input is not modified


def test_make_grid_gradient_matches_torch():
    """The grid is ember ops (pad, reshape, permute): its gradient is torch's copy_ gradient,
    i.e. the upstream gradient at each image's cell."""
    x = ember.rand(5, 3, 4, 4, requires_grad=True)
    upstream = np.random.default_rng(0).standard_normal((3, 2 * 6 + 2, 3 * 6 + 2)).astype(np.float32)
    (make_grid(x, nrow=3, padding=2) * ember.from_numpy(upstream)).sum().backward()
    want = np.stack([upstream[:, 2 + (k // 3) * 6:2 + (k // 3) * 6 + 4, 2 + (k % 3) * 6:2 + (k % 3) * 6 + 4]
                     for k in range(5)])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


def test_save_image_roundtrip(tmp_path):
    x = ember.rand(6, 3, 5, 4)
    path = tmp_path / "grid.png"
    save_image(x, str(path), nrow=3, padding=1)
    grid = make_grid(x, nrow=3, padding=1).numpy()
    want = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    np.testing.assert_array_equal(np.asarray(Image.open(path)), want)
    with open(tmp_path / "one.jpg", "wb") as f:  # a file object and an explicit format
        save_image(ember.rand(1, 28, 28), f, format="JPEG")
    assert Image.open(tmp_path / "one.jpg").size == (28, 28)
    save_image(ember.rand(4, 1, 8, 8) * 4 - 2, str(tmp_path / "n.png"), normalize=True)
    assert Image.open(tmp_path / "n.png").size == (2 + 4 * 10, 12)


def test_ember_vision_is_a_lazy_attribute():
    import ember.vision

    assert ember.vision.transforms.ToTensor is not None and ember.vision.get_image_backend() == "PIL"
    assert ember.vision.utils.make_grid is make_grid
    with pytest.raises(ValueError, match="Invalid backend 'accimage'"):
        ember.vision.set_image_backend("accimage")
