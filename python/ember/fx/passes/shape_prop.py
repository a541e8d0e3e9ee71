"""ShapeProp: runs a GraphModule on example inputs and records every node's tensor metadata
(node.meta['tensor_meta'], a TensorMetadata; node.meta['type']), as torch.fx.passes.shape_prop."""
from typing import Any, NamedTuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    # The first memory format the result is laid out in, None for none of them (as torch).
    from ... import _memory_format as mf
    layout = next((f for f in (mf.contiguous_format, mf.channels_last, mf.channels_last_3d)
                   if result.is_contiguous(memory_format=f)), None)
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, tuple(result.stride()),
                          layout, False, {})


class ShapeProp(Interpreter):
    """ShapeProp(gm).propagate(*example_inputs): fills node.meta['tensor_meta'] (a
    TensorMetadata, or a nest of them for a node returning several tensors)."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        if fake_mode is not None:
            raise NotImplementedError("ShapeProp: ember has no fake tensors (fake_mode)")

    def run_node(self, n):
        from ..._tensor import Tensor
        result = super().run_node(n)
        found = False

        def extract(obj):
            nonlocal found
            if isinstance(obj, Tensor):
                found = True
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
