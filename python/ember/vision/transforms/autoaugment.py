"""RandAugment and TrivialAugmentWide (torchvision.transforms.autoaugment): random sequences
of the functional image ops at random magnitudes, drawn from ember's global RNG. The
magnitude tables are torchvision's, built with ember.linspace as torchvision builds them with
torch.linspace (equal to float32 rounding). AutoAugment's learned policies are not here."""
import math

import ember

from ...nn import Module
from . import functional as F
from ._functional_tensor import _max_value
from .functional import InterpolationMode, _interpolation


def _apply_op(img, op_name, magnitude, interpolation, fill):
    if op_name == "ShearX":  # about the top-left corner, as torchvision
        return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0, shear=[math.degrees(math.atan(magnitude)), 0.0],
                        interpolation=interpolation, fill=fill, center=[0, 0])
    if op_name == "ShearY":
        return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0, shear=[0.0, math.degrees(math.atan(magnitude))],
                        interpolation=interpolation, fill=fill, center=[0, 0])
    if op_name == "TranslateX":
        return F.affine(img, angle=0.0, translate=[int(magnitude), 0], scale=1.0, shear=[0.0, 0.0],
                        interpolation=interpolation, fill=fill)
    if op_name == "TranslateY":
        return F.affine(img, angle=0.0, translate=[0, int(magnitude)], scale=1.0, shear=[0.0, 0.0],
                        interpolation=interpolation, fill=fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    colour = {"Brightness": F.adjust_brightness, "Color": F.adjust_saturation, "Contrast": F.adjust_contrast,
              "Sharpness": F.adjust_sharpness}
    if op_name in colour:
        return colour[op_name](img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        bound = _max_value(img.dtype) if ember.is_tensor(img) else 255.0
        return F.solarize(img, bound * magnitude)
    plain = {"AutoContrast": F.autocontrast, "Equalize": F.equalize, "Invert": F.invert}
    if op_name in plain:
        return plain[op_name](img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


def _space(num_bins, shear, translate, rotate, colour, posterize_div):
    """{op: (magnitudes, signed)}; translate is (x max, y max)."""
    return {
        "Identity": (ember.tensor(0.0), False),
        "ShearX": (ember.linspace(0.0, shear, num_bins), True),
        "ShearY": (ember.linspace(0.0, shear, num_bins), True),
        "TranslateX": (ember.linspace(0.0, translate[0], num_bins), True),
        "TranslateY": (ember.linspace(0.0, translate[1], num_bins), True),
        "Rotate": (ember.linspace(0.0, rotate, num_bins), True),
        "Brightness": (ember.linspace(0.0, colour, num_bins), True),
        "Color": (ember.linspace(0.0, colour, num_bins), True),
        "Contrast": (ember.linspace(0.0, colour, num_bins), True),
        "Sharpness": (ember.linspace(0.0, colour, num_bins), True),
        "Posterize": (8 - (ember.arange(num_bins) / ((num_bins - 1) / posterize_div)).round().int(), False),
        "Solarize": (ember.linspace(1.0, 0.0, num_bins), False),
        "AutoContrast": (ember.tensor(0.0), False),
        "Equalize": (ember.tensor(0.0), False),
    }


def _tensor_fill(img, fill):
    if not ember.is_tensor(img) or fill is None:
        return fill
    channels = F.get_dimensions(img)[0]
    return [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in fill]


def _signed(magnitude, signed):
    return -magnitude if signed and int(ember.randint(2, (1,)).item()) else magnitude


class RandAugment(Module):
    """num_ops ops drawn uniformly from 14, each at bin `magnitude` of num_magnitude_bins."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 2:
            raise ValueError(f"RandAugment: num_magnitude_bins should be an int >= 2, got {num_magnitude_bins!r}")
        if not isinstance(magnitude, int) or not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"RandAugment: magnitude should be an int in [0, {num_magnitude_bins}), got "
                             f"{magnitude!r}")
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation = _interpolation(interpolation, "RandAugment")
        self.fill = fill

    def _augmentation_space(self, num_bins, image_size):
        h, w = image_size
        return _space(num_bins, 0.3, (150.0 / 331.0 * w, 150.0 / 331.0 * h), 30.0, 0.9, 4)

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        op_meta = self._augmentation_space(self.num_magnitude_bins, (height, width))
        names = list(op_meta)
        for _ in range(self.num_ops):
            op_name = names[int(ember.randint(len(op_meta), (1,)).item())]
            magnitudes, signed = op_meta[op_name]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.ndim > 0 else 0.0
            img = _apply_op(img, op_name, _signed(magnitude, signed), self.interpolation, fill)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
                f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation}, "
                f"fill={self.fill})")


class TrivialAugmentWide(Module):
    """One op drawn uniformly from 14, at a magnitude drawn uniformly from its bins."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 2:
            raise ValueError(f"TrivialAugmentWide: num_magnitude_bins should be an int >= 2, got "
                             f"{num_magnitude_bins!r}")
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = _interpolation(interpolation, "TrivialAugmentWide")
        self.fill = fill

    def _augmentation_space(self, num_bins):
        return _space(num_bins, 0.99, (32.0, 32.0), 135.0, 0.99, 6)

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        op_meta = self._augmentation_space(self.num_magnitude_bins)
        op_name = list(op_meta)[int(ember.randint(len(op_meta), (1,)).item())]
        magnitudes, signed = op_meta[op_name]
        magnitude = float(magnitudes[int(ember.randint(len(magnitudes), (1,)).item())].item()) \
            if magnitudes.ndim > 0 else 0.0
        return _apply_op(img, op_name, _signed(magnitude, signed), self.interpolation, fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
