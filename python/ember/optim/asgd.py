"""ASGD: averaged stochastic gradient descent (torch.optim.ASGD's single-tensor update rule).

    p = p * (1 - lambd * eta) - eta * g
    ax = p while mu == 1, else ax += mu * (p - ax)
    eta = lr / (1 + lambd * lr * t)^alpha;  mu = 1 / max(1, t - t0)"""
from .optimizer import _check_hyperparameters
from ._single_tensor import SingleTensorOptimizer, apply_weight_decay, scalar
from .._creation import tensor, zeros_like

__all__ = ["ASGD"]


class ASGD(SingleTensorOptimizer):
    """ASGD(params, lr=0.01, lambd=0.0001, alpha=0.75, t0=1000000.0, weight_decay=0, foreach=None,
        maximize=False, differentiable=False, capturable=False)

    Averaged stochastic gradient descent.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.8000, 0.8000])"""

    _capturable_tensors = "params, mus, etas, and state_steps"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_hyperparameters(lr, (("weight_decay value", weight_decay),))
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["step"] = self._new_step()
        dtype = state["step"].dtype  # eta and mu are 0-d tensors of the step's dtype, as in torch
        state["eta"] = tensor(scalar(group["lr"]), dtype=dtype)
        state["mu"] = tensor(1.0, dtype=dtype)
        state["ax"] = zeros_like(p)

    def _update(self, p, grad, state, group):
        lr, lambd, alpha = scalar(group["lr"]), group["lambd"], group["alpha"]
        t0, wd = group["t0"], group["weight_decay"]
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        step = state["step"].add_(1).item()
        grad = apply_weight_decay(p, grad, lr, wd)
        eta_value = eta.item()
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        mu_value = mu.item()
        if mu_value != 1:
            ax.add_(p.sub(ax).mul_(mu_value))
        else:
            ax.copy_(p)
        eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
        mu.fill_(1 / max(1, step - t0))
