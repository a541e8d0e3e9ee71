"""_ConvNd (the arguments, checks, parameters, default initialisation and repr that every
convolution layer shares, as PyTorch's) and Conv1d/2d/3d; ConvTranspose is in
conv_transpose.py."""
import math

from ... import _C
from .. import _convolution
from .. import _padding_conv as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _lazy_aliases, _empty, _ntuple, _parameter_or_none

__all__ = ["Conv1d", "Conv2d", "Conv3d"]


_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """Shared arguments, checks, parameters and repr; `nd` spatial dims, `transposed` swaps
    the weight's channel axes as torch does."""
    nd, transposed = 1, False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                 bias, padding_mode, output_padding, device, dtype):
        super().__init__()
        tup = _ntuple(self.nd)
        name = type(self).__name__
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.kernel_size, self.stride, self.dilation = tup(kernel_size), tup(stride), tup(dilation)
        if isinstance(padding, str):
            if self.transposed:
                raise ValueError(f"{name}: padding must be an int or a tuple of ints, got "
                                 f"{padding!r}")
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.padding_mode, self.output_padding = padding_mode, tup(output_padding)
        shape = ((in_channels, out_channels // groups) if self.transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_empty(shape, device, dtype))
        _parameter_or_none(self, "bias", (out_channels,), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


def _explicit_padding(conv):
    """F.pad's (before, after) pairs, last dim first, for conv.padding: 'same' puts the odd
    element after the input, as torch."""
    pads = []
    for i in reversed(range(conv.nd)):
        if conv.padding == "valid":
            pads += [0, 0]
        elif conv.padding == "same":
            total = conv.dilation[i] * (conv.kernel_size[i] - 1)
            pads += [total // 2, total - total // 2]
        else:
            pads += [conv.padding[i], conv.padding[i]]
    return tuple(pads)


class _Conv(_ConvNd):
    """A forward convolution: `_conv` (F.conv1d, _convolution.conv3d) after F.pad for a
    padding_mode other than zeros."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            input = F.pad(input, _explicit_padding(self), self.padding_mode)
            return self._conv(input, weight, bias, self.stride, 0, self.dilation, self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation,
                          self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over (N, C_in, L) or (C_in, L); weight (out, in // groups, k).

    >>> ember.nn.Conv1d(2, 4, 3, padding=1)(ember.randn(1, 2, 10)).shape
    ember.Size([1, 4, 10])"""
    nd = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) inputs. weight:
    (out_channels, in_channels // groups, kH, kW), initialised like PyTorch's
    (kaiming_uniform_(a=sqrt(5)); bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))).

    >>> ember.nn.Conv2d(3, 8, 3, stride=2)(ember.randn(1, 3, 9, 9)).shape
    ember.Size([1, 8, 4, 4])"""
    nd = 2
    _conv = staticmethod(_C.conv2d)


class Conv3d(_Conv):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W); weight (out, in // groups,
    kD, kH, kW).

    >>> ember.nn.Conv3d(1, 2, 3)(ember.randn(1, 1, 5, 5, 5)).shape
    ember.Size([1, 2, 3, 3, 3])"""
    nd = 3
    _conv = staticmethod(_convolution.conv3d)


# torch's module of the same name holds these too; their files import this one, so they
# are looked up on first use.
__getattr__ = _lazy_aliases(__package__, {
    **{n: ".conv_transpose" for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")},
    **{n: ".lazy" for n in ("LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                            "LazyConvTranspose2d", "LazyConvTranspose3d")}})
