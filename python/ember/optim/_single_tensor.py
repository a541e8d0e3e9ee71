"""The base of the optimizers written in Python over ember's in-place ops (Adamax, NAdam,
RAdam, Adadelta, Rprop, ASGD): one loop over the parameters that have a grad, as torch's
single-tensor (for-loop) step functions, which are what torch runs on CPU. The helpers
compute torch's lerp_/addcmul_/addcdiv_ in the same operation order, so results round alike."""
from .._grad_mode import no_grad
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SingleTensorOptimizer", "lerp_", "addcmul_", "addcdiv_", "adam_moments_",
           "apply_weight_decay", "scalar"]


class SingleTensorOptimizer(Optimizer):
    """Subclasses name their zero-initialised state tensors in _buffers (or override
    _init_state(state, param, group), torch's lazy state creation) and define
    _update(param, grad, state, group) (one parameter's step; grad already negated under
    maximize, never written to)."""

    _buffers = ()  # the names of the state's tensors that start as zeros like the parameter

    def _init_state(self, state, p, group):
        """torch's lazy state: a step counter, then the _buffers (optimizers with other state
        override this)."""
        self._lazy_states([p], self._buffers)

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
                                 ("differentiable", False), ("capturable", False),
                                 ("decoupled_weight_decay", False)):
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
                    self._refuse_capturable(group)
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


def apply_weight_decay(p, grad, lr, weight_decay, decoupled=False):
    """The grad with L2 weight decay (grad + weight_decay * p), or, decoupled, p scaled by
    1 - lr * weight_decay in place and the grad unchanged."""
    if weight_decay != 0:
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    return grad


def adam_moments_(exp_avg, exp_avg_sq, grad, beta1, beta2):
    """Adam's running moments in place: m = lerp(m, g, 1 - beta1), v = beta2 v + (1 - beta2) g^2."""
    lerp_(exp_avg, grad, 1 - beta1)
    addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)


def scalar(x):
    """A hyper-parameter as a Python float (lr may be a 1-element Tensor)."""
    return float(x.item()) if isinstance(x, Tensor) else float(x)
