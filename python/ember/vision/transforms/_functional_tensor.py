"""The tensor side of transforms.functional, on ember ops (torchvision's _functional_tensor).

Images are (..., C, H, W) tensors. Integer images are worked on in float32 and rounded
back, as torchvision does. Resizing is two small matrix products: each output pixel is a
weighted sum of input pixels along one axis, with the weights of PyTorch's interpolation
(Note [Resize as matrix products] in docs/vision.md).
"""
import math

import ember

from ...nn import functional as nnF

_MAX = {getattr(ember, name): value for name, value in
        (("uint8", 255), ("int8", 127), ("int16", 32767), ("int32", 2**31 - 1), ("int64", 2**63 - 1))
        if hasattr(ember, name)}  # the integer dtypes this build of ember has


def _max_value(dtype):
    return 1.0 if dtype.is_floating_point else _MAX[dtype]


def _assert_image_tensor(img, op="transform"):
    if not ember.is_tensor(img) or img.ndim < 2:
        raise TypeError(f"{op}: tensor is not a torch image: expected (..., H, W), got "
                        f"{list(img.shape) if ember.is_tensor(img) else type(img)}")


def get_dimensions(img):
    _assert_image_tensor(img, "get_dimensions")
    channels = 1 if img.ndim == 2 else img.shape[-3]
    return [channels, img.shape[-2], img.shape[-1]]


