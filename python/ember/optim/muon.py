"""Muon (torch.optim.Muon): momentum SGD for 2-D hidden-layer weights whose update is first
orthogonalized by a quintic Newton-Schulz iteration (Keller Jordan's; torch's coefficients,
steps and learning-rate adjustments).

Where ember differs: torch runs the Newton-Schulz iteration in bfloat16; ember has no bfloat16
arithmetic, so it runs in the parameter's dtype (float32 or float64). The iteration's result is
the same up to bfloat16's rounding (a relative 1e-2), which the iteration is designed to
tolerate."""
import math

from .. import _C
from .._creation import zeros_like
from .._grad_mode import no_grad
from .._tensor import Tensor
from ._single_tensor import lerp_, scalar
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """An approximate U V^T of grad = U S V^T: grad scaled to spectral norm <= 1, then ns_steps
    of X <- a X + (b A + c A^2) X with A = X X^T (on the wide orientation, so A is the smaller
    Gram matrix). Its singular values land in roughly [0.5, 1.5] rather than exactly 1."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.t() if tall else grad
    x = x / _C.clamp(x.norm(), min=eps)
    for _ in range(ns_steps):
        gram = x.mm(x.t())
        update = _C.addmm(gram, gram, gram, beta=b, alpha=c)
        x = _C.addmm(x, update, x, beta=a)
    return x.t() if tall else x


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """The update's scale for an (A, B) matrix: sqrt(max(1, A / B)) ("original", Keller's), or
    0.2 sqrt(max(A, B)) ("match_rms_adamw", Moonshot's: AdamW's update RMS)."""
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """B = lerp(B, g, 1 - momentum); update = lerp(g, B, momentum) (nesterov) or B; then
    p *= 1 - lr * weight_decay and p -= adjusted_lr * NS(update).

    >>> w = ember.nn.Parameter(ember.ones(2, 2))
    >>> opt = ember.optim.Muon([w], lr=0.1)
    >>> w.grad = ember.eye(2)
    >>> opt.step()
    >>> w.shape, bool((w < 1).all())
    (ember.Size([2, 2]), True)
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:  # refuse before any buffer or parameter changes
            if group["ns_steps"] >= 100:
                raise ValueError("Number of steps must be less than 100 for computational "
                                 "efficiency")
            if len(group["ns_coefficients"]) != 3:
                raise ValueError("Coefficients must be a tuple of exactly 3 values")
            for p in group["params"]:
                if p.grad is not None and p.grad.dim() != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
        with no_grad():
            for group in self.param_groups:
                lr = scalar(group["lr"])
                momentum = group["momentum"]
                for p, grad in zip(*self._params_with_grad(group)):
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = zeros_like(grad)
                    buf = lerp_(state["momentum_buffer"], grad, 1 - momentum)
                    update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                    update = _zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                         group["ns_steps"], group["eps"])
                    adjusted = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                    p.mul_(1 - lr * group["weight_decay"])
                    p.add_(update, alpha=-adjusted)
        return loss
