"""torch.nn.utils.parametrizations: orthogonal, weight_norm and spectral_norm as
parametrizations (see parametrize.py). orthogonal has the "matrix_exp" and "cayley" maps;
"householder" (torch's default for non-square weights) needs linalg.householder_product,
which ember does not have: it raises NotImplementedError."""
from enum import Enum, auto

from ... import _C
from ..._creation import eye, randn, zeros_like
from ..._comparison import allclose
from ..._dtype_info import finfo
from ..._grad_mode import no_grad
from ..._tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype)
    eps = 10.0 * n * finfo(Q.dtype).eps
    return allclose(Q.transpose(-2, -1) @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition with R's diagonal made positive (torch's geqrf +
    householder_product + sign fix, here from linalg.qr: the same unique factorisation)."""
    from ... import linalg
    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if orthogonal_map == _OrthMaps.householder:
            raise NotImplementedError(
                "orthogonal: the householder map needs linalg.householder_product, which ember "
                "does not have yet; pass orthogonal_map='matrix_exp' or 'cayley'")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.transpose(-2, -1)
            n, k = k, n
        X = X.tril()
        if n != k:  # a tall X: completed to square with zero columns
            X = _C.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.transpose(-2, -1)  # skew-symmetric
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            from ... import linalg
            Q = linalg.matrix_exp(A)
        else:  # Cayley: (I - A/2)^-1 (I + A/2)
            from ... import linalg
            Id = eye(n, dtype=A.dtype)
            Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
        if n != k:
            Q = Q[..., :k]
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.transpose(-2, -1)
        return Q

    @no_grad()
    def right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        if n < k:
            Q = Q.transpose(-2, -1)
            n, k = k, n
        if not hasattr(self, "base"):
            raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                      "or the Cayley parametrizations when "
                                      "use_trivialization=False.")
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # completed to a square matrix by random columns
            N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(_C.cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = zeros_like(Q_init)  # the parametrization's X that gives base itself
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """module.<name> = an orthogonal matrix (or batch) Q(X) of unconstrained X, with
    Q = exp(A) ("matrix_exp") or the Cayley map ("cayley") of the skew-symmetric A from X's
    lower triangle; with use_trivialization (default), Q = base @ Q(X) with base set by
    assignment (initially: the weight made orthogonal by QR)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


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
