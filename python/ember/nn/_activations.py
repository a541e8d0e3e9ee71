"""torch.nn.functional's remaining activations, as compositions of ember ops.

Composites get autograd (and double backward) from the ops they use. Two rules keep them
equal to torch's fused kernels:
- a branch that `where` does not select still runs its backward (with a zero gradient), and
  0 * inf = NaN; so the input of exp/expm1 in such a branch is first made safe with `where`.
- at a kink, the gradient is the one torch's kernel defines (noted at each function).
Re-exported by ember.nn.functional."""
from .. import _C
from .._dtype import float32, float64, bfloat16, float16

__all__ = [
    "softplus", "elu", "elu_", "selu", "selu_", "celu", "celu_", "mish", "hardswish",
    "hardsigmoid", "logsigmoid", "softsign", "tanhshrink", "hardshrink", "softshrink",
    "threshold", "threshold_", "glu", "prelu",
]

# SELU's constants (Klambauer et al. 2017), as torch spells them.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_float(name, input):
    """torch's kernels for these are defined for floating dtypes only."""
    if input.dtype not in (float32, float64, bfloat16, float16):
        raise NotImplementedError(f"{name}: not implemented for dtype {input.dtype} (expected a "
                                  "floating point tensor)")


def _inplace(name, input, op):
    """Runs op(input) and writes the result back into input, as torch's in-place variants do.
    With autograd, op sees a copy so the tensor it saves for backward is not overwritten."""
    recording = input.requires_grad and _C.is_grad_enabled()
    if recording and input.is_leaf:
        raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    input.copy_(op(input.clone() if recording else input))
    return input


def _maybe_inplace(name, input, inplace, op):
    return _inplace(name + "_", input, op) if inplace else op(input)


# ---- smooth rectifiers ----------------------------------------------------------------------
def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold (the two agree to
    float precision there). Gradient: sigmoid(beta * x), or 1 above the threshold.

    >>> ember.nn.functional.softplus(ember.tensor([0.0, 30.0]))
    tensor([ 0.6931, 30.0000])
    """
    _check_float("softplus", input)
    return _C.softplus(input, beta, threshold)


def logsigmoid(input):
    """log(sigmoid(x)) = -softplus(-x): exact for large |x| (x itself below -20, or -40 in
    float64, where log1p(exp(x)) is below half an ulp of x; ~-exp(-x) above).

    >>> ember.nn.functional.logsigmoid(ember.tensor([0.0, -100.0]))
    tensor([  -0.6931, -100.0000])
    """
    _check_float("log_sigmoid", input)
    return -_C.softplus(-input, 1.0, 40.0 if input.dtype == float64 else 20.0)


def mish(input, inplace=False):
    """x * tanh(softplus(x)).

    >>> ember.nn.functional.mish(ember.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.3034,  0.0000,  0.8651])
    """
    _check_float("mish", input)
    return _maybe_inplace("mish", input, inplace, lambda x: x * _C.tanh(softplus(x)))


def _expm1_exp_grad(x):
    """expm1(x) whose gradient is exp(x), as torch's elu kernel computes it: expm1's own
    backward, result + 1, rounds to 0 for x below about -17 in float32. The added term is
    a - a = 0 exactly in value and carries exp's gradient (and its double backward).
    x <= 0 here, so exp(x) is finite and a - a cannot be inf - inf."""
    if not (x.requires_grad and _C.is_grad_enabled()):
        return _C.expm1(x)
    e = _C.exp(x)
    return _C.expm1(x.detach()) + (e - e.detach())


def _elu(input, alpha, scale, input_scale):
    """torch's elu kernel: scale * x for x > 0, alpha * scale * expm1(x * input_scale) for
    x <= 0. At x = 0 the gradient is the left one, alpha * scale * input_scale."""
    positive = input > 0
    negative = _C.where(positive, 0.0, input)  # expm1 of a large x would overflow: keep it out
    return _C.where(positive, input * scale,
                    _expm1_exp_grad(negative * input_scale) * (alpha * scale))


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    >>> ember.nn.functional.elu(ember.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.6321,  0.0000,  2.0000])
    """
    _check_float("elu", input)
    return _maybe_inplace("elu", input, inplace, lambda x: _elu(x, alpha, 1.0, 1.0))


def elu_(input, alpha=1.0):
    """elu_(input, alpha=1.0) -> Tensor

    In-place elu: input becomes x for x > 0, alpha * (exp(x) - 1) otherwise.

    >>> x = ember.tensor([-1.0, 2.0])
    >>> ember.nn.functional.elu_(x) is x, x
    (True, tensor([-0.6321,  2.0000]))
    """
    return elu(input, alpha, True)


def selu(input, inplace=False):
    """selu(input, inplace=False) -> Tensor

    scale * elu(x, alpha) with the self-normalizing constants (alpha ~ 1.6733, scale ~ 1.0507).

    >>> ember.nn.functional.selu(ember.tensor([-1.0, 0.0, 1.0]))
    tensor([-1.1113,  0.0000,  1.0507])
    """
    _check_float("selu", input)
    return _maybe_inplace("selu", input, inplace,
                          lambda x: _elu(x, _SELU_ALPHA, _SELU_SCALE, 1.0))


