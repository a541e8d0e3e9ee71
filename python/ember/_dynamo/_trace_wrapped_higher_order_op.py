"""torch._dynamo._trace_wrapped_higher_order_op: TransformGetItemToIndex, the function mode under
which `t[i]` with tensor indices only is `aten.index(t, [i])`, so functions that index with
0-d tensors can be vmapped (transformers builds its attention masks so)."""
from ..overrides import TorchFunctionMode
from ..utils import _pytree as pytree

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(TorchFunctionMode):
    """Within the block, indexing a tensor by tensors alone goes to `ember.ops.aten.index`
    (advanced indexing, also by 0-d tensors); any other call runs unchanged.

    >>> from ember._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
    >>> t = ember.arange(6).reshape(2, 3)
    >>> with TransformGetItemToIndex():
    ...     t[ember.tensor(1)], t[ember.tensor([1, 0]), ember.tensor([2, 2])]
    (tensor([3, 4, 5]), tensor([5, 2]))
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        from .. import Tensor, ops
        if func is Tensor.__getitem__:
            index = pytree.tree_leaves(args[1])
            if index and all(isinstance(i, Tensor) for i in index):
                return ops.aten.index(args[0], index)
        return func(*args, **(kwargs or {}))
