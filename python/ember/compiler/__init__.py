"""ember.compiler: torch.compiler's queries and decorators. is_compiling() is True while
ember.compile records a function's first call (docs/compile.md); the decorators return
their function unchanged."""
from .._compile import _recording, compile  # noqa: F401


def is_compiling():
    return _recording()


def is_dynamo_compiling():
    return _recording()


def is_exporting():
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Marks fn as never to be compiled: returns fn (as a decorator factory when fn is None)."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def reset():
    """Clears compilation caches: ember keeps none."""


def list_backends(exclude_tags=("debug", "experimental")):
    return ["cudagraphs", "inductor", "openxla", "tvm"]
