"""The base of the optimizers written in Python over ember's in-place ops (Adamax, NAdam,
RAdam, Adadelta, Rprop, ASGD): one loop over the parameters that have a grad, as torch's
single-tensor (for-loop) step functions, which are what torch runs on CPU. The helpers
compute torch's lerp_/addcmul_/addcdiv_ in the same operation order, so results round alike."""
from .._grad_mode import no_grad
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SingleTensorOptimizer", "lerp_", "addcmul_", "addcdiv_", "check_betas", "scalar"]


class SingleTensorOptimizer(Optimizer):
    """Subclasses define _init_state(state, param, group) (torch's lazy state creation) and
    _update(param, grad, state, group) (one parameter's step; grad already negated under
    maximize, never written to)."""

    def _check_flags(self, **flags):
        for name, value in flags.items():
            if value:
                raise NotImplementedError(f"{type(self).__name__}: {name}=True is not "
                                          "supported by ember")

    def __setstate__(self, state):
        # as torch: groups from older state dicts get the flags' defaults
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False),
                                 ("differentiable", False), ("capturable", False)):
                if key in self.defaults:
                    group.setdefault(key, default)

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                maximize = bool(group.get("maximize", False))
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        self._init_state(state, p, group)
                    if p.numel() == 0:
                        # an empty parameter from from_numpy has strides 0, which the
                        # in-place ops refuse; its update writes nothing anyway
                        p = p.new_zeros(p.shape)
                    self._update(p, grad.neg() if maximize else grad, state, group)
        return loss


def lerp_(t, end, weight):
    """t += weight * (end - t), from the nearer end as torch computes it (exact at 0 and 1)."""
    if abs(weight) < 0.5:
        return t.add_(end.sub(t).mul_(weight))
    return t.copy_(end.sub(end.sub(t).mul_(1.0 - weight)))


def addcmul_(t, a, b, value=1.0):
    """t += value * a * b."""
    return t.add_(a.mul(value).mul_(b))


def addcdiv_(t, a, b, value=1.0):
    """t += value * a / b."""
    return t.add_(a.mul(value).div_(b))


def check_betas(betas):
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def scalar(x):
    """A hyper-parameter as a Python float (lr may be a 1-element Tensor)."""
    return float(x.item()) if isinstance(x, Tensor) else float(x)
