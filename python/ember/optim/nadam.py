"""NAdam: Adam with Nesterov momentum and a momentum schedule (torch.optim.NAdam's single-tensor
update rule), with L2 or decoupled weight decay.

    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)),  prod_t = mu_1 ... mu_t
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2
    denom = sqrt(v / (1 - beta2^t)) + eps
    p -= lr * (1 - mu_t) / (1 - prod_t) * g / denom + lr * mu_{t+1} / (1 - prod_{t+1}) * m / denom"""
from .optimizer import _check_hyperparameters
from ._single_tensor import (SingleTensorOptimizer, addcdiv_, addcmul_, check_betas, lerp_,
                             scalar)
from .._creation import tensor, zeros_like

__all__ = ["NAdam"]


class NAdam(SingleTensorOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_hyperparameters(lr, (("epsilon value", eps),))
        check_betas(betas)
        _check_hyperparameters(0.0, (("weight_decay value", weight_decay),
                                     ("momentum_decay value", momentum_decay)))
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("decoupled_weight_decay", False)

    def _init_state(self, state, p, group):
        state["step"] = self._new_step()
        # mu_product is a 0-d tensor of the step's dtype, as in torch (it rounds like torch's)
        state["mu_product"] = tensor(1.0, dtype=state["step"].dtype)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, eps, wd = scalar(group["lr"]), group["eps"], group["weight_decay"]
        momentum_decay = group["momentum_decay"]
        step = state["step"].add_(1).item()
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"].mul_(mu).item()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        lerp_(exp_avg, grad, 1 - beta1)
        addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
        mu_product_next = mu_product * mu_next
        addcdiv_(p, grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        addcdiv_(p, exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
