"""The activations that draw random numbers: rrelu (a random leaky slope per element while
training) and gumbel_softmax (softmax of logits plus Gumbel noise). Both are compositions of
ember ops; the noise comes from ember's generator (uniform_ / exponential_), so a seed
reproduces it, though not torch's stream. Re-exported by ember.nn.functional and ember."""
import warnings

from .. import _C
from .. import _creation as _cr
from .._dtype import float32, float64, bfloat16, float16
from .._grad_mode import no_grad
from .._pointwise import _check_tensor
from ._activations import _inplace

__all__ = ["rrelu", "rrelu_", "gumbel_softmax"]


def _rrelu_out(name, input, lower, upper, training, generator):
    _check_tensor(input, name)
    if input.dtype not in (float32, float64, bfloat16, float16):
        raise RuntimeError(f"{name}: not implemented for dtype {input.dtype} (expected a floating "
                           "point tensor)")
    if lower > upper:
        raise RuntimeError(f"{name}: Lower bound should be less than or equal to the upper bound "
                           f"(lower={lower}, upper={upper})")
    if not training:
        return lambda x: _C.leaky_relu(x, (lower + upper) / 2)

    def op(x):
        with no_grad():
            slope = _cr.empty_like(x).uniform_(lower, upper, generator=generator)
            slope = _C.where(x <= 0, slope, 1.0)  # torch draws for x <= 0, keeps x > 0
        return x * slope
    return op


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, generator=None):
    """x for x > 0, a * x otherwise; a ~ U(lower, upper) per element while training, else
    (lower + upper) / 2. The gradient is the slope used.

    >>> ember.nn.functional.rrelu(ember.tensor([-4.0, 2.0]))  # slope (1/8 + 1/3) / 2
    tensor([-0.9167,  2.0000])
    """
    op = _rrelu_out("rrelu", input, lower, upper, training, generator)
    return _inplace("rrelu_", input, op) if inplace else op(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu_(input, lower=1/8, upper=1/3, training=False, generator=None) -> Tensor

    In-place rrelu: overwrites input and returns it.

    >>> x = ember.tensor([-4.0, 2.0])
    >>> _ = ember.nn.functional.rrelu_(x); x
    tensor([-0.9167,  2.0000])
    """
    return rrelu(input, lower, upper, training, True, generator)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1); hard: the one-hot of its argmax in
    the forward, with the soft sample's gradient (straight-through).

    >>> y = ember.nn.functional.gumbel_softmax(ember.zeros(2, 3), hard=True)
    >>> y.sum(-1)
    tensor([1., 1.])
    """
    _check_tensor(logits, "gumbel_softmax", "logits")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    with no_grad():
        gumbels = -_cr.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _cr.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
