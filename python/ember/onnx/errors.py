"""ember.onnx.errors: the exporter's exceptions (torch.onnx.errors)."""

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError"]


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter.

    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "det.onnx")
    >>> try:
    ...     ember.onnx.export(lambda a: ember.linalg.det(a), (ember.eye(2),), path)
    ... except ember.onnx.OnnxExporterError as e:
    ...     print(type(e).__name__)
    UnsupportedOperatorError
    """


class UnsupportedOperatorError(OnnxExporterError):
    """The model uses an op, layer or argument the exporter cannot write."""


class OnnxExporterWarning(UserWarning):
    """Warnings of the ONNX exporter (e.g. a weight apply_weights did not find)."""
