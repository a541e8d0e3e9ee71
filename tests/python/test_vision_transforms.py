"""ember.vision.transforms and transforms.functional.

torchvision cannot be installed beside torch 2.13 here, so each check names its oracle:
Pillow itself (PIL paths: resize, crop, flips, pad, colour enhancers, rotate), NumPy
(ToTensor == np.asarray(img) / 255 transposed), torch ops (Normalize == (x - m) / s in torch,
tensor resize == torch.nn.functional.interpolate, blur == torch conv2d, hue == torch's
formulas) and numbers computed by hand (crop boxes, output sizes, random parameters).
"""
import numpy as np
import pytest
import torch
from PIL import Image, ImageEnhance

import ember
from ember.vision import transforms as T
from ember.vision.transforms import functional as F


def _rgb(h=7, w=9, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def _t(x):
    return torch.from_numpy(np.array(x.numpy()))


def test_to_tensor_pil_and_ndarray():
    a = _rgb()
    for pic in (Image.fromarray(a), a):
        x = T.ToTensor()(pic)
        assert x.dtype == ember.float32 and tuple(x.shape) == (3, 7, 9)
        np.testing.assert_allclose(x.numpy(), a.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    grey = Image.fromarray(a[:, :, 0])
    np.testing.assert_allclose(T.ToTensor()(grey).numpy()[0], a[:, :, 0] / 255.0, rtol=1e-6)
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert T.ToTensor()(Image.fromarray(ints)).dtype == ember.int32  # mode 'I' is not rescaled
    deep = np.array([[0, 1000, 40000]], dtype=np.uint16)  # 16-bit: int32 here (no int16 in ember)
    np.testing.assert_array_equal(F.pil_to_tensor(Image.fromarray(deep)).numpy()[0], deep.astype(np.int32))
    binary = Image.fromarray(a[:, :, 0] > 128)
    np.testing.assert_array_equal(T.ToTensor()(binary).numpy()[0], (a[:, :, 0] > 128).astype(np.float32))
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        T.ToTensor()(ember.zeros(3, 4, 4))
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 4"):
        F.to_tensor(np.zeros((1, 2, 3, 4), np.uint8))


def test_pil_to_tensor_and_back():
    a = _rgb()
    x = T.PILToTensor()(Image.fromarray(a))
    assert x.dtype == ember.uint8
    np.testing.assert_array_equal(x.numpy(), a.transpose(2, 0, 1))
    img = T.ToPILImage()(x)
    assert img.mode == "RGB" and np.array_equal(np.asarray(img), a)
    f = ember.from_numpy(a.transpose(2, 0, 1).astype(np.float32) / 255.0)
    np.testing.assert_array_equal(np.asarray(F.to_pil_image(f)), a)  # (x * 255).byte() round trip
    assert F.to_pil_image(ember.rand(1, 4, 5)).mode == "L"
    assert F.to_pil_image(ember.rand(4, 4, 5)).mode == "RGBA"
    assert F.to_pil_image(ember.rand(1, 4, 5), mode="F").mode == "F"
    assert F.to_pil_image(a, mode="HSV").mode == "HSV"
    with pytest.raises(ValueError, match="pic should not have > 4 channels. Got 5"):
        F.to_pil_image(ember.rand(5, 4, 4))
    with pytest.raises(ValueError, match=r"incorrect mode \(RGB\)"):
        F.to_pil_image(ember.zeros(1, 2, 2, dtype=ember.uint8), mode="RGB")
    with pytest.raises(TypeError, match="pic should be Tensor or ndarray"):
        F.to_pil_image([1, 2, 3])


@pytest.mark.parametrize("shape", [(3, 5, 6), (2, 3, 4, 4)])
def test_normalize_matches_torch(shape):
    x = ember.rand(*shape)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    out = T.Normalize(mean, std)(x)
    ref = (_t(x) - torch.tensor(mean).view(-1, 1, 1)) / torch.tensor(std).view(-1, 1, 1)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)
    assert not np.array_equal(out.numpy(), x.numpy())  # not in place by default
    y = x.clone()
    assert F.normalize(y, mean, std, inplace=True) is y
    one = T.Normalize((0.1307,), (0.3081,))(ember.rand(1, 4, 4))
    assert tuple(one.shape) == (1, 4, 4)
    with pytest.raises(ValueError, match="std evaluated to zero"):
        F.normalize(x, mean, (1.0, 0.0, 1.0))
    with pytest.raises(TypeError, match="input tensor should be a float tensor"):
        F.normalize(ember.zeros(3, 2, 2, dtype=ember.uint8), mean, std)
    with pytest.raises(ValueError, match=r"size \(\.\.\., C, H, W\)\. Got tensor.size\(\) = \(2, 2\)"):
        F.normalize(ember.rand(2, 2), mean, std)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("size", [(5, 7), (13, 17), (8, 4)])
def test_tensor_resize_matches_torch_interpolate(mode, antialias, size):
    x = ember.rand(2, 3, 8, 10)
    out = F.resize(x, list(size), interpolation=T.InterpolationMode(mode), antialias=antialias)
    ref = torch.nn.functional.interpolate(_t(x), size=size, mode=mode, align_corners=False, antialias=antialias)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=2e-6)


