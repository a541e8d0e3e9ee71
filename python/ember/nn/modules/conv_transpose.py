"""ConvTranspose1d/2d/3d over nn/_padding_conv.py and nn/_convolution.py, with PyTorch's
arguments, checks, weight shapes, default initialisation and repr (so torch's state_dict loads;
the shared part is conv.py's _ConvNd). Weight: (in_channels, out_channels // groups,
*kernel_size)."""
from .. import _convolution
from .. import _padding_conv as F
from .conv import _ConvNd

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, device, dtype)

    def _output_padding(self, input, output_size):
        """output_padding that makes the output output_size (torch's rule and messages)."""
        if output_size is None:
            return self.output_padding
        nd = self.nd
        lead = 2 if input.dim() == nd + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + nd:
            output_size = output_size[lead:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must "
                             f"have {nd} or {lead + nd} elements (got {len(output_size)})")
        mins = [(input.size(d + lead) - 1) * self.stride[d] - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(nd)]
        maxs = [m + s - 1 for m, s in zip(mins, self.stride)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {mins} to {maxs} (for an input of "
                                 f"{list(input.shape[lead:])})")
        return tuple(int(o) - m for o, m in zip(output_size, mins))

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        conv = _TRANSPOSED[self.nd]
        return conv(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution (the gradient of conv1d w.r.t. its input).

    >>> ember.nn.ConvTranspose1d(2, 3, 3)(ember.ones(1, 2, 4)).shape
    ember.Size([1, 3, 6])
    """
    nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution (the gradient of conv2d w.r.t. its input).

    >>> ember.nn.ConvTranspose2d(4, 2, 2, stride=2)(ember.randn(1, 4, 3, 3)).shape
    ember.Size([1, 2, 6, 6])"""
    nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution (the gradient of conv3d w.r.t. its input).

    >>> ember.nn.ConvTranspose3d(2, 3, 2, stride=2)(ember.ones(1, 2, 2, 2, 2)).shape
    ember.Size([1, 3, 4, 4, 4])
    """
    nd = 3


_TRANSPOSED = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: _convolution.conv_transpose3d}
