"""ember.vision.ops: the building blocks torchvision.ops gives its models."""
from . import misc
from .misc import Conv2dNormActivation, FrozenBatchNorm2d, MLP, Permute, SqueezeExcitation

__all__ = ["Conv2dNormActivation", "FrozenBatchNorm2d", "MLP", "Permute", "SqueezeExcitation",
           "misc"]