def test_tensor_resize_nearest_uint8_and_smaller_edge():
    x = ember.rand(3, 8, 10)
    out = F.resize(x, [5, 7], interpolation=T.InterpolationMode.NEAREST)
    ref = torch.nn.functional.interpolate(_t(x)[None], size=(5, 7), mode="nearest")[0]
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    u = ember.from_numpy(_rgb(8, 10).transpose(2, 0, 1).copy())
    up = F.resize(u, [16, 20])
    ref = torch.nn.functional.interpolate(_t(u)[None].float(), size=(16, 20), mode="bilinear",
                                          align_corners=False).round()[0]
    assert up.dtype == ember.uint8
    np.testing.assert_array_equal(up.numpy(), ref.numpy())
    assert tuple(T.Resize(4)(x).shape) == (3, 4, 5)  # the smaller edge to 4: 10 * 4 / 8 = 5
    assert tuple(T.Resize(4, max_size=4 + 1)(ember.rand(3, 4, 12)).shape) == (3, 1, 5)
    assert F.resize(x, [8, 10]) is x


def test_pil_resize_is_pillows():
    img = Image.fromarray(_rgb(20, 30))
    for mode, resample in ((T.InterpolationMode.BILINEAR, Image.BILINEAR), (T.InterpolationMode.NEAREST, Image.NEAREST),
                           (T.InterpolationMode.BICUBIC, Image.BICUBIC)):
        out = T.Resize((11, 13), interpolation=mode)(img)
        assert np.array_equal(np.asarray(out), np.asarray(img.resize((13, 11), resample)))
    assert T.Resize(10)(img).size == (15, 10)  # (w, h): the shorter side h=20 -> 10
    with pytest.raises(ValueError, match="max_size = 10 must be strictly greater"):
        F.resize(img, 10, max_size=10)
    with pytest.raises(TypeError, match="size should be int or sequence"):
        T.Resize(2.5)
    with pytest.raises(TypeError, match="img should be PIL Image or Tensor"):
        F.resize(np.zeros((3, 3)), 2)


def test_crops_pil_and_tensor_agree():
    a = _rgb(10, 12)
    img, x = Image.fromarray(a), ember.from_numpy(a.transpose(2, 0, 1).copy())
    np.testing.assert_array_equal(np.asarray(F.crop(img, 2, 3, 4, 5)), a[2:6, 3:8])
    np.testing.assert_array_equal(F.crop(x, 2, 3, 4, 5).numpy(), a[2:6, 3:8].transpose(2, 0, 1))
    # outside the image: zeros
    out = F.crop(x, -1, 10, 3, 4).numpy()
    want = np.zeros((3, 3, 4), np.uint8)
    want[:, 1:, :2] = a[0:2, 10:12].transpose(2, 0, 1)
    np.testing.assert_array_equal(out, want)
    # centre crop: top = round((10 - 4) / 2) = 3, left = round((12 - 5) / 2) = 4 (round half to even)
    np.testing.assert_array_equal(np.asarray(T.CenterCrop((4, 5))(img)), a[3:7, 4:9])
    np.testing.assert_array_equal(T.CenterCrop((4, 5))(x).numpy(), a[3:7, 4:9].transpose(2, 0, 1))
    big = T.CenterCrop(14)(x)  # padded with zeros first: 1 left/right, 2 top/bottom
    assert tuple(big.shape) == (3, 14, 14) and big.numpy()[:, :2].sum() == 0
    np.testing.assert_array_equal(big.numpy()[:, 2:12, 1:13], a.transpose(2, 0, 1))
    assert T.CenterCrop(14)(img).size == (14, 14)
    crops = T.FiveCrop(4)(x)
    np.testing.assert_array_equal(crops[3].numpy(), a[6:, 8:].transpose(2, 0, 1))
    assert len(T.TenCrop(4)(img)) == 10
    with pytest.raises(ValueError, match="five_crop: requested crop size"):
        F.five_crop(x, 20)


