"""ember.onnx: torch.onnx.export, writing a real ONNX file from ember's fx graph.

    ember.onnx.export(model, (x,), "model.onnx", input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})

The model is traced with ember.fx (the layers the exporter knows stay whole), shapes are
propagated on the example inputs, and each node becomes ONNX ops (opset 17 or newer, default 18);
the `onnx` package checks and writes the file. What can be exported is listed in docs/fx.md.
"""
import enum
import os

from . import errors
from ._program import ONNXProgram
from .errors import OnnxExporterError

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram", "TrainingMode",
           "errors"]

_exporting = False


class TrainingMode(enum.IntEnum):
    """TrainingMode

    torch.onnx.TrainingMode: export's `training` argument (EVAL, PRESERVE or TRAINING), which
    sets the module's mode during the export.

    >>> ember.onnx.TrainingMode.EVAL.name
    'EVAL'
    """
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export():
    """Whether an ONNX export is running.

    >>> ember.onnx.is_in_onnx_export()
    False
    """
    return _exporting


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamo=True, external_data=True,
           dynamic_shapes=None, custom_translation_table=None, report=False, optimize=True,
           verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           fallback=False, export_params=True, keep_initializers_as_inputs=False,
           dynamic_axes=None, training=TrainingMode.EVAL, operator_export_type=None,
           do_constant_folding=True, custom_opsets=None, export_modules_as_functions=False,
           autograd_inlining=True):
    """Exports model (a Module or a function of tensors) called on args to an ONNX file at f
    (a path or a binary file object). Returns an ONNXProgram when dynamo=True (the default,
    as torch 2.13), else None. torch's other arguments are accepted; the ones about its own
    exporters (report, optimize, verify, custom_translation_table, ...) change nothing here:
    ember writes one plain graph, constants already folded where the inputs allow.

    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "linear.onnx")
    >>> _ = ember.onnx.export(ember.nn.Linear(2, 1), (ember.ones(1, 2),), path)
    >>> os.path.getsize(path) > 0
    True
    """
    if custom_translation_table or custom_opsets:
        raise NotImplementedError("onnx.export: custom_translation_table and custom_opsets are "
                                  "not supported by ember's exporter")
    global _exporting
    from ._export import DEFAULT_OPSET, MIN_OPSET, build_model
    from .._tensor import Tensor
    from ..nn import Module
    import onnx
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, int) or not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
        raise ValueError(f"onnx.export: opset_version {opset_version!r} is not supported: ember "
                         f"exports opsets {MIN_OPSET} to {onnx.defs.onnx_opset_version()}")
    if dynamic_shapes is not None:
        raise NotImplementedError("onnx.export: dynamic_shapes is not supported; use "
                                  "dynamic_axes={input_name: {axis: 'name'}}")
    if not callable(model):
        raise TypeError(f"onnx.export: model must be a Module or a function, not "
                        f"{type(model).__name__}")
    if isinstance(args, Tensor):
        args = (args,)
    elif not isinstance(args, tuple):
        args = tuple(args) if isinstance(args, list) else (args,)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):
        kwargs.update(args[-1])
        args = args[:-1]
    if training == TrainingMode.TRAINING:
        raise NotImplementedError("onnx.export: training=TrainingMode.TRAINING is not supported "
                                  "(ember exports inference graphs)")
    modes = None
    if isinstance(model, Module) and training == TrainingMode.EVAL:
        modes = [(m, m.training) for m in model.modules()]
        model.eval()
    _exporting = True
    try:
        proto = build_model(model, args, kwargs, input_names, output_names, opset, dynamic_axes,
                            export_params, keep_initializers_as_inputs)
    finally:
        _exporting = False
        for m, mode in modes or ():
            m.training = mode
    if verbose:
        print(onnx.printer.to_text(proto))
    if f is not None:
        if isinstance(f, (str, os.PathLike)):
            onnx.save_model(proto, os.fspath(f))
        else:
            f.write(proto.SerializeToString())
    return ONNXProgram(proto) if dynamo else None