def convert_image_dtype(image, dtype=ember.float32):
    """Rescale values to the range of `dtype`: floats in [0, 1], integers in [0, max]."""
    if not ember.is_tensor(image):
        raise TypeError(f"convert_image_dtype: input img should be Tensor Image, got {type(image)}")
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if (image.dtype == ember.float32 and dtype in (ember.int32, ember.int64)) or \
                (image.dtype == ember.float64 and dtype == ember.int64):
            raise RuntimeError(f"convert_image_dtype: the cast from {image.dtype} to {dtype} cannot be "
                               "performed safely.")
        eps = 1e-3  # the largest float maps to max, not max + 1
        return image.mul(_max_value(dtype) + 1.0 - eps).to(dtype)
    input_max = float(_max_value(image.dtype))
    if dtype.is_floating_point:
        return image.to(dtype).div(input_max)
    output_max = float(_max_value(dtype))
    if input_max > output_max:
        factor = int((input_max + 1) // (output_max + 1))
        return image.floor_divide(factor).to(dtype)
    factor = int((output_max + 1) // (input_max + 1))
    return image.to(dtype).mul(factor)


def _float_work(img, op):
    """(float image, how to cast the result back to img's dtype)."""
    if img.is_floating_point():
        return img, lambda out: out
    dtype = img.dtype
    return img.to(ember.float32), lambda out: out.round().clamp(0, _max_value(dtype)).to(dtype)


def _as_batch(img):
    """(4-d view of img, how to restore its leading dims)."""
    lead = tuple(img.shape[:-3]) if img.ndim >= 3 else None
    if img.ndim == 2:
        return img.reshape(1, 1, *img.shape), lambda out: out.reshape(out.shape[-2:])
    batch = img.reshape(-1, *img.shape[-3:])
    return batch, lambda out: out.reshape(*lead, *out.shape[-3:])


# ---- resize -----------------------------------------------------------------------------------
def _cubic(x, a):
    x = x.abs()
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return ember.where(x <= 1, near, ember.where(x < 2, far, ember.zeros_like(x)))


def _resize_weights(in_size, out_size, mode, antialias):
    """(out_size, in_size) float32 matrix W with out = W @ in along one axis, as
    torch.nn.functional.interpolate(mode, align_corners=False, antialias) weighs pixels."""
    scale = in_size / out_size
    centre = ember.arange(out_size, dtype=ember.float32).add_(0.5).mul_(scale).unsqueeze(1)
    j = ember.arange(in_size, dtype=ember.float32).unsqueeze(0)
    if antialias:
        # PyTorch's separable antialias: a filter stretched by the scale when shrinking, taps
        # limited to [xmin, xmax) around the centre, weights normalised to sum 1.
        stretch = max(scale, 1.0)
        support = (1.0 if mode == "bilinear" else 2.0) * stretch
        x = (j - centre + 0.5).div_(stretch)
        w = (1 - x.abs()).clamp_(min=0) if mode == "bilinear" else _cubic(x, -0.5)
        xmin = (centre - support + 0.5).trunc_().clamp_(min=0)
        xmax = (centre + support + 0.5).trunc_().clamp_(max=in_size)
        w = w * ((j >= xmin) & (j < xmax)).to(ember.float32)
        return w / w.sum(1, keepdim=True)
    # Without antialias: taps at floor(src) + k, clamped to the image, weights of the kernel.
    src = centre - 0.5
    if mode == "bilinear":
        src = src.clamp(min=0)
    base = src.floor()
    t = src - base
    taps = (0, 1) if mode == "bilinear" else (-1, 0, 1, 2)
    w = ember.zeros(out_size, in_size)
    for k in taps:  # 2 or 4 taps: one vectorized pass each
        idx = (base + k).clamp(0, in_size - 1)
        weight = (1 - (t - k).abs()) if mode == "bilinear" else _cubic(t - k, -0.75)
        w = w + (j == idx).to(ember.float32) * weight
    return w


def resize(img, size, interpolation="bilinear", antialias=True):
    """img resized to size = [h, w]; interpolation 'nearest', 'nearest-exact', 'bilinear' or
    'bicubic' (antialias matters for the last two, when shrinking)."""
    _assert_image_tensor(img, "resize")
    if interpolation not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise ValueError(f"resize: interpolation mode {interpolation!r} is not supported for tensors "
                         "(nearest, nearest-exact, bilinear, bicubic)")
    h, w = size
    work, back = _float_work(img, "resize")
    if interpolation.startswith("nearest"):
        batch, restore = _as_batch(work)
        out = restore(nnF.interpolate(batch, size=[h, w], mode=interpolation))
        return out.to(img.dtype) if not img.is_floating_point() else out
    wh = _resize_weights(img.shape[-2], h, interpolation, antialias).to(work.dtype)
    ww = _resize_weights(img.shape[-1], w, interpolation, antialias).to(work.dtype)
    out = wh.matmul(work).matmul(ww.t())
    return back(out)


# ---- geometry -----------------------------------------------------------------------------------
def _pad_symmetric_index(n, before, after):
    """Indices into a dim of size n for symmetric padding (edge pixels repeated)."""
    i = ember.arange(-before, n + after)
    i = ember.where(i < 0, -i - 1, i)
    i = ember.where(i >= n, 2 * n - i - 1, i)
    return i.remainder(2 * n).clamp(0, n - 1) if before > n or after > n else i


def pad(img, padding, fill=0, padding_mode="constant"):
    """padding is (left, top, right, bottom), already parsed."""
    _assert_image_tensor(img, "pad")
    left, top, right, bottom = padding
    if padding_mode == "symmetric":
        crop_l, crop_t, crop_r, crop_b = (max(-p, 0) for p in padding)
        img = img[..., crop_t:img.shape[-2] - crop_b, crop_l:img.shape[-1] - crop_r]
        left, top, right, bottom = (max(p, 0) for p in padding)
        rows = _pad_symmetric_index(img.shape[-2], top, bottom)
        cols = _pad_symmetric_index(img.shape[-1], left, right)
        return img.index_select(-2, rows).index_select(-1, cols)
    if padding_mode == "constant":
        return nnF.pad(img, [left, right, top, bottom], mode="constant", value=float(fill or 0))
    mode = {"edge": "replicate", "reflect": "reflect"}[padding_mode]
    work, back = _float_work(img, "pad")
    batch, restore = _as_batch(work)
    return back(restore(nnF.pad(batch, [left, right, top, bottom], mode=mode)))


def crop(img, top, left, height, width):
    """The region; the parts outside the image are zeros."""
    _assert_image_tensor(img, "crop")
    h, w = img.shape[-2:]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                   max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], padding, fill=0)
    return img[..., top:bottom, left:right]


def hflip(img):
    _assert_image_tensor(img, "hflip")
    return img.flip(-1)


