"""The PIL-image side of transforms.functional: Pillow does the pixel work (torchvision's
_functional_pil). Arguments are checked by functional.py before they get here."""
import numpy as np
from PIL import Image, ImageEnhance, ImageOps


def _is_pil_image(img):
    return isinstance(img, Image.Image)


def _check(img):
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img):
    _check(img)
    channels = len(img.getbands()) if hasattr(img, "getbands") else img.channels
    width, height = img.size
    return [channels, height, width]


def hflip(img):
    _check(img)
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)


def crop(img, top, left, height, width):
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation):
    _check(img)
    return img.resize(tuple(size[::-1]), interpolation)


def _parse_fill(fill, img, name="fillcolor"):
    """Pillow's fill argument for `img`: a number per channel, ints unless the mode is 'F'."""
    channels = get_dimensions(img)[0]
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and channels > 1:
        fill = tuple([fill] * channels)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * channels
        elif len(fill) != channels:
            raise ValueError(f"The number of elements in 'fill' does not match the number of channels "
                             f"of the image ({len(fill)} != {channels})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def pad(img, padding, fill=0, padding_mode="constant"):
    """padding is (left, top, right, bottom), already parsed."""
    _check(img)
    left, top, right, bottom = padding
    if padding_mode == "constant":
        opts = _parse_fill(fill, img, name="fill")
        if img.mode == "P":
            palette = img.getpalette()
            image = ImageOps.expand(img, border=(left, top, right, bottom), **opts)
            image.putpalette(palette)
            return image
        return ImageOps.expand(img, border=(left, top, right, bottom), **opts)
    if min(padding) < 0:
        # Negative pads crop (as the constant mode does); the rest is padded below.
        w, h = img.size
        img = img.crop((max(-left, 0), max(-top, 0), w - max(-right, 0), h - max(-bottom, 0)))
        left, top, right, bottom = (max(p, 0) for p in padding)
    mode = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}[padding_mode]
    palette = img.getpalette() if img.mode == "P" else None
    arr = np.asarray(img)
    widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
    out = Image.fromarray(np.pad(arr, widths, mode=mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def adjust_brightness(img, brightness_factor):
    _check(img)
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor):
    _check(img)
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor):
    _check(img)
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor):
    """Shift the hue channel of the HSV image by hue_factor turns (uint8 arithmetic wraps)."""
    _check(img)
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = np.array(h, dtype=np.uint8)
    np_h += np.array(int(hue_factor * 255)).astype(np.int8).astype(np.uint8)
    return Image.merge("HSV", (Image.fromarray(np_h), s, v)).convert(mode)


def to_grayscale(img, num_output_channels):
    _check(img)
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        grey = np.asarray(img.convert("L"))
        return Image.fromarray(np.dstack([grey, grey, grey]))
    raise ValueError(f"num_output_channels should be either 1 or 3, got {num_output_channels}")


def rotate(img, angle, interpolation, expand=False, center=None, fill=None):
    _check(img)
    return img.rotate(angle, interpolation, expand, center, **_parse_fill(fill, img))


def affine(img, matrix, interpolation, fill=None):
    """matrix: the 6 coefficients of the output -> input map."""
    _check(img)
    return img.transform(img.size, Image.Transform.AFFINE, matrix, interpolation, **_parse_fill(fill, img))


def invert(img):
    _check(img)
    return ImageOps.invert(img)


def posterize(img, bits):
    _check(img)
    return ImageOps.posterize(img, bits)


def solarize(img, threshold):
    _check(img)
    return ImageOps.solarize(img, threshold)


def adjust_sharpness(img, sharpness_factor):
    _check(img)
    return ImageEnhance.Sharpness(img).enhance(sharpness_factor)


def autocontrast(img):
    _check(img)
    return ImageOps.autocontrast(img)


def equalize(img):
    _check(img)
    return ImageOps.equalize(img)
