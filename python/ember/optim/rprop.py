"""Rprop: resilient backpropagation (torch.optim.Rprop's single-tensor update rule).

Per element, with s = sign(g * g_prev): the step size is multiplied by etaplus where s > 0,
by etaminus where s < 0 (and the gradient is then taken as 0, so that the next step does not
shrink again), and clamped to step_sizes; p -= sign(g) * step_size; g_prev = g."""
from .optimizer import _check_hyperparameters
from ._single_tensor import SingleTensorOptimizer, scalar
from .._creation import full_like, zeros_like

__all__ = ["Rprop"]


class Rprop(SingleTensorOptimizer):
    """Rprop(params, lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-06, 50), *, capturable=False,
        foreach=None, maximize=False, differentiable=False)

    Resilient backpropagation: per-element step sizes from the gradient's sign.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.9000, 0.9000])"""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_hyperparameters(lr, ())
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        self._check_flags(differentiable=differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["step"] = self._new_step()
        state["prev"] = zeros_like(p)
        state["step_size"] = full_like(p.grad, scalar(group["lr"]))

    def _update(self, p, grad, state, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        state["step"].add_(1)
        sign = grad.mul(prev).sign()
        went_back = sign.lt(0)  # where the gradient changed sign
        sign.masked_fill_(sign.gt(0), etaplus)
        sign.masked_fill_(went_back, etaminus)
        sign.masked_fill_(sign.eq(0), 1)
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.masked_fill(went_back, 0)
        p.sub_(grad.sign().mul_(step_size))
        prev.copy_(grad)
