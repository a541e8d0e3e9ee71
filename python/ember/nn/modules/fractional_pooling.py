"""FractionalMaxPool2d, FractionalMaxPool3d over nn/_fractional_pool.py, with torch's
arguments and checks; _random_samples, when given, is a buffer (as torch's)."""
from .. import _fractional_pool as F
from .module import Module
from .utils import _ntuple

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        tup, name = _ntuple(self.nd), type(self).__name__
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self.nd == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None)

    Max over pseudo-randomly placed kernel_size windows that give output_size (or input size *
    output_ratio), as torch.nn.FractionalMaxPool2d.

    >>> ember.nn.FractionalMaxPool2d(2, output_size=3)(ember.ones(1, 1, 5, 5)).shape
    ember.Size([1, 1, 3, 3])
    """
    nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None)

    The 3-d form of FractionalMaxPool2d over (N, C, D, H, W) or (C, D, H, W).

    >>> ember.nn.FractionalMaxPool3d(2, output_ratio=0.5)(ember.ones(1, 1, 4, 4, 4)).shape
    ember.Size([1, 1, 2, 2, 2])
    """
    nd = 3
