"""Conv2dNormActivation: the conv -> norm -> activation block of torchvision.ops.misc."""
from ... import nn


class Conv2dNormActivation(nn.Sequential):
    """Conv2d (padding (k-1)//2*dilation, no bias when a norm follows), then norm_layer, then
    activation_layer; the children are named 0, 1, 2 as in torchvision."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1, inplace=True, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels
