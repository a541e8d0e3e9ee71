"""embedding_bag: sums, means or maxima of bags of embedding rows, without building each
bag's rows separately. The bags (from offsets, or the rows of a 2-D input) become one
padded (B, L) index matrix with a validity mask; one embedding lookup of it and one masked
reduction over L give every bag at once."""
import warnings

from .. import _C
from .._creation import arange, full, ones, zeros
from .._dtype import float32, int64, int32
from .._grad_mode import no_grad

__all__ = ["embedding_bag"]  # embedding_bag_aten is torch.embedding_bag


def _bags(input, offsets, include_last_offset):
    """(index matrix (B, L), position matrix (B, L), mask (B, L)) of the bags of a 1-d
    input cut at offsets."""
    n = input.numel()
    offsets = offsets.to(int64)
    if offsets.numel() > 0:
        first, last = int(offsets[0]), int(offsets[-1])
        if first != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{first}")
        if last > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                               f"offsets[-1] of {last}")
    if include_last_offset:
        starts, ends = offsets[:-1], offsets[1:]
    else:
        starts = offsets
        ends = _C.cat([offsets[1:], full((min(offsets.numel(), 1),), n, dtype=int64)])
    lengths = ends - starts
    if lengths.numel() > 0 and bool((lengths < 0).any()):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got "
                           f"{offsets.tolist()}")
    width = int(lengths.max()) if lengths.numel() > 0 else 0
    steps = arange(width, dtype=int64)
    mask = steps.unsqueeze(0) < lengths.unsqueeze(1)
    pos = _C.clamp(starts.unsqueeze(1) + steps.unsqueeze(0), 0, max(n - 1, 0))
    return pos, mask


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """(B, embedding_dim): for each bag, the sum / mean / max of its rows of weight (the
    rows of padding_idx left out; an empty bag gives zeros). A 2-D input is B bags of equal
    length; a 1-d input is cut at offsets.

    >>> weight = ember.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> ember.nn.functional.embedding_bag(ember.tensor([[0, 2], [1, 2]]), weight)
    tensor([[1.0000, 1.0000],
            [1.5000, 1.5000]])
    """
    if weight.dtype == int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. "
                      "Usage `embedding_bag(weight, input, ...)` is deprecated, "
                      "and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             f"type {type(offsets)}")
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq=True is not supported by "
                                  "ember")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on GitHub.")
    if input.dtype not in (int64, int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.dtype} instead (while checking arguments for embedding_bag)")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                               f"through {num - 1}, but got {padding_idx}")
        padding_idx %= num
    flat = input.reshape(-1).to(int64)
    if flat.numel() > 0 and bool(((flat < 0) | (flat >= num)).any()):
        bad = int(((flat < 0) | (flat >= num)).long().argmax())
        raise RuntimeError(f"Index {bad} of input takes value {int(flat[bad])} which is not in "
                           f"the valid range [0, {num})")
    if max_norm is not None:
        from .functional import _embedding_renorm_
        _embedding_renorm_(weight, flat, max_norm, norm_type)
    if input.dim() == 2:
        idx = input.to(int64)
        mask = ones(tuple(input.shape), dtype=idx.dtype) > 0
        psw = per_sample_weights
    else:
        with no_grad():
            pos, mask = _bags(flat, offsets, include_last_offset)
        idx = flat[pos] if flat.numel() > 0 else zeros(tuple(pos.shape), dtype=int64)
        psw = None if per_sample_weights is None or flat.numel() == 0 else per_sample_weights[pos]
    if padding_idx is not None:
        mask = mask & (idx != padding_idx)
    rows = _C.embedding(idx, weight, None)  # (B, L, D)
    keep = mask.unsqueeze(-1)
    if mode == "max":
        rows = _C.where(keep, rows, float("-inf"))
        best = rows.amax(1) if rows.shape[1] > 0 else rows.sum(1)  # no rows: zeros
        return _C.where(keep.any(1), best, 0.0)
    if psw is not None:
        rows = rows * psw.to(weight.dtype).unsqueeze(-1)
    total = _C.where(keep, rows, 0.0).sum(1)
    if mode == "sum":
        return total
    count = mask.sum(1, True).to(weight.dtype)
    return total / _C.clamp(count, 1.0)


def embedding_bag_aten(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                       per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.embedding_bag (the aten op; note weight first, mode 0 sum / 1 mean / 2 max):
    (output, offset2bag, bag_size, max_indices) as torch's CPU kernel fills them: offset2bag is
    each index's bag (empty in float32 sum mode without padding_idx); bag_size the non-padding
    count per bag (zeros in sum mode: one per offset, or one per bag when autograd records);
    max_indices the weight row behind each maximum in max mode (mean mode: bag_size again; sum
    mode: zeros like bag_size).

    >>> w = ember.arange(6.0).reshape(3, 2)
    >>> ember.embedding_bag(w, ember.tensor([0, 2, 1]), ember.tensor([0, 2]))[0]
    tensor([[4., 6.],
            [2., 3.]])
    """
    for x, arg in ((weight, "weight"), (indices, "indices"), (offsets, "offsets")):
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"embedding_bag(): argument '{arg}' must be Tensor, not "
                            f"{type(x).__name__}")
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    recording = _C.is_grad_enabled() and (weight.requires_grad or (
        per_sample_weights is not None and per_sample_weights.requires_grad))
    out = embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                        ("sum", "mean", "max")[mode], sparse, per_sample_weights,
                        include_last_offset, padding_idx)
    with no_grad():
        flat = indices.reshape(-1).to(int64)
        pos, mask = _bags(flat, offsets, include_last_offset)
        nb = pos.shape[0]
        idx = flat[pos] if flat.numel() > 0 else zeros(tuple(pos.shape), dtype=int64)
        valid = mask if padding_idx is None else mask & (idx != padding_idx % weight.shape[0])
        if mode == 0 and padding_idx is None and weight.dtype == float32:
            offset2bag = zeros(0, dtype=int64)  # torch's float32 sum fast path fills none
        else:
            bag_ids = arange(nb, dtype=int64).unsqueeze(1).expand(tuple(pos.shape))
            offset2bag = zeros(flat.numel(), dtype=int64)
            if mask.numel() > 0:
                offset2bag = offset2bag.index_put_((pos[mask],), bag_ids[mask])
        if mode == 0:
            # torch's sum returns one zero per offset, or per bag when autograd records it
            m = nb if recording else offsets.numel()
            return out, offset2bag, zeros(m, dtype=int64), zeros(m, dtype=int64)
        bag_size = valid.sum(1).to(int64)
        if mode == 1:
            return out, offset2bag, bag_size, bag_size.clone()
        rows = _C.embedding(idx, weight.detach(), None)
        keep = valid.unsqueeze(-1)
        if rows.shape[1] == 0:
            return out, offset2bag, bag_size, zeros((nb, weight.shape[1]), dtype=int64)
        best = _C.where(keep, rows, float("-inf")).argmax(1)  # first maximum, as torch
        max_indices = idx.gather(1, best)
        max_indices = _C.where(keep.any(1), max_indices, 0)
    return out, offset2bag, bag_size, max_indices
