"""transforms.functional: one function per transform, for PIL images and (..., C, H, W) tensors.

PIL images go to Pillow (_functional_pil), tensors to ember ops (_functional_tensor); this
file parses the arguments once, with torchvision's names, defaults and errors.
"""
import math
import numbers
import sys
from enum import Enum

import numpy as np

import ember

from . import _functional_pil as F_pil
from . import _functional_tensor as F_t


class InterpolationMode(Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


def _pil_modes():
    from PIL import Image

    r = Image.Resampling
    return {InterpolationMode.NEAREST: r.NEAREST, InterpolationMode.NEAREST_EXACT: r.NEAREST,
            InterpolationMode.BILINEAR: r.BILINEAR, InterpolationMode.BICUBIC: r.BICUBIC,
            InterpolationMode.BOX: r.BOX, InterpolationMode.HAMMING: r.HAMMING,
            InterpolationMode.LANCZOS: r.LANCZOS}


def _interpolation_modes_from_int(i):
    modes = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
             4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}
    return modes[i]


def _interpolation(interpolation, op):
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if isinstance(interpolation, str):
        return InterpolationMode(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError(f"{op}: argument interpolation should be a InterpolationMode or a corresponding "
                        f"Pillow integer constant, got {interpolation!r}")
    return interpolation


def _is_pil_image(img):
    return F_pil._is_pil_image(img)


def _check_image(img, op):
    if not (ember.is_tensor(img) or _is_pil_image(img)):
        raise TypeError(f"{op}: img should be PIL Image or Tensor. Got {type(img)}")


def get_dimensions(img):
    """[channels, height, width]."""
    _check_image(img, "get_dimensions")
    return F_t.get_dimensions(img) if ember.is_tensor(img) else F_pil.get_dimensions(img)


def get_image_size(img):
    """[width, height]."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


# ---- conversion ---------------------------------------------------------------------------------
def _from_hwc(arr):
    """A (C, H, W) tensor holding a copy of the (H, W, C) array."""
    return ember.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def to_tensor(pic):
    """PIL image or (H, W, C) ndarray -> (C, H, W) tensor; uint8 pixels scaled to float32 [0, 1]."""
    if not (_is_pil_image(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"to_tensor: pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"to_tensor: pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        arr = _pil_array(pic)
    img = _from_hwc(arr)
    if img.dtype == ember.uint8:
        return img.to(ember.get_default_dtype()).div_(255)
    return img


def _pil_array(pic):
    """The pixels of a PIL image as an (H, W, C) array of its own dtype (mode '1' as 0/255)."""
    # 16-bit images: int32 (torchvision gives int16, which ember does not have; int32 also keeps
    # values above 32767 instead of wrapping them)
    nptype = {"I": np.int32, "I;16": np.int32, "I;16B": np.int32, "F": np.float32}.get(pic.mode, np.uint8)
    arr = np.array(pic, nptype, copy=True)
    if pic.mode == "1":
        arr = arr * np.uint8(255)
    return arr.reshape(pic.size[1], pic.size[0], get_image_num_channels(pic))


def pil_to_tensor(pic):
    """PIL image -> (C, H, W) tensor of its own dtype, values unchanged."""
    if not _is_pil_image(pic):
        raise TypeError(f"pil_to_tensor: pic should be PIL Image. Got {type(pic)}")
    return _from_hwc(_pil_array(pic))


_MODES_1 = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16" if sys.byteorder == "little" else "I;16B",
            np.dtype(np.int32): "I", np.dtype(np.float32): "F"}
_PERMITTED = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}
_DEFAULT = {2: "LA", 3: "RGB", 4: "RGBA"}


def to_pil_image(pic, mode=None):
    """(C, H, W) tensor or (H, W, C) ndarray -> PIL image; float tensors are scaled by 255
    (unless mode='F'). The mode is inferred from the channels and dtype when not given."""
    from PIL import Image

    if ember.is_tensor(pic):
        if pic.ndim not in (2, 3):
            raise ValueError(f"to_pil_image: pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        if pic.ndim == 2:
            pic = pic.unsqueeze(0)
        if pic.shape[-3] > 4:
            raise ValueError(f"to_pil_image: pic should not have > 4 channels. Got {pic.shape[-3]} channels.")
        if pic.is_floating_point() and mode != "F":
            pic = pic.mul(255).byte()
        npimg = np.transpose(pic.detach().numpy(), (1, 2, 0))
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"to_pil_image: pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        npimg = pic[:, :, None] if pic.ndim == 2 else pic
        if npimg.shape[-1] > 4:
            raise ValueError(f"to_pil_image: pic should not have > 4 channels. Got {npimg.shape[-1]} "
                             "channels.")
    else:
        raise TypeError(f"to_pil_image: pic should be Tensor or ndarray. Got {type(pic)}.")
    channels = npimg.shape[2]
    if channels == 1:
        npimg = npimg[:, :, 0]
        expected = _MODES_1.get(npimg.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"to_pil_image: incorrect mode ({mode}) supplied for input type "
                             f"{npimg.dtype}. Should be {expected}")
        mode = expected
    else:
        if mode is not None and mode not in _PERMITTED[channels]:
            raise ValueError(f"to_pil_image: only modes {_PERMITTED[channels]} are supported for "
                             f"{channels}D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = _DEFAULT[channels]
    if mode is None:
        raise TypeError(f"to_pil_image: input type {npimg.dtype} is not supported")
    npimg = np.ascontiguousarray(npimg)
    return Image.frombytes(mode, (npimg.shape[1], npimg.shape[0]), npimg.tobytes())


def convert_image_dtype(image, dtype=ember.float32):
    return F_t.convert_image_dtype(image, dtype)


def normalize(tensor, mean, std, inplace=False):
    """(tensor - mean) / std per channel."""
    if not ember.is_tensor(tensor):
        raise TypeError(f"normalize: img should be Tensor Image. Got {type(tensor)}")
    return F_t.normalize(tensor, mean, std, inplace)


# ---- geometry -----------------------------------------------------------------------------------
def _compute_resized_output_size(image_size, size, max_size=None):
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if len(size) == 1:
        new_short = size[0]
        new_long = int(new_short * long / short)
        if max_size is not None:
            if max_size <= new_short:
                raise ValueError(f"resize: max_size = {max_size} must be strictly greater than the "
                                 f"requested size for the smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    else:
        new_w, new_h = size[1], size[0]
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to size = [h, w], or the smaller edge to `size` (int or [int]) keeping the aspect."""
    interpolation = _interpolation(interpolation, "resize")
    _check_image(img, "resize")
    if isinstance(size, numbers.Number):
        size = [int(size)]
    if not isinstance(size, (list, tuple)) or len(size) not in (1, 2):
        raise ValueError(f"resize: size must be an int or a sequence of one or two ints, got {size!r}")
    if len(size) == 2 and max_size is not None:
        raise ValueError("resize: max_size should only be passed if size specifies the length of the "
                         "smaller edge, i.e. size should be an int or a sequence of length 1")
    _, h, w = get_dimensions(img)
    out = _compute_resized_output_size((h, w), list(size), max_size)
    if [h, w] == out:
        return img
    if _is_pil_image(img):
        return F_pil.resize(img, out, _pil_modes()[interpolation])
    return F_t.resize(img, out, interpolation.value, antialias=antialias)


def _parse_padding(padding, op="pad"):
    if isinstance(padding, numbers.Number) and not isinstance(padding, bool):
        padding = [int(padding)]
    if not isinstance(padding, (list, tuple)) or len(padding) not in (1, 2, 4):
        raise ValueError(f"{op}: padding must be an int or a 1, 2, or 4 element tuple, not {padding!r}")
    padding = [int(p) for p in padding]
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: padding int (all), [lr, tb] or [left, top, right, bottom];
    padding_mode 'constant' (with fill), 'edge', 'reflect' or 'symmetric'."""
    _check_image(img, "pad")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError(f"pad: padding mode should be either constant, edge, reflect or symmetric, "
                         f"got {padding_mode!r}")
    if not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError(f"pad: got inappropriate fill arg {fill!r}")
    padding = _parse_padding(padding)
    if _is_pil_image(img):
        return F_pil.pad(img, padding, fill, padding_mode)
    if isinstance(fill, (tuple, list)):
        fill = fill[0] if len(fill) == 1 else None
        if fill is None:
            raise ValueError("pad: a fill of one value per channel is not supported for tensors")
    return F_t.pad(img, padding, fill, padding_mode)


def crop(img, top, left, height, width):
    """The region with its top-left corner at (top, left); outside the image: zeros."""
    _check_image(img, "crop")
    if _is_pil_image(img):
        return F_pil.crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def _setup_size(size, op, error_msg="Please provide only two dimensions (h, w) for size."):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return size[0], size[0]
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"{op}: {error_msg} Got {size!r}")
    return size


def center_crop(img, output_size):
    """The centre [h, w] region (padded with zeros first if the image is smaller)."""
    crop_h, crop_w = _setup_size(output_size, "center_crop")
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        padding = [(crop_w - w) // 2 if crop_w > w else 0, (crop_h - h) // 2 if crop_h > h else 0,
                   (crop_w - w + 1) // 2 if crop_w > w else 0, (crop_h - h + 1) // 2 if crop_h > h else 0]
        img = pad(img, padding, fill=0)
        _, h, w = get_dimensions(img)
        if crop_w == w and crop_h == h:
            return img
    top = int(round((h - crop_h) / 2.0))
    left = int(round((w - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def hflip(img):
    _check_image(img, "hflip")
    return F_pil.hflip(img) if _is_pil_image(img) else F_t.hflip(img)


def vflip(img):
    _check_image(img, "vflip")
    return F_pil.vflip(img) if _is_pil_image(img) else F_t.vflip(img)


def five_crop(img, size):
    """(top-left, top-right, bottom-left, bottom-right, centre) crops of size [h, w]."""
    crop_h, crop_w = _setup_size(size, "five_crop")
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        raise ValueError(f"five_crop: requested crop size {(crop_h, crop_w)} is bigger than input size "
                         f"{(h, w)}")
    return (crop(img, 0, 0, crop_h, crop_w), crop(img, 0, w - crop_w, crop_h, crop_w),
            crop(img, h - crop_h, 0, crop_h, crop_w), crop(img, h - crop_h, w - crop_w, crop_h, crop_w),
            center_crop(img, [crop_h, crop_w]))


def ten_crop(img, size, vertical_flip=False):
    """five_crop of img and of its flipped copy (horizontal unless vertical_flip)."""
    size = _setup_size(size, "ten_crop")
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear):
    """The 6 numbers of the inverse of rotate(angle) . shear . scale, about `center`."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotate by `angle` degrees counter-clockwise about `center` (default: the centre)."""
    interpolation = _interpolation(interpolation, "rotate")
    _check_image(img, "rotate")
    if not isinstance(angle, (int, float)):
        raise TypeError(f"rotate: argument angle should be int or float, got {type(angle).__name__}")
    if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
        raise TypeError(f"rotate: argument center should be a sequence of two numbers, got {center!r}")
    if _is_pil_image(img):
        return F_pil.rotate(img, angle, _pil_modes()[interpolation], expand, center, fill)
    centre_f = [0.0, 0.0]
    if center is not None:
        _, h, w = get_dimensions(img)
        centre_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [w, h])]
    matrix = _get_inverse_affine_matrix(centre_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.affine_grid_sample(img, matrix, interpolation.value, expand, fill)


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None,
           center=None):
    """Rotate by angle, shear by shear = [sx, sy] degrees, scale, then translate by
    [tx, ty] pixels, about `center` (default: the image centre); the output keeps the size."""
    interpolation = _interpolation(interpolation, "affine")
    _check_image(img, "affine")
    if not isinstance(angle, (int, float)):
        raise TypeError(f"affine: argument angle should be int or float, got {type(angle).__name__}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError(f"affine: argument translate should be a sequence of length 2, got {translate!r}")
    if not isinstance(scale, (int, float)) or scale <= 0.0:
        raise ValueError(f"affine: argument scale should be a positive number, got {scale!r}")
    if isinstance(shear, numbers.Number):
        shear = [float(shear), 0.0]
    if not isinstance(shear, (list, tuple)) or len(shear) not in (1, 2):
        raise ValueError(f"affine: shear should be a number or a sequence of 1 or 2 numbers, got {shear!r}")
    shear = [float(shear[0])] * 2 if len(shear) == 1 else [float(s) for s in shear]
    _, height, width = get_dimensions(img)
    if _is_pil_image(img):
        # Pillow maps output to input pixel corners: the centre is (w/2, h/2), as torchvision.
        centre = [width * 0.5, height * 0.5] if center is None else center
        matrix = _get_inverse_affine_matrix(centre, angle, list(translate), scale, shear)
        return F_pil.affine(img, matrix, _pil_modes()[interpolation], fill)
    centre_f = [0.0, 0.0]
    if center is not None:
        centre_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(centre_f, angle, [1.0 * t for t in translate], scale, shear)
    return F_t.affine_grid_sample(img, matrix, interpolation.value, False, fill)


# ---- colour -------------------------------------------------------------------------------------
def _check_factor(name, value, op):
    if value < 0:
        raise ValueError(f"{op}: {name} ({value}) is not non-negative.")


def _adjust(op, img, name, factor):
    """op (an adjust_* function of both backends) on img by a non-negative factor `name`."""
    _check_image(img, op)
    _check_factor(name, factor, op)
    return _dispatch(op, img, factor)


def adjust_brightness(img, brightness_factor):
    return _adjust("adjust_brightness", img, "brightness_factor", brightness_factor)


def adjust_contrast(img, contrast_factor):
    return _adjust("adjust_contrast", img, "contrast_factor", contrast_factor)


def adjust_saturation(img, saturation_factor):
    return _adjust("adjust_saturation", img, "saturation_factor", saturation_factor)


def adjust_hue(img, hue_factor):
    """Shift the hue by hue_factor turns, hue_factor in [-0.5, 0.5]."""
    _check_image(img, "adjust_hue")
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if _is_pil_image(img):
        return F_pil.adjust_hue(img, hue_factor)
    return F_t.adjust_hue(img, hue_factor)


def _dispatch(name, img, *args):
    _check_image(img, name)
    return getattr(F_pil if _is_pil_image(img) else F_t, name)(img, *args)


def invert(img):
    """bound - img (bound 255 for uint8, 1.0 for floats)."""
    return _dispatch("invert", img)


def posterize(img, bits):
    """Keep the top `bits` (0..8) bits of each value (uint8 images)."""
    if not isinstance(bits, int) or isinstance(bits, bool) or not 0 <= bits <= 8:
        raise ValueError(f"posterize: the number of bits should be between 0 and 8. Got {bits}")
    return _dispatch("posterize", img, bits)


def solarize(img, threshold):
    """Invert the values at or above threshold."""
    return _dispatch("solarize", img, threshold)


def adjust_sharpness(img, sharpness_factor):
    """0 blurs, 1 keeps, 2 sharpens (PIL's ImageEnhance.Sharpness)."""
    _check_factor("sharpness_factor", sharpness_factor, "adjust_sharpness")
    return _dispatch("adjust_sharpness", img, sharpness_factor)


def autocontrast(img):
    """Stretch each channel to the full range."""
    return _dispatch("autocontrast", img)


def equalize(img):
    """Equalise each channel's histogram (uint8 images)."""
    return _dispatch("equalize", img)


def rgb_to_grayscale(img, num_output_channels=1):
    _check_image(img, "rgb_to_grayscale")
    if _is_pil_image(img):
        return F_pil.to_grayscale(img, num_output_channels)
    return F_t.rgb_to_grayscale(img, num_output_channels)


def to_grayscale(img, num_output_channels=1):
    if not _is_pil_image(img):
        raise TypeError(f"to_grayscale: input should be PIL Image. Got {type(img)}")
    return F_pil.to_grayscale(img, num_output_channels)


def gaussian_blur(img, kernel_size, sigma=None):
    """Blur by a Gaussian of kernel_size (odd ints) and sigma (default 0.3*((k-1)*0.5-1)+0.8)."""
    _check_image(img, "gaussian_blur")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if not isinstance(kernel_size, (list, tuple)) or len(kernel_size) not in (1, 2):
        raise ValueError(f"gaussian_blur: kernel_size should be an int or a sequence of one or two ints, "
                         f"got {kernel_size!r}")
    if len(kernel_size) == 1:
        kernel_size = [kernel_size[0]] * 2
    for k in kernel_size:
        if not isinstance(k, int) or k % 2 == 0 or k < 0:
            raise ValueError(f"gaussian_blur: kernel_size should have odd and positive integers. "
                             f"Got {kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if isinstance(sigma, (list, tuple)) and len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if not isinstance(sigma, (list, tuple)) or len(sigma) != 2:
        raise TypeError(f"gaussian_blur: sigma should be a single number or a list/tuple with length 2. "
                        f"Got {sigma!r}")
    if any(s <= 0.0 for s in sigma):
        raise ValueError(f"gaussian_blur: sigma should have positive values. Got {sigma}")
    if _is_pil_image(img):
        return to_pil_image(F_t.gaussian_blur(pil_to_tensor(img), kernel_size, sigma), mode=img.mode)
    return F_t.gaussian_blur(img, kernel_size, sigma)


def erase(img, i, j, h, w, v, inplace=False):
    if not ember.is_tensor(img):
        raise TypeError(f"erase: img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace)
