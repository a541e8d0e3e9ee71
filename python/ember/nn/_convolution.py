"""3-d convolution and its transpose (C++ ops, src/ops/conv.cpp), and torch's generic entry
points over the 1-d/2-d/3-d ones: torch.convolution (transposed or not, by the weight's rank)
and conv_tbc (a 1-d convolution over (time, batch, channel) inputs, as fairseq uses).

    conv3d(x, w, stride=2, padding=1)         # x (N, C, D, H, W), w (O, C / groups, kD, kH, kW)
    conv_transpose3d(x, w, output_padding=1)  # w (C, O / groups, kD, kH, kW)"""
from .. import _C
from ._padding_conv import (_check_tensors, _conv_transpose, conv1d, conv_transpose1d,
                            conv_transpose2d)

__all__ = ["conv3d", "conv_transpose3d", "conv_tbc", "convolution"]


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv3d: vol2col + one GEMM per image and group, in C++.

    >>> ember.nn.functional.conv3d(ember.ones(1, 1, 2, 2, 2), ember.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
    """
    return _C.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The adjoint of conv3d (its input gradient), in C++; weight (in_channels, out_channels //
    groups, kD, kH, kW).

    >>> x = ember.ones(1, 2, 3, 3, 3)
    >>> ember.nn.functional.conv_transpose3d(x, ember.ones(2, 4, 2, 2, 2)).shape
    ember.Size([1, 4, 4, 4, 4])
    """
    return _conv_transpose("conv_transpose3d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation, 3)


def _conv2d(input, weight, bias, stride, padding, dilation, groups):
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


_FORWARD = {3: conv1d, 4: _conv2d, 5: conv3d}
_TRANSPOSED = {3: conv_transpose1d, 4: conv_transpose2d, 5: conv_transpose3d}


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution: conv1d/2d/3d (or their transposes) chosen by the weight's rank.

    >>> x, w = ember.ones(1, 1, 4), ember.ones(1, 1, 2)
    >>> ember.convolution(x, w, None, [1], [0], [1], False, [0], 1)
    tensor([[[2., 2., 2.]]])
    """
    _check_tensors("convolution", input=input, weight=weight)
    nd = weight.dim()
    if nd not in _FORWARD:
        raise RuntimeError(f"convolution: expected a 3-d, 4-d or 5-d weight, but got weight of "
                           f"size {list(weight.shape)}")
    if input.dim() != nd:
        raise RuntimeError(f"convolution: expected a {nd}-d input for a {nd}-d weight, but got "
                           f"input of size {list(input.shape)}")
    if transposed:
        return _TRANSPOSED[nd](input, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    if any(p != 0 for p in (output_padding if isinstance(output_padding, (tuple, list))
                            else (output_padding,))):
        raise RuntimeError(f"convolution: output_padding={output_padding} is only allowed for "
                           "transposed convolutions")
    return _FORWARD[nd](input, weight, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc: input (time, batch, in_channels), weight (kernel_width, in_channels,
    out_channels), bias (out_channels,): out[t] = bias + sum_k input[t + k - pad] @ weight[k],
    i.e. conv1d over (batch, channel, time) with the weight's axes reordered.

    >>> ember.conv_tbc(ember.ones(5, 2, 3), ember.ones(2, 3, 4), ember.zeros(4)).shape
    ember.Size([4, 2, 4])
    """
    _check_tensors("conv_tbc", input=input, weight=weight, bias=bias)
    if input.dim() != 3:
        raise RuntimeError(f"conv_tbc: input must have 3 dims (time, batch, in_channel), but got "
                           f"input of size {list(input.shape)}")
    if weight.dim() != 3:
        raise RuntimeError(f"conv_tbc: weight must have 3 dims (kernel_width, in_channels, "
                           f"out_channels), but got weight of size {list(weight.shape)}")
    if bias.dim() != 1:
        raise RuntimeError(f"conv_tbc: bias must have 1 dim (out_channels), but got bias of size "
                           f"{list(bias.shape)}")
    if input.size(2) != weight.size(1):
        raise RuntimeError(f"conv_tbc: input dim 2 (input channels, {input.size(2)}) is not == "
                           f"dim 1 in the weight tensor ({weight.size(1)})")
    if bias.size(0) != weight.size(2):
        raise RuntimeError(f"conv_tbc: bias size ({bias.size(0)}) must equal dim 2 in the weight "
                           f"tensor (output channels, {weight.size(2)})")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)
