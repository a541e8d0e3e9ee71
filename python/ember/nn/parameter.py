"""nn.Parameter and nn.Buffer: Tensor subclasses that a Module registers when they are
assigned as attributes. Each is a detached alias of its data's storage (Tensor.__init__),
so `Parameter(t)` shares t's memory, as in PyTorch."""
from .._tensor import Tensor
from .._creation import empty

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A tensor that is a module parameter: `self.w = nn.Parameter(ember.randn(3, 4))`
    adds it to the module's parameters(). requires_grad is True unless told otherwise,
    in no_grad mode too."""

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
        return (Parameter, (self.data.clone(), self.requires_grad))

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


class Buffer(Tensor):
    """A tensor that is module state but not a parameter (torch.nn.Buffer): assigned as an
    attribute, it is registered with register_buffer(name, t, persistent)."""

    def __init__(self, data=None, *, persistent=True):
        data = data if data is not None else empty(0)
        super().__init__(data)
        self.requires_grad_(data.requires_grad)
        self.persistent = persistent
