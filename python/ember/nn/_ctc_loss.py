"""The Connectionist Temporal Classification loss: F.ctc_loss and torch.ctc_loss.

The per-sample negative log-likelihoods and their gradient are one C++ op
(src/ops/ctc_loss.cpp: the alpha / beta recursions in log space); this file maps torch's
arguments onto it (lengths as tensors, lists or tuples; unbatched (T, C) input) and reduces:
'mean' divides each sample's loss by its target length (at least 1), then averages."""
from .. import _C
from .. import _creation as _cr
from .._dtype import bool as _bool

__all__ = ["ctc_loss"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _lengths(v, name):
    if hasattr(v, "dim"):
        if v.is_floating_point() or v.dtype == _bool:
            raise RuntimeError(f"ctc_loss: {name} must be integers, but got a tensor of dtype "
                               f"{v.dtype}")
        if v.dim() > 1:
            raise RuntimeError(f"ctc_loss: {name} must be a 0-d or 1-d tensor, but got shape "
                               f"{list(v.shape)}")
        return [int(x) for x in v.reshape(-1).tolist()]
    if isinstance(v, int):
        return [v]
    try:
        return [int(x) for x in v]
    except TypeError:
        raise TypeError(f"ctc_loss: {name} must be a tensor or a sequence of ints, got "
                        f"{type(v).__name__}") from None


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    if not hasattr(log_probs, "dim") or not hasattr(targets, "dim"):
        raise TypeError("ctc_loss: log_probs and targets must be tensors, got "
                        f"{type(log_probs).__name__} and {type(targets).__name__}")
    batched = log_probs.dim() == 3
    if not batched and log_probs.dim() != 2:
        raise RuntimeError("ctc_loss: expected log_probs of shape (T, N, C) or (T, C), but got "
                           f"shape {list(log_probs.shape)}")
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if not batched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    loss = _C.ctc_loss_per_sample(log_probs, targets, il, tl, int(blank), bool(zero_infinity))
    if reduction == 1:
        tlt = _cr.tensor(tl, dtype=loss.dtype).clamp(min=1)
        return (loss / tlt).mean()
    if reduction == 2:
        return loss.sum()
    return loss if batched else loss.squeeze(0)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """log_probs (T, N, C) (log_softmax output), targets (N, S) padded or 1-d concatenated,
    lengths per sample; reduction 'none' | 'mean' | 'sum'.

    >>> log_probs = ember.zeros(4, 1, 3).log_softmax(2)
    >>> ember.nn.functional.ctc_loss(log_probs, ember.tensor([[1, 2]]), [4], [2])
    tensor(0.8432)
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank,
                _REDUCTIONS[reduction], zero_infinity)


def ctc_loss_aten(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
                  zero_infinity=False):
    """torch.ctc_loss: F.ctc_loss with the reduction as an int (0 none, 1 mean, 2 sum; omitted:
    0, what torch's binding applies although its stubs say 1).

    >>> log_probs = ember.full((2, 1, 2), 0.5).log()
    >>> ember.ctc_loss(log_probs, ember.tensor([[1]]), [2], [1], reduction=2)
    tensor(0.2877)
    """
    if reduction not in (0, 1, 2):
        raise ValueError(f"ctc_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got "
                         f"{reduction}")
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                zero_infinity)


ctc_loss_aten.__name__ = ctc_loss_aten.__qualname__ = "ctc_loss"
