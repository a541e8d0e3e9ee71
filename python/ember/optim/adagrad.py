"""Adagrad with learning-rate decay, weight decay and maximize (torch.optim.Adagrad's update
rule for dense gradients, computed by one fused C++ call per param group)."""
from .. import _C
from .._creation import full_like
from .optimizer import Optimizer, _check_hyperparameters

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad(params, lr=0.01, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
        foreach=None, *, maximize=False, differentiable=False, fused=None)

    Adagrad: the step divided by the root of the summed squared gradients.

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.9000, 0.9000])"""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_hyperparameters(lr, (("lr_decay value", lr_decay),
                                    ("weight_decay value", weight_decay),
                                    ("initial_accumulator_value value", initial_accumulator_value),
                                    ("epsilon value", eps)))
        if differentiable:
            raise NotImplementedError("Adagrad: differentiable=True is not supported by ember")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # torch creates the state of the first groups here, and of later groups lazily.
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p)

    def _init_state(self, s, p):
        s["step"] = self._new_step()
        s["sum"] = full_like(p, self.defaults["initial_accumulator_value"])

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        for group, params, grads in self._groups_with_grads():
            states = [self.state[p] for p in params]
            for p, s in zip(params, states):
                if not s:
                    self._init_state(s, p)
            _C._optim.adagrad(params, grads, [s["sum"] for s in states],
                              [s["step"] for s in states], float(group["lr"]),
                              float(group["lr_decay"]), float(group["weight_decay"]),
                              float(group["eps"]), bool(group["maximize"]))
        return loss
