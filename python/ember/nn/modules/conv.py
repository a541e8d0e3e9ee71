"""_ConvNd (the arguments, checks, parameters, default initialisation and repr that every
convolution layer shares, as PyTorch's) and Conv2d; Conv1d and ConvTranspose are in
conv_transpose.py."""
import math

from ... import _C
from ..._creation import arange
from ..._dtype import int64
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _lazy_aliases, _empty, _ntuple, _parameter_or_none

__all__ = ["Conv2d"]


def _pad_index(n, before, after, mode):
    """Source indices along a dim of size n padded by (before, after) in `mode`."""
    i = arange(-before, n + after, dtype=int64)
    if mode == "circular":
        return i.remainder(n)
    if mode == "replicate":
        return i.clamp(0, n - 1)
    return (n - 1) - ((n - 1) - i.abs()).abs()  # reflect: mirror at 0 and at n - 1


def _pad_2d(input, padding, mode):
    """Pads the last two dims by `padding` (ph, pw) on both sides with index_select, so
    the gradient flows back to the padded-from elements."""
    for dim, p in ((-2, padding[0]), (-1, padding[1])):
        if p:
            n = input.size(dim)
            if mode == "reflect" and p >= n:
                raise ValueError(f"conv2d: padding size {p} should be less than the input size "
                                 f"{n} of dim {dim} for padding_mode='reflect'")
            if mode == "circular" and p > n:
                raise ValueError(f"conv2d: padding size {p} can't exceed the input size {n} of "
                                 f"dim {dim} for padding_mode='circular'")
            input = input.index_select(input.dim() + dim, _pad_index(n, p, p, mode))
    return input


_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """Shared arguments, checks, parameters and repr; `nd` spatial dims, `transposed` swaps
    the weight's channel axes as torch does."""
    nd, transposed = 1, False
    _same_pads_any_mode = True  # padding='same' works with every padding_mode

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
            if padding == "same" and padding_mode != "zeros" and not self._same_pads_any_mode:
                raise NotImplementedError(f"{name}: padding='same' with a padding_mode other "
                                          "than 'zeros' is not supported by ember")
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


class Conv2d(_ConvNd):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) inputs. weight:
    (out_channels, in_channels // groups, kH, kW), initialised like PyTorch's
    (kaiming_uniform_(a=sqrt(5)); bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
    nd = 2
    _same_pads_any_mode = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return _C.conv2d(_pad_2d(input, self.padding, self.padding_mode), weight, bias,
                             self.stride, 0, self.dilation, self.groups)
        return _C.conv2d(input, weight, bias, self.stride, self.padding, self.dilation,
                         self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


# torch's module of the same name holds these too; their files import this one, so they
# are looked up on first use.
__getattr__ = _lazy_aliases(__package__, {
    **{n: ".conv_transpose" for n in ("Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                                 "ConvTranspose3d")},
    **{n: ".lazy" for n in ("LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                            "LazyConvTranspose2d", "LazyConvTranspose3d")}})
