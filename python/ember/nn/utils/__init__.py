"""torch.nn.utils: gradient clipping and flattening parameters into one vector."""
import math

from ... import _C
from ..._creation import tensor
from ..._grad_mode import no_grad
from . import rnn  # noqa: F401  (torch.nn.utils.rnn: pad_sequence, PackedSequence, ...)

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _tensors(parameters):
    return [parameters] if isinstance(parameters, _C.Tensor) else list(parameters)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm (as if all were one vector) is
    at most max_norm; returns that norm, before clipping (torch.nn.utils.clip_grad_norm_)."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return tensor(0.0)
    if norm_type == math.inf:
        if any(g.numel() == 0 for g in grads):  # as torch: a max has no identity
            raise RuntimeError("clip_grad_norm_: cannot compute the infinity norm of an empty "
                               "gradient (the max has no identity)")
        norms = [g.abs().max() for g in grads]
        total = norms[0] if len(norms) == 1 else _C.stack(norms).max()
    else:
        total = _C.stack([g.norm(p=norm_type) for g in grads]).norm(p=norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    coef = (max_norm / (total + 1e-6)).clamp(max=1.0)  # no branch on the value, as torch
    for g in grads:
        g.mul_(coef.to(g.dtype))
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for p in _tensors(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor (a copy)."""
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive pieces of a 1-D vec into the parameters (in place)."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.dim() != 1 or vec.numel() != total:
        raise ValueError(f"vector_to_parameters: vec of shape {tuple(vec.shape)} does not hold "
                         f"the {total} parameter values")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
