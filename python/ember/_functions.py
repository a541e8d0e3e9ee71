"""The op functions (ember.add, ember.exp, ember.sum, ...), taken from the extension.
Every name here is a direct C++ entry point, so `ember.add(a, b)` costs one call."""
from . import _C

_NAMES = [n for n in dir(_C) if not n.startswith("_") and callable(getattr(_C, n))
          and n not in ("Tensor", "dtype", "empty", "zeros", "ones", "full", "rand", "randn",
                        "randint", "randperm", "arange", "linspace", "eye", "manual_seed",
                        "initial_seed", "scalar_tensor", "promote_types", "can_cast",
                        "result_type", "get_num_threads", "set_num_threads",
                        "allocator_stats", "empty_cache", "Node", "is_grad_enabled")]
globals().update({n: getattr(_C, n) for n in _NAMES})
__all__ = list(_NAMES)
