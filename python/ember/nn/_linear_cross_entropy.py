"""F.linear_cross_entropy: cross entropy of linear(input, linear_weight, linear_bias), with
torch's shape rules (a K-dimensional loss when linear_weight is (C, d1, ..., dK, in)).

torch's `options` (LinearCrossEntropyOptions) select a chunked implementation that saves
memory on large vocabularies; ember validates and accepts them and computes the reference
path (same values and gradients), noted in docs/nn.md. Re-exported by ember.nn.functional."""
import math
import warnings

from .. import _C
from .._dtype import int64
from .._pointwise import _check_tensor

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...).

    >>> x, w = ember.tensor([[1.0, 0.0]]), ember.tensor([[0.0, 0.0], [0.0, 0.0]])
    >>> ember.nn.functional.linear_cross_entropy(x, w, ember.tensor([1]))
    tensor(0.6931)
    """
    from . import functional as F
    for x, arg in ((input, "input"), (linear_weight, "linear_weight"), (target, "target")):
        _check_tensor(x, "linear_cross_entropy", arg)
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and (out_features or label_smoothing != 0.0
                                or target.dtype != int64):
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs "
                      "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype "
                      f"== int64, out_features == (). Got reduction={reduction!r}, "
                      f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}", stacklevel=2)
    rows = math.prod(out_features) * num_classes
    w2 = linear_weight.reshape(rows, in_features) if out_features else linear_weight
    b2 = linear_bias.reshape(rows) if linear_bias is not None and out_features else linear_bias
    logits = _C.linear(input, w2, b2).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=ignore_index, label_smoothing=label_smoothing)
