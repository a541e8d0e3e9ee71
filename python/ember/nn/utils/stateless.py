"""torch.nn.utils.stateless: the older name of ember.func.functional_call (one implementation,
in ember/func/_functional_call.py; this one warns as torch's does)."""
import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """module(*args, **kwargs) with the named tensors in place of its own (FutureWarning: use
    ember.func.functional_call, a drop-in replacement)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    from ...func._functional_call import functional_call as func_functional_call
    return func_functional_call(module, parameters_and_buffers, args, kwargs,
                                tie_weights=tie_weights, strict=strict)