def vflip(img):
    _assert_image_tensor(img, "vflip")
    return img.flip(-2)


def _affine_output_size(matrix, w, h):
    """The size of the box holding the image's corners mapped by the inverse of `matrix`."""
    a, b, c, d, e, f = matrix
    corners = [(-0.5 * w, -0.5 * h), (-0.5 * w, 0.5 * h), (0.5 * w, 0.5 * h), (0.5 * w, -0.5 * h)]
    xs = [a * x + b * y + c for x, y in corners]
    ys = [d * x + e * y + f for x, y in corners]
    tol = 1e-4  # as torchvision: do not grow the box for rounding noise
    size = [math.ceil(math.trunc(max(v) / tol) * tol) - math.floor(math.trunc(min(v) / tol) * tol)
            for v in (xs, ys)]
    return int(size[0]), int(size[1])


def _sample(img, ix, iy, mode):
    """img (N, C, H, W) sampled at pixel coordinates (ix, iy) of shape (oh, ow), zeros outside;
    also returns the coverage mask (1 inside, 0 outside, fractional at the border)."""
    n, c, h, w = img.shape
    flat = img.reshape(n, c, h * w)
    ones = ember.ones(h * w, dtype=img.dtype)

    def tap(x, y, weight):
        inside = ((x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)).to(img.dtype) * weight
        idx = (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)).to(ember.int64).reshape(-1)
        vals = flat.index_select(2, idx).reshape(n, c, *x.shape)
        return vals * inside, ones.index_select(0, idx).reshape(x.shape) * inside

    if mode == "nearest":
        return tap(ix.round(), iy.round(), 1.0)
    x0, y0 = ix.floor(), iy.floor()
    fx, fy = ix - x0, iy - y0
    out, cover = 0, 0
    for dx, dy, wt in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                       (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
        v, m = tap(x0 + dx, y0 + dy, wt)
        out, cover = out + v, cover + m
    return out, cover


def affine_grid_sample(img, matrix, interpolation="nearest", expand=False, fill=None):
    """img warped by the inverse affine `matrix` (6 numbers, about the image centre) as
    torchvision's grid_sample path: align_corners=False, zeros or `fill` outside."""
    _assert_image_tensor(img, "rotate/affine")
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"rotate/affine: interpolation mode {interpolation!r} is not supported for tensors "
                         "(nearest, bilinear)")
    h, w = img.shape[-2:]
    ow, oh = _affine_output_size(matrix, w, h) if expand else (w, h)
    work, back = _float_work(img, "rotate")
    batch, restore = _as_batch(work)
    xs = ember.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow).unsqueeze(0)
    ys = ember.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh).unsqueeze(1)
    a, b, c, d, e, f = matrix
    ix = xs * a + ys * b + (c + w * 0.5 - 0.5)
    iy = xs * d + ys * e + (f + h * 0.5 - 0.5)
    out, cover = _sample(batch, ix, iy, interpolation)
    if fill is not None:
        fills = list(fill) if isinstance(fill, (list, tuple)) else [float(fill)]
        fill_img = ember.tensor(fills, dtype=out.dtype).reshape(1, len(fills), 1, 1)
        if interpolation == "nearest":
            out = ember.where(cover < 0.5, fill_img.expand_as(out), out)
        else:
            out = out * cover + (1.0 - cover) * fill_img
    return back(restore(out))


# ---- colour -------------------------------------------------------------------------------------
def rgb_to_grayscale(img, num_output_channels=1):
    if img.ndim < 3 or img.shape[-3] not in (1, 3):
        raise TypeError(f"rgb_to_grayscale: input image tensor should have 1 or 3 channels, got "
                        f"{list(img.shape)}")
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(-3)
        grey = (r * 0.2989 + g * 0.587 + b * 0.114).to(img.dtype).unsqueeze(-3)
    else:
        grey = img.clone()
    return grey.expand(img.shape) if num_output_channels == 3 else grey


def _blend(img1, img2, ratio):
    bound = _max_value(img1.dtype)
    return (img1 * ratio + img2 * (1.0 - ratio)).clamp(0, bound).to(img1.dtype)


def adjust_brightness(img, factor):
    return _blend(img, ember.zeros_like(img), factor)


