"""torch.onnx.export on ember's fx graph.

1. Trace the model with ember.fx (layers with an ONNX converter are kept whole, as leaves; the
   rest is traced through), in eval mode.
2. Run ShapeProp on the example inputs: every node learns its dtype and rank.
3. Walk the nodes: inputs become graph inputs (dynamic_axes name their symbolic dims),
   parameters and buffers initializers, each call a few ONNX ops (_ops.py, _layers.py).
4. Check the model with onnx.checker and write it with the onnx package.
"""
import inspect
import warnings

from .. import fx
from ..fx.node import map_arg
from ..fx.passes.shape_prop import ShapeProp, TensorMetadata
from ._builder import Builder, Val, onnx_type
from ._layers import LAYERS
from ._ops import CONVERTERS, fail, op_name
from .errors import OnnxExporterError

DEFAULT_OPSET = 18
MIN_OPSET = 17


class _ExportTracer(fx.Tracer):
    """Keeps the layers that have a converter whole; traces through every other module."""

    def is_leaf_module(self, m, qualname):
        return type(m).__name__ in LAYERS and (type(m).__module__ or "").startswith("ember.nn")


class _Out:
    def __init__(self, meta):
        self.elem = onnx_type(meta.dtype)
        self.rank = len(meta.shape)
        self.shape = tuple(meta.shape)


def _out_info(node):
    meta = node.meta.get("tensor_meta")
    return _Out(meta) if isinstance(meta, TensorMetadata) else None


def _dim_names(dynamic_axes, name, rank):
    spec = (dynamic_axes or {}).get(name)
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return {int(k) % max(rank, 1): str(v) for k, v in spec.items()}
    return {int(k) % max(rank, 1): f"{name}_dynamic_axes_{i + 1}" for i, k in enumerate(spec)}


def _value_info(name, out, dims, shaped=True):
    from onnx import helper
    if not shaped and not dims:
        return helper.make_tensor_value_info(name, out.elem, [None] * out.rank)
    shape = [dims.get(i, out.shape[i] if shaped else None) for i in range(out.rank)]
    return helper.make_tensor_value_info(name, out.elem, shape)


def _leaves(value, cls, on_other=None):
    """The cls instances in value, in order, through nested tuples, lists and dicts;
    on_other(v) is called for any other v that is not None."""
    found = []

    def walk(v):
        if isinstance(v, cls):
            found.append(v)
        elif isinstance(v, (tuple, list)):
            for e in v:
                walk(e)
        elif isinstance(v, dict):
            for e in v.values():
                walk(e)
        elif v is not None and on_other is not None:
            on_other(v)
    walk(value)
    return found


def _flatten_outputs(value, node):
    return _leaves(value, Val, lambda v: fail(f"returning a {type(v).__name__} from the model"))


