"""Adamax: Adam with the infinity norm (torch.optim.Adamax's single-tensor update rule).

    g = grad (+ weight_decay * p);  m = lerp(m, g, 1 - beta1)
    u = max(beta2 * u, |g| + eps);  p -= lr / (1 - beta1^t) * m / u"""
from .optimizer import _check_adam_hyperparameters
from ._single_tensor import SingleTensorOptimizer, addcdiv_, apply_weight_decay, lerp_, scalar

__all__ = ["Adamax"]


class Adamax(SingleTensorOptimizer):
    """Adamax(params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0, foreach=None, *,
        maximize=False, differentiable=False, capturable=False)

    Adamax: Adam with the infinity norm.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.9000, 0.9000])"""

    _buffers = ("exp_avg", "exp_inf")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_hyperparameters(lr, betas, eps, weight_decay)
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, eps, wd = scalar(group["lr"]), group["eps"], group["weight_decay"]
        step = state["step"].add_(1).item()
        grad = apply_weight_decay(p, grad, lr, wd)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        lerp_(exp_avg, grad, 1 - beta1)
        exp_inf.mul_(beta2).maximum_(grad.abs().add_(eps))
        clr = lr / (1 - beta1 ** step)
        addcdiv_(p, exp_avg, exp_inf, value=-clr)
