"""Padding layers: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad (1d, 2d,
3d), thin modules over F.pad; `padding` is an int (every side) or (left, right[, top, bottom[,
front, back]])."""
from .. import _padding_conv as F
from .module import Module
from .utils import _ntuple

__all__ = ["ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
           "CircularPad2d", "ZeroPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d",
           "CircularPad3d"]


class _PadNd(Module):
    mode = "constant"
    ndim = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self.ndim)(padding)
        if len(self.padding) != 2 * self.ndim:
            raise ValueError(f"{type(self).__name__}: padding must be an int or a "
                             f"{2 * self.ndim}-tuple, got {padding!r}")

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """ConstantPad1d(padding, value)

    Pads the last dim with a constant value.

    >>> ember.nn.ConstantPad1d(1, 9.0)(ember.ones(1, 2))
    tensor([[9., 1., 1., 9.]])"""

    ndim = 1


class ConstantPad2d(_ConstantPadNd):
    """ConstantPad2d(padding, value)

    Pads the last two dims with `value`; padding is an int or (left, right, top, bottom).

    >>> ember.nn.ConstantPad2d((1, 0, 0, 0), 9.0)(ember.tensor([[[1.0, 2.0]]]))
    tensor([[[9., 1., 2.]]])
    """
    ndim = 2


class ConstantPad3d(_ConstantPadNd):
    """ConstantPad3d(padding, value)

    Pads the last three dims with `value`; padding is an int or a 6-tuple.

    >>> ember.nn.ConstantPad3d(1, 0.0)(ember.ones(1, 1, 1, 1)).shape
    ember.Size([1, 3, 3, 3])
    """
    ndim = 3


class ZeroPad1d(ConstantPad1d):
    """ZeroPad1d(padding)

    Pads the last dim of (N, C, L) or (C, L) with zeros; padding is an int or (left, right).

    >>> ember.nn.ZeroPad1d((1, 2))(ember.tensor([[1.0, 2.0]]))
    tensor([[0., 1., 2., 0., 0.]])
    """
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """ZeroPad2d(padding)

    Pads the last two dims with zeros: an int for every side or (left, right, top, bottom).

    >>> ember.nn.ZeroPad2d(1)(ember.ones(1, 1, 1))
    tensor([[[0., 0., 0.],
             [0., 1., 0.],
             [0., 0., 0.]]])"""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """ZeroPad3d(padding)

    Pads the last three dims with zeros; padding is an int or a 6-tuple.

    >>> ember.nn.ZeroPad3d(1)(ember.ones(1, 1, 1, 1)).shape
    ember.Size([1, 3, 3, 3])
    """
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """ReflectionPad1d(padding)

    Pads the last dim with its reflection (the edge not repeated).

    >>> ember.nn.ReflectionPad1d(2)(ember.arange(4.0).reshape(1, 4))
    tensor([[2., 1., 0., 1., 2., 3., 2., 1.]])"""

    mode, ndim = "reflect", 1


class ReflectionPad2d(_PadNd):
    """ReflectionPad2d(padding)

    Pads the last two dims by reflecting at the border (no repeat of the edge); padding is an
    int or (left, right, top, bottom).

    >>> ember.nn.ReflectionPad2d((1, 1, 0, 0))(ember.tensor([[[1.0, 2.0, 3.0]]]))
    tensor([[[2., 1., 2., 3., 2.]]])
    """
    mode, ndim = "reflect", 2


class ReflectionPad3d(_PadNd):
    """ReflectionPad3d(padding)

    Pads the last three dims by reflecting at the border; padding is an int or a 6-tuple.

    >>> ember.nn.ReflectionPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
    ember.Size([1, 1, 4, 4, 4])
    """
    mode, ndim = "reflect", 3


class ReplicationPad1d(_PadNd):
    """ReplicationPad1d(padding)

    Pads the last dim by repeating its edge values.

    >>> ember.nn.ReplicationPad1d(2)(ember.arange(4.0).reshape(1, 4))
    tensor([[0., 0., 0., 1., 2., 3., 3., 3.]])"""

    mode, ndim = "replicate", 1


class ReplicationPad2d(_PadNd):
    """ReplicationPad2d(padding)

    Pads the last two dims by repeating the edge values; padding is an int or (left, right, top,
    bottom).

    >>> ember.nn.ReplicationPad2d((1, 1, 0, 0))(ember.tensor([[[1.0, 2.0]]]))
    tensor([[[1., 1., 2., 2.]]])
    """
    mode, ndim = "replicate", 2


class ReplicationPad3d(_PadNd):
    """ReplicationPad3d(padding)

    Pads the last three dims by repeating the edge values; padding is an int or a 6-tuple.

    >>> ember.nn.ReplicationPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
    ember.Size([1, 1, 4, 4, 4])
    """
    mode, ndim = "replicate", 3


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):  # torch's CircularPad checks the rank itself, with a ValueError
        if input.dim() not in (self.ndim + 1, self.ndim + 2):
            raise ValueError(f"expected {self.ndim + 1}D or {self.ndim + 2}D input (got "
                             f"{input.dim()}D input)")
        return F.pad(input, self.padding, self.mode)


class CircularPad1d(_CircularPadNd):
    """CircularPad1d(padding)

    Pads the last dim by wrapping around.

    >>> ember.nn.CircularPad1d(1)(ember.arange(4.0).reshape(1, 4))
    tensor([[3., 0., 1., 2., 3., 0.]])"""

    ndim = 1


class CircularPad2d(_CircularPadNd):
    """CircularPad2d(padding)

    Pads the last two dims of (N, C, H, W) or (C, H, W) by wrapping around; padding is an int or
    (left, right, top, bottom).

    >>> ember.nn.CircularPad2d(1)(ember.tensor([[[1.0, 2.0]]]))
    tensor([[[2., 1., 2., 1.],
             [2., 1., 2., 1.],
             [2., 1., 2., 1.]]])
    """
    ndim = 2


class CircularPad3d(_CircularPadNd):
    """CircularPad3d(padding)

    Pads the last three dims of (N, C, D, H, W) or (C, D, H, W) by wrapping around; padding is
    an int or a 6-tuple.

    >>> ember.nn.CircularPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
    ember.Size([1, 1, 4, 4, 4])
    """
    ndim = 3
