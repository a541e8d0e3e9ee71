"""torch.nn.modules.distance's path for CosineSimilarity and PairwiseDistance (defined in
loss_regression.py), so that a pickle naming torch.nn.modules.distance.* finds them."""
from .loss_regression import CosineSimilarity, PairwiseDistance  # noqa: F401

__all__ = ["CosineSimilarity", "PairwiseDistance"]
