"""ember.onnx: importable so programs that mention it run; exporting comes with the capture issue
(issue 16: ONNX is written from src/capture's graph)."""


def is_in_onnx_export():
    """Whether an ONNX export is running: never."""
    return False


def export(model, args=(), f=None, *a, **kw):
    """Not implemented yet: ONNX export needs a captured graph (issue 16)."""
    raise NotImplementedError("onnx.export: ember cannot export to ONNX yet; export comes with "
                              "the graph-capture issue (issue 16)")
