"""The margin, ranking and embedding loss modules of torch.nn.modules.loss (SoftMarginLoss,
MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss, MultiMarginLoss,
MultiLabelMarginLoss, MultiLabelSoftMarginLoss, TripletMarginLoss,
TripletMarginWithDistanceLoss) and the deprecated NLLLoss2d: each holds its
hyper-parameters and calls ember.nn.functional."""
import warnings

from .. import functional as F
from .loss import _Loss, _WeightedLoss, NLLLoss

__all__ = ["SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d"]


class SoftMarginLoss(_Loss):
    """log(1 + exp(-target * input)), target in {1, -1}.

    >>> ember.nn.SoftMarginLoss()(ember.tensor([0.0, 0.0]), ember.tensor([1.0, -1.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class _MarginLoss(_Loss):
    def __init__(self, margin, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """max(0, -target * (input1 - input2) + margin).

    >>> x1, x2 = ember.tensor([1.0, 2.0]), ember.tensor([2.0, 1.0])
    >>> ember.nn.MarginRankingLoss()(x1, x2, ember.tensor([1, 1]))
    tensor(0.5000)
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """input where target = 1, max(0, margin - input) where target = -1.

    >>> ember.nn.HingeEmbeddingLoss()(ember.tensor([0.2, 0.3]), ember.tensor([1, -1]))
    tensor(0.4500)
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """1 - cos(x1, x2) where target = 1, max(0, cos(x1, x2) - margin) where target = -1.

    >>> x1, x2 = ember.tensor([[1.0, 0.0], [1.0, 0.0]]), ember.tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> ember.nn.CosineEmbeddingLoss()(x1, x2, ember.tensor([1, -1]))
    tensor(0.8536)
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """sum over i != y of max(0, margin - x[y] + x[i])^p / C (weighted by weight[y]).

    >>> ember.nn.MultiMarginLoss()(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([3]))
    tensor(0.3250)
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Hinge between each target class (listed up to the first -1) and each other class.

    >>> x = ember.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> ember.nn.MultiLabelMarginLoss()(x, ember.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """One-versus-all logistic loss per class, averaged over the classes.

    >>> ember.nn.MultiLabelSoftMarginLoss()(ember.zeros(1, 2), ember.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, margin + d(a, p) - d(a, n)) with the pairwise p-norm distance.

    >>> a, p, n = ember.tensor([[0.0, 0.0]]), ember.tensor([[0.0, 1.0]]), ember.tensor([[3.0, 4.0]])
    >>> ember.nn.TripletMarginLoss(margin=1.0)(a, p, n)
    tensor(0.)
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """TripletMarginLoss with any distance function (default: pairwise_distance).

    >>> a, p, n = ember.tensor([[0.0, 0.0]]), ember.tensor([[0.0, 1.0]]), ember.tensor([[0.0, 1.5]])
    >>> ember.nn.TripletMarginWithDistanceLoss(margin=1.0)(a, p, n)
    tensor(0.5000)
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None \
            else F.pairwise_distance
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss (which takes (N, C, H, W) input itself).

    >>> ember.nn.NLLLoss2d()(ember.zeros(1, 2, 1, 1), ember.tensor([[[1]]]))
    tensor(0.)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("NLLLoss2d has been deprecated. Please use NLLLoss instead as a drop-in "
                      "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss "
                      "for more details.", stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
