"""nn.Parameter and nn.Buffer: Tensor subclasses that a Module registers when they are
assigned as attributes. Each is a detached alias of its data's storage (Tensor.__init__),
so `Parameter(t)` shares t's memory, as in PyTorch."""
from .._tensor import Tensor
from .._creation import empty

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


class Parameter(Tensor):
    """A tensor that is a module parameter: `self.w = nn.Parameter(ember.randn(3, 4))`
    adds it to the module's parameters(). requires_grad is True unless told otherwise,
    in no_grad mode too.

    >>> p = ember.nn.Parameter(ember.zeros(2))
    >>> p
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    def __init__(self, data=None, requires_grad=True):
        super().__init__(data if data is not None else empty(0))
        self.requires_grad_(requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # the Python attributes travel too, as torch's _rebuild_parameter_with_state
        if self.__dict__:
            return (_parameter_with_state, (self.data.clone(), self.requires_grad,
                                            dict(self.__dict__)))
        return (Parameter, (self.data.clone(), self.requires_grad))

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


def _parameter_with_state(data, requires_grad, state):
    p = Parameter(data, requires_grad)
    p.__dict__.update(state)
    return p


class Buffer(Tensor):
    """A tensor that is module state but not a parameter (torch.nn.Buffer): assigned as an
    attribute, it is registered with register_buffer(name, t, persistent).

    >>> m = ember.nn.Module()
    >>> m.stats = ember.nn.Buffer(ember.zeros(2))
    >>> list(dict(m.named_buffers()))
    ['stats']
    """

    def __init__(self, data=None, *, persistent=True):
        data = data if data is not None else empty(0)
        super().__init__(data)
        self.requires_grad_(data.requires_grad)
        self.persistent = persistent


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (lazy modules): it holds no data
    until materialize(shape) gives it some and turns it, in place, into cls_to_become, so
    an optimizer built before that keeps the same object."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor uninitialized data of `shape` and makes it a cls_to_become."""
        from .._creation import empty
        dtype = self.data.dtype if dtype is None else dtype
        self.data = empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """True for an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter without data; becomes a Parameter when materialized.

    >>> p = ember.nn.UninitializedParameter()
    >>> p.materialize((2, 3))
    >>> type(p).__name__, p.shape
    ('Parameter', ember.Size([2, 3]))
    """

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(empty(0, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, None, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without data. Materialized, it becomes an nn.Buffer (torch: a plain Tensor;
    ember's Tensor is a C++ type, which a Python subclass instance cannot be turned into).

    >>> b = ember.nn.UninitializedBuffer()
    >>> b.materialize((2,))
    >>> type(b).__name__, b.shape
    ('Buffer', ember.Size([2]))
    """

    cls_to_become = Buffer

    def materialize(self, shape, device=None, dtype=None):
        super().materialize(shape, device, dtype)
        self.persistent = True

    def __init__(self, requires_grad=False, device=None, dtype=None):
        data = empty(0, dtype=dtype)
        super().__init__(data)
        self.requires_grad_(requires_grad)