def adjust_contrast(img, factor):
    dtype = img.dtype if img.is_floating_point() else ember.float32
    grey = rgb_to_grayscale(img) if img.shape[-3] == 3 else img
    mean = grey.to(dtype).mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, factor)


def adjust_saturation(img, factor):
    if img.shape[-3] == 1:
        return img
    return _blend(img, rgb_to_grayscale(img), factor)


def _rgb2hsv(img):
    r, g, b = img.unbind(-3)
    maxc, minc = img.amax(-3), img.amin(-3)
    eqc = maxc == minc
    cr = maxc - minc
    ones = ember.ones_like(maxc)
    s = cr / ember.where(eqc, ones, maxc)
    div = ember.where(eqc, ones, cr)
    rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
    is_r, is_g = maxc == r, (maxc == g) & (maxc != r)
    is_b = (maxc != g) & (maxc != r)
    h = is_r.to(img.dtype) * (bc - gc) + is_g.to(img.dtype) * (rc - bc + 2.0) \
        + is_b.to(img.dtype) * (gc - rc + 4.0)
    h = (h / 6.0 + 1.0).remainder(1.0)
    return ember.stack((h, s, maxc), dim=-3)


def _hsv2rgb(img):
    h, s, v = img.unbind(-3)
    i = (h * 6.0).floor()
    f = h * 6.0 - i
    i = i.to(ember.int32).remainder(6)
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    mask = (i.unsqueeze(-3) == ember.arange(6, dtype=ember.int32).reshape(-1, 1, 1)).to(img.dtype)
    a1 = ember.stack((v, q, p, p, t, v), dim=-3)
    a2 = ember.stack((t, v, v, q, p, p), dim=-3)
    a3 = ember.stack((p, p, t, v, v, q), dim=-3)
    sextants = ember.stack((a1, a2, a3), dim=-4)  # (..., 3, 6, H, W): each colour per sextant
    return (mask.unsqueeze(-4) * sextants).sum(-3)


def adjust_hue(img, factor):
    if img.shape[-3] == 1:
        return img
    orig = img.dtype
    hsv = _rgb2hsv(convert_image_dtype(img, ember.float32))
    h, s, v = hsv.unbind(-3)
    rgb = _hsv2rgb(ember.stack(((h + factor).remainder(1.0), s, v), dim=-3))
    return convert_image_dtype(rgb, orig)


def _assert_channels(img, allowed, op):
    c = get_dimensions(img)[0]
    if c not in allowed:
        raise TypeError(f"{op}: input image tensor permitted channel values are {allowed}, but found {c}")


def invert(img):
    _assert_channels(img, (1, 3), "invert")
    return (ember.ones_like(img) * _max_value(img.dtype)).sub(img).to(img.dtype)


def posterize(img, bits):
    """Keep the top `bits` bits of each uint8 value."""
    _assert_channels(img, (1, 3), "posterize")
    if img.dtype != ember.uint8:
        raise TypeError(f"posterize: only uint8 image tensors are supported, but found {img.dtype}")
    return img.bitwise_and((-(2 ** (8 - bits))) & 0xFF)


def solarize(img, threshold):
    """Invert the values >= threshold."""
    _assert_channels(img, (1, 3), "solarize")
    if threshold > _max_value(img.dtype):
        raise TypeError(f"solarize: threshold {threshold} should be less than the bound of img "
                        f"({_max_value(img.dtype)})")
    return ember.where(img >= threshold, invert(img), img)


def adjust_sharpness(img, factor):
    """Blend with the image smoothed by PyTorch's 3x3 sharpness kernel (centre 5, others 1;
    the one-pixel border keeps its values), as PIL's ImageEnhance.Sharpness."""
    _assert_channels(img, (1, 3), "adjust_sharpness")
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    work, back = _float_work(img, "adjust_sharpness")
    batch, restore = _as_batch(work)
    c = batch.shape[1]
    kernel = ember.ones(3, 3, dtype=work.dtype)
    kernel[1, 1] = 5.0
    kernel = (kernel / kernel.sum()).expand(c, 1, 3, 3).contiguous()
    inner = back(restore(nnF.conv2d(batch, kernel, groups=c)))
    degenerate = img.clone()
    degenerate[..., 1:-1, 1:-1] = inner
    return _blend(img, degenerate, factor)