def test_flips():
    a = _rgb()
    img, x = Image.fromarray(a), ember.from_numpy(a.transpose(2, 0, 1).copy())
    np.testing.assert_array_equal(np.asarray(F.hflip(img)), a[:, ::-1])
    np.testing.assert_array_equal(np.asarray(F.vflip(img)), a[::-1])
    np.testing.assert_array_equal(F.hflip(x).numpy(), a[:, ::-1].transpose(2, 0, 1))
    np.testing.assert_array_equal(F.vflip(x).numpy(), a[::-1].transpose(2, 0, 1))
    assert T.RandomHorizontalFlip(p=1.0)(img).tobytes() == F.hflip(img).tobytes()
    assert T.RandomVerticalFlip(p=0.0)(img) is img


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
def test_pad_modes_match_numpy(mode):
    a = _rgb(5, 6)
    x = ember.from_numpy(a.transpose(2, 0, 1).copy())
    np_mode = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}[mode]
    want = np.pad(a, ((2, 4), (1, 3), (0, 0)), mode=np_mode)  # padding = (left 1, top 2, right 3, bottom 4)
    np.testing.assert_array_equal(np.asarray(F.pad(Image.fromarray(a), [1, 2, 3, 4], padding_mode=mode)), want)
    np.testing.assert_array_equal(F.pad(x, [1, 2, 3, 4], padding_mode=mode).numpy(), want.transpose(2, 0, 1))
    f = x.float()
    np.testing.assert_allclose(F.pad(f, [1, 2, 3, 4], padding_mode=mode).numpy(), want.transpose(2, 0, 1))


def test_pad_fill_and_errors():
    img = Image.fromarray(_rgb(3, 3))
    out = np.asarray(T.Pad(1, fill=(10, 20, 30))(img))
    assert out.shape == (5, 5, 3) and tuple(out[0, 0]) == (10, 20, 30)
    assert F.pad(ember.zeros(1, 2, 2), 1, fill=7).numpy()[0, 0, 0] == 7
    assert F.pad(ember.zeros(1, 2, 2), [1, 2]).shape == (1, 6, 4)
    with pytest.raises(ValueError, match="padding must be an int or a 1, 2, or 4 element tuple"):
        F.pad(img, [1, 2, 3])
    with pytest.raises(ValueError, match="padding mode should be either constant, edge, reflect or symmetric"):
        F.pad(img, 1, padding_mode="wrap")


def test_random_crop_draws_from_ember_rng():
    a = _rgb(10, 12)
    x = ember.from_numpy(a.transpose(2, 0, 1).copy())
    ember.manual_seed(5)
    out = T.RandomCrop((4, 5))(x)
    ember.manual_seed(5)
    i = int(ember.randint(0, 10 - 4 + 1, (1,)).item())
    j = int(ember.randint(0, 12 - 5 + 1, (1,)).item())
    np.testing.assert_array_equal(out.numpy(), a[i:i + 4, j:j + 5].transpose(2, 0, 1))
    padded = T.RandomCrop(12, padding=1)(x)  # 12x14 after padding
    assert tuple(padded.shape) == (3, 12, 12)
    grown = T.RandomCrop((12, 15), pad_if_needed=True)(Image.fromarray(a))
    assert grown.size == (15, 12)
    with pytest.raises(ValueError, match=r"required crop size \(11, 12\) is larger than input image size \(10, 12\)"):
        T.RandomCrop((11, 12))(x)