def build_model(model, args, kwargs, input_names, output_names, opset, dynamic_axes,
                export_params, keep_initializers_as_inputs):
    """The onnx.ModelProto of model(*args, **kwargs), and the eager outputs."""
    import onnx
    from onnx import helper
    from ..nn import Module
    from .._tensor import Tensor
    tracer = _ExportTracer()
    inputs_ = _input_values(model, args, kwargs)
    full_args = [v for _, v in inputs_]
    if isinstance(model, Module) and tracer.is_leaf_module(model, ""):
        gm = _single_layer(model)  # the model is one layer the exporter converts whole
    else:
        concrete = {n: v for n, v in inputs_ if not isinstance(v, Tensor)}
        graph = tracer.trace(model, concrete)
        gm = fx.GraphModule(tracer.root, graph, type(model).__name__ if isinstance(model, Module)
                            else getattr(model, "__name__", "model"))
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    from .._grad_mode import no_grad
    with no_grad():
        ShapeProp(gm).propagate(*full_args)

    b = Builder(opset)
    env, inputs, attr_cache = {}, [], {}
    tensor_inputs = [ph for ph, a in zip(placeholders, full_args) if isinstance(a, Tensor)]
    names = list(input_names or [])
    if len(names) > len(tensor_inputs):
        raise ValueError(f"onnx.export: {len(names)} input_names for {len(tensor_inputs)} "
                         "tensor inputs")
    for ph, a in zip(placeholders, full_args):
        if not isinstance(a, Tensor):
            env[ph] = a
            continue
        i = tensor_inputs.index(ph)
        name = b.reserve(names[i] if i < len(names) else ph.target)
        out = _out_info(ph)
        env[ph] = Val(name, out.elem, out.rank)
        inputs.append(_value_info(name, out, _dim_names(dynamic_axes, name, out.rank)))
    out_node = None
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            out_node = node
            break
        out = _out_info(node)
        args_ = map_arg(node.args, lambda n: env[n])
        kwargs_ = map_arg(node.kwargs, lambda n: env[n])
        if node.op == "get_attr":
            obj = gm
            for atom in node.target.split("."):
                obj = getattr(obj, atom)
            if isinstance(obj, Tensor):
                if node.target not in attr_cache:
                    attr_cache[node.target] = b.tensor(obj, node.target)
                env[node] = attr_cache[node.target]
            else:
                env[node] = obj
        elif node.op == "call_module":
            mod = gm.get_submodule(node.target)
            b.scope = node.target
            env[node] = LAYERS[type(mod).__name__](b, mod, args_, kwargs_, out)
            b.scope = ""
        elif not _holds_val((args_, kwargs_)):
            env[node] = _fold(b, node, args_, kwargs_)  # Python values only: computed here
        else:
            key = op_name(node)
            conv = CONVERTERS.get(key)
            if conv is None:
                fail(f"{node.op} {key!r} (node {node.name})")
            env[node] = conv(b, list(args_), dict(kwargs_), out)

    result = map_arg(out_node.args[0], lambda n: env[n]) if out_node is not None else None
    flat = _flatten_outputs(result, out_node)
    metas = _leaves(_meta_of(out_node.args[0]), TensorMetadata) if out_node is not None else []
    if len(metas) != len(flat):
        raise OnnxExporterError(f"onnx.export: {len(flat)} outputs but {len(metas)} shapes known")
    outputs = []
    out_names = list(output_names or [])
    for i, (v, meta) in enumerate(zip(flat, metas)):
        name = b.reserve(out_names[i] if i < len(out_names) else
                         ("output" if len(flat) == 1 else f"output_{i}"))
        b.nodes.append(helper.make_node("Identity", [v.name], [name], name=b.fresh("n_" + name)))
        out = _Out(meta)
        outputs.append(_value_info(name, out, _dim_names(dynamic_axes, name, out.rank),
                                   shaped=not dynamic_axes))
    known = {vi.name for vi in inputs} | {vi.name for vi in outputs}
    for key in dynamic_axes or {}:
        if key not in known:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name")
    initializers = b.initializers
    if not export_params or keep_initializers_as_inputs:
        for t in initializers:
            inputs.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        if not export_params:
            initializers = []
    g = helper.make_graph(b.nodes, gm.__class__.__name__, inputs, outputs, initializers)
    opset_id = helper.make_opsetid("", opset)
    import ember
    model_proto = helper.make_model(g, opset_imports=[opset_id], producer_name="ember",
                                    producer_version=ember.__version__)
    model_proto.ir_version = helper.find_min_ir_version_for([opset_id])
    onnx.checker.check_model(model_proto)
    return model_proto


def _input_values(model, args, kwargs):
    """(name, value) of every parameter of the model's forward, given or left at its default.
    The non-tensors (masks of None, is_causal=False) become concrete_args of the trace: the
    ONNX graph takes tensors only."""
    from ..nn import Module
    fn = type(model).forward if isinstance(model, Module) else model
    params = list(inspect.signature(fn).parameters.values())[1 if isinstance(model, Module)
                                                               else 0:]
    out = []
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            break
        value = args[i] if i < len(args) else kwargs.get(p.name, p.default)
        if value is inspect.Parameter.empty:
            raise TypeError(f"onnx.export: missing a value for the model's input {p.name!r}")
        out.append((p.name, value))
    if len(args) > len(out):
        raise TypeError(f"onnx.export: {len(args)} inputs given, the model takes {len(out)}")
    return out


def _single_layer(model):
    """A GraphModule calling `model` once, with its forward's parameters as inputs."""
    from ..nn import Module
    holder = Module()
    holder.add_module("layer", model)
    g = fx.Graph()
    phs = []
    for p in list(inspect.signature(type(model).forward).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            break
        phs.append(g.placeholder(p.name, default_value=p.default))
    g.output(g.call_module("layer", tuple(phs)))
    return fx.GraphModule(holder, g, type(model).__name__)


def _holds_val(nest):
    found = []
    fx.node.map_aggregate(nest, lambda x: found.append(x) if isinstance(x, Val) else None)
    return bool(found)


def _fold(b, node, args, kwargs):
    """A node whose inputs are all Python values (the concrete_args checks, shape arithmetic on
    constants, a tensor made from constants) runs at export time; a tensor result becomes an
    initializer."""
    from .._tensor import Tensor
    if node.op == "call_method":
        value = getattr(args[0], node.target)(*args[1:], **kwargs)
    else:
        value = node.target(*args, **kwargs)
    return b.tensor(value, node.name) if isinstance(value, Tensor) else value


def _meta_of(nest):
    return map_arg(nest, lambda n: n.meta.get("tensor_meta"))
