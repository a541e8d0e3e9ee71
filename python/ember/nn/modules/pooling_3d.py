"""MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d over the 3-d pools of
nn/_pooling.py (C++ ops for max, avg and adaptive avg)."""
from .. import _pooling as F
from .module import Module
from .pooling_base import _MaxPoolNd

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d"]


class MaxPool3d(_MaxPoolNd):
    """Max over kernel_size windows of (N, C, D, H, W) or (C, D, H, W); stride defaults to
    kernel_size. return_indices=True returns (output, indices), flat in each D * H * W volume.

    >>> ember.nn.MaxPool3d(2)(ember.arange(8.0).reshape(1, 1, 2, 2, 2))
    tensor([[[[[7.]]]]])
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool3d(Module):
    """AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)

    Averages kernel_size windows of (N, C, D, H, W) or (C, D, H, W); stride defaults to
    kernel_size.

    >>> ember.nn.AvgPool3d(2)(ember.ones(1, 1, 4, 4, 4)).shape
    ember.Size([1, 1, 2, 2, 2])
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(Module):
    """Averages into an output_size grid (an int, or a triple whose None keeps that size).

    >>> ember.nn.AdaptiveAvgPool3d(1)(ember.ones(1, 2, 2, 2)).shape
    ember.Size([1, 1, 1, 1])
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(Module):
    """Max into an output_size grid (an int, or a triple whose None keeps that size).

    >>> ember.nn.AdaptiveMaxPool3d((1, 2, 2))(ember.ones(1, 2, 4, 4)).shape
    ember.Size([1, 1, 2, 2])
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"
