"""MaxPool1d/2d, AvgPool1d/2d; the adaptive pools are in pooling_adaptive.py, the 3-d ones in
pooling_3d.py (torch.nn.modules.pooling re-exports them all)."""
from ... import _C
from .. import _padding_conv as F
from .module import Module
from .pooling_base import _MaxPoolNd
from .utils import _single

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d"]


class MaxPool1d(_MaxPoolNd):
    """Max over kernel_size windows of (N, C, L) or (C, L).

    >>> ember.nn.MaxPool1d(2)(ember.tensor([[1.0, 3.0, 2.0, 0.0]]))
    tensor([[3., 2.]])
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max over kernel_size windows of (N, C, H, W) or (C, H, W), as max_pool2d_with_indices
    when return_indices=True.

    >>> ember.nn.MaxPool2d(2)(ember.arange(16.0).reshape(1, 4, 4))
    tensor([[[ 5.,  7.],
             [13., 15.]]])"""

    def forward(self, input):
        return _C.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode, self.return_indices)


class AvgPool1d(Module):
    """AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)

    Averages kernel_size windows of (N, C, L) or (C, L); stride defaults to kernel_size.

    >>> ember.nn.AvgPool1d(2)(ember.tensor([[1.0, 3.0, 5.0, 7.0]]))
    tensor([[2., 6.]])
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
        divisor_override=None)

    The mean over kernel_size windows of (N, C, H, W) or (C, H, W).

    >>> ember.nn.AvgPool2d(2)(ember.arange(16.0).reshape(1, 4, 4))
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])"""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return _C.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


# torch.nn.modules.pooling holds these too: the same classes at torch's path (pickles name it).
from .pooling_adaptive import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,  # noqa: E402,F401
                               AdaptiveMaxPool2d)
from .pooling_3d import (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d,  # noqa: E402,F401
                         AdaptiveMaxPool3d)
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402,F401
from .lp_pooling import LPPool1d, LPPool2d, LPPool3d  # noqa: E402,F401
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402,F401
