"""Module backward hooks (register_full_backward_hook / register_full_backward_pre_hook), as
torch's; and the deprecated register_backward_hook, a hook on the node of the first output
(_hook_first_output_node). The full hooks: a call of a module that has any wraps its tensor inputs and its tensor outputs in two
identity autograd Functions. Backward reaches the outputs' Function first: it records the
gradients of the outputs (grad_output), after the pre-hooks may replace them. It then reaches
the inputs' Function with the gradients of the inputs (grad_input): the hooks run there, with
(module, grad_input, grad_output), and may return new grad_input. When no input requires a
gradient, the hooks run at the outputs with grad_input all None, as torch's do.
"""
import warnings

from ...autograd import Function
from ..._tensor import Tensor


def _tensors(value):
    """The positions of value's tensors: value itself, or the items of a tuple/list."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, Tensor)]
    return []


def _replace(value, new):
    """value with its tensors replaced by `new`, in order (the shape _tensors read)."""
    if isinstance(value, Tensor):
        return new[0]
    it = iter(new)
    return type(value)(next(it) if isinstance(v, Tensor) else v for v in value)


def _check_count(new, old, hook, what):
    if not isinstance(new, (tuple, list)) or len(new) != len(old):
        raise RuntimeError(f"backward hook {hook!r} returned {len(new) if isinstance(new, (tuple, list)) else type(new).__name__} "
                           f"{what}, but expected {len(old)}")
    return tuple(new)


class _Call:
    """One forward call's state: the module, its outputs' gradients once they arrive."""

    def __init__(self, module, n_inputs):
        self.module = module
        self.n_inputs = n_inputs
        self.grad_output = None
        self.inputs_wrapped = False

    def run_pre_hooks(self, grads):
        for hook in self.module._all_backward_pre_hooks():
            res = hook(self.module, grads)
            if res is not None:
                grads = _check_count(res, grads, hook, "gradients")
        return grads

    def run_hooks(self, grad_input):
        for hook in self.module._backward_hooks_of_kind(True):
            res = hook(self.module, grad_input, self.grad_output)
            if res is not None:
                grad_input = _check_count(res, grad_input, hook, "gradients")
        return grad_input


class _Identity(Function):
    """forward: views of the tensors (new autograd nodes, same values); ctx.call keeps the call."""

    @staticmethod
    def forward(ctx, call, *tensors):
        ctx.call = call
        return tuple(t.view_as(t) for t in tensors)


class _OutputsHook(_Identity):

    @staticmethod
    def backward(ctx, *grads):
        call = ctx.call
        grads = call.run_pre_hooks(tuple(grads))
        call.grad_output = grads
        if not call.inputs_wrapped and call.module._backward_hooks_of_kind(True):
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            call.run_hooks((None,) * call.n_inputs)
        return (None,) + tuple(grads)


class _InputsHook(_Identity):
    """Wraps the inputs that require a gradient; the hooks see zeros for the other tensor
    inputs (torch marks them non-differentiable, and their gradients arrive as zeros)."""

    @staticmethod
    def backward(ctx, *grads):
        from ... import zeros
        call = ctx.call
        it = iter(grads)
        full = tuple(next(it) if needs else zeros(shape, dtype=dtype)
                     for needs, shape, dtype in call.input_meta)
        full = call.run_hooks(full)
        return (None,) + tuple(g for g, (needs, _, _) in zip(full, call.input_meta) if needs)


def call_with_backward_hooks(module, args, kwargs, run):
    """module's forward (`run(args, kwargs)`) with its inputs and outputs hooked for backward
    (full hooks and pre-hooks, global ones first), then the old-kind hooks on the node of the
    first output."""
    full, old = module._backward_hooks_of_kind(True), module._backward_hooks_of_kind(False)
    if full or module._all_backward_pre_hooks():
        result = _call_wrapped(module, args, kwargs, run, bool(full))
    else:
        result = run(args, kwargs)
    if old:
        _hook_first_output_node(module, args, result, old)
    return result


def _call_wrapped(module, args, kwargs, run, wrap_inputs):
    inputs = _tensors(args)
    call = _Call(module, len(inputs))
    if wrap_inputs and any(t.requires_grad for t in inputs):
        call.inputs_wrapped = True
        call.input_meta = [(t.requires_grad, t.shape, t.dtype) for t in inputs]
        wrapped = iter(_InputsHook.apply(call, *[t for t in inputs if t.requires_grad]))
        args = _replace(args, [next(wrapped) if t.requires_grad else t for t in inputs])
    result = run(args, kwargs)
    outputs = _tensors(result)
    if any(t.requires_grad for t in outputs):
        result = _replace(result, _OutputsHook.apply(call, *outputs))
    return result


def _first_tensor(value):
    """torch's choice of the tensor whose node gets the old-style hooks: the first item,
    depth first (a dict's first tensor value)."""
    while not isinstance(value, Tensor):
        if isinstance(value, dict):
            value = next(v for v in value.values() if isinstance(v, Tensor))
        else:
            value = value[0]
    return value


def _hook_first_output_node(module, args, result, hooks):
    """register_backward_hook's hooks (global, then the module's) on the node of the first
    output, with torch's deprecation warnings."""
    grad_fn = _first_tensor(result).grad_fn
    if grad_fn is not None:
        for hook in hooks:
            grad_fn.register_hook(lambda gin, gout, hook=hook: hook(module, gin, gout))
        _warn_old_hook(args, result, grad_fn)


def _warn_old_hook(inputs, result, grad_fn):
    """torch's warnings where an old-style hook's grad_input or grad_output miss values."""
    why = None
    if isinstance(result, Tensor):
        result = (result,)
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        why = ("Using non-full backward hooks on a Module that does not return a single Tensor "
               "or a tuple of Tensors is deprecated and will be removed in future versions. "
               "This hook will be missing some of the grad_output. Please use "
               "register_full_backward_hook to get the documented behavior.")
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        why = ("Using non-full backward hooks on a Module that does not take as input a single "
               "Tensor or a tuple of Tensors is deprecated and will be removed in future "
               "versions. This hook will be missing some of the grad_input. Please use "
               "register_full_backward_hook to get the documented behavior.")
    else:
        out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_fns) == 0 or (len(out_fns) == 1 and grad_fn not in out_fns):
            why = ("Using a non-full backward hook when outputs are nested in python data "
                   "structure is deprecated and will be removed in future versions. This hook "
                   "will be missing some grad_output.")
        elif len(out_fns) > 1:
            why = ("Using a non-full backward hook when outputs are generated by different "
                   "autograd Nodes is deprecated and will be removed in future versions. This "
                   "hook will be missing some grad_output. Please use "
                   "register_full_backward_hook to get the documented behavior.")
        elif {i.grad_fn for i in inputs if i.grad_fn is not None} != \
                {f for f, _ in grad_fn.next_functions}:
            why = ("Using a non-full backward hook when the forward contains multiple autograd "
                   "Nodes is deprecated and will be removed in future versions. This hook will "
                   "be missing some grad_input. Please use register_full_backward_hook to get "
                   "the documented behavior.")
    if why:
        warnings.warn(why, FutureWarning, stacklevel=4)
