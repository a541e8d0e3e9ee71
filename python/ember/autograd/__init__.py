"""ember.autograd: backward, grad, Function, gradcheck. The engine is C++ (src/autograd);
no Python runs during backward() unless the graph holds a Python Function."""
from .. import _C
from .._grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from .grad_mode import is_multithreading_enabled, set_multithreading_enabled
from .variable import Variable
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph, profiler
from . import profiler_legacy, profiler_util
from ._profiler_types import DeviceType, ProfilerConfig, ProfilerState
from .function import NestedIOFunction, SavedTensor
from ..profiler import ProfilerActivity


def kineto_available():
    """False: ember's profiler is its own C++ op timer (ember.profiler), not Kineto.

    >>> ember.autograd.kineto_available()
    False
    """
    return False


def is_view_replay_enabled():
    """False: ember has no view-replay mode (torch's _force_original_view_tracking switch);
    False is also torch's default.

    >>> ember.autograd.is_view_replay_enabled()
    False
    """
    return False


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None) -> None

    Accumulates the gradients of tensors (with grad_tensors as their incoming gradients, which a
    scalar may omit) into the .grad of the graph's leaves (or of `inputs` only), as
    torch.autograd.backward.

    >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
    >>> ember.autograd.backward([(x * x).sum()])
    >>> x.grad
    tensor([2., 4.])
    """

    if retain_graph is None:
        retain_graph = create_graph
    _C._backward(_as_list(tensors), _as_list(grad_tensors), retain_graph, create_graph,
                 _as_list(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False, materialize_grads=False):
    """grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None, is_grads_batched=False, materialize_grads=False) -> tuple of Tensors

    The gradients of outputs with respect to inputs, returned instead of accumulated into .grad
    (torch.autograd.grad); create_graph makes them differentiable in turn.

    >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
    >>> ember.autograd.grad((x ** 3).sum(), x)
    (tensor([ 3., 12.]),)
    >>> g, = ember.autograd.grad((x ** 3).sum(), x, create_graph=True)
    >>> ember.autograd.grad(g.sum(), x)
    (tensor([ 6., 12.]),)
    """

    if retain_graph is None:
        retain_graph = create_graph
    single = isinstance(inputs, _C.Tensor)
    ins = _as_list(inputs)
    res = _C._grad(_as_list(outputs), ins, _as_list(grad_outputs), retain_graph, create_graph,
                   allow_unused or materialize_grads)
    if materialize_grads:
        from .._creation import zeros_like
        res = tuple(zeros_like(i) if r is None else r for r, i in zip(res, ins))
    return res
