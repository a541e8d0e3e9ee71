"""RAdam: Adam with the variance of the adaptive learning rate rectified (torch.optim.RAdam's
single-tensor update rule), with L2 or decoupled weight decay.

    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    rho_t > 5:  p -= lr * m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * rect
                rect = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
    otherwise:  p -= lr * m / (1 - beta1^t)"""
from .optimizer import _check_adam_hyperparameters
from ._single_tensor import SingleTensorOptimizer, adam_moments_, apply_weight_decay, scalar

__all__ = ["RAdam"]


class RAdam(SingleTensorOptimizer):
    """RAdam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0,
        decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
        differentiable=False)

    Rectified Adam: the adaptive step switched on once its variance is tractable.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.8000, 0.8000])"""

    _buffers = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_hyperparameters(lr, betas, eps, weight_decay)
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, eps, wd = scalar(group["lr"]), group["eps"], group["weight_decay"]
        step = state["step"].add_(1).item()
        grad = apply_weight_decay(p, grad, lr, wd, group["decoupled_weight_decay"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        adam_moments_(exp_avg, exp_avg_sq, grad, beta1, beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = exp_avg.div(bias_correction1).mul_(lr)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
            update.mul_(adaptive_lr).mul_(rect)
        p.sub_(update)
