"""AdamW: Adam with decoupled weight decay (torch.optim.AdamW)."""
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01, amsgrad=False, *,
        maximize=False, foreach=None, capturable=False, differentiable=False, fused=None)

    Adam with decoupled weight decay (Loshchilov and Hutter), as torch.optim.AdamW.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.AdamW([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.8990, 0.8990])"""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
