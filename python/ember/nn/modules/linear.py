"""Identity and Linear."""
import math

from .. import init
from ..functional import linear as _functional_linear
from ..parameter import Parameter
from .module import Module
from .utils import _lazy_aliases, _empty, _parameter_or_none

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments.

    >>> ember.nn.Identity()(ember.tensor([1.0, 2.0]))
    tensor([1., 2.])"""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ weight.T + bias, weight (out_features, in_features). PyTorch's init:
    weight ~ kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(in), 1/sqrt(in)), bias the same.

    >>> ember.nn.Linear(3, 2)(ember.randn(4, 3)).shape
    ember.Size([4, 2])"""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in_features), device, dtype))
        _parameter_or_none(self, "bias", (out_features,), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return _functional_linear(input, self.weight, self.bias)  # sparse inputs too

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b, weight A (out_features, in1_features, in2_features). torch's init:
    weight and bias ~ U(-1/sqrt(in1_features), 1/sqrt(in1_features)).

    >>> ember.nn.Bilinear(3, 4, 2)(ember.randn(5, 3), ember.randn(5, 4)).shape
    ember.Size([5, 2])"""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in1_features, in2_features), device, dtype))
        _parameter_or_none(self, "bias", (out_features,), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        from .. import functional as F
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


# torch's module of the same name holds these too; their files import this one, so they
# are looked up on first use.
__getattr__ = _lazy_aliases(__package__, {"NonDynamicallyQuantizableLinear": ".activation_attention",
                                          "LazyLinear": ".lazy"})
