"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d over F.interpolate."""
from .. import _padding_conv as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resamples (N, C, *spatial) to `size` or by `scale_factor` (see F.interpolate).

    >>> ember.nn.Upsample(scale_factor=2)(ember.ones(1, 1, 2, 2)).shape
    ember.Size([1, 1, 4, 4])"""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """UpsamplingNearest2d(size=None, scale_factor=None)

    Nearest-neighbour upsampling of (N, C, H, W) (torch's deprecated form of F.interpolate).

    >>> ember.nn.UpsamplingNearest2d(scale_factor=2)(ember.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[1., 1., 2., 2.],
              [1., 1., 2., 2.]]]])
    """
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """UpsamplingBilinear2d(size=None, scale_factor=None)

    Bilinear upsampling of (N, C, H, W) with align_corners=True (torch's deprecated form of
    F.interpolate).

    >>> ember.nn.UpsamplingBilinear2d(scale_factor=2)(ember.tensor([[[[0.0, 3.0]]]]))
    tensor([[[[0., 1., 2., 3.],
              [0., 1., 2., 3.]]]])
    """
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
