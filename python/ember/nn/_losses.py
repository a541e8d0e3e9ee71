"""torch.nn.functional's remaining losses and distances, as compositions of ember ops.

Each loss computes torch's elementwise formula (written next to it) and reduces it with
`_reduce`; the deprecated size_average / reduce flags map to a reduction through
functional._legacy_reduction, as for the C++ losses. Re-exported by ember.nn.functional."""
import math
import warnings

from .. import _C
from .._dtype import float32, float64, bfloat16, float16
from .._grad_mode import no_grad
from ._activations import softplus
from ._reduction import legacy_reduction
from ..amp.autocast_mode import float32_op  # torch's CPU autocast float32 list

__all__ = [
    "smooth_l1_loss", "huber_loss", "kl_div", "soft_margin_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "cosine_similarity", "pairwise_distance",
]


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    """'none' | 'mean' | 'sum' (the mean of an empty loss is NaN, as in torch)."""
    _check_reduction(reduction)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _size_warning(input, target):
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _sizes(t):
    return list(t.shape)


# ---- regression --------------------------------------------------------------------------------
@float32_op
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """z = |input - target|: 0.5 z^2 / beta where z < beta, else z - 0.5 beta (beta = 0: z).

    >>> ember.nn.functional.smooth_l1_loss(ember.tensor([0.0, 3.0]), ember.tensor([0.5, 0.0]))
    tensor(1.3125)
    """
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    z = (input - target).abs()
    if beta == 0.0:
        return _reduce(z, reduction)
    return _reduce(_C.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


@float32_op
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """z = |input - target|: 0.5 z^2 where z < delta, else delta (z - 0.5 delta). With weight,
    the weighted loss's plain mean (torch divides by numel here, not by weight.sum()).

    >>> ember.nn.functional.huber_loss(ember.tensor([0.0, 3.0]), ember.tensor([0.5, 0.0]))
    tensor(1.3125)
    """
    _size_warning(input, target)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    z = (input - target).abs()
    loss = _C.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        loss = loss * weight
    return _reduce(loss, reduction)


@float32_op
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); full
    adds Stirling's target * log(target) - target + 0.5 log(2 pi target) where target > 1.

    >>> ember.nn.functional.poisson_nll_loss(ember.tensor([0.0, 1.0]), ember.tensor([1.0, 2.0]))
    tensor(0.8591)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    if log_input:
        loss = _C.exp(input) - target * input
    else:
        loss = input - target * _C.log(input + eps)
    if full:
        small = target <= 1
        t = _C.where(small, 1.0, target)  # log(0) would put NaN into the (masked) gradient
        stirling = t * _C.log(t) - t + 0.5 * _C.log(2 * math.pi * t)
        loss = loss + stirling.masked_fill(small, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) if full), var clamped to eps
    without stopping its gradient. var may be a float, input's shape, input's shape without its
    last dim, or input's shape with one dim of size 1.

    >>> x, target = ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.0])
    >>> ember.nn.functional.gaussian_nll_loss(x, target, ember.ones(2))
    tensor(1.)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_full(tuple(input.shape), var)
    elif not hasattr(var, "dim"):  # torch takes a float or a Tensor, nothing else
        raise TypeError(f"gaussian_nll_loss: var must be a Tensor or a float, got "
                        f"{type(var).__name__}")
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape)[:-1] == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass  # one dim of var is 1: broadcast (heteroscedastic per-feature variance)
        else:
            raise ValueError(f"gaussian_nll_loss: var is of incorrect size: input "
                             f"{_sizes(input)}, var {_sizes(var)}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)  # in place on a clone under no_grad: the gradient flows unclamped
    loss = 0.5 * (_C.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@float32_op
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || exp(input)) pointwise: target * (log(target) - input), 0 where target = 0
    (log_target: exp(target) * (target - input)). 'batchmean' divides the sum by input.size(0).

    >>> log_p = ember.tensor([[0.5, 0.5]]).log()
    >>> ember.nn.functional.kl_div(log_p, ember.tensor([[0.25, 0.75]]), reduction="batchmean")
    tensor(0.1308)
    """
    if size_average is not None or reduce is not None:
        mode = legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        mode = "sum" if reduction == "batchmean" else reduction
    _check_reduction(mode)
    _broadcast_shape("kl_div", input.shape, target.shape)
    if log_target:
        loss = _C.exp(target) * (target - input)
    else:
        zero = target == 0
        safe = _C.where(zero, 1.0, target)  # xlogy(t, t): 0 at t = 0 with a finite gradient
        loss = target * _C.log(safe) - target * input
    reduced = _reduce(loss, mode)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size(0)
    return reduced


# ---- margins -----------------------------------------------------------------------------------
@float32_op
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), through softplus so that it cannot overflow.

    >>> ember.nn.functional.soft_margin_loss(ember.zeros(2), ember.tensor([1.0, -1.0]))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    return _reduce(softplus(-target * input), reduction)


@float32_op
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin).

    >>> x1, x2 = ember.tensor([1.0, 2.0]), ember.tensor([2.0, 1.0])
    >>> ember.nn.functional.margin_ranking_loss(x1, x2, ember.tensor([1, 1]))
    tensor(0.5000)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    return _reduce(_C.clamp(-target * (input1 - input2) + margin, 0.0), reduction)


@float32_op
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """max(0, margin - input) where target != 1, plus input where target != -1 (so, for
    targets in {1, -1}: input for 1, max(0, margin - input) for -1).

    >>> x, target = ember.tensor([0.2, 0.3]), ember.tensor([1, -1])
    >>> ember.nn.functional.hinge_embedding_loss(x, target)
    tensor(0.4500)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    _broadcast_shape("hinge_embedding_loss", input.shape, target.shape)
    margin_clamp = _C.clamp(margin - input, 0.0)
    loss = _C.where(target != 1, margin_clamp, 0.0) + _C.where(target != -1, input, 0.0)
    return _reduce(loss, reduction)


@float32_op
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target = 1, max(0, cos - margin) where target = -1; cos
    over the last dim, with 1e-12 added to each squared norm (torch's formula).

    >>> x1, x2 = ember.tensor([[1.0, 0.0]]), ember.tensor([[1.0, 1.0]])
    >>> ember.nn.functional.cosine_embedding_loss(x1, x2, ember.tensor([1]))
    tensor(0.2929)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    tdim = target.dim()
    if tdim not in (0, 1):
        raise RuntimeError("cosine_embedding_loss: 0D or 1D target tensor expected, "
                           "multi-target not supported")
    if input1.dim() != tdim + 1 or input2.dim() != tdim + 1:
        raise RuntimeError(f"cosine_embedding_loss: {tdim}D target tensor expects "
                           f"{tdim + 1}D input tensors, but found inputs with sizes "
                           f"{_sizes(input1)} and {_sizes(input2)}.")
    eps = 1e-12
    prod = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + eps
    mag2 = (input2 * input2).sum(tdim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    pos = _C.where(target == 1, 1 - cos, 0.0)
    neg = _C.where(target == -1, _C.clamp(cos - margin, 0.0), 0.0)
    return _reduce(pos + neg, reduction)


# ---- distances ---------------------------------------------------------------------------------
def _broadcast_shape(name, a, b):
    """The shape a and b broadcast to (shape arithmetic only), or torch's RuntimeError."""
    a0, b0 = a, b
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"{name}: The size of tensor a ({x}) must match the size of "
                               f"tensor b ({y}) at non-singleton dimension {i} (shapes "
                               f"{tuple(a0)} and {tuple(b0)})")
        out.append(y if x == 1 else x)
    return tuple(out)


def _clamped_norm(x, dim, eps):
    """||x||_2 along dim (kept), clamped to eps in value only: as torch, the clamp is applied
    in place under no_grad, so the gradient is the plain norm's."""
    n = x.norm(2, dim, True).clone()
    with no_grad():
        n.clamp_(min=eps)
    return n


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim, after broadcasting.
    Normalizing first keeps the result in [-1, 1] and avoids overflow in <x1, x2>.

    >>> a, b = ember.tensor([[1.0, 0.0], [1.0, 1.0]]), ember.tensor([[0.0, 1.0], [2.0, 2.0]])
    >>> ember.nn.functional.cosine_similarity(a, b)
    tensor([0.0000, 1.0000])
    """
    common = _C.promote_types(x1.dtype, x2.dtype)
    if common not in (float32, float64, bfloat16, float16):
        raise RuntimeError(f"cosine_similarity: expected common dtype to be floating point, yet "
                           f"common dtype is {common}")
    x1, x2 = x1.to(common), x2.to(common)
    shape = _broadcast_shape("cosine_similarity", x1.shape, x2.shape)
    x1, x2 = x1.expand(shape), x2.expand(shape)
    return ((x1 / _clamped_norm(x1, dim, eps)) * (x2 / _clamped_norm(x2, dim, eps))).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) -> Tensor

    ||x1 - x2 + eps||_p over the last dim (eps keeps the gradient finite at x1 = x2).

    >>> a, b = ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]])
    >>> ember.nn.functional.pairwise_distance(a, b)
    tensor([5.0000])
    """
    _broadcast_shape("pairwise_distance", x1.shape, x2.shape)
    dim = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, dim, keepdim)
