"""The transform classes of torchvision.transforms: callables (most of them nn.Modules) that
take a PIL image or a (..., C, H, W) tensor. Random transforms draw their parameters from
ember's global RNG (ember.rand, ember.randint, ember.randperm), as torchvision's draw from
torch's; RandomChoice and RandomOrder use Python's `random`, as torchvision's do."""
import math
import numbers
import random
import warnings
from collections.abc import Sequence

import ember

from ...nn import Module
from . import functional as F
from .functional import InterpolationMode, _interpolation, _setup_size


def _rand():
    return float(ember.rand(1).item())


def _uniform(a, b):
    return float(ember.empty(1).uniform_(a, b).item())


def _randint(low, high):
    return int(ember.randint(low, high, (1,)).item())


class Compose:
    """Apply the transforms one after another."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return self.__class__.__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class ToTensor:
    """PIL image or (H, W, C) ndarray -> float (C, H, W) tensor in [0, 1] (for uint8 input)."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image -> (C, H, W) tensor of the image's dtype, values unchanged."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ToPILImage:
    """Tensor or ndarray -> PIL image of `mode` (inferred when None)."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        return f"{self.__class__.__name__}(" + (f"mode={self.mode}" if self.mode is not None else "") + ")"


class ConvertImageDtype(Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class Normalize(Module):
    """(tensor - mean) / std per channel."""

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(Module):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Resize: size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("Resize: if size is a sequence, it should have 1 or 2 values")
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = _interpolation(interpolation, "Resize")

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "CenterCrop")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(Module):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        F._parse_padding(padding, "Pad")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Pad: padding_mode should be constant, edge, reflect or symmetric")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return (f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, "
                f"padding_mode={self.padding_mode})")


class Lambda:
    """Apply a user function."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class RandomTransforms:
    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __repr__(self):
        return self.__class__.__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class RandomApply(Module):
    """Apply all the transforms with probability p."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = transforms, p

    def forward(self, img):
        if self.p < _rand():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}{body}\n)"


class RandomChoice(RandomTransforms):
    """Apply one transform picked at random (weights p)."""

    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        t = random.choices(self.transforms, weights=self.p)[0]
        return t(*args)

    def __repr__(self):
        return f"{super().__repr__()}(p={self.p})"


class RandomOrder(RandomTransforms):
    """Apply the transforms in a random order."""

    def __call__(self, img):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for i in order:
            img = self.transforms[i](img)
        return img


class RandomCrop(Module):
    """A random [h, w] crop, after optional padding (and padding up to the size if needed)."""

    @staticmethod
    def get_params(img, output_size):
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: required crop size {(th, tw)} is larger than input image "
                             f"size {(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        return _randint(0, h - th + 1), _randint(0, w - tw + 1), th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, "RandomCrop"))
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return F.hflip(img) if _rand() < self.p else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(RandomHorizontalFlip):
    def forward(self, img):
        return F.vflip(img) if _rand() < self.p else img


class RandomResizedCrop(Module):
    """A crop of random area (scale of the image's) and aspect ratio, resized to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.size = _setup_size(size, "RandomResizedCrop")
        if not isinstance(scale, Sequence) or not isinstance(ratio, Sequence):
            raise TypeError("RandomResizedCrop: scale and ratio should be sequences")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.interpolation = _interpolation(interpolation, "RandomResizedCrop")
        self.antialias, self.scale, self.ratio = antialias, scale, ratio

    @staticmethod
    def get_params(img, scale, ratio):
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(0, height - h + 1), _randint(0, width - w + 1), h, w
        in_ratio = float(width) / float(height)  # fallback: the central crop
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self):
        scale, ratio = tuple(round(s, 4) for s in self.scale), tuple(round(r, 4) for r in self.ratio)
        return (f"{self.__class__.__name__}(size={self.size}, scale={scale}, "
                f"ratio={ratio}, interpolation={self.interpolation.value}, "
                f"antialias={self.antialias})")


class FiveCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "FiveCrop")

    def forward(self, img):
        return F.five_crop(img, self.size)


class TenCrop(Module):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size, self.vertical_flip = _setup_size(size, "TenCrop"), vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)


class ColorJitter(Module):
    """Random brightness, contrast, saturation and hue changes, in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"ColorJitter: if {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"ColorJitter: {name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"ColorJitter: {name} values should be between {bound}, but got {value}.")
        return None if value[0] == value[1] == center else tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        fn_idx = ember.randperm(4)
        b = None if brightness is None else _uniform(brightness[0], brightness[1])
        c = None if contrast is None else _uniform(contrast[0], contrast[1])
        s = None if saturation is None else _uniform(saturation[0], saturation[1])
        h = None if hue is None else _uniform(hue[0], hue[1])
        return fn_idx, b, c, s, h

    def forward(self, img):
        fn_idx, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        adjust = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        factors = (b, c, s, h)
        for fn_id in fn_idx.tolist():
            if factors[fn_id] is not None:
                img = adjust[fn_id](img, factors[fn_id])
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")


def _setup_angle(x, name):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [-float(x), float(x)]
    if not isinstance(x, Sequence) or len(x) != 2:
        raise ValueError(f"{name} should be a sequence of length 2.")
    return [float(d) for d in x]


class RandomRotation(Module):
    """Rotate by an angle drawn uniformly from degrees = (min, max) (or (-d, d))."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, "degrees")
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise ValueError("center should be a sequence of length 2.")
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.interpolation = _interpolation(interpolation, "RandomRotation")
        self.expand, self.center, self.fill = expand, center, fill

    @staticmethod
    def get_params(degrees):
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = self.fill
        channels, _, _ = F.get_dimensions(img)
        if ember.is_tensor(img):
            fill = [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in fill]
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(degrees={self.degrees}, "
                f"interpolation={self.interpolation.value}, "
                f"expand={self.expand}, fill={self.fill})")


