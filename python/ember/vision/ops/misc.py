"""torchvision.ops.misc: Conv2dNormActivation (conv -> norm -> activation), FrozenBatchNorm2d,
SqueezeExcitation, MLP and Permute, the blocks torchvision's and timm's models are built of."""
import ember

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


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm2d with fixed statistics and affine parameters, all buffers (torchvision's, for
    fine-tuning detection backbones): y = x * w / sqrt(rv + eps) + (b - rm * w / sqrt(rv + eps)).

    >>> m = ember.vision.ops.misc.FrozenBatchNorm2d(2)
    >>> m(ember.ones(1, 2, 1, 1)).flatten(), m
    (tensor([1.0000, 1.0000]), FrozenBatchNorm2d(2, eps=1e-05))
    """

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", ember.ones(num_features))
        self.register_buffer("bias", ember.zeros(num_features))
        self.register_buffer("running_mean", ember.zeros(num_features))
        self.register_buffer("running_var", ember.ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        state_dict.pop(prefix + "num_batches_tracked", None)  # a BatchNorm2d's state dict loads
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, x):
        w, b = self.weight.reshape(1, -1, 1, 1), self.bias.reshape(1, -1, 1, 1)
        rv, rm = self.running_var.reshape(1, -1, 1, 1), self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + self.eps).rsqrt()
        return x * scale + (b - rm * scale)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


class SqueezeExcitation(nn.Module):
    """Squeeze-and-excitation (torchvision's): the input scaled per channel by
    scale_activation(fc2(activation(fc1(avgpool(input))))), fc1/fc2 1x1 convolutions.

    >>> se = ember.vision.ops.misc.SqueezeExcitation(4, 2)
    >>> se(ember.ones(1, 4, 3, 3)).shape
    ember.Size([1, 4, 3, 3])
    """

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, input):
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))

    def forward(self, input):
        return self._scale(input) * input


class MLP(nn.Sequential):
    """Linear layers of widths hidden_channels, each but the last followed by norm_layer,
    activation_layer and Dropout; the last by Dropout (torchvision's MLP; children 0, 1, ...).

    >>> ember.vision.ops.misc.MLP(4, [8, 2])(ember.ones(3, 4)).shape
    ember.Size([3, 2])
    """

    def __init__(self, in_channels, hidden_channels, norm_layer=None, activation_layer=nn.ReLU,
                 inplace=None, bias=True, dropout=0.0):
        params = {} if inplace is None else {"inplace": inplace}
        layers, in_dim = [], in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            in_dim = hidden_dim
        layers.append(nn.Linear(in_dim, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **params))
        super().__init__(*layers)


class Permute(nn.Module):
    """The input's dimensions permuted to `dims` (torchvision's, for channels-last blocks).

    >>> ember.vision.ops.misc.Permute([0, 2, 3, 1])(ember.zeros(1, 2, 3, 4)).shape
    ember.Size([1, 3, 4, 2])
    """

    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return ember.permute(x, self.dims)
