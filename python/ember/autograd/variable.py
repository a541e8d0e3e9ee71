"""torch.autograd.Variable's remains: isinstance(t, Variable) is isinstance(t, Tensor), and
Variable._execution_engine.queue_callback(fn) runs fn() once when the backward() in progress
has finished (DistributedDataParallel waits for its all-reduces there)."""
from .. import _C


class _ExecutionEngine:
    @staticmethod
    def queue_callback(callback):
        """Runs callback() after every node and hook of the running backward; raises
        RuntimeError outside backward (as torch does)."""
        if not callable(callback):
            raise TypeError(f"queue_callback: expected a callable, got {type(callback).__name__}")
        _C._queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    """Deprecated in torch: Variable(t) is t (detached leaves, requires_grad as given).

    >>> v = ember.autograd.Variable(ember.tensor([1.0]), requires_grad=True)
    >>> type(v).__name__, v.requires_grad
    ('Tensor', True)
    """
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False):
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
