"""ember.vision.transforms.v2: torchvision's v2 transforms for classification samples.

Each transform takes an image or a whole sample ((image, label), dicts, nested tuples) and
transforms its image, passing the rest through (see _transform.py for which leaf is the
image). The geometry and colour transforms are the v1 classes (same arguments, same random
draws), applied through the v2 calling convention. `functional` is v1's.
"""
from .. import autoaugment as _aa, functional, transforms as _v1
from ..functional import InterpolationMode
from ._transform import Transform, wrap_v1
from ._type_conversion import (Compose, Lambda, RandomApply, RandomChoice, RandomOrder, ToDtype, ToImage,
                               ToPureTensor)

_WRAPPED = ("CenterCrop", "ColorJitter", "ConvertImageDtype", "FiveCrop", "GaussianBlur", "Grayscale",
            "Normalize", "Pad", "PILToTensor", "RandomAdjustSharpness", "RandomAffine", "RandomAutocontrast",
            "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale", "RandomHorizontalFlip",
            "RandomInvert", "RandomPosterize", "RandomResizedCrop", "RandomRotation", "RandomSolarize",
            "RandomVerticalFlip", "Resize", "TenCrop", "ToPILImage", "ToTensor")
_AUGMENT = ("RandAugment", "TrivialAugmentWide")
globals().update({name: wrap_v1(getattr(_v1, name)) for name in _WRAPPED})
globals().update({name: wrap_v1(getattr(_aa, name)) for name in _AUGMENT})

__all__ = ["Compose", "InterpolationMode", "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "ToDtype",
           "ToImage", "ToPureTensor", "Transform", "functional", *_WRAPPED, *_AUGMENT]
