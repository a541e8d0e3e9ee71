"""ember.vision.transforms: torchvision.transforms (the v1 API) for PIL images and tensors."""
from . import functional
from .functional import InterpolationMode
from .transforms import (CenterCrop, ColorJitter, Compose, ConvertImageDtype, FiveCrop,
                         GaussianBlur, Grayscale, Lambda, Normalize, Pad, PILToTensor, RandomAffine,
                         RandomApply, RandomChoice, RandomCrop, RandomErasing, RandomGrayscale,
                         RandomHorizontalFlip, RandomOrder, RandomResizedCrop, RandomRotation,
                         RandomVerticalFlip, Resize, TenCrop, ToPILImage, ToTensor)

__all__ = ["CenterCrop", "ColorJitter", "Compose", "ConvertImageDtype", "FiveCrop", "GaussianBlur",
           "Grayscale", "InterpolationMode", "Lambda", "Normalize", "Pad", "PILToTensor",
           "RandomAffine", "RandomApply", "RandomChoice", "RandomCrop", "RandomErasing",
           "RandomGrayscale", "RandomHorizontalFlip", "RandomOrder", "RandomResizedCrop",
           "RandomRotation", "RandomVerticalFlip", "Resize", "TenCrop", "ToPILImage", "ToTensor",
           "functional"]
