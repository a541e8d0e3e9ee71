"""The regression and likelihood losses torch.nn.modules.loss holds beside the C++ ones in
loss.py (SmoothL1Loss, HuberLoss, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss): each holds its
reduction and hyper-parameters and calls the composite in ember.nn.functional."""
from .. import functional as F
from .loss import _Loss

__all__ = ["SmoothL1Loss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss"]


class SmoothL1Loss(_Loss):
    """0.5 z^2 / beta for |z| < beta, |z| - 0.5 beta beyond (z = input - target).

    >>> ember.nn.SmoothL1Loss()(ember.tensor([0.0, 3.0]), ember.tensor([0.5, 0.0]))
    tensor(1.3125)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 z^2 for |z| < delta, delta (|z| - 0.5 delta) beyond (z = input - target).

    >>> ember.nn.HuberLoss()(ember.tensor([0.0, 3.0]), ember.tensor([0.5, 0.0]))
    tensor(1.3125)
    """

    def __init__(self, reduction="mean", delta=1.0):
        if not isinstance(delta, (float, int)):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """target * (log(target) - input), input holding log-probabilities.

    >>> log_p = ember.tensor([[0.5, 0.5]]).log()
    >>> ember.nn.KLDivLoss(reduction="batchmean")(log_p, ember.tensor([[0.25, 0.75]]))
    tensor(0.1308)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """exp(input) - target * input (log_input=True), or input - target * log(input + eps).

    >>> ember.nn.PoissonNLLLoss()(ember.tensor([0.0, 1.0]), ember.tensor([1.0, 2.0]))
    tensor(0.8591)
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """0.5 (log(var) + (input - target)^2 / var), var clamped to eps.

    >>> x, target = ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.0])
    >>> ember.nn.GaussianNLLLoss()(x, target, ember.ones(2))
    tensor(1.)
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)
