"""Activation layers: thin shells over ember.nn.functional."""
from ... import _C
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "LeakyReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "ReLU6", "Hardtanh",
           "Softmax", "Softmin", "LogSoftmax", "Softmax2d"]


class ReLU(Module):
    """ReLU(inplace=False)

    max(0, x), elementwise.

    >>> ember.nn.ReLU()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 0.0000, 1.5000])"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return input.relu_() if self.inplace else _C.relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """LeakyReLU(negative_slope=0.01, inplace=False)

    x where x >= 0, negative_slope * x elsewhere.

    >>> ember.nn.LeakyReLU()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.0200, -0.0050,  0.0000,  1.5000])"""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{', inplace=True' if self.inplace else ''}"


class GELU(Module):
    """x * Phi(x); approximate='tanh' uses the tanh approximation.

    >>> ember.nn.GELU()(ember.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return _C.gelu(input, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Tanh(Module):
    """Tanh()

    The hyperbolic tangent, elementwise.

    >>> ember.nn.Tanh()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.9640, -0.4621,  0.0000,  0.9051])"""

    def forward(self, input):
        return _C.tanh(input)


class Sigmoid(Module):
    """Sigmoid()

    1 / (1 + exp(-x)), elementwise.

    >>> ember.nn.Sigmoid()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.1192, 0.3775, 0.5000, 0.8176])"""

    def forward(self, input):
        return _C.sigmoid(input)


class SiLU(Module):
    """SiLU(inplace=False)

    x * sigmoid(x), elementwise.

    >>> ember.nn.SiLU()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.2384, -0.1888,  0.0000,  1.2264])"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardtanh(Module):
    """Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)

    x clamped to [min_val, max_val].

    >>> ember.nn.Hardtanh()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-1.0000, -0.5000,  0.0000,  1.0000])"""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """ReLU6(inplace=False)

    min(max(0, x), 6).

    >>> ember.nn.ReLU6()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 0.0000, 1.5000])"""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class _SoftmaxBase(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """Softmax(dim=None)

    exp(x) / sum(exp(x)) along dim.

    >>> ember.nn.Softmax(dim=0)(ember.tensor([1.0, 2.0, 3.0]))
    tensor([0.0900, 0.2447, 0.6652])"""

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmin(_SoftmaxBase):
    """Softmin(dim=None)

    softmax(-x) along dim.

    >>> ember.nn.Softmin(dim=0)(ember.tensor([1.0, 2.0, 3.0]))
    tensor([0.6652, 0.2447, 0.0900])"""

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """LogSoftmax(dim=None)

    log(softmax(x)) along dim, computed stably.

    >>> ember.nn.LogSoftmax(dim=0)(ember.tensor([1.0, 2.0, 3.0]))
    tensor([-2.4076, -1.4076, -0.4076])"""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) at every location of a (C, H, W) or (N, C, H, W)
    input.

    >>> ember.nn.Softmax2d()(ember.zeros(2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3)


# torch.nn.modules.activation holds these too: the same classes at torch's path (pickles name it).
from .activation_pointwise import (Softplus, ELU, SELU, CELU, Mish, Hardswish, Hardsigmoid,  # noqa: E402
                                   LogSigmoid, Softsign, Tanhshrink, Hardshrink, Softshrink,
                                   Threshold, GLU, PReLU, RReLU)
from .activation_attention import MultiheadAttention  # noqa: E402
