"""ember.autograd.Function: user-defined ops with a Python backward. A subclass defines
static forward(ctx, *inputs) and backward(ctx, *grad_outputs) and is called as
Subclass.apply(*inputs); Function's docstring has an example, docs/autograd.md the rules."""
import functools

from .. import _C
from .._grad_mode import no_grad
from . import graph as _graph


class FunctionCtx:
    # Defaults as class attributes: a ctx is made per apply, so its __init__ sets nothing.
    """FunctionCtx()

    The `ctx` a Function's forward and backward receive: save_for_backward / saved_tensors,
    mark_dirty, mark_non_differentiable, set_materialize_grads, needs_input_grad.

    >>> class Identity(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         print(isinstance(ctx, ember.autograd.FunctionCtx))
    ...         return x.clone()
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad
    >>> _ = Identity.apply(ember.ones(1, requires_grad=True))
    True
    """

    _saved = ()
    _versions = ()
    _packed = None  # (unpack, packed values, is_tensor flags) under saved-tensor hooks
    _dirty = ()
    _non_differentiable = ()
    needs_input_grad = ()
    materialize_grads = True
    _freed = False  # the graph was freed after saving: saved_tensors raises

    def _release(self):
        """Drops what was saved (the node's graph is freed); True when there was something."""
        freed = bool(self._saved) or self._packed is not None
        self._freed |= freed
        self._saved = self._versions = ()
        self._packed = None
        self.__dict__.pop("_slot_hooks", None)
        return freed

    def save_for_backward(self, *tensors):
        _stack = _graph._stack
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
        self._versions = _C._saved_versions(tensors)

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward.")
        if self._packed is not None:
            unpack, packed, is_tensor = self._packed
            with no_grad():
                return tuple(unpack(p) if t else p for p, t in zip(packed, is_tensor))
        hooked = getattr(self, "_slot_hooks", {})
        if hooked:  # slots repacked through SavedTensor.register_hooks
            with no_grad():
                saved = tuple(hooked[i][1](hooked[i][0]) if i in hooked else t
                              for i, t in enumerate(self._saved))
            self._check_versions(hooked)
            return saved
        self._check_versions({})
        return self._saved

    @property
    def _raw_saved_tensors(self):
        """The saved tensors as SavedTensor objects (torch's grad_fn._raw_saved_tensors)."""
        return tuple(SavedTensor._of(self, i) for i in range(len(self._saved)))

    def _check_versions(self, skip):
        """Raises torch's error for a saved tensor (not in skip) modified in place since."""
        _C._check_saved_versions(self._saved, self._versions, skip or None)

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class Function:
    """Subclass with @staticmethod forward(ctx, *args) and backward(ctx, *grads).

    >>> class Square(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = ember.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).sum().backward()
    >>> x.grad
    tensor([6.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("Function.forward must be overridden")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("Function.backward must be overridden")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Overridden, it makes forward take no ctx: apply runs forward(*args), then
        setup_context(ctx, args, output) to save what backward needs (torch's style).

        >>> class Cube(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(x):
        ...         return x ** 3
        ...     @staticmethod
        ...     def setup_context(ctx, inputs, output):
        ...         ctx.save_for_backward(inputs[0])
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return 3 * x * x * grad
        >>> x = ember.tensor([2.0], requires_grad=True)
        >>> Cube.apply(x).sum().backward()
        >>> x.grad
        tensor([12.])
        """
        raise NotImplementedError("setup_context is not implemented.")

    # What apply calls as forward(ctx, *args): the subclass's forward, or, when it overrides
    # setup_context, forward(*args) followed by setup_context(ctx, args, output).
    _ctx_forward = forward

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        forward, setup = cls.forward, cls.setup_context
        if setup is Function.setup_context:
            cls._ctx_forward = staticmethod(forward)
            return

        def forward_then_setup(ctx, *args):
            output = forward(*args)
            setup(ctx, args, output)
            return output
        cls._ctx_forward = staticmethod(forward_then_setup)

    # apply(*args): makes a _ctx_type, runs _ctx_forward(ctx, *args) with grad mode off and,
    # when grad mode is on and an input requires grad, records the node that will call
    # backward; all in C++ (_C._function_apply, record_py_function in bindings/autograd.cpp).
    _ctx_type = FunctionCtx
    apply = classmethod(_C._function_apply)


