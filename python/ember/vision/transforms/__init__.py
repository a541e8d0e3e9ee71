"""ember.vision.transforms: torchvision.transforms (the v1 API) for PIL images and tensors."""
from . import functional
from .autoaugment import RandAugment, TrivialAugmentWide
from .functional import InterpolationMode
from .transforms import (CenterCrop, ColorJitter, Compose, ConvertImageDtype, FiveCrop, GaussianBlur,
                         Grayscale, Lambda, Normalize, Pad, PILToTensor, RandomAdjustSharpness,
                         RandomAffine, RandomApply, RandomAutocontrast, RandomChoice, RandomCrop,
                         RandomEqualize, RandomErasing, RandomGrayscale, RandomHorizontalFlip,
                         RandomInvert, RandomOrder, RandomPosterize, RandomResizedCrop, RandomRotation,
                         RandomSolarize, RandomVerticalFlip, Resize, TenCrop, ToPILImage, ToTensor)

__all__ = ["CenterCrop", "ColorJitter", "Compose", "ConvertImageDtype", "FiveCrop", "GaussianBlur",
           "Grayscale", "InterpolationMode", "Lambda", "Normalize", "Pad", "PILToTensor", "RandAugment",
           "RandomAdjustSharpness", "RandomAffine", "RandomApply", "RandomAutocontrast", "RandomChoice",
           "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale", "RandomHorizontalFlip",
           "RandomInvert", "RandomOrder", "RandomPosterize", "RandomResizedCrop", "RandomRotation",
           "RandomSolarize", "RandomVerticalFlip", "Resize", "TenCrop", "ToPILImage", "ToTensor",
           "TrivialAugmentWide", "functional"]
