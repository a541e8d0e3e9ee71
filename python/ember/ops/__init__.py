"""ember.ops: torch.ops's namespaces. `ember.ops.<ns>.<name>` is an operator defined with
ember.library (custom_op, define), callable, with its `.default` overload; `profiler` holds
the entry points traced code calls to open and close a profiler range. ember's own ops are
its functions (ember.add, ...), not a registry of operator overloads."""
from . import profiler  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "aten":
        from ._aten import aten
        return aten
    from .._library.registry import OpNamespace
    return OpNamespace(name)
