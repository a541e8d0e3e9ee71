"""ember.func: function transforms with torch.func's names and results, on ember's reverse-mode
autograd (no forward-mode AD: jvp by double backward, jacfwd as jacrev) and a vmap that calls
the function once per batch index (Note [vmap by calls])."""
from ._eager_transforms import grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian
from ._vmap import vmap
from ._functional_call import functional_call

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call"]
