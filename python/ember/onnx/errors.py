"""ember.onnx.errors: the exporter's exceptions (torch.onnx.errors)."""

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError"]


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """The model uses an op, layer or argument the exporter cannot write."""


class OnnxExporterWarning(UserWarning):
    """Warnings of the ONNX exporter (e.g. a weight apply_weights did not find)."""