def test_random_resized_crop():
    img = Image.fromarray(_rgb(20, 30))
    ember.manual_seed(0)
    i, j, h, w = T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3))
    assert 0 <= i <= 20 - h and 0 <= j <= 30 - w and 0 < h <= 20 and 0 < w <= 30
    assert 0.08 * 600 * 0.9 <= h * w <= 600 and 3 / 4 * 0.8 <= w / h <= 4 / 3 * 1.2
    out = T.RandomResizedCrop(8)(img)
    assert out.size == (8, 8)
    x = T.RandomResizedCrop((6, 5), scale=(0.5, 0.5), ratio=(1.0, 1.0))(ember.rand(3, 20, 30))
    assert tuple(x.shape) == (3, 6, 5)
    # impossible ratios: the central crop of the closest ratio (fallback, no draw can fit)
    assert T.RandomResizedCrop.get_params(img, (2.0, 2.0), (10.0, 10.0)) == (8, 0, 3, 30)


def test_color_adjustments_pil_are_pillows():
    img = Image.fromarray(_rgb(6, 8))
    assert F.adjust_brightness(img, 1.4).tobytes() == ImageEnhance.Brightness(img).enhance(1.4).tobytes()
    assert F.adjust_contrast(img, 0.6).tobytes() == ImageEnhance.Contrast(img).enhance(0.6).tobytes()
    assert F.adjust_saturation(img, 0.3).tobytes() == ImageEnhance.Color(img).enhance(0.3).tobytes()
    h, s, v = img.convert("HSV").split()
    shifted = (np.asarray(h).astype(np.int64) + int(0.2 * 255)) % 256
    want = Image.merge("HSV", (Image.fromarray(shifted.astype(np.uint8)), s, v)).convert("RGB")
    assert F.adjust_hue(img, 0.2).tobytes() == want.tobytes()
    assert F.rgb_to_grayscale(img).tobytes() == img.convert("L").tobytes()
    assert T.Grayscale(3)(img).mode == "RGB"
    with pytest.raises(ValueError, match=r"hue_factor \(0.7\) is not in \[-0.5, 0.5\]"):
        F.adjust_hue(img, 0.7)
    with pytest.raises(ValueError, match=r"brightness_factor \(-1\) is not non-negative"):
        F.adjust_brightness(img, -1)


def test_color_adjustments_tensor_match_torch_formulas():
    x = ember.rand(2, 3, 5, 6)
    t = _t(x)
    r, g, b = t.unbind(-3)
    grey = (0.2989 * r + 0.587 * g + 0.114 * b).unsqueeze(-3)
    np.testing.assert_allclose(F.rgb_to_grayscale(x).numpy(), grey.numpy(), rtol=1e-6)
    np.testing.assert_allclose(F.adjust_brightness(x, 1.3).numpy(), (t * 1.3).clamp(0, 1).numpy(), rtol=1e-6)
    mean = grey.mean(dim=(-3, -2, -1), keepdim=True)
    np.testing.assert_allclose(F.adjust_contrast(x, 0.7).numpy(), (0.7 * t + 0.3 * mean).clamp(0, 1).numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F.adjust_saturation(x, 1.6).numpy(), (1.6 * t - 0.6 * grey).clamp(0, 1).numpy(),
                               rtol=1e-5, atol=1e-6)
    # hue: matplotlib's rgb_to_hsv / hsv_to_rgb as the reference HSV conversion
    from matplotlib.colors import hsv_to_rgb, rgb_to_hsv

    hsv = rgb_to_hsv(np.moveaxis(x.numpy().astype(np.float64), -3, -1))
    hsv[..., 0] = (hsv[..., 0] + 0.25) % 1.0
    want = np.moveaxis(hsv_to_rgb(hsv), -1, -3)
    np.testing.assert_allclose(F.adjust_hue(x, 0.25).numpy(), want, atol=1e-5)
    u = ember.from_numpy(_rgb(4, 4).transpose(2, 0, 1).copy())
    assert F.adjust_hue(u, -0.1).dtype == ember.uint8
    np.testing.assert_array_equal(F.adjust_hue(u, 0.0).numpy().astype(int), u.numpy().astype(int))


