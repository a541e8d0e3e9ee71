"""ember.ops: the operator namespaces of torch.ops that ember has. Only `profiler` (the entry
points traced code calls to open and close a profiler range) exists; ember's ops are its
functions (ember.add, ...), not a registry of operator overloads."""
from . import profiler  # noqa: F401
