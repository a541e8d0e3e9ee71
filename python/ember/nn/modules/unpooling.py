"""MaxUnpool1d, MaxUnpool2d, MaxUnpool3d: the partial inverse of max pooling (each value
written back at its pooling index, zeros elsewhere), over nn/_pooling.py."""
from .. import _pooling as F
from .module import Module
from .utils import _ntuple

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxUnpoolNd(Module):
    nd = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        tup = _ntuple(self.nd)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):
        unpool = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self.nd - 1]
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """MaxUnpool1d(kernel_size, stride=None, padding=0)

    Puts each value back at the index MaxPool1d(return_indices=True) gave it; zeros elsewhere.

    >>> y, i = ember.nn.MaxPool1d(2, return_indices=True)(ember.tensor([[1.0, 3.0, 2.0, 0.0]]))
    >>> ember.nn.MaxUnpool1d(2)(y, i)
    tensor([[0., 3., 2., 0.]])
    """
    nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """MaxUnpool2d(kernel_size, stride=None, padding=0)

    Puts each value back at the index MaxPool2d(return_indices=True) gave it; zeros elsewhere.

    >>> y, i = ember.nn.MaxPool2d(2, return_indices=True)(ember.tensor([[[1.0, 3.0], [2.0, 0.0]]]))
    >>> ember.nn.MaxUnpool2d(2)(y, i)
    tensor([[[0., 3.],
             [0., 0.]]])
    """
    nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """MaxUnpool3d(kernel_size, stride=None, padding=0)

    Puts each value back at the index MaxPool3d(return_indices=True) gave it; zeros elsewhere.

    >>> y, i = ember.nn.MaxPool3d(2, return_indices=True)(ember.arange(8.0).reshape(1, 1, 2, 2, 2))
    >>> ember.nn.MaxUnpool3d(2)(y, i).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    nd = 3
