"""F.grid_sample / F.affine_grid and torch's aten forms against torch 2.13: every mode,
padding mode and align_corners, 4-d and 5-d, values and gradients for input and grid, a
float64 gradcheck, and torch's errors."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from helpers import to_numpy


def _pair(shape, seed, low=-1.0, high=1.0, dtype=np.float64):
    a = np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)
    e = ember.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    return e, t


def _compare(shape_in, shape_grid, mode, padding, align, dtype=np.float64, tol=1e-6):
    ex, tx = _pair(shape_in, 1, -2, 2, dtype)
    # grid beyond [-1, 1] exercises the padding modes
    eg, tg = _pair(shape_grid, 2, -1.3, 1.3, dtype)
    eo = F.grid_sample(ex, eg, mode=mode, padding_mode=padding, align_corners=align)
    to = torch.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode=padding,
                                         align_corners=align)
    np.testing.assert_allclose(to_numpy(eo), to_numpy(to), rtol=tol, atol=tol)
    gout = np.random.default_rng(3).standard_normal(tuple(to.shape)).astype(dtype)
    eo.backward(ember.from_numpy(gout.copy()))
    to.backward(torch.from_numpy(gout.copy()))
    np.testing.assert_allclose(to_numpy(ex.grad), to_numpy(tx.grad), rtol=tol, atol=tol)
    np.testing.assert_allclose(to_numpy(eg.grad), to_numpy(tg.grad), rtol=tol * 10,
                               atol=tol * 10)


@pytest.mark.parametrize("mode,padding,align", list(itertools.product(
    ["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"], [False, True])))
def test_grid_sample_2d_matches_torch(mode, padding, align):
    _compare((2, 3, 5, 6), (2, 4, 7, 2), mode, padding, align)


@pytest.mark.parametrize("mode,padding,align", list(itertools.product(
    ["bilinear", "nearest"], ["zeros", "border", "reflection"], [False, True])))
def test_grid_sample_3d_matches_torch(mode, padding, align):
    _compare((2, 2, 3, 4, 5), (2, 3, 2, 4, 3), mode, padding, align)


def test_grid_sample_float32_and_output_shape():
    _compare((1, 4, 8, 8), (1, 5, 3, 2), "bilinear", "zeros", False, np.float32, 1e-4)
    out = F.grid_sample(ember.zeros(2, 3, 4, 4), ember.zeros(2, 0, 5, 2), align_corners=False)
    assert tuple(out.shape) == (2, 3, 0, 5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_gradcheck_float64(mode):
    rng = np.random.default_rng(5)
    x = ember.from_numpy(rng.standard_normal((1, 2, 4, 4))).requires_grad_()
    # keep the grid away from pixel centres, where the piecewise weights have kinks
    g = ember.from_numpy(rng.uniform(-0.9, 0.9, (1, 3, 3, 2)) + 0.013).requires_grad_()
    assert ember.autograd.gradcheck(
        lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode="border", align_corners=False),
        (x, g), eps=1e-6, atol=1e-5)


def test_grid_sample_aten_forms_and_default_warning():
    ex, tx = _pair((1, 2, 3, 3), 7)
    eg, tg = _pair((1, 2, 2, 2), 8)
    np.testing.assert_allclose(to_numpy(ember.grid_sampler(ex, eg, 1, 2, True)),
                               to_numpy(torch.grid_sampler(tx, tg, 1, 2, True)), atol=1e-12)
    np.testing.assert_allclose(to_numpy(ember.grid_sampler_2d(ex, eg, 2, 1, False)),
                               to_numpy(torch.grid_sampler_2d(tx, tg, 2, 1, False)), atol=1e-12)
    with pytest.raises(RuntimeError):
        ember.grid_sampler_3d(ex, eg, 0, 0, False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.grid_sample(ex, eg)
    assert any("align_corners" in str(x.message) for x in w)


def test_grid_sample_bad_inputs():
    x, g = ember.zeros(1, 2, 3, 3), ember.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode"):
        F.grid_sample(x, g, mode="linear", align_corners=False)
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(x, g, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match=r"grid_sampler.*size 2 in last dimension"):
        F.grid_sample(x, ember.zeros(1, 2, 2, 3), align_corners=False)
    with pytest.raises(RuntimeError, match=r"same batch size"):
        F.grid_sample(x, ember.zeros(2, 2, 2, 2), align_corners=False)
    with pytest.raises(RuntimeError, match=r"4D or 5D"):
        F.grid_sample(ember.zeros(2, 3, 3), ember.zeros(2, 2, 2), align_corners=False)
    with pytest.raises(RuntimeError, match=r"bicubic.*4D"):
        F.grid_sample(ember.zeros(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3), mode="bicubic",
                      align_corners=False)
    with pytest.raises(RuntimeError, match=r"same dtype"):
        F.grid_sample(x, g.double(), align_corners=False)
    with pytest.raises(RuntimeError, match=r"non-empty spatial"):
        F.grid_sample(ember.zeros(1, 2, 0, 3), g, align_corners=False)


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_matches_torch(align):
    for size, tshape in [((2, 3, 4, 5), (2, 2, 3)), ((2, 1, 3, 4, 2), (2, 3, 4)),
                         ((1, 1, 1, 3), (1, 2, 3))]:
        e, t = _pair(tshape, 11)
        eo = F.affine_grid(e, size, align_corners=align)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            to = torch.nn.functional.affine_grid(t, size, align_corners=align)
        np.testing.assert_allclose(to_numpy(eo), to_numpy(to), atol=1e-12)
        eo.sum().backward()
        to.sum().backward()
        np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), atol=1e-10)
    e, t = _pair((1, 2, 3), 12)
    np.testing.assert_allclose(to_numpy(ember.affine_grid_generator(e, [1, 1, 2, 3], False)),
                               to_numpy(torch.affine_grid_generator(t, [1, 1, 2, 3], False)),
                               atol=1e-12)


def test_affine_grid_bad_inputs():
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(ember.zeros(1, 2, 3, dtype=ember.int64), (1, 1, 2, 2), False)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(ember.zeros(1, 3, 3), (1, 1, 2, 2), False)
    with pytest.raises(ValueError, match="Nx3x4"):
        F.affine_grid(ember.zeros(1, 2, 3), (1, 1, 2, 2, 2), False)
    with pytest.raises(NotImplementedError, match="4D and 5D"):
        F.affine_grid(ember.zeros(1, 2, 3), (1, 2, 2), False)
    with pytest.raises(ValueError, match="positive output size"):
        F.affine_grid(ember.zeros(1, 2, 3), (1, 1, 0, 2), False)


def test_grid_sample_double_backward_raises_instead_of_zero():
    x = ember.randn(1, 2, 4, 4, dtype=ember.float64).requires_grad_()
    g = (ember.rand(1, 3, 3, 2, dtype=ember.float64) * 2 - 1).requires_grad_()
    out = F.grid_sample(x, g, align_corners=False)
    gx, gg = ember.autograd.grad((out * out).sum(), (x, g), create_graph=True)
    assert gx.requires_grad and gg.requires_grad
    with pytest.raises(NotImplementedError, match="grid_sampler_2d_backward"):
        ember.autograd.grad(gg.sum(), g)
    gx2, = ember.autograd.grad(F.grid_sample(x, g, align_corners=False).sum(), x)
    assert not gx2.requires_grad  # without create_graph nothing is recorded
