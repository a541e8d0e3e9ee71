"""Adadelta (torch.optim.Adadelta's single-tensor update rule).

    v = rho * v + (1 - rho) * g^2
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta^2;  p -= lr * delta"""
from .optimizer import _check_hyperparameters
from ._single_tensor import SingleTensorOptimizer, addcmul_, apply_weight_decay, scalar

__all__ = ["Adadelta"]


class Adadelta(SingleTensorOptimizer):
    """Adadelta(params, lr=1.0, rho=0.9, eps=1e-06, weight_decay=0, foreach=None, *,
        capturable=False, maximize=False, differentiable=False)

    Adadelta: steps scaled by running means of squared gradients and updates.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.Adadelta([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.9997, 0.9997])"""

    _capturable_devices = ["cuda", "xpu", "hpu", "privateuseone"]  # torch: no xla here
    _buffers = ("square_avg", "acc_delta")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_hyperparameters(lr, ())
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_hyperparameters(0.0, (("epsilon value", eps), ("weight_decay value", weight_decay)))
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, grad, state, group):
        lr, rho, eps, wd = scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
        state["step"].add_(1)
        grad = apply_weight_decay(p, grad, lr, wd)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        addcmul_(square_avg.mul_(rho), grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        addcmul_(acc_delta.mul_(rho), delta, delta, value=1 - rho)
        p.add_(delta, alpha=-lr)
