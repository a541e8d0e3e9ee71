"""ember.vision.ops: the building blocks torchvision.ops gives its models."""
from . import misc
from .misc import Conv2dNormActivation

__all__ = ["Conv2dNormActivation", "misc"]
