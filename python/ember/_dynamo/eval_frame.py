"""ember._dynamo.eval_frame: where torch keeps OptimizedModule, the type compile(model)
returns; libraries test `isinstance(m, torch._dynamo.eval_frame.OptimizedModule)` to unwrap a
compiled model (accelerate's unwrap_model)."""
from .._compile import OptimizedModule  # noqa: F401

__all__ = ["OptimizedModule"]
