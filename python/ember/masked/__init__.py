"""ember.masked: torch.masked's reductions and normalizations that take a boolean mask: the
elements where the mask (broadcast to the input) is False take no part. Each fills the masked-out
elements with the operation's identity (0 for sum, 1 for prod, -inf for amax, ...) and calls the
plain ember op, so gradients flow to the kept elements. A row with nothing kept gives the
identity (sum 0, amax -inf) or NaN (mean, var, std, softmax), as torch's."""
import builtins
import math

import ember as _e

__all__ = ["sum", "mean", "amax", "amin", "prod", "std", "var", "softmax", "log_softmax",
           "softmin", "normalize", "norm", "logsumexp", "cumsum", "cumprod"]


def _prepare(op, input, mask, dtype):
    if not isinstance(input, _e.Tensor):
        raise TypeError(f"masked.{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if dtype is not None:
        input = input.to(dtype)
    if mask is None:
        return input, None
    if not isinstance(mask, _e.Tensor) or mask.dtype != _e.bool:
        raise ValueError(f"masked.{op}(): mask must be a bool Tensor, got "
                         f"{getattr(mask, 'dtype', type(mask).__name__)}")
    try:
        shape = _e.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except (RuntimeError, ValueError):
        shape = None
    if shape is None or tuple(shape) != tuple(input.shape):
        raise ValueError(f"masked.{op}(): mask of shape {tuple(mask.shape)} cannot be broadcast to "
                         f"input of shape {tuple(input.shape)}")
    return input, mask.expand(input.shape)


def _dims(input, dim):
    if dim is None:
        return tuple(range(input.dim()))
    dims = (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    return tuple(d % input.dim() if input.dim() else 0 for d in dims)


def _filled(input, mask, value):
    return input if mask is None else input.masked_fill(~mask, value)


def _lowest(input, high):
    if input.is_floating_point():
        return math.inf if high else -math.inf
    info = _e.iinfo(input.dtype)
    return info.max if high else info.min


def _count(input, mask, dims, keepdim):
    if mask is None:
        n = 1
        for d in dims:
            n *= input.shape[d]
        return n
    return mask.sum(dims, keepdim=keepdim)


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001
    x, m = _prepare("sum", input, mask, dtype)
    return _filled(x, m, 0).sum(_dims(x, dim), keepdim=keepdim)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("prod", input, mask, dtype)
    out = _filled(x, m, 1)
    for d in sorted(_dims(x, dim), reverse=True):
        out = out.prod(d, keepdim=keepdim)
    return out


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("amax", input, mask, dtype)
    return _filled(x, m, _lowest(x, False)).amax(_dims(x, dim), keepdim=keepdim)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("amin", input, mask, dtype)
    return _filled(x, m, _lowest(x, True)).amin(_dims(x, dim), keepdim=keepdim)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("mean", input, mask, dtype)
    dims = _dims(x, dim)
    return _filled(x, m, 0).sum(dims, keepdim=keepdim) / _count(x, m, dims, keepdim)


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("var", input, mask, dtype)
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = _dims(x, dim)
    n = _count(x, m, dims, True)
    centred = _filled(x - _filled(x, m, 0).sum(dims, keepdim=True) / n, m, 0)
    total = (centred * centred).sum(dims, keepdim=keepdim)
    dof = _count(x, m, dims, keepdim) - correction
    if isinstance(dof, _e.Tensor):
        dof = dof.clamp(min=0)
    else:
        dof = builtins.max(dof, 0)
    return total / dof


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return var(input, dim, unbiased, correction=correction, keepdim=keepdim, dtype=dtype,
               mask=mask).sqrt()


def softmax(input, dim, *, dtype=None, mask=None):
    x, m = _prepare("softmax", input, mask, dtype)
    return _filled(x, m, -math.inf).softmax(dim)


def log_softmax(input, dim, *, dtype=None, mask=None):
    x, m = _prepare("log_softmax", input, mask, dtype)
    return _filled(x, m, -math.inf).log_softmax(dim)


def softmin(input, dim, *, dtype=None, mask=None):
    x, m = _prepare("softmin", input, mask, dtype)
    return _filled(-x, m, -math.inf).softmax(dim)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("logsumexp", input, mask, dtype)
    return _filled(x, m, -math.inf).logsumexp(_dims(x, dim), keepdim=keepdim)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    x, m = _prepare("norm", input, mask, dtype)
    return _e.linalg.vector_norm(_filled(x, m, 0), ord, _dims(x, dim), keepdim)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    x, m = _prepare("normalize", input, mask, dtype)
    kept = _filled(x, m, 0)
    return kept / _e.linalg.vector_norm(kept, ord, dim, True).clamp(min=eps)


def cumsum(input, dim, *, dtype=None, mask=None):
    x, m = _prepare("cumsum", input, mask, dtype)
    return _filled(x, m, 0).cumsum(dim)


def cumprod(input, dim, *, dtype=None, mask=None):
    x, m = _prepare("cumprod", input, mask, dtype)
    return _filled(x, m, 1).cumprod(dim)
