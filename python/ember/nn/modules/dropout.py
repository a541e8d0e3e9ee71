"""Dropout and its channel-wise and alpha forms: zero (or saturate) elements or whole
channels with probability p in training mode; identity in eval mode."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Dropout(p=0.5, inplace=False)

    Zeroes elements with probability p while training and scales the rest by 1 / (1 - p);
    the identity in eval mode.

    >>> ember.nn.Dropout(0.5).eval()(ember.ones(3))
    tensor([1., 1., 1.])"""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L).

    >>> ember.nn.Dropout1d(0.5).eval()(ember.ones(1, 2, 3)).shape
    ember.Size([1, 2, 3])
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W); a 3-d input is read as (N, C, L), as torch.

    >>> m = ember.nn.Dropout2d(0.5)
    >>> y = m(ember.ones(1, 8, 2, 2))
    >>> sorted(set(y.flatten().tolist()))
    [0.0, 2.0]
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W).

    >>> ember.nn.Dropout3d(0.5).eval()(ember.ones(1, 2, 1, 1, 1)).flatten()
    tensor([1., 1.])
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks (inplace is accepted and ignored, as in torch).

    >>> ember.nn.AlphaDropout(0.5).eval()(ember.tensor([1.0, -1.0]))
    tensor([ 1., -1.])
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (inplace is accepted and ignored, as in torch).

    >>> ember.nn.FeatureAlphaDropout(0.5).eval()(ember.tensor([[1.0, -1.0]]))
    tensor([[ 1., -1.]])
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
