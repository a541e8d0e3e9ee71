"""MaxPool2d, AvgPool2d, AdaptiveAvgPool2d."""
from ... import _C
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class MaxPool2d(Module):
    """Max over kernel_size windows; stride defaults to kernel_size. return_indices=True
    returns (output, indices) as max_pool2d_with_indices."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return _C.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class AvgPool2d(Module):
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


class AdaptiveAvgPool2d(Module):
    """Averages into an output_size grid (an int, or a pair whose None keeps that size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return _C.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


# torch.nn.modules.pooling holds these too: the same classes at torch's path (pickles name it).
from .pooling_adaptive import (MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d,  # noqa: E402
                           AdaptiveMaxPool2d)
from .pooling_3d import (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d,  # noqa: E402,F401
                         AdaptiveMaxPool3d)
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402,F401
from .lp_pooling import LPPool1d, LPPool2d, LPPool3d  # noqa: E402,F401
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402,F401