class RandomAffine(Module):
    """A random affine map: angle from degrees, translation up to translate = (fx, fy) of the
    size, scale from scale = (min, max), shear from shear (x range, or x and y ranges)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation=InterpolationMode.NEAREST, fill=0, center=None):
        super().__init__()
        self.degrees = _setup_angle(degrees, "degrees")
        if translate is not None:
            if not isinstance(translate, Sequence) or len(translate) != 2:
                raise ValueError("translate should be a sequence of length 2.")
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            if not isinstance(scale, Sequence) or len(scale) != 2:
                raise ValueError("scale should be a sequence of length 2.")
            if not all(s > 0 for s in scale):
                raise ValueError("scale values should be positive")
        if shear is not None:
            if isinstance(shear, Sequence) and len(shear) == 4:
                shear = [float(s) for s in shear]
            else:
                shear = _setup_angle(shear, "shear")
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise ValueError("center should be a sequence of length 2.")
        self.translate, self.scale, self.shear = translate, scale, shear
        self.interpolation = _interpolation(interpolation, "RandomAffine")
        self.fill, self.center = fill, center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        translations = (0, 0)
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            translations = (int(round(_uniform(-max_dx, max_dx))), int(round(_uniform(-max_dy, max_dy))))
        scale = 1.0 if scale_ranges is None else _uniform(scale_ranges[0], scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = self.fill
        channels, height, width = F.get_dimensions(img)
        if ember.is_tensor(img):
            fill = [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in fill]
        params = self.get_params(self.degrees, self.translate, self.scale, self.shear, [width, height])
        return F.affine(img, *params, interpolation=self.interpolation, fill=fill, center=self.center)

    def __repr__(self):
        return (f"{self.__class__.__name__}(degrees={self.degrees}, translate={self.translate}, "
                f"scale={self.scale}, shear={self.shear}, interpolation={self.interpolation.value}, "
                f"fill={self.fill})")


class _RandomColorOp(Module):
    """Applies a functional colour op with probability p."""

    _op = None
    _arg = None

    def __init__(self, *args, p=0.5):
        super().__init__()
        self.args, self.p = args, p

    def forward(self, img):
        return getattr(F, self._op)(img, *self.args) if _rand() < self.p else img

    def __repr__(self):
        extra = f"{self._arg}={self.args[0]}, " if self._arg else ""
        return f"{self.__class__.__name__}({extra}p={self.p})"


class RandomInvert(_RandomColorOp):
    _op = "invert"

    def __init__(self, p=0.5):
        super().__init__(p=p)


class RandomPosterize(_RandomColorOp):
    _op, _arg = "posterize", "bits"

    def __init__(self, bits, p=0.5):
        super().__init__(bits, p=p)
        self.bits = bits


class RandomSolarize(_RandomColorOp):
    _op, _arg = "solarize", "threshold"

    def __init__(self, threshold, p=0.5):
        super().__init__(threshold, p=p)
        self.threshold = threshold


class RandomAdjustSharpness(_RandomColorOp):
    _op, _arg = "adjust_sharpness", "sharpness_factor"

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(sharpness_factor, p=p)
        self.sharpness_factor = sharpness_factor


class RandomAutocontrast(_RandomColorOp):
    _op = "autocontrast"

    def __init__(self, p=0.5):
        super().__init__(p=p)


class RandomEqualize(_RandomColorOp):
    _op = "equalize"

    def __init__(self, p=0.5):
        super().__init__(p=p)


class Grayscale(Module):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def __repr__(self):
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        channels, _, _ = F.get_dimensions(img)
        return F.rgb_to_grayscale(img, channels) if _rand() < self.p else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class GaussianBlur(Module):
    """Blur with a Gaussian whose sigma is drawn uniformly from sigma = (min, max)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "GaussianBlur",
                                       "Kernel size should be a tuple/list of two integers.")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError(f"GaussianBlur: kernel size value should be an odd and positive number, "
                                 f"got {self.kernel_size}")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("GaussianBlur: if sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("GaussianBlur: sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("GaussianBlur: sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, list(self.kernel_size), [sigma, sigma])

    def __repr__(self):
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class RandomErasing(Module):
    """With probability p, set a random rectangle of a tensor image to `value` (0, a number
    per channel, or 'random' for normal noise)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            v = ember.empty(img_c, h, w).normal_() if value is None else ember.tensor(value).reshape(-1, 1, 1)
            return _randint(0, img_h - h + 1), _randint(0, img_w - w + 1), h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if _rand() < self.p:
            value = self.value
            if isinstance(value, (int, float)):
                value = [float(value)]
            elif isinstance(value, str):
                value = None
            elif isinstance(value, (list, tuple)):
                value = [float(v) for v in value]
            if value is not None and len(value) not in (1, img.shape[-3]):
                raise ValueError(f"RandomErasing: if value is a sequence, it should have either a single "
                                 f"value or {img.shape[-3]} (number of input channels)")
            x, y, h, w, v = self.get_params(img, self.scale, self.ratio, value)
            return F.erase(img, x, y, h, w, v, self.inplace)
        return img
