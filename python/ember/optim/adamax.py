"""Adamax: Adam with the infinity norm (torch.optim.Adamax's single-tensor update rule).

    g = grad (+ weight_decay * p);  m = lerp(m, g, 1 - beta1)
    u = max(beta2 * u, |g| + eps);  p -= lr / (1 - beta1^t) * m / u"""
from .optimizer import _check_hyperparameters
from ._single_tensor import SingleTensorOptimizer, addcdiv_, check_betas, lerp_, scalar
from .._creation import zeros_like

__all__ = ["Adamax"]


class Adamax(SingleTensorOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_hyperparameters(lr, (("epsilon value", eps),))
        check_betas(betas)
        _check_hyperparameters(0.0, (("weight_decay value", weight_decay),))
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["step"] = self._new_step()
        state["exp_avg"] = zeros_like(p)
        state["exp_inf"] = zeros_like(p)

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, eps, wd = scalar(group["lr"]), group["eps"], group["weight_decay"]
        step = state["step"].add_(1).item()
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        lerp_(exp_avg, grad, 1 - beta1)
        exp_inf.mul_(beta2).maximum_(grad.abs().add_(eps))
        clr = lr / (1 - beta1 ** step)
        addcdiv_(p, exp_avg, exp_inf, value=-clr)
