"""The adaptive pools: AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d (an output_size grid: an
int, or a tuple whose None keeps that size); the 2-d average is C++, the rest composites in
nn/_padding_conv.py."""
from ... import _C
from .. import _padding_conv as F
from .module import Module

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"]


class _AdaptivePoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """AdaptiveAvgPool1d(output_size)

    Averages (N, C, L) or (C, L) into output_size bins (torch.nn.AdaptiveAvgPool1d).

    >>> ember.nn.AdaptiveAvgPool1d(2)(ember.tensor([[1.0, 2.0, 3.0, 4.0]]))
    tensor([[1.5000, 3.5000]])
    """
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Averages into an output_size grid.

    >>> ember.nn.AdaptiveAvgPool2d(1)(ember.arange(16.0).reshape(1, 4, 4))
    tensor([[[7.5000]]])"""

    def forward(self, input):
        return _C.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """AdaptiveMaxPool1d(output_size, return_indices=False)

    Max of (N, C, L) or (C, L) over output_size bins (torch.nn.AdaptiveMaxPool1d).

    >>> ember.nn.AdaptiveMaxPool1d(2)(ember.tensor([[1.0, 5.0, 3.0, 4.0]]))
    tensor([[5., 4.]])
    """
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max into an output_size grid.

    >>> ember.nn.AdaptiveMaxPool2d(1)(ember.tensor([[[1.0, 5.0], [3.0, 4.0]]]))
    tensor([[[5.]]])
    """

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
