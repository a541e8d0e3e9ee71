"""torch's older norm entry points on top of ember.linalg's: frobenius_norm, nuclear_norm, and
renorm (each slice along a dim scaled down to a maximum norm). Compositions, so autograd flows."""
import builtins
import numbers

from ._linalg_norms import matrix_norm, vector_norm
from ._tensor import Tensor


def _tensor(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _check_dim(input, dim, op):
    if isinstance(dim, builtins.bool) or not isinstance(dim, builtins.int):
        raise TypeError(f"{op}(): dim must be an int, got {type(dim).__name__}")
    if not -max(input.dim(), 1) <= dim < max(input.dim(), 1):
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of "
                         f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got {dim})")


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """sqrt(sum(input ** 2)) over one or two dims.

    >>> ember.frobenius_norm(ember.tensor([[3.0, 4.0]]), dim=(0, 1))
    tensor(5.)
    """
    _tensor(input, "frobenius_norm")
    dims = (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    for d in dims:
        _check_dim(input, d, "frobenius_norm")
    if len(dims) > 2:
        raise RuntimeError(f"frobenius_norm: Expected at most 2 dimensions, but got {len(dims)} "
                           f"dimensions instead.")
    result = vector_norm(input, 2, dims, keepdim)
    return result if out is None else out.copy_(result)


def nuclear_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    """The sum of the singular values of the matrices over `dim` (two dims).

    >>> ember.nuclear_norm(ember.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor(3.)
    """
    _tensor(input, "nuclear_norm")
    if isinstance(dim, builtins.bool):  # nuclear_norm(input, keepdim) as torch's first overload
        dim, keepdim = (-2, -1), dim
    result = matrix_norm(input, "nuc", tuple(dim), keepdim)
    return result if out is None else out.copy_(result)


def _renormed(input, p, dim, maxnorm, op):
    _tensor(input, op)
    if isinstance(p, builtins.bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"{op}(): argument 'p' must be a number, not {type(p).__name__}")
    if isinstance(maxnorm, builtins.bool) or not isinstance(maxnorm, numbers.Real):
        raise TypeError(f"{op}(): argument 'maxnorm' must be a number, not {type(maxnorm).__name__}")
    if p <= 0:
        raise RuntimeError(f"{op}: non-positive-norm not supported (p = {p})")
    if maxnorm < 0:
        raise RuntimeError(f"{op}: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(f"{op}: input needs at least 2 dimensions, got {input.dim()} dimensions")
    _check_dim(input, dim, op)
    if not input.is_floating_point():
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype}")
    d = dim % input.dim()
    others = tuple(k for k in range(input.dim()) if k != d)
    norm = vector_norm(input, p, others, True)
    # torch's factor: maxnorm / (norm + 1e-7) where the slice's norm exceeds maxnorm, else 1
    factor = (maxnorm / (norm + 1e-7)).masked_fill(norm <= maxnorm, 1.0)
    return input * factor


def renorm(input, p, dim, maxnorm, *, out=None):
    """input with each slice along `dim` whose p-norm exceeds maxnorm scaled to norm maxnorm.

    >>> ember.renorm(ember.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    result = _renormed(input, p, dim, maxnorm, "renorm")
    return result if out is None else out.copy_(result)


def renorm_(self, p, dim, maxnorm):
    """renorm_(p, dim, maxnorm) -> Tensor

    In-place renorm: each slice along dim whose p-norm exceeds maxnorm is scaled down to it.

    >>> x = ember.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> _ = x.renorm_(2, 0, 1.0); x
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    return self.copy_(_renormed(self, p, dim, maxnorm, "renorm_"))


FUNCTIONS = {"frobenius_norm": frobenius_norm, "nuclear_norm": nuclear_norm, "renorm": renorm}
METHODS = {"renorm": renorm, "renorm_": renorm_}
