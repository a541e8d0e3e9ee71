"""ember.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint.

checkpoint(fn, *args) runs fn under no_grad, so none of its intermediate tensors is kept;
the graph gets one node that holds only fn's tensor inputs. Its backward runs fn again with
grad enabled (from the same RNG state, so dropout draws the same masks), then backpropagates
the incoming gradients through that recomputed graph with a nested backward() call: the
gradients reach the inputs through the node, and the parameters fn uses directly.

Both of torch's variants are accepted. use_reentrant=True is torch's CheckpointFunction:
the node exists only when a tensor input requires grad. use_reentrant=False also records it
when fn is (a method of) a Module with parameters that require grad, or any other callable
that might use some (see docs/nn.md: what differs from torch's saved-tensor-hook version)."""
import contextlib
import functools
import warnings

from .. import _C
from .._grad_mode import enable_grad, no_grad
from ..autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "CheckpointError",
           "check_backward_validity", "detach_variable", "noop_context_fn"]

_DETERMINISM_CHECKS = ("default", "none")


class CheckpointError(RuntimeError):
    pass


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Each tensor of the tuple detached, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, _C.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad_(inp.requires_grad)
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _C.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def _rng():
    from .. import random
    return random


class CheckpointFunction(Function):
    """forward(ctx, run_function, preserve_rng_state, *args) runs run_function without a graph;
    backward recomputes it with one and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        return _CheckpointNode.forward(ctx, run_function, preserve_rng_state,
                                       contextlib.nullcontext(), None, *args)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + _CheckpointNode.backward(ctx, *grads)[3:]


class _CheckpointNode(Function):
    """The node of one checkpointed call; `anchor` (a tensor that requires grad, or None)
    makes the node exist when no input requires grad but fn's parameters may."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, recompute_context, anchor, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.recompute_context = recompute_context
        ctx.anchor_is_none = anchor is None
        if preserve_rng_state:
            ctx.fwd_cpu_state = _rng().get_rng_state()
        ctx.inputs = [None if isinstance(a, _C.Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, _C.Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _rng().fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                _rng().set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad(), ctx.recompute_context:
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _C.Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, _C.Tensor) and o.requires_grad]
        if pairs:
            from .. import autograd
            autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        elif ctx.anchor_is_none:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        return (None, None, None, None) + tuple(
            inp.grad if isinstance(inp, _C.Tensor) else None for inp in detached)


def _may_use_parameters(function):
    """False only when function is known to use no parameter that requires grad: a Module (or
    a bound method of one) whose parameters all have requires_grad=False."""
    from ..nn import Module
    owner = function if isinstance(function, Module) else getattr(function, "__self__", None)
    if isinstance(owner, Module):
        return any(p.requires_grad for p in owner.parameters())
    return True


def _apply(function, preserve, recompute_context, args):
    anchor = None
    if _C.is_grad_enabled() and not any(
            isinstance(a, _C.Tensor) and a.requires_grad for a in args):
        if _may_use_parameters(function):
            from .._creation import zeros
            anchor = zeros(()).requires_grad_()
    return _CheckpointNode.apply(function, preserve, recompute_context, anchor, *args)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Runs function(*args, **kwargs) keeping only its inputs; the backward recomputes it."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        check_backward_validity(args)  # under no_grad too, as torch's Function.forward
        return CheckpointFunction.apply(function, preserve, *args)
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    fn = functools.partial(function, **kwargs) if kwargs else function
    with forward_context:
        return _apply(fn, preserve, recompute_context, args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a Sequential (or a list of modules/functions) in `segments` checkpointed chunks;
    the last chunk runs normally."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