def test_color_jitter():
    img = Image.fromarray(_rgb(6, 8))
    jitter = T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
    assert jitter.brightness == (0.6, 1.4) and jitter.hue == (-0.1, 0.1)
    assert T.ColorJitter().brightness is None
    out = jitter(img)
    assert out.size == img.size and out.mode == "RGB"
    x = jitter(ember.rand(3, 6, 8))
    assert tuple(x.shape) == (3, 6, 8) and float(x.min()) >= 0 and float(x.max()) <= 1
    ember.manual_seed(3)
    got = T.ColorJitter(brightness=(0.5, 0.5))(img)  # a fixed factor: the brightness enhancer's image
    assert got.tobytes() == ImageEnhance.Brightness(img).enhance(0.5).tobytes()
    with pytest.raises(ValueError, match="hue values should be between"):
        T.ColorJitter(hue=0.7)
    with pytest.raises(TypeError, match="brightness should be a single number or a list/tuple with length 2"):
        T.ColorJitter(brightness=[1, 2, 3])


def test_rotate_pil_is_pillows_and_tensor_matches_it():
    a = _rgb(9, 9)
    img = Image.fromarray(a)
    assert F.rotate(img, 30).tobytes() == img.rotate(30, Image.NEAREST, fillcolor=(0, 0, 0)).tobytes()
    assert F.rotate(img, 30, expand=True).size == img.rotate(30, expand=True).size
    x = ember.from_numpy(a.transpose(2, 0, 1).copy())
    # 90 degrees is exact on a square image: np.rot90 is the oracle
    np.testing.assert_array_equal(F.rotate(x, 90).numpy(), np.rot90(a, 1).transpose(2, 0, 1))
    np.testing.assert_array_equal(F.rotate(x, -90).numpy(), np.rot90(a, -1).transpose(2, 0, 1))
    r = F.rotate(ember.ones(1, 9, 9), 45, fill=[0.5])
    assert r.numpy()[0, 0, 0] == 0.5 and r.numpy()[0, 4, 4] == 1.0
    assert tuple(F.rotate(ember.rand(3, 4, 8), 90, expand=True).shape) == (3, 8, 4)
    b = F.rotate(ember.ones(1, 9, 9), 45, interpolation=T.InterpolationMode.BILINEAR)
    assert 0.0 <= float(b.min()) and float(b.max()) <= 1.0 + 1e-6 and b.numpy()[0, 4, 4] == pytest.approx(1.0)
    out = T.RandomRotation(10)(img)
    assert out.size == img.size
    with pytest.raises(ValueError, match="If degrees is a single number, it must be positive"):
        T.RandomRotation(-3)
    with pytest.raises(TypeError, match="argument angle should be int or float"):
        F.rotate(img, "30")


def test_gaussian_blur_matches_torch_conv():
    x = ember.rand(3, 8, 9)
    out = F.gaussian_blur(x, [5, 3], [1.5, 0.7])
    def k1(size, sigma):
        t = torch.linspace(-(size - 1) / 2, (size - 1) / 2, size)
        p = torch.exp(-0.5 * (t / sigma) ** 2)
        return p / p.sum()
    kernel = torch.outer(k1(3, 0.7), k1(5, 1.5)).expand(3, 1, 3, 5)
    padded = torch.nn.functional.pad(_t(x)[None], [2, 2, 1, 1], mode="reflect")
    ref = torch.nn.functional.conv2d(padded, kernel, groups=3)[0]
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    img = Image.fromarray(_rgb(8, 9))
    blurred = T.GaussianBlur(3, sigma=(0.5, 0.5))(img)
    assert blurred.size == img.size and blurred.mode == "RGB"
    with pytest.raises(ValueError, match="kernel size value should be an odd and positive number"):
        T.GaussianBlur(4)
    with pytest.raises(ValueError, match="sigma values should be positive and of the form"):
        T.GaussianBlur(3, sigma=(2.0, 1.0))


def test_convert_image_dtype():
    u = ember.tensor([[[0, 128, 255]]], dtype=ember.uint8)
    np.testing.assert_allclose(F.convert_image_dtype(u, ember.float32).numpy(), [[[0, 128 / 255, 1]]], rtol=1e-6)
    f = ember.tensor([[[0.0, 0.5, 1.0]]])
    np.testing.assert_array_equal(T.ConvertImageDtype(ember.uint8)(f).numpy(), [[[0, 127, 255]]])
    # uint8 -> int32 scales by (2^31) / 256 = 2^23, as torchvision
    np.testing.assert_array_equal(F.convert_image_dtype(u, ember.int32).numpy(), [[[0, 128 << 23, 255 << 23]]])
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        F.convert_image_dtype(f, ember.int64)


