"""SparseAdam (torch.optim.SparseAdam): Adam for sparse gradients (nn.Embedding(sparse=True)),
updating the moments only where the gradient has entries.

ember has no sparse layout: every gradient it computes is dense, and SparseAdam refuses dense
gradients exactly as torch's does ("SparseAdam does not support dense gradients, please
consider Adam instead"), before changing any parameter or state. A program that gives it
sparse gradients under torch gets dense ones under ember (ember's Embedding ignores
sparse=True), so it stops at its first step with torch's message, and Adam is the answer.
What works as torch: the constructor's checks, param groups, state_dict/load_state_dict, a
step with no gradients (it only runs the closure)."""
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """SparseAdam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, maximize=False)

    Adam for sparse gradients (torch.optim.SparseAdam). ember has no sparse layout, so step()
    refuses every gradient with torch's message for dense ones; use Adam. What works as in
    torch: the checks, param groups, state_dict, and a step without gradients.

    >>> opt = ember.optim.SparseAdam([ember.nn.Parameter(ember.zeros(2))], lr=0.1)
    >>> opt.defaults["lr"], opt.step(lambda: 1.5)
    (0.1, 1.5)
    """
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"])
                          if getattr(p.dtype, "is_complex", False)]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        """Runs closure (if given); refuses the dense gradients every ember parameter has."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
        return loss
