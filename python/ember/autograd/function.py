"""ember.autograd.Function: user-defined ops with a Python backward.

    class P3(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return 0.5 * (5 * x ** 3 - 3 * x)

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return grad_out * 1.5 * (5 * x ** 2 - 1)

    y = P3.apply(x)
"""
import functools

from .. import _C
from .._grad_mode import no_grad


class FunctionCtx:
    def __init__(self):
        self._saved = ()
        self._versions = ()
        self._dirty = ()
        self._non_differentiable = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        from .graph import _stack
        if _stack:  # saved-tensor hooks: keep what pack returns (autograd/graph.py)
            pack, unpack = _stack[-1]
            with no_grad():
                self._packed = (unpack, tuple(pack(t) if isinstance(t, _C.Tensor) else t
                                              for t in tensors),
                                tuple(isinstance(t, _C.Tensor) for t in tensors))
            self._saved, self._versions = (), ()
            return
        self._packed = None
        self._saved = tensors
        self._versions = tuple(t._version if isinstance(t, _C.Tensor) else None for t in tensors)

    @property
    def saved_tensors(self):
        if getattr(self, "_packed", None) is not None:
            unpack, packed, is_tensor = self._packed
            with no_grad():
                return tuple(unpack(p) if t else p for p, t in zip(packed, is_tensor))
        for i, (t, v) in enumerate(zip(self._saved, self._versions)):
            if v is not None and t._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: saved tensor {i} of shape {tuple(t.shape)} is at "
                    f"version {t._version}; expected version {v} instead.")
        return self._saved

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class Function:
    """Subclass with @staticmethod forward(ctx, *args) and backward(ctx, *grads)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("Function.forward must be overridden")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("Function.backward must be overridden")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        with no_grad():
            outputs = cls.forward(ctx, *args)
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        inputs = [a for a in args if isinstance(a, _C.Tensor)]
        dirty = {id(t) for t in ctx._dirty}
        # An input returned unchanged becomes a new tensor (as PyTorch does), so that
        # recording history on the output does not rewrite the input's.
        outs = tuple(o.view_as(o) if isinstance(o, _C.Tensor) and id(o) not in dirty
                     and any(o is i for i in inputs) else o for o in outs)
        diff = [o for o in outs if isinstance(o, _C.Tensor) and
                not any(o is n for n in ctx._non_differentiable)]
        # Saved outputs are kept without their history: the node must not own itself.
        out_ids = {id(o) for o in outs}
        ctx._saved = tuple(_C._saved_alias(t) if id(t) in out_ids else t for t in ctx._saved)
        tensor_positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        shapes = [(tuple(o.shape), o.dtype) for o in diff]

        def run_backward(grads):
            if ctx.materialize_grads:
                from .._creation import zeros
                grads = [zeros(s, dtype=d) if g is None else g for g, (s, d) in zip(grads, shapes)]
            res = cls.backward(ctx, *grads)
            if not isinstance(res, tuple):
                res = (res,)
            if len(res) != len(args):
                raise RuntimeError(f"{cls.__name__}.backward returned {len(res)} gradients, "
                                   f"expected {len(args)} (one per forward argument)")
            return [res[i] for i in tensor_positions]

        _C._record_function(cls.__name__ + "Backward", inputs, diff, run_backward)
        return outs[0] if single else outs


class DelayedError(Function):
    """Passes tensors through; differentiating through it raises (once_differentiable)."""

    @staticmethod
    def forward(ctx, *tensors):
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def once_differentiable(fn):
    """Decorates a Function's backward: it runs under no_grad, and when its incoming gradients
    require grad (a double backward is being built), its results carry a node that raises if
    that double backward is run (as torch)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _C.is_grad_enabled() or not any(
                isinstance(a, _C.Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        tensors = [o.detach().requires_grad_(True) for o in outs
                   if isinstance(o, _C.Tensor) and o.dtype.is_floating_point]
        if not tensors:
            return outputs
        wrapped = iter(DelayedError.apply(*tensors))
        outs = tuple(next(wrapped) if isinstance(o, _C.Tensor) and o.dtype.is_floating_point
                     else o for o in outs)
        return outs[0] if single else outs
    return wrapper
