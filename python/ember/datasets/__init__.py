"""ember.datasets: ready-made datasets, read from local files (ember never downloads).

    from ember.datasets import FashionMNIST
    images, labels = FashionMNIST(train=True).tensors()   # float32 (60000, 1, 28, 28), int64

Like torchvision.datasets, with one difference: samples are tensors, not PIL images.
"""
from ._idx import read_idx
from .fashion_mnist import FashionMNIST

__all__ = ["FashionMNIST", "read_idx"]
