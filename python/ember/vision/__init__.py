"""ember.vision: torchvision's API (datasets, transforms, utils, models) on Pillow and ember ops.

Under the drop-in runner `import torchvision` resolves here (torchvision.a.b -> ember.vision.a.b).
Pure Python: images move between Pillow and tensors through NumPy arrays; all tensor math is
ember ops. See docs/vision.md for what is covered and where it differs from torchvision.
"""
from . import datasets, io, models, ops, transforms, utils

__version__ = "0.28.0"  # the torchvision release that pairs with the torch API ember follows

_image_backend = "PIL"


def get_image_backend():
    """The name of the package used to load images: always 'PIL' here."""
    return _image_backend


def set_image_backend(backend):
    if backend != "PIL":
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' (ember.vision has no accimage)")


__all__ = ["datasets", "io", "models", "ops", "transforms", "utils", "get_image_backend", "set_image_backend"]