def test_compose_lambda_random_apply_choice():
    pipeline = T.Compose([T.ToTensor(), T.Lambda(lambda x: x * 2), T.Normalize((0.5,), (0.5,))])
    a = _rgb(4, 4)[:, :, 0]
    np.testing.assert_allclose(pipeline(Image.fromarray(a)).numpy()[0], (a / 255.0 * 2 - 0.5) / 0.5, rtol=1e-5, atol=1e-6)
    assert "Normalize(mean=(0.5,), std=(0.5,))" in repr(pipeline)
    x = ember.rand(1, 3, 3)
    assert T.RandomApply([T.Lambda(lambda t: t + 1)], p=0.0)(x) is x
    np.testing.assert_allclose(T.RandomApply([T.Lambda(lambda t: t + 1)], p=1.0)(x).numpy(), x.numpy() + 1)
    assert T.RandomChoice([T.Lambda(lambda t: 1), T.Lambda(lambda t: 2)], p=[0, 1])(x) == 2
    assert T.RandomOrder([T.Lambda(lambda t: t)])(x) is x
    with pytest.raises(TypeError, match="Argument lambd should be callable, got 'int'"):
        T.Lambda(3)


def test_random_erasing_and_grayscale():
    x = ember.ones(3, 10, 10)
    ember.manual_seed(0)
    out = T.RandomErasing(p=1.0, value=0)(x)
    zeros = int((out.numpy() == 0).sum())
    assert 0 < zeros < 300 and zeros % 3 == 0
    assert float(x.min()) == 1.0  # not in place
    assert T.RandomGrayscale(p=1.0)(Image.fromarray(_rgb())).mode == "RGB"
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        T.RandomErasing(value="zeros")


def test_affine_pil_is_pillows_and_tensor_agrees():
    a = _rgb(9, 9)
    img, x = Image.fromarray(a), ember.from_numpy(a.transpose(2, 0, 1).copy())
    # torchvision's affine turns clockwise: 90 degrees is np.rot90(k=-1) on a square image
    np.testing.assert_array_equal(np.asarray(F.affine(img, 90, [0, 0], 1.0, 0)), np.rot90(a, -1))
    np.testing.assert_array_equal(F.affine(x, 90, [0, 0], 1.0, 0).numpy(), np.rot90(a, -1).transpose(2, 0, 1))
    shifted = np.zeros_like(a)
    shifted[1:, 2:] = a[:-1, :-2]  # translate (2, 1): right 2, down 1, zeros entering
    np.testing.assert_array_equal(np.asarray(F.affine(img, 0, [2, 1], 1.0, 0)), shifted)
    np.testing.assert_array_equal(F.affine(x, 0, [2, 1], 1.0, 0).numpy(), shifted.transpose(2, 0, 1))
    m = F._get_inverse_affine_matrix([4.5, 4.5], 20, [1, -2], 1.2, [5, 3])
    want = img.transform((9, 9), Image.AFFINE, m, Image.NEAREST, fillcolor=(0, 0, 0))
    assert F.affine(img, 20, [1, -2], 1.2, [5, 3]).tobytes() == want.tobytes()
    np.testing.assert_array_equal(F.affine(x, -30, [0, 0], 1.0, 0).numpy(), F.rotate(x, 30).numpy())
    ember.manual_seed(7)
    angle, (tx, ty), scale, (sx, sy) = T.RandomAffine.get_params([-10, 10], (0.1, 0.2), (0.8, 1.2), [1, 2, 3, 4],
                                                                [30, 20])
    assert -10 <= angle <= 10 and abs(tx) <= 3 and abs(ty) <= 4 and 0.8 <= scale <= 1.2
    assert 1 <= sx <= 2 and 3 <= sy <= 4
    assert T.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)(img).size == (9, 9)
    assert tuple(T.RandomAffine(10, fill=1)(ember.rand(3, 6, 7)).shape) == (3, 6, 7)
    with pytest.raises(ValueError, match="translation values should be between 0 and 1"):
        T.RandomAffine(0, translate=(0.5, 1.5))
    with pytest.raises(ValueError, match="scale values should be positive"):
        T.RandomAffine(0, scale=(0.0, 1.0))
    with pytest.raises(ValueError, match="affine: argument scale should be a positive number, got -1"):
        F.affine(x, 0, [0, 0], -1, 0)


