"""torch.nn.functional's multi-class margin and triplet losses, and torch.pdist, as
compositions of ember ops (each formula is written next to its function).

multilabel_margin_loss compares every target class with every non-target class of a sample:
an (N, C, C) tensor of hinge terms, masked, in one broadcast (torch's kernel loops the same
C * C pairs). Re-exported by ember.nn.functional."""
from .. import _C
from .. import _creation as _cr
from .._index_grids import triu_indices as _triu_indices
from .._pointwise import _check_tensor
from .._dtype import float32, float64, int64, bfloat16, float16
from ._losses import _check_reduction, _reduce, pairwise_distance
from ._activations import logsigmoid
from ._reduction import legacy_reduction
from ..amp.autocast_mode import float32_op  # torch's CPU autocast float32 list

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "pdist"]


def _legacy(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    return reduction


def _as_matrix(name, input):
    """(C) -> (1, C), () -> (1, 1), (N, C) stays; anything else is torch's RuntimeError."""
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0) or (
            input.dim() == 1 and input.shape[0] == 0):
        raise RuntimeError(f"{name}: Expected non-empty vector or matrix with optional 0-dim "
                           f"batch size, but got: {list(input.shape)}")
    return input.reshape(-1, input.shape[-1] if input.dim() else 1)


def _check_long(name, target):
    if target.dtype != int64:
        raise RuntimeError(f"{name}: expected scalar type Long but found {target.dtype} (target "
                           f"of shape {list(target.shape)})")


