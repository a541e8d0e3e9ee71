"""Adafactor (torch.optim.Adafactor, torch 2.5+): Adam-like steps whose second moment of a
matrix-shaped (or batched) parameter is factored into row and column means, so it holds
O(n + m) state instead of O(n m). torch's single-tensor update (its CPU path), in its order:

    rho = min(lr, 1/sqrt(t));  alpha = max(eps2, RMS(p)) * rho;  beta2_t = 1 - t^beta2_decay
    p *= 1 - lr * weight_decay
    matrix: R = lerp(R, mean_cols(g^2), 1 - beta2_t), C likewise; V = R C / max(mean(R), eps1)
    vector: V = lerp(V, g^2, 1 - beta2_t)
    u = g / sqrt(max(V, eps1^2));  p -= alpha / max(1, RMS(u) / d) * u"""
from .._creation import zeros_like
from .._dtype_info import finfo
from .._grad_mode import no_grad
from .._tensor import Tensor
from .optimizer import Optimizer
from ._single_tensor import lerp_, scalar

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor(params, lr=0.01, beta2_decay=-0.8, eps=(None, 0.001), d=1.0, weight_decay=0.0, *,
        foreach=None, maximize=False)

    Adafactor: factored second moments (row and column means).

    >>> w = ember.nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.9000, 0.9000])"""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    def _init_state(self, state, grad):
        state["step"] = self._new_step()
        if grad.dim() > 1:
            row_shape, col_shape = list(grad.shape), list(grad.shape)
            row_shape[-1] = 1
            col_shape[-2] = 1
            state["row_var"] = grad.new_zeros(row_shape)
            state["col_var"] = grad.new_zeros(col_shape)
        else:
            state["variance"] = zeros_like(grad)

    def step(self, closure=None):
        """One update of every parameter that has a grad; returns closure()'s loss if given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                eps1, eps2 = group["eps"]
                lr, wd, d = scalar(group["lr"]), group["weight_decay"], group["d"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        self._init_state(state, p.grad)
                    grad = -p.grad if group["maximize"] else p.grad
                    if eps1 is None:  # as torch: the first parameter's dtype decides
                        eps1 = finfo(p.dtype).eps
                    self._update(p, grad, state, lr, group["beta2_decay"], wd, eps1, eps2, d)
        return loss

    @staticmethod
    def _update(p, grad, state, lr, beta2_decay, weight_decay, eps1, eps2, d):
        step = state["step"].add_(1).item()
        one_minus_beta2_t = step ** beta2_decay
        rho_t = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
        if weight_decay != 0:
            p.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            lerp_(row_var, grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)),
                  one_minus_beta2_t)
            lerp_(col_var, grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)),
                  one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"]
            lerp_(variance, grad * grad, one_minus_beta2_t)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        p.add_(update, alpha=-alpha / denom)
