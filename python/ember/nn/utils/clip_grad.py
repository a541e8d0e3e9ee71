"""torch.nn.utils.clip_grad: gradient clipping. clip_grad_norm_ = get_total_norm of the grads,
then clip_grads_with_norm_ (both public since torch 2.6, for clipping by a norm computed
elsewhere, e.g. across pipeline stages)."""
import math
import types
import warnings

from ... import _C
from ..._creation import tensor
from ..._grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _tensors(parameters):
    return [parameters] if isinstance(parameters, _C.Tensor) else list(parameters)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (as if all were one vector); 0-d, in the first
    tensor's dtype; tensor(0.) for none.

    >>> ember.nn.utils.get_total_norm([ember.tensor([3.0]), ember.tensor([4.0])])
    tensor(5.)
    """
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    if norm_type == math.inf:
        if any(g.numel() == 0 for g in tensors):  # as torch: a max has no identity
            raise RuntimeError("get_total_norm: cannot compute the infinity norm of an empty "
                               "tensor (the max has no identity)")
        norms = [g.abs().max() for g in tensors]
        total = norms[0] if len(norms) == 1 else _C.stack(norms).max()
    else:
        total = _C.stack([g.norm(p=norm_type) for g in tensors]).norm(p=norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the parameters' grads in place by min(1, max_norm / (total_norm + 1e-6)).

    >>> p = ember.nn.Parameter(ember.zeros(2))
    >>> p.grad = ember.tensor([3.0, 4.0])
    >>> ember.nn.utils.clip_grads_with_norm_([p], 1.0, ember.tensor(5.0))
    >>> p.grad
    tensor([0.6000, 0.8000])
    """
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    if not isinstance(total_norm, _C.Tensor):
        total_norm = tensor(float(total_norm))
    coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)  # no branch on the value, as torch
    for g in grads:
        g.mul_(coef.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm (as if all were one vector) is
    at most max_norm; returns that norm, before clipping (torch.nn.utils.clip_grad_norm_).

    >>> p = ember.nn.Parameter(ember.zeros(2))
    >>> p.grad = ember.tensor([3.0, 4.0])
    >>> ember.nn.utils.clip_grad_norm_([p], max_norm=1.0), p.grad
    (tensor(5.), tensor([0.6000, 0.8000]))
    """
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of clip_grad_norm_ (FutureWarning, as torch).

    >>> import warnings
    >>> p = ember.nn.Parameter(ember.zeros(2))
    >>> p.grad = ember.tensor([3.0, 4.0])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     total = ember.nn.utils.clip_grad_norm([p], max_norm=1.0)
    >>> total, p.grad
    (tensor(5.), tensor([0.6000, 0.8000]))
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient in place to [-clip_value, clip_value].

    >>> p = ember.nn.Parameter(ember.zeros(2))
    >>> p.grad = ember.tensor([-3.0, 0.5])
    >>> ember.nn.utils.clip_grad_value_([p], 1.0)
    >>> p.grad
    tensor([-1.0000,  0.5000])
    """
    clip_value = float(clip_value)
    for p in _tensors(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
