"""RMSprop, plain or centered, with momentum, weight decay and maximize
(torch.optim.RMSprop's update rule, computed by one fused C++ call per param group)."""
from .. import _C
from .optimizer import Optimizer, _check_hyperparameters

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop(params, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0, momentum=0, centered=False,
        capturable=False, foreach=None, maximize=False, differentiable=False)

    RMSprop: the step divided by the root of a running mean of squared gradients.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.RMSprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([5.9605e-08, 5.9605e-08])"""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_hyperparameters(lr, (("epsilon value", eps), ("momentum value", momentum),
                                    ("weight_decay value", weight_decay), ("alpha value", alpha)))
        if differentiable:
            raise NotImplementedError("RMSprop: differentiable=True is not supported by ember")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _states(self, group, params):
        return self._lazy_states(params, ["square_avg"]
                                 + ["momentum_buffer"] * (group["momentum"] > 0)
                                 + ["grad_avg"] * bool(group["centered"]))

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        for group, params, grads in self._groups_with_grads():
            self._refuse_capturable(group)
            states = self._states(group, params)
            momentum, centered = float(group["momentum"]), bool(group["centered"])
            _C._optim.rmsprop(params, grads, [s["square_avg"] for s in states],
                              [s["grad_avg"] for s in states] if centered else [],
                              [s["momentum_buffer"] for s in states] if momentum > 0 else [],
                              [s["step"] for s in states], float(group["lr"]),
                              float(group["alpha"]), float(group["eps"]),
                              float(group["weight_decay"]), momentum, centered,
                              bool(group["maximize"]))
        return loss
