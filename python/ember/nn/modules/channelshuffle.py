"""ChannelShuffle: interleaves the channels of `groups` groups (ShuffleNet)."""
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """ChannelShuffle(groups)

    Splits the channels (dim 1) into `groups` groups and interleaves them
    (torch.nn.ChannelShuffle).

    >>> ember.nn.ChannelShuffle(2)(ember.arange(4.0).reshape(1, 4, 1, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """
    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
