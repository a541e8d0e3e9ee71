"""CTCLoss (torch.nn.modules.loss.CTCLoss): holds blank, reduction and zero_infinity and calls
ember.nn.functional.ctc_loss (a C++ op: src/ops/ctc_loss.cpp)."""
from .. import functional as F
from .loss import _Loss

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """The Connectionist Temporal Classification loss of log_probs (T, N, C) against targets.

    >>> log_probs = ember.zeros(4, 1, 3).log_softmax(2)
    >>> ember.nn.CTCLoss()(log_probs, ember.tensor([[1, 2]]), [4], [2])
    tensor(0.8432)
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