def selu_(input):
    """selu_(input) -> Tensor

    In-place selu: overwrites input and returns it.

    >>> x = ember.tensor([-1.0, 0.0, 1.0])
    >>> _ = ember.nn.functional.selu_(x); x
    tensor([-1.1113,  0.0000,  1.0507])
    """
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """celu(input, alpha=1.0, inplace=False) -> Tensor

    max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise.

    >>> ember.nn.functional.celu(ember.tensor([-1.0, 0.0, 1.0]), alpha=2.0)
    tensor([-0.7869,  0.0000,  1.0000])
    """
    _check_float("celu", input)
    if alpha == 0:
        raise RuntimeError("celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace("celu", input, inplace, lambda x: _elu(x, alpha, 1.0, 1.0 / alpha))


def celu_(input, alpha=1.0):
    """celu_(input, alpha=1.0) -> Tensor

    In-place celu: overwrites input and returns it.

    >>> x = ember.tensor([-1.0, 0.0, 1.0])
    >>> _ = ember.nn.functional.celu_(x); x
    tensor([-0.6321,  0.0000,  1.0000])
    """
    return celu(input, alpha, True)


# ---- piecewise linear ---------------------------------------------------------------------
def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6.

    >>> ember.nn.functional.hardswish(ember.tensor([-3.0, 0.0, 1.5, 3.0]))
    tensor([-0.0000, 0.0000, 1.1250, 3.0000])
    """
    _check_float("hardswish", input)
    return _maybe_inplace("hardswish", input, inplace, _C.hardswish)


def _hardsigmoid(x):
    # torch's gradient is 1/6 only strictly inside (-3, 3): outside, the (detached) clamped
    # value gives 0 or 1 (NaN stays NaN) with no gradient.
    inside = (x > -3.0).logical_and(x < 3.0)
    return _C.where(inside, (x + 3.0) / 6.0, _C.clamp(x.detach() + 3.0, 0.0, 6.0) / 6.0)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6.

    >>> ember.nn.functional.hardsigmoid(ember.tensor([-3.0, 0.0, 1.5, 3.0]))
    tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    _check_float("hardsigmoid", input)
    return _maybe_inplace("hardsigmoid", input, inplace, _hardsigmoid)


def softsign(input):
    """x / (1 + |x|).

    >>> ember.nn.functional.softsign(ember.tensor([-1.0, 0.0, 3.0]))
    tensor([-0.5000,  0.0000,  0.7500])
    """
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x).

    >>> ember.nn.functional.tanhshrink(ember.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    return input - _C.tanh(input)


def hardshrink(input, lambd=0.5):
    """hardshrink(input, lambd=0.5) -> Tensor

    x where |x| > lambd, else 0 (gradient 0 on [-lambd, lambd], bounds included).

    >>> ember.nn.functional.hardshrink(ember.tensor([-1.0, -0.3, 0.5, 2.0]))
    tensor([-1.,  0.,  0.,  2.])
    """
    _check_float("hardshrink", input)
    return input.masked_fill((input >= -lambd).logical_and(input <= lambd), 0.0)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (x * 0 keeps NaN).

    >>> ember.nn.functional.softshrink(ember.tensor([-1.0, 0.2, 2.0]))
    tensor([-0.5000,  0.0000,  1.5000])
    """
    _check_float("softshrink", input)
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found to be "
                           f"{lambd}")
    return _C.where(input > lambd, input - lambd,
                    _C.where(input < -lambd, input + lambd, input * 0))


def _threshold(x, threshold, value):
    return x.masked_fill(x <= threshold, value)  # keeps x's dtype; gradient 0 where replaced


def threshold(input, threshold, value, inplace=False):
    """threshold(input, threshold, value, inplace=False) -> Tensor

    x where x > threshold, else value.

    >>> ember.nn.functional.threshold(ember.tensor([-1.0, 0.5, 2.0]), 1.0, 0.0)
    tensor([0., 0., 2.])
    """
    return _maybe_inplace("threshold", input, inplace, lambda x: _threshold(x, threshold, value))


def threshold_(input, threshold, value):
    """threshold_(input, threshold, value) -> Tensor

    In-place threshold: overwrites input and returns it.

    >>> x = ember.tensor([-1.0, 0.5, 2.0])
    >>> _ = ember.nn.functional.threshold_(x, 1.0, 0.0); x
    tensor([0., 0., 2.])
    """
    return _inplace("threshold_", input, lambda x: _threshold(x, threshold, value))


# ---- gated and parametric -----------------------------------------------------------------
def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of input along dim.

    >>> ember.nn.functional.glu(ember.tensor([1.0, 2.0, 0.0, 0.0]))
    tensor([0.5000, 1.0000])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    _check_float("glu", input)
    size = input.size(dim)
    if size % 2:
        d = dim + input.dim() if dim < 0 else dim
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {d} is size "
                           f"{size}")
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


def prelu(input, weight):
    """prelu(input, weight) -> Tensor

    x for x > 0, weight * x otherwise; weight has 1 or C (= input.size(1)) entries.
    At x = 0 the input's gradient is weight's, as in torch.

    >>> ember.nn.functional.prelu(ember.tensor([[-2.0, 1.0], [-1.0, 3.0]]), ember.tensor([0.25]))
    tensor([[-0.5000,  1.0000],
            [-0.2500,  3.0000]])
    """
    _check_float("prelu", input)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype} and "
                           f"{weight.dtype}")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("prelu: Not allow zero-dim input tensor.")
        channels = input.size(1) if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError("prelu: Mismatch of parameter numbers and input channel size. "
                               f"Found parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _C.where(input > 0, input, weight * input)
