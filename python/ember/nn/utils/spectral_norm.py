"""torch.nn.utils.spectral_norm (the hook form; parametrizations.spectral_norm is the newer
one): the weight is kept as <name>_orig, power-iteration vectors as buffers <name>_u and
<name>_v, and a forward pre-hook sets module.<name> = W / sigma(W) before each call (one
power iteration per call in training mode). State dicts have torch's keys, so torch's load
into ember and back; the conversion of pre-1.0 (version 0) checkpoints, which needs pinverse,
is not done."""
from ... import _C
from ..._grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter
from ._reparam_hooks import find_pre_hook, remove_pre_hook
from .parametrizations import _spectral_dim

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook (and what remove_spectral_norm looks for)."""
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():  # the buffers u and v are updated in place
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(_C.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_C.mv(weight_mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = _C.dot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        if find_pre_hook(module, SpectralNorm, name)[1] is not None:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                               f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Adds the spectral-norm hook on module.<name>; dim defaults to 1 for ConvTranspose
    layers, else 0.

    >>> m = ember.nn.utils.spectral_norm(ember.nn.Linear(2, 2))
    >>> sorted(name for name, _ in m.named_parameters())
    ['bias', 'weight_orig']
    """
    if dim is None:
        dim = _spectral_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Replaces <name>_orig, _u, _v and the hook by one parameter <name> = W / sigma.

    >>> m = ember.nn.utils.spectral_norm(ember.nn.Linear(2, 2))
    >>> m = ember.nn.utils.remove_spectral_norm(m)
    >>> sorted(name for name, _ in m.named_parameters())
    ['bias', 'weight']
    """
    return remove_pre_hook(module, SpectralNorm, name,
                           "spectral_norm of '{name}' not found in {module}")
