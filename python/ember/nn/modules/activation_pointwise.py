"""The pointwise activation layers beyond activation.py's (Softplus, ELU, ..., PReLU, RReLU;
GLU gates one half by the other): thin shells over the composites in ember.nn.functional, with
torch's constructor arguments, attributes and extra_repr (torch.nn.modules.activation)."""
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _empty

__all__ = ["Softplus", "ELU", "SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "LogSigmoid",
           "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "GLU", "PReLU",
           "RReLU"]


class _Inplace(Module):
    """A layer whose only argument is inplace."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    """Softplus(beta=1.0, threshold=20.0)

    log(1 + exp(beta * x)) / beta (linear above threshold).

    >>> ember.nn.Softplus()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.1269, 0.4741, 0.6931, 1.7014])"""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    """ELU(alpha=1.0, inplace=False)

    x where x > 0, alpha * (exp(x) - 1) elsewhere.

    >>> ember.nn.ELU()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.8647, -0.3935,  0.0000,  1.5000])"""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{', inplace=True' if self.inplace else ''}"


class CELU(ELU):
    """CELU(alpha=1.0, inplace=False)

    max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> ember.nn.CELU()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.8647, -0.3935,  0.0000,  1.5000])"""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_Inplace):
    """SELU(inplace=False)

    scale * ELU(x, alpha) with the self-normalising constants.

    >>> ember.nn.SELU()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-1.5202, -0.6918,  0.0000,  1.5761])"""

    def forward(self, input):
        return F.selu(input, self.inplace)


class Mish(_Inplace):
    """Mish(inplace=False)

    x * tanh(softplus(x)).

    >>> ember.nn.Mish()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.2525, -0.2207,  0.0000,  1.4034])"""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(_Inplace):
    """Hardswish(inplace=False)

    x * relu6(x + 3) / 6.

    >>> ember.nn.Hardswish()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.3333, -0.2083,  0.0000,  1.1250])"""

    def forward(self, input):
        return F.hardswish(input, self.inplace)

    def extra_repr(self):  # torch prints no arguments for these two
        return ""


class Hardsigmoid(_Inplace):
    """Hardsigmoid(inplace=False)

    relu6(x + 3) / 6.

    >>> ember.nn.Hardsigmoid()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([0.1667, 0.4167, 0.5000, 0.7500])"""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self):
        return ""


class LogSigmoid(Module):
    """LogSigmoid()

    log(sigmoid(x)), computed without overflow.

    >>> ember.nn.LogSigmoid()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-2.1269, -0.9741, -0.6931, -0.2014])"""

    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """Softsign()

    x / (1 + |x|).

    >>> ember.nn.Softsign()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-0.6667, -0.3333,  0.0000,  0.6000])"""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """Tanhshrink()

    x - tanh(x).

    >>> ember.nn.Tanhshrink()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-1.0360, -0.0379,  0.0000,  0.5949])"""

    def forward(self, input):
        return F.tanhshrink(input)


class Hardshrink(Module):
    """Hardshrink(lambd=0.5)

    x where |x| > lambd, 0 elsewhere.

    >>> ember.nn.Hardshrink()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-2.0000,  0.0000,  0.0000,  1.5000])"""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """Softshrink(lambd=0.5)

    x - lambd * sign(x) where |x| > lambd, 0 elsewhere.

    >>> ember.nn.Softshrink()(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([-1.5000, -0.0000,  0.0000,  1.0000])"""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    """Threshold(threshold, value, inplace=False)

    y = x where x > threshold, value elsewhere.

    >>> ember.nn.Threshold(0.1, 20.0)(ember.tensor([-2.0, -0.5, 0.0, 1.5]))
    tensor([20.0000, 20.0000, 20.0000,  1.5000])"""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class GLU(Module):
    """GLU(dim=-1)

    The first half of dim times the sigmoid of the second half.

    >>> ember.nn.GLU()(ember.tensor([1.0, 2.0, 0.0, 0.0]))
    tensor([0.5000, 1.0000])"""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PReLU(Module):
    """max(0, x) + weight * min(0, x); weight: one slope, or one per channel (dim 1).

    >>> ember.nn.PReLU()(ember.tensor([-2.0, 2.0])).detach()
    tensor([-0.5000,  2.0000])
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_empty((num_parameters,), device, dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: slope ~ U(lower, upper) for x <= 0 while training, the mean slope
    (lower + upper) / 2 in eval mode.

    >>> ember.nn.RReLU().eval()(ember.tensor([-3.0, 1.0]))
    tensor([-0.6875,  1.0000])
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")

