"""ONNXProgram: what ember.onnx.export returns (torch.onnx.ONNXProgram): the ModelProto, save,
a call that runs it on onnxruntime (ember tensors in, ember tensors out), onnx's reference
evaluator, intermediate values, new weights and renamed axes."""
import copy
import warnings

from .errors import OnnxExporterWarning


def _feed(names, args, kwargs):
    feed = dict(zip(names, [a.detach().numpy() for a in args]))
    feed.update({k: v.detach().numpy() for k, v in (kwargs or {}).items()})
    return feed


def _tensors(outputs):
    import numpy as np
    import ember
    return [ember.from_numpy(np.array(o, copy=True)) for o in outputs]


class ONNXProgram:
    """ONNXProgram(model_proto)

    What ember.onnx.export returns (torch.onnx.ONNXProgram): the exported model as an onnx
    ModelProto (model_proto), with save(path) and, given onnxruntime, a call that runs it.

    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "relu.onnx")
    >>> program = ember.onnx.export(ember.nn.ReLU(), (ember.tensor([-1.0, 2.0]),), path)
    >>> type(program).__name__, [node.op_type for node in program.model_proto.graph.node]
    ('ONNXProgram', ['Relu', 'Identity'])
    """
    def __init__(self, model_proto):
        self.model_proto = model_proto
        self.model = model_proto
        self._session = None

    def save(self, destination, **_ignored):
        import onnx
        onnx.save_model(self.model_proto, destination)

    def initialize_inference_session(self, initializer=None):
        """Builds the onnxruntime session (initializer(model bytes) -> session, when given)."""
        import onnxruntime as ort
        data = self.model_proto.SerializeToString()
        self._session = (initializer(data) if initializer is not None else
                         ort.InferenceSession(data, providers=["CPUExecutionProvider"]))

    def release(self):
        """Drops the inference session (the next call builds a new one)."""
        self._session = None

    def __call__(self, *args, **kwargs):
        if self._session is None:
            self.initialize_inference_session()
        names = [i.name for i in self._session.get_inputs()]
        return _tensors(self._session.run(None, _feed(names, args, kwargs)))

    def call_reference(self, *args, **kwargs):
        """The model run by onnx's reference evaluator (pure NumPy), as a tuple of tensors."""
        import onnx.reference
        evaluator = onnx.reference.ReferenceEvaluator(self.model_proto)
        names = [i.name for i in self.model_proto.graph.input]
        return tuple(_tensors(evaluator.run(None, _feed(names, args, kwargs))))

    def compute_values(self, value_names, args=(), kwargs=None):
        """The values named `value_names` (inputs, initializers or any node output), computed on
        args by onnxruntime, as a tuple of tensors."""
        import onnx
        import onnxruntime as ort
        model = onnx.shape_inference.infer_shapes(copy.deepcopy(self.model_proto))
        graph = model.graph
        known = {v.name: v for v in list(graph.value_info) + list(graph.output) +
                 list(graph.input)}
        inits = {t.name for t in graph.initializer}
        for name in value_names:
            if name not in known and name not in inits:
                raise ValueError(f"compute_values: the model has no value named {name!r}")
        graph.ClearField("output")
        for name in value_names:
            if name in known:
                graph.output.append(known[name])
            else:
                graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        return tuple(_tensors(session.run(None, _feed(names, args, kwargs))))

    def apply_weights(self, state_dict):
        """Replaces the initializers named in state_dict by its tensors (a name the model does
        not have warns and is skipped, as torch)."""
        from onnx import numpy_helper
        inits = {t.name: i for i, t in enumerate(self.model_proto.graph.initializer)}
        for name, tensor in state_dict.items():
            if name not in inits:
                warnings.warn(f"Weight '{name}' not found in the model. Skipped applying.",
                              OnnxExporterWarning, stacklevel=2)
                continue
            old = self.model_proto.graph.initializer[inits[name]]
            new = numpy_helper.from_array(tensor.detach().numpy(), name)
            if tuple(new.dims) != tuple(old.dims) or new.data_type != old.data_type:
                raise ValueError(f"apply_weights: {name} has shape {tuple(old.dims)} in the "
                                 f"model, got {tuple(new.dims)} (or another dtype)")
            old.CopyFrom(new)
        self._session = None

    def rename_axes(self, rename_mapping):
        """Renames the symbolic dims (dim_param) of the inputs, outputs and values."""
        graph = self.model_proto.graph
        for value in list(graph.input) + list(graph.output) + list(graph.value_info):
            for dim in value.type.tensor_type.shape.dim:
                if dim.HasField("dim_param") and dim.dim_param in rename_mapping:
                    dim.dim_param = str(rename_mapping[dim.dim_param])
        self._session = None

    def __repr__(self):
        import onnx
        return "ONNXProgram(\n    model=\n" + onnx.printer.to_text(self.model_proto) + "\n)"
