"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize
(torch.optim.SGD's update rule, computed by one fused C++ call per param group)."""
from .. import _C
from .optimizer import Optimizer, _check_hyperparameters

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD(params, lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
        maximize=False, foreach=None, differentiable=False, fused=None)

    Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay as
    torch.optim.SGD.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.8000, 0.8000])"""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        _check_hyperparameters(lr, (("momentum value", momentum),
                                    ("weight_decay value", weight_decay)))
        if differentiable:
            raise NotImplementedError("SGD: differentiable=True is not supported by ember")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        for group, params, grads in self._groups_with_grads():
            momentum = group["momentum"]
            states = [self.state[p] for p in params] if momentum != 0 else []
            bufs = [s.get("momentum_buffer") for s in states]
            created = any(b is None for b in bufs)
            bufs = _C._optim.sgd(params, grads, bufs, float(group["lr"]), float(momentum),
                                 float(group["dampening"]), float(group["weight_decay"]),
                                 bool(group["nesterov"]), bool(group["maximize"]))
            if created:  # keeps the buffers this step created (from the first gradient)
                for s, b in zip(states, bufs):
                    s["momentum_buffer"] = b
        return loss
