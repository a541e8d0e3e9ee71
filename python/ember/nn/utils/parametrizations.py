"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (see
parametrize.py). `orthogonal` is not here: it needs matrix_exp, householder_product or qr,
which ember.linalg does not have yet."""
from ... import _C
from ..._grad_mode import no_grad
from ..._tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    """torch.norm_except_dim(v, 2, dim): the 2-norm over every dim but `dim`, kept as size-1
    dims (dim -1: the norm of the whole tensor, 0-d)."""
    if dim == -1:
        return v.norm()
    other = [d for d in range(v.dim()) if d != dim]
    if not other:  # a 1-D v: the norm of each single element
        return v.abs()
    return v.norm(dim=other, keepdim=True)


def _weight_norm(v, g, dim):
    """torch._weight_norm: v * (g / ||v||) with the norm over every dim but `dim`."""
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """module.<name> = g * v / ||v|| with g = parametrizations.<name>.original0 (the norms,
    over every dim but `dim`; dim=None: one norm) and v = original1. A state_dict saved with
    the older weight_norm (name_g, name_v) loads into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def compat_hook(mod, state_dict, prefix, local_metadata, strict, missing_keys,
                    unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, weight_mat, n_power_iterations):
        # the buffers u, v are updated in place, as torch's out=
        for _ in range(n_power_iterations):
            self._u.copy_(F.normalize(_C.mv(weight_mat, self._v), dim=0, eps=self.eps))
            self._v.copy_(F.normalize(_C.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = _C.dot(u, _C.mv(weight_mat, v))  # vdot: ember has no complex
        return weight / sigma

    def right_inverse(self, value):
        return value


def _spectral_dim(module):
    """The output-channel dim: 1 for ConvTranspose layers (weight in, out, ...), else 0."""
    from .. import modules
    transposed = tuple(getattr(modules, n) for n in ("ConvTranspose1d", "ConvTranspose2d",
                                                      "ConvTranspose3d") if hasattr(modules, n))
    return 1 if isinstance(module, transposed) else 0


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> = W / sigma(W), sigma estimated by power iteration (u, v buffers in
    parametrizations.<name>[0]; one iteration per forward in training mode). dim defaults to
    1 for ConvTranspose layers, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _spectral_dim(module)
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