@float32_op
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Per sample: sum over classes i != y of w[y] * max(0, margin - x[y] + x[i])^p / C.

    >>> x = ember.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> ember.nn.functional.multi_margin_loss(x, ember.tensor([3]))
    tensor(0.3250)
    """
    _check_tensor(input, "multi_margin_loss")
    _check_tensor(target, "multi_margin_loss", "target")
    reduction = _legacy(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = _as_matrix("multi_margin_loss", input)
    _check_long("multi_margin_loss", target)
    n, c = x.shape
    if target.numel() != n or target.dim() > 1:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           f"number of input samples (batch size). Expected target size [{n}], "
                           f"but got {list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"multi_margin_loss: inconsistent weight size, expected {c} but got "
                           f"{list(weight.shape)}")
    y = target.reshape(n, 1)
    if n and bool(((y < 0) | (y >= c)).any()):
        raise RuntimeError(f"multi_margin_loss: target out of range (targets must be in [0, {c}), "
                           f"got {target.tolist()})")
    x_y = x.gather(1, y)
    z = _C.clamp(margin - x_y + x, 0.0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.to(x.dtype).index_select(0, y.reshape(-1)).reshape(n, 1)
    not_y = _cr.arange(c).reshape(1, c) != y
    loss = _C.where(not_y, z, 0.0).sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


@float32_op
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """target holds class indices up to the first -1. Per sample: sum over target classes j
    and non-target classes i of max(0, 1 - (x[j] - x[i])) / C.

    >>> x = ember.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> ember.nn.functional.multilabel_margin_loss(x, ember.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    _check_tensor(input, "multilabel_margin_loss")
    _check_tensor(target, "multilabel_margin_loss", "target")
    reduction = _legacy(size_average, reduce, reduction)
    x = _as_matrix("multilabel_margin_loss", input)
    _check_long("multilabel_margin_loss", target)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: "
                           f"{list(target.shape)} for input of size: {list(input.shape)}")
    n, c = x.shape
    t = target.reshape(n, c)
    if t.numel() and bool(((t < -1) | (t >= c)).any()):
        raise RuntimeError("multilabel_margin_loss: argument #2 'target' is out of range "
                           f"(values must be in [-1, {c}), got {target.tolist()})")
    valid = (t != -1).to(int64).cumprod(1) != 0  # the entries before the first -1
    tc = _C.where(valid, t, 0)
    is_target = _cr.zeros((n, c), dtype=x.dtype).scatter_add(1, tc, valid.to(x.dtype)) > 0
    x_t = x.gather(1, tc)  # (N, C): the input at each listed target
    hinge = _C.clamp(1 - x_t.unsqueeze(2) + x.unsqueeze(1), 0.0)  # [n, j, i]
    mask = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = _C.where(mask, hinge, 0.0).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times weight, averaged over the class
    (last) dim.

    >>> target = ember.tensor([[1.0, 0.0]])
    >>> ember.nn.functional.multilabel_soft_margin_loss(ember.zeros(1, 2), target)
    tensor(0.6931)
    """
    _check_tensor(input, "multilabel_soft_margin_loss")
    _check_tensor(target, "multilabel_soft_margin_loss", "target")
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    return _reduce(loss, reduction)


def _check_triplet_dims(a, p, n, name="triplet_margin_loss"):
    for x, arg in ((a, "anchor"), (p, "positive"), (n, "negative")):
        _check_tensor(x, name, arg)
    if not (a.dim() == p.dim() == n.dim()):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a.dim()}D, positive "
                           f"{p.dim()}D, and negative {n.dim()}D inputs")


@float32_op
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)), d the pairwise p-norm distance (swap: d(a, n) is
    min(d(a, n), d(p, n))).

    >>> a, p, n = ember.zeros(1, 2), ember.tensor([[0.0, 1.0]]), ember.tensor([[0.0, 1.5]])
    >>> ember.nn.functional.triplet_margin_loss(a, p, n)
    tensor(0.5000)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet(anchor, positive, negative, margin, p, eps, swap, reduction)


def _triplet(anchor, positive, negative, margin, p, eps, swap, reduction):
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_C.clamp(margin + d_pos - d_neg, 0.0), reduction)


def triplet_margin_loss_aten(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                             reduction=0):
    """torch.triplet_margin_loss: the reduction as an int (0 none, 1 mean, 2 sum; omitted: 0, what
    torch's binding applies although its stubs say 1).

    >>> a, p, n = ember.tensor([[0.0, 0.0]]), ember.tensor([[0.0, 1.0]]), ember.tensor([[3.0, 4.0]])
    >>> ember.triplet_margin_loss(a, p, n, margin=5.0)
    tensor([1.0000])
    """
    if reduction not in (0, 1, 2):
        raise ValueError(f"triplet_margin_loss: reduction must be 0, 1 or 2, got {reduction}")
    return _triplet(anchor, positive, negative, margin, p, eps, swap,
                    ("none", "mean", "sum")[reduction])


triplet_margin_loss_aten.__name__ = triplet_margin_loss_aten.__qualname__ = "triplet_margin_loss"


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance (default: pairwise_distance).

    >>> a, p, n = ember.zeros(1, 2), ember.tensor([[0.0, 1.0]]), ember.tensor([[0.0, 1.5]])
    >>> ember.nn.functional.triplet_margin_with_distance_loss(a, p, n, margin=1.0)
    tensor(0.5000)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative, "triplet_margin_with_distance_loss")
    dist = pairwise_distance if distance_function is None else distance_function
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, dist(positive, negative))
    return _reduce(_C.clamp(margin + d_pos - d_neg, 0.0), reduction)


def pdist(input, p=2):
    """The p-norm distances between the rows of input (N, M), i < j, in row-major order:
    N * (N - 1) / 2 values. A zero distance has gradient 0 (as torch).

    >>> ember.nn.functional.pdist(ember.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    _check_tensor(input, "pdist")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input.dtype not in (float32, float64, bfloat16, float16):
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype}")
    if p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got p={p}")
    n = input.shape[0]
    ij = _triu_indices(n, n, 1)
    diff = input.index_select(0, ij[0]) - input.index_select(0, ij[1])
    if p == 0 or diff.numel() == 0:
        return diff.norm(p, 1)
    # |d|_p with a zero gradient where d = 0: rows equal to each other are not moved apart
    zero = (diff == 0).all(1, keepdim=True)
    safe = _C.where(zero, 1.0, diff)
    return _C.where(zero.squeeze(1), 0.0, safe.norm(p, 1))
