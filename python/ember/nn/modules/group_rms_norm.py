"""GroupNorm and RMSNorm, over the composites F.group_norm and F.rms_norm."""
from .. import init
from .._attention import group_norm, rms_norm
from .module import Module
from .utils import _affine_parameters, _normalized_shape, _parameter_or_none, _reset_affine

__all__ = ["GroupNorm", "RMSNorm"]


class GroupNorm(Module):
    """Normalizes (N, C, *) over groups of C / num_groups channels; per-channel affine
    weight (ones) and bias (zeros).

    >>> ember.nn.GroupNorm(2, 4)(ember.randn(2, 4, 3)).shape
    ember.Size([2, 4, 3])"""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}"
                .format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) * weight over the trailing normalized_shape dims; weight ones;
    eps=None uses torch.finfo(input.dtype).eps.

    >>> ember.nn.RMSNorm(2)(ember.tensor([[3.0, 4.0]])).detach()
    tensor([[0.8485, 1.1314]])
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _normalized_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _parameter_or_none(self, "weight", self.normalized_shape, elementwise_affine, device,
                           dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}"
                .format(**self.__dict__))
