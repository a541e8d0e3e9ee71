"""AdaptiveLogSoftmaxWithLoss (Grave et al., "Efficient softmax approximation for GPUs"): a
head softmax over the frequent classes plus one entry per cluster of rare classes, each
cluster with its own low-rank projection. Loops run over the clusters (a handful), never
over samples or classes."""
from collections import namedtuple

from ... import _C
from ... import _creation as _cr
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """forward(input (N, in) or (in), target (N) or ()) -> (output: the target's log-probability
    per sample, loss: the mean negative log-likelihood); log_prob(input) -> (N, n_classes);
    predict(input) -> the most probable class.

    >>> m = ember.nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[2])
    >>> out = m(ember.ones(3, 4), ember.tensor([0, 3, 5]))
    >>> out.output.shape, out.loss.shape
    (ember.Size([3]), ember.Size([]))
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in "
                             "an increasing order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                        Linear(hsz, osz, bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        tdim = target_.dim()
        if tdim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tdim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.size(0)
        in_range = (target >= 0) & (target < self.n_classes)
        if n and not bool(in_range.all()):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values "
                               f"in range [{target.min().item()}, {target.max().item()}] were "
                               "found. ")
        output = _cr.zeros(n, dtype=input.dtype)
        gather_inds = target
        for i in range(1, len(self.cutoffs)):
            low, high = self.cutoffs[i - 1], self.cutoffs[i]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            relative = target.index_select(0, rows) - low
            logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            local = logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
            output = output.index_add(0, rows, local)
            gather_inds = _C.where(mask, self.shortlist_size + i - 1, gather_inds)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            k = self.shortlist_size + i
            parts.append(cluster_logprob + head_logprob[:, k:k + 1])
        return _C.cat(parts, 1)

    def log_prob(self, input):
        """The (N, n_classes) log-probabilities of every class."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each sample: the head's argmax when it is a shortlist
        class, else the argmax over the full distribution."""
        head_output = self.head(input)
        output = _C.argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not bool(outside.any()):
            return output
        full = _C.argmax(self._get_full_log_prob(input, head_output), dim=1)
        return _C.where(outside, full, output)
