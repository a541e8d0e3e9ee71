"""torch.nn.modules.distance: CosineSimilarity and PairwiseDistance over the composites in
ember.nn.functional."""
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """CosineSimilarity(dim=1, eps=1e-08)

    The cosine of the angle between x1 and x2 along dim.

    >>> ember.nn.CosineSimilarity(dim=0)(ember.tensor([1.0, 0.0]), ember.tensor([1.0, 1.0]))
    tensor(0.7071)"""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """PairwiseDistance(p=2.0, eps=1e-06, keepdim=False)

    The p-norm of x1 - x2 + eps along the last dim.

    >>> ember.nn.PairwiseDistance()(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]]))
    tensor([5.0000])"""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim  # torch names the p attribute norm

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
