"""LPPool1d, LPPool2d, LPPool3d: power-average pooling, (sum over each window of x^p)^(1/p),
over nn/_pooling.py."""
from .. import _pooling as F
from .module import Module

__all__ = ["LPPool1d", "LPPool2d", "LPPool3d"]


class _LPPoolNd(Module):
    nd = 1

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        pool = (F.lp_pool1d, F.lp_pool2d, F.lp_pool3d)[self.nd - 1]
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class LPPool1d(_LPPoolNd):
    """LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)

    The p-norm (p = norm_type) of kernel_size windows of (N, C, L) or (C, L): (sum x^p)^(1/p).

    >>> ember.nn.LPPool1d(2, 2)(ember.tensor([[3.0, 4.0, 6.0, 8.0]]))
    tensor([[ 5., 10.]])
    """
    nd = 1


class LPPool2d(_LPPoolNd):
    """LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)

    The p-norm (p = norm_type) of kernel_size windows of (N, C, H, W) or (C, H, W).

    >>> ember.nn.LPPool2d(1, 2)(ember.ones(1, 1, 2, 2))
    tensor([[[[4.]]]])
    """
    nd = 2


class LPPool3d(_LPPoolNd):
    """LPPool3d(norm_type, kernel_size, stride=None, ceil_mode=False)

    The p-norm (p = norm_type) of kernel_size windows of (N, C, D, H, W) or (C, D, H, W).

    >>> ember.nn.LPPool3d(1, 2)(ember.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
    """
    nd = 3
