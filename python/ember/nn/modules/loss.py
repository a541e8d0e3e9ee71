"""The loss modules: each holds its reduction (and weight / ignore_index / ...) and calls
ember.nn.functional. Class weights are buffers, so they follow .to() and state_dict()."""
from .. import functional as F
from .module import Module
from .utils import _lazy_aliases

__all__ = ["L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = F._legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """mean |input - target| (or sum, or none).

    >>> ember.nn.L1Loss()(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.0]))
    tensor(1.)"""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """mean (input - target)^2 (or sum, or none).

    >>> ember.nn.MSELoss()(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.0]))
    tensor(2.)"""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """-input[n, target[n]] (weighted), input holding log-probabilities.

    >>> ember.nn.NLLLoss()(ember.tensor([[-1.0, -2.0], [-3.0, -0.5]]), ember.tensor([0, 1]))
    tensor(0.7500)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax + NLLLoss over raw scores; target: class indices or probabilities.

    >>> ember.nn.CrossEntropyLoss()(ember.tensor([[2.0, 0.0], [0.0, 2.0]]), ember.tensor([0, 1]))
    tensor(0.1269)"""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """-(t log x + (1 - t) log(1 - x)), x probabilities in [0, 1].

    >>> ember.nn.BCELoss()(ember.tensor([0.5, 0.5]), ember.tensor([1.0, 0.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """sigmoid + BCELoss in one numerically stable op; pos_weight weighs the positives.

    >>> ember.nn.BCEWithLogitsLoss()(ember.tensor([0.0]), ember.tensor([1.0]))
    tensor(0.6931)"""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


# torch's module of the same name holds these too; their files import this one, so they
# are looked up on first use.
__getattr__ = _lazy_aliases(__package__, {
    **{n: ".loss_regression" for n in (
        "SmoothL1Loss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss")},
    **{n: ".loss_margin" for n in (
        "SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
        "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginLoss",
        "TripletMarginWithDistanceLoss", "NLLLoss2d")},
    "CTCLoss": ".loss_ctc", "LinearCrossEntropyLoss": ".linear_cross_entropy"})
