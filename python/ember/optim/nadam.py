"""NAdam: Adam with Nesterov momentum and a momentum schedule (torch.optim.NAdam's single-tensor
update rule), with L2 or decoupled weight decay.

    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)),  prod_t = mu_1 ... mu_t
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2
    denom = sqrt(v / (1 - beta2^t)) + eps
    p -= lr * (1 - mu_t) / (1 - prod_t) * g / denom + lr * mu_{t+1} / (1 - prod_{t+1}) * m / denom"""
from .optimizer import _check_adam_hyperparameters, _check_hyperparameters
from ._single_tensor import (SingleTensorOptimizer, adam_moments_, addcdiv_, apply_weight_decay,
                             scalar)
from .._creation import tensor, zeros_like

__all__ = ["NAdam"]


class NAdam(SingleTensorOptimizer):
    """NAdam(params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0, momentum_decay=0.004,
        decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
        differentiable=False)

    Adam with Nesterov momentum.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.8944, 0.8944])"""

    _capturable_tensors = "params, mu_products and state_steps"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_hyperparameters(lr, betas, eps, weight_decay)
        _check_hyperparameters(0.0, (("momentum_decay value", momentum_decay),))
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

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
        grad = apply_weight_decay(p, grad, lr, wd, group["decoupled_weight_decay"])
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"].mul_(mu).item()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        adam_moments_(exp_avg, exp_avg_sq, grad, beta1, beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
        mu_product_next = mu_product * mu_next
        addcdiv_(p, grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        addcdiv_(p, exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
