"""ember.compile: torch.compile's signature and wrappers, running the original eagerly.

ember has no compiler yet: the capture issue (src/capture, DESIGN.md) makes compile real. Until
then `compile(model)` returns an OptimizedModule, as torch does (`_orig_mod`, state_dict keys
prefixed `_orig_mod.`, attributes read through to the original), and `compile(fn)` a wrapper of
fn; both run exactly what eager ember runs. The arguments are checked as torch checks them.
"""
import functools

from .nn import Module

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# torch._dynamo.list_backends(None): the names torch.compile accepts (plus any callable).
_BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner", "aot_ts",
             "cudagraphs", "eager", "eager_debug", "eager_noexcept", "inductor", "openxla",
             "openxla_eval", "pre_dispatch_eager", "ts", "tvm")


class InvalidBackend(RuntimeError):
    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")


class OptimizedModule(Module):
    """What compile(module) returns: wraps `_orig_mod` and forwards calls and attributes to it."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """torch.compile, without a compiler yet: returns a wrapper that runs `model` eagerly
    (compile(model) -> OptimizedModule; compile(fn) -> fn's wrapper; compile(**kw) -> decorator).
    A later issue (capture, src/capture) makes it compile."""
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)
        return decorator
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if not callable(backend) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled
