"""The ONNX side of the exporter: named values, nodes, initializers and constants.

A `Val` is one ONNX tensor of the graph being built (its name, element type and, when known,
rank). Converters ask the Builder for ops (`b.op("Relu", [x])`) and constants; the Builder
hands out unique names. Constants that are shapes, axes or scalars become initializers too.
"""
import numpy as np

_NP_OF = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
          9: np.bool_, 10: np.float16, 11: np.float64}


def onnx_type(dtype):
    """The TensorProto element type of an ember dtype."""
    import ember
    from onnx import TensorProto
    table = {ember.float32: TensorProto.FLOAT, ember.float64: TensorProto.DOUBLE,
             ember.int64: TensorProto.INT64, ember.int32: TensorProto.INT32,
             ember.int16: TensorProto.INT16, ember.int8: TensorProto.INT8,
             ember.uint8: TensorProto.UINT8, ember.bool: TensorProto.BOOL}
    if dtype not in table:
        raise ValueError(f"onnx.export: dtype {dtype} has no ONNX element type here")
    return table[dtype]


class Val:
    """An ONNX tensor of the graph: name, element type (TensorProto enum), rank or None."""

    def __init__(self, name, elem, rank=None):
        self.name = name
        self.elem = elem
        self.rank = rank

    def __repr__(self):
        return f"Val({self.name}, {self.elem}, rank={self.rank})"

    @property
    def is_float(self):
        return self.elem in (1, 10, 11, 16)


class Builder:
    """Collects the nodes and initializers of one ONNX graph."""

    def __init__(self, opset):
        self.opset = opset
        self.nodes = []
        self.initializers = []
        self._used = set()
        self._consts = {}
        self.scope = ""  # the layer being converted: its parameters are named after it

    def fresh(self, hint):
        hint = "".join(c if c.isalnum() or c in "_." else "_" for c in str(hint)) or "v"
        name, i = hint, 0
        while name in self._used:
            i += 1
            name = f"{hint}_{i}"
        self._used.add(name)
        return name

    def reserve(self, name):
        if name in self._used:
            raise ValueError(f"onnx.export: the name {name!r} is used twice")
        self._used.add(name)
        return name

    def op(self, op_type, inputs, elem, rank=None, n_out=1, name=None, **attrs):
        """Appends an op; returns its output Val (a list of Vals when n_out > 1)."""
        from onnx import helper
        outs = [self.fresh(name or op_type.lower()) for _ in range(n_out)]
        ins = ["" if v is None else v.name for v in inputs]
        self.nodes.append(helper.make_node(op_type, ins, outs, name=self.fresh("n_" + outs[0]),
                                           **attrs))
        vals = [Val(o, elem, rank) for o in outs]
        return vals[0] if n_out == 1 else vals

    def initializer(self, array, hint):
        from onnx import numpy_helper
        name = self.fresh(f"{self.scope}.{hint}" if self.scope else hint)
        # (np.ascontiguousarray would turn a 0-d constant into 1-d)
        arr = np.array(array, order="C", copy=True)
        self.initializers.append(numpy_helper.from_array(arr, name))
        return Val(name, _elem_of(array.dtype), array.ndim)

    def const(self, value, elem):
        """A constant initializer (scalar or list) of element type elem, shared when repeated."""
        arr = np.asarray(value, dtype=_NP_OF[elem])
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        if key not in self._consts:
            scope, self.scope = self.scope, ""
            self._consts[key] = self.initializer(arr, "const")
            self.scope = scope
        return self._consts[key]

    def ints(self, values):
        return self.const(list(values), 7)

    def tensor(self, t, hint):
        """An ember tensor as an initializer."""
        return self.initializer(t.detach().numpy(), hint)


def _elem_of(np_dtype):
    for k, v in _NP_OF.items():
        if np.dtype(v) == np_dtype:
            return k
    raise ValueError(f"onnx.export: numpy dtype {np_dtype} has no ONNX element type here")
