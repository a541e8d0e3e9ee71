"""torch._subclasses: torch's tensor subclasses for tracing (fake tensors). ember traces with
its own capture (ember.compile) and fx Proxies, never with fake tensors: `is_fake` answers
False for every object, and a FakeTensor is never made."""
from . import fake_tensor  # noqa: F401
from .fake_tensor import FakeTensor, FakeTensorMode  # noqa: F401
