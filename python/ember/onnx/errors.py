"""ember.onnx.errors: the exporter's exceptions (torch.onnx.errors)."""

__all__ = ["OnnxExporterError", "UnsupportedOperatorError"]


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """The model uses an op, layer or argument the exporter cannot write."""
