"""Adam (and, with decoupled_weight_decay, AdamW), with amsgrad and maximize
(torch.optim.Adam's update rule, computed by one fused C++ call per param group)."""
from .. import _C
from .._tensor import Tensor
from .optimizer import Optimizer, _check_adam_hyperparameters

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0, amsgrad=False, *,
        foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
        decoupled_weight_decay=False)

    Adam (Kingma and Ba), with amsgrad and L2 weight decay as torch.optim.Adam.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.9000, 0.9000])"""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_hyperparameters(lr, betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        if differentiable:
            raise NotImplementedError(f"{type(self).__name__}: differentiable=True is not "
                                      "supported by ember")
        betas = tuple(float(b) for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _states(self, group, params):
        return self._lazy_states(params, ["exp_avg", "exp_avg_sq"]
                                 + ["max_exp_avg_sq"] * bool(group["amsgrad"]))

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        for group, params, grads in self._groups_with_grads():
            self._refuse_capturable(group)
            states = self._states(group, params)
            amsgrad = bool(group["amsgrad"])
            beta1, beta2 = group["betas"]
            _C._optim.adam(params, grads, [s["exp_avg"] for s in states],
                           [s["exp_avg_sq"] for s in states],
                           [s["max_exp_avg_sq"] for s in states] if amsgrad else [],
                           [s["step"] for s in states], float(group["lr"]), float(beta1),
                           float(beta2), float(group["eps"]), float(group["weight_decay"]),
                           amsgrad, bool(group["maximize"]),
                           bool(group["decoupled_weight_decay"]))
        return loss