def test_tensor_transforms_carry_gradients_like_torch():
    """resize (antialias), crop, flip, pad and normalize are ember ops: their gradients match
    the same chain of torch ops."""
    data = np.random.default_rng(3).random((2, 3, 9, 11), dtype=np.float32)
    weight = np.random.default_rng(4).standard_normal((2, 3, 6, 6)).astype(np.float32)
    mean, std = (0.4, 0.5, 0.6), (0.2, 0.3, 0.4)
    x = ember.from_numpy(data.copy()).requires_grad_()
    y = F.hflip(F.crop(F.pad(F.resize(x, [6, 7]), [1, 0], padding_mode="reflect"), 0, 1, 6, 6))
    (F.normalize(y, mean, std) * ember.from_numpy(weight)).sum().backward()
    t = torch.from_numpy(data.copy()).requires_grad_()
    r = torch.nn.functional.interpolate(t, size=(6, 7), mode="bilinear", align_corners=False, antialias=True)
    r = torch.nn.functional.pad(r, [1, 1, 0, 0], mode="reflect")[..., 0:6, 1:7].flip(-1)
    r = (r - torch.tensor(mean).view(-1, 1, 1)) / torch.tensor(std).view(-1, 1, 1)
    (r * torch.from_numpy(weight)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,args", [("invert", ()), ("posterize", (3,)), ("solarize", (100,)),
                                       ("adjust_sharpness", (1.7,)), ("adjust_sharpness", (0.2,)),
                                       ("autocontrast", ()), ("equalize", ())])
def test_tensor_color_ops_match_pillow(name, args):
    """The tensor forms (ember ops) give Pillow's ImageOps/ImageEnhance results exactly on uint8
    images; the PIL forms are Pillow's."""
    from PIL import ImageOps

    pil_ops = {"invert": ImageOps.invert, "posterize": ImageOps.posterize, "solarize": ImageOps.solarize,
               "adjust_sharpness": lambda im, f: ImageEnhance.Sharpness(im).enhance(f),
               "autocontrast": ImageOps.autocontrast, "equalize": ImageOps.equalize}
    for a in (_rgb(10, 12), np.random.default_rng(1).integers(50, 60, (6, 5, 3), dtype=np.uint8),
              np.full((4, 4, 3), 7, np.uint8)):
        img, x = Image.fromarray(a), ember.from_numpy(a.transpose(2, 0, 1).copy())
        want = np.asarray(pil_ops[name](img, *args))
        np.testing.assert_array_equal(getattr(F, name)(x, *args).numpy(), want.transpose(2, 0, 1))
        assert getattr(F, name)(img, *args).tobytes() == want.tobytes()


def test_color_ops_floats_random_classes_and_errors():
    x = ember.rand(3, 4, 5)
    np.testing.assert_allclose(F.invert(x).numpy(), 1 - x.numpy(), rtol=1e-6)
    s = F.autocontrast(x * 0.5 + 0.1).numpy()
    np.testing.assert_allclose(s.min(axis=(1, 2)), 0, atol=1e-6)
    np.testing.assert_allclose(s.max(axis=(1, 2)), 1, atol=1e-6)
    img = Image.fromarray(_rgb())
    assert T.RandomInvert(p=1.0)(img).tobytes() == F.invert(img).tobytes()
    assert T.RandomEqualize(p=0.0)(img) is img
    assert T.RandomPosterize(2, p=1.0)(img).tobytes() == F.posterize(img, 2).tobytes()
    assert repr(T.RandomSolarize(128)) == "RandomSolarize(threshold=128, p=0.5)"
    with pytest.raises(ValueError, match="posterize: the number of bits should be between 0 and 8. Got 9"):
        F.posterize(img, 9)
    with pytest.raises(TypeError, match="posterize: only uint8 image tensors are supported, but found ember.float32"):
        F.posterize(x, 2)
    with pytest.raises(TypeError, match="equalize: input image tensor permitted channel values are"):
        F.equalize(ember.zeros(2, 4, 4, dtype=ember.uint8))
    with pytest.raises(ValueError, match=r"sharpness_factor \(-1\) is not non-negative"):
        F.adjust_sharpness(x, -1)