def autocontrast(img):
    """Stretch each channel to the full range [0, bound]; flat channels stay as they are."""
    _assert_channels(img, (1, 3), "autocontrast")
    bound = _max_value(img.dtype)
    dtype = img.dtype if img.is_floating_point() else ember.float32
    low = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    high = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    flat = high == low
    scale = ember.where(flat, ember.ones_like(high), bound / ember.where(flat, ember.ones_like(high), high - low))
    low = ember.where(flat, ember.zeros_like(low), low)
    return ((img.to(dtype) - low) * scale).clamp(0, bound).to(img.dtype)


def equalize(img):
    """Histogram equalisation per channel of a uint8 image, PIL's and torchvision's rule: a
    lookup table from the cumulative histogram, step = (pixels - count of the top value) // 255."""
    _assert_channels(img, (1, 3), "equalize")
    if img.dtype != ember.uint8:
        raise TypeError(f"equalize: only uint8 image tensors are supported, but found {img.dtype}")
    shape = img.shape
    chans = img.reshape(-1, shape[-2] * shape[-1]).to(ember.int64)  # one row per channel
    hist = ember.zeros(chans.shape[0], 256, dtype=ember.int64).scatter_add(1, chans, ember.ones_like(chans))
    last = ((hist > 0).to(ember.int64) * ember.arange(256)).amax(1, keepdim=True)  # the top value present
    step = (hist.sum(1, keepdim=True) - hist.gather(1, last)).floor_divide(255)
    safe = ember.where(step == 0, ember.ones_like(step), step)
    lut = (hist.cumsum(1) + safe.floor_divide(2)).floor_divide(safe)
    lut = nnF.pad(lut, [1, 0])[:, :-1].clamp(0, 255)
    out = ember.where(step == 0, chans, lut.gather(1, chans))  # one value or fewer: unchanged
    return out.to(ember.uint8).reshape(shape)


# ---- filters ------------------------------------------------------------------------------------
def _gaussian_kernel1d(size, sigma):
    half = (size - 1) * 0.5
    x = ember.linspace(-half, half, size)
    pdf = (x / sigma).pow(2).mul(-0.5).exp()
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size, sigma):
    """Separable Gaussian of kernel_size = [kx, ky], sigma = [sx, sy], reflect-padded."""
    _assert_image_tensor(img, "gaussian_blur")
    kx = _gaussian_kernel1d(kernel_size[0], sigma[0])
    ky = _gaussian_kernel1d(kernel_size[1], sigma[1])
    work, back = _float_work(img, "gaussian_blur")
    batch, restore = _as_batch(work)
    c = batch.shape[1]
    kernel = ky.unsqueeze(1).matmul(kx.unsqueeze(0)).to(work.dtype)
    kernel = kernel.expand(c, 1, kernel_size[1], kernel_size[0]).contiguous()
    px, py = kernel_size[0] // 2, kernel_size[1] // 2
    padded = nnF.pad(batch, [px, px, py, py], mode="reflect")
    return back(restore(nnF.conv2d(padded, kernel, groups=c)))


def normalize(tensor, mean, std, inplace=False):
    if not tensor.is_floating_point():
        raise TypeError(f"normalize: input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(f"normalize: expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"tensor.size() = {tuple(tensor.shape)}")
    if not inplace:
        tensor = tensor.clone()
    mean = ember.as_tensor(mean, dtype=tensor.dtype)
    std = ember.as_tensor(std, dtype=tensor.dtype)
    if bool((std == 0).any()):
        raise ValueError(f"normalize: std evaluated to zero after conversion to {tensor.dtype}, leading "
                         "to division by zero.")
    if mean.ndim == 1:
        mean = mean.reshape(-1, 1, 1)
    if std.ndim == 1:
        std = std.reshape(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


def erase(img, i, j, h, w, v, inplace=False):
    """img with the region [i:i+h, j:j+w] set to v."""
    _assert_image_tensor(img, "erase")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img