class SavedTensor:
    """One tensor a Function saved for backward (ctx._raw_saved_tensors[i]).
    register_hooks(pack_hook, unpack_hook) stores pack_hook(tensor) instead of the tensor, from
    now on, and gives unpack_hook(packed) to backward (one pair per saved tensor, as torch).

    >>> class Square(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         print(type(ctx._raw_saved_tensors[0]).__name__)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return 2 * ctx.saved_tensors[0] * grad
    >>> y = Square.apply(ember.tensor([3.0], requires_grad=True))
    SavedTensor
    """

    def __init__(self):
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    @classmethod
    def _of(cls, ctx, index):
        self = object.__new__(cls)
        self._ctx, self._index = ctx, index
        return self

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks: pack_hook and unpack_hook must be callable")
        ctx, i = self._ctx, self._index
        hooks = ctx.__dict__.setdefault("_slot_hooks", {})
        if i in hooks or ctx._packed is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        tensor = ctx._saved[i]
        if not isinstance(tensor, _C.Tensor):
            raise RuntimeError("register_hooks: the saved value is not a tensor")
        with no_grad():
            hooks[i] = (pack_hook(tensor), unpack_hook)

    @property
    def data(self):
        """The saved tensor (unpacked through the hooks when they are set), detached."""
        ctx, i = self._ctx, self._index
        hooks = getattr(ctx, "_slot_hooks", {})
        with no_grad():
            t = hooks[i][1](hooks[i][0]) if i in hooks else ctx._saved[i]
        return t.detach() if isinstance(t, _C.Tensor) else t

    def __repr__(self):
        return f"<SavedTensor {self._index} of {type(self._ctx).__name__}>"


def _tensors_in(obj):
    """The tensors of a nested tuple/list structure, in order."""
    if isinstance(obj, _C.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors_in(o)


def _rebuild(like, flat):
    """`like`'s nested structure with its tensors taken in order from the iterator flat (other
    values kept)."""
    if isinstance(like, _C.Tensor):
        return next(flat)
    if isinstance(like, (list, tuple)):
        return type(like)(_rebuild(o, flat) for o in like)
    return like


class NestedIOFunction(Function):
    """The old, instance-style Function whose inputs and outputs may be nested tuples/lists of
    tensors: subclass it with forward_extended(*inputs) and backward_extended(*grad_outputs)
    (same nesting as the outputs; return one gradient per input tensor), then call an instance:
    `outputs = MyFn()(a, (b, c))`. self.save_for_backward / saved_tensors / mark_dirty /
    mark_non_differentiable work inside forward_extended and backward_extended.

    >>> class Twice(ember.autograd.NestedIOFunction):
    ...     def forward_extended(self, x):
    ...         return x * 2
    ...     def backward_extended(self, grad):
    ...         return grad * 2
    >>> x = ember.tensor([1.0], requires_grad=True)
    >>> Twice()(x).sum().backward()
    >>> x.grad
    tensor([2.])
    """

    def __call__(self, *inputs):
        return self._do_forward(*inputs)

    def _do_forward(self, *inputs):
        outer = self
        flat_in = tuple(_tensors_in(inputs))

        class _Run(Function):
            @staticmethod
            def forward(ctx, *flat):
                outer._ctx = ctx
                outer._nested_input = _rebuild(inputs, iter(flat))
                result = outer.forward_extended(*outer._nested_input)
                del outer._nested_input
                outer._nested_output = result
                return tuple(_tensors_in(result))

            @staticmethod
            def backward(ctx, *grads):
                nested = _rebuild(outer._nested_output, iter(grads))
                result = outer.backward_extended(*(nested if isinstance(nested, tuple)
                                                   else (nested,)))
                result = result if isinstance(result, tuple) else (result,)
                flat = []

                def collect(r):
                    if isinstance(r, (list, tuple)):
                        for x in r:
                            collect(x)
                    else:
                        flat.append(r)
                collect(result)
                return tuple(flat)

        _Run.__name__ = type(self).__name__
        flat_out = _Run.apply(*flat_in)
        flat_out = flat_out if isinstance(flat_out, tuple) else (flat_out,)
        return _rebuild(self._nested_output, iter(flat_out))

    def save_for_backward(self, *args):
        self._to_save_nested = args
        self._ctx.save_for_backward(*_tensors_in(args))

    @property
    def saved_tensors(self):
        return _rebuild(self._to_save_nested, iter(self._ctx.saved_tensors))

    def mark_dirty(self, *args, **kwargs):
        self._ctx.mark_dirty(*_tensors_in((args, tuple(kwargs.values()))))

    def mark_non_differentiable(self, *args, **kwargs):
        self._ctx.mark_non_differentiable(*_tensors_in((args, tuple(kwargs.values()))))

    def forward_extended(self, *input):
        raise NotImplementedError(f"{type(self).__name__} must define forward_extended")

    def backward_extended(self, *grad_output):
        raise NotImplementedError(f"{type(self).__name__} must define backward_extended")


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
    that double backward is run (as torch).

    >>> class Cube(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     @ember.autograd.once_differentiable
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return 3 * x ** 2 * grad
    >>> x = ember.tensor([2.0], requires_grad=True)
    >>> Cube.apply(x).sum().backward()
    >>> x.grad
    tensor([12.])
    """
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
