"""ember.compile: torch.compile's signature, on capture and replay (src/capture, docs/compile.md).

The first call of a compiled function runs it eagerly while ember records the C++ ops it makes
(forward, backward and optimizer step alike); a later call whose guards pass replays that
recording from C++, without running the function's Python. The guards: the tensor inputs'
sizes, strides, dtypes, requires_grad and aliasing, the grad mode (checked in C++), the
non-tensor arguments by value, and the Python state the function reaches through its
arguments, closure and globals (scalars by value; modules' training flags, parameters and
buffers; optimizers' hyper-parameters and state), checked here. A miss records again, up to
`ember._dynamo.config.cache_size_limit` (8) recordings per function, then runs eagerly. A
run that reads tensor values into Python (item, tolist, bool, numpy) or makes an op capture
does not record yet is not replayed: that call finishes eagerly and so do later ones with the
same guards; `ember.compile.explain(f)` says why.
"""
import functools
import threading
import time
import types

from . import _C
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
        c = self.__dict__.get("_ember_compiled")
        return c(*args, **kwargs) if c is not None else self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")



class _Config:
    """ember._dynamo.config: the knobs torch._dynamo.config has that ember reads."""
    cache_size_limit = 8
    recompile_limit = 8


config = _Config()
_local = threading.local()  # .recording: a capture is running on this thread


def _recording():
    return getattr(_local, "recording", False)


# ---- the key: non-tensor values and the Python state a function reaches -------------------

_SCALARS = (int, float, bool, str, complex, type(None), bytes)


# The guards run on every call: these walks are written for speed (no generators of
# prefixed names, no sorting), with the same meaning as modules() and the state's items.
def _module_state(m):
    state = []
    add = state.append
    seen = set()
    stack = [m]
    while stack:
        sub = stack.pop()
        if id(sub) in seen:
            continue
        seen.add(id(sub))
        add(sub.training)
        for p in sub._parameters.values():
            add(None if p is None else (id(p), p.grad is None))
        for b in sub._buffers.values():
            add(None if b is None else id(b))
        stack.extend(c for c in reversed(sub._modules.values()) if c is not None)
    return tuple(state)


_HYPER = _SCALARS + (tuple,)


def _optimizer_state(o):
    Tensor = _tensor_type()
    groups = []
    state = o.state
    for g in o.param_groups:
        hyper = tuple((k, v) for k, v in g.items() if k != "params" and isinstance(v, _HYPER))
        per = []
        for p in g["params"]:
            st = state.get(p)
            # state entries in insertion order: an entry re-made in another order only
            # records again; tensors by identity, the rest by value
            per.append((id(p), p.grad is None,
                        None if not st else (tuple(st), tuple(id(v) if isinstance(v, Tensor) else v
                                                              for v in st.values()))))
        groups.append((hyper, tuple(per)))
    return tuple(groups)


_types = []


def _tensor_type():
    if not _types:
        from ._tensor import Tensor
        from .optim.optimizer import Optimizer
        _types.extend((Tensor, Optimizer))
    return _types[0]


def _key(v, tensors, depth=0):
    """A hashable summary of v; tensors met are appended to `tensors` (when not None) and
    stand in the key by position, or by identity when read from outside the arguments."""
    Tensor = _tensor_type()
    Optimizer = _types[1]
    if isinstance(v, Tensor):
        if tensors is None:
            return ("t", id(v))
        tensors.append(v)
        return ("T", len(tensors) - 1)
    if isinstance(v, _SCALARS):
        return (type(v), v)
    if depth > 4:
        return ("id", id(v))
    if isinstance(v, (tuple, list)):
        return (type(v), tuple(_key(x, tensors, depth + 1) for x in v))
    if isinstance(v, dict):
        return (dict, tuple((k, _key(x, tensors, depth + 1)) for k, x in v.items()))
    if isinstance(v, Module):
        return ("M", id(v), _module_state(v))
    if isinstance(v, Optimizer):
        return ("O", id(v), _optimizer_state(v))
    if isinstance(v, types.MethodType):
        return ("m", v.__func__, _key(v.__self__, None, depth + 1))
    return ("id", id(v), type(v))


def _watched(fn):
    """What fn reaches besides its arguments: (kind, source, name) of the globals its code
    names (and the code of functions nested in it) and of its closure cells."""
    target = fn
    while isinstance(target, functools.partial):
        target = target.func
    if isinstance(target, Module):
        return [("self", target, None)]
    watch = []
    if isinstance(target, types.MethodType):
        watch.append(("self", target.__self__, None))
        target = target.__func__
    code = getattr(target, "__code__", None)
    if code is None:
        return watch
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    g = getattr(target, "__globals__", {})
    for n in sorted(names):
        if n in g and not isinstance(g[n], (types.ModuleType, types.FunctionType, type,
                                            types.BuiltinFunctionType)):
            watch.append(("global", g, n))
    for n, cell in zip(code.co_freevars, target.__closure__ or ()):
        watch.append(("cell", cell, n))
    return watch


def _state_key(watch):
    out = []
    for kind, src, name in watch:
        if kind == "self":
            out.append(_key(src, None))
        elif kind == "global":
            out.append(_key(src.get(name), None))
        else:
            try:
                out.append(_key(src.cell_contents, None))
            except ValueError:  # an empty cell
                out.append(None)
    return tuple(out)


# ---- outputs: tensors by position, the rest as recorded ------------------------------------

def _flatten_out(v, tensors):
    from ._tensor import Tensor
    if isinstance(v, Tensor):
        tensors.append(v)
        return ("T", len(tensors) - 1)
    if isinstance(v, (tuple, list)) and type(v) in (tuple, list):
        return (type(v), [_flatten_out(x, tensors) for x in v])
    if isinstance(v, dict) and type(v) is dict:
        return (dict, [(k, _flatten_out(x, tensors)) for k, x in v.items()])
    return ("c", v)


def _unflatten_out(spec, tensors):
    kind, body = spec
    if kind == "T":
        return tensors[body]
    if kind == "c":
        return body
    if kind is dict:
        return {k: _unflatten_out(s, tensors) for k, s in body}
    return kind(_unflatten_out(s, tensors) for s in body)


class _Entry:
    __slots__ = ("key", "graph", "out_spec", "reason", "capture_s")

    def __init__(self, key, graph, out_spec, reason, capture_s):
        self.key, self.graph, self.out_spec = key, graph, out_spec
        self.reason, self.capture_s = reason, capture_s


class _Compiled:
    """What compile(fn) calls: the recordings of fn, by guard."""

    def __init__(self, fn):
        self.fn = fn
        self.entries = []
        self.log = []          # (event, detail): "capture", "break", "recompile", "limit"
        self.one_shots = 0
        self._watch = None

    def __call__(self, *args, **kwargs):
        if _recording():  # inside another capture: run eagerly, the outer one records the ops
            return self.fn(*args, **kwargs)
        tensors = []
        key = (_key(args, tensors), _key(kwargs, tensors), _C.is_grad_enabled())
        if self._watch is None:
            self._watch = _watched(self.fn)
        state = _state_key(self._watch)
        misses = []
        for e in self.entries:
            if e.key != (key, state):
                continue
            if e.graph is None:
                return self.fn(*args, **kwargs)
            why = e.graph.check(tensors)
            if why is None:
                return _unflatten_out(e.out_spec, e.graph.run(tensors))
            misses.append(why)
        if len(self.entries) >= config.cache_size_limit:
            if not self.log or self.log[-1][0] != "limit":
                self.log.append(("limit", f"cache_size_limit ({config.cache_size_limit}) reached: "
                                          "runs eagerly"))
            return self.fn(*args, **kwargs)
        if self.entries:
            self.log.append(("recompile", misses[0] if misses else "Python state or arguments changed"))
        return self._capture(args, kwargs, tensors, key, state)

    def _capture(self, args, kwargs, tensors, key, state):
        t0 = time.perf_counter()
        rec = _C._capture.Recording(tensors)
        _local.recording = True
        try:
            out = self.fn(*args, **kwargs)
        except BaseException:
            rec.abandon()
            raise
        finally:
            _local.recording = False
        out_tensors = []
        spec = _flatten_out(out, out_tensors)
        graph = rec.finish(out_tensors)
        dt = time.perf_counter() - t0
        if graph is None:
            self.log.append(("break", rec.why))
            self.entries.append(_Entry((key, state), None, None, rec.why, dt))
            return out
        if _state_key(self._watch) != state:
            # fn changed the state it is guarded on (an optimizer's first step creates its
            # state; .grad goes from None to a tensor): this recording would not fit the
            # next call. Record again then, up to the limit.
            self.one_shots += 1
            reason = "the function changed the Python state it is guarded on (first step)"
            self.log.append(("one-shot", reason))
            if self.one_shots >= config.cache_size_limit:
                self.entries.append(_Entry((key, state), None, None, reason, dt))
            return out
        self.log.append(("capture", f"{len(graph.op_names())} ops, {graph.num_fused()} fused, "
                                    f"{dt * 1e3:.2f} ms"))
        self.entries.append(_Entry((key, state), graph, spec, None, dt))
        return out


def _explain_compiled(c):
    from ._dynamo import ExplainOutput
    graphs = [e.graph for e in c.entries if e.graph is not None]
    reasons = [e.reason for e in c.entries if e.reason] + [d for k, d in c.log if k == "limit"]
    return ExplainOutput(graphs, reasons, [e.capture_s for e in c.entries], list(c.log))


def explain(fn):
    """Why compile(fn) replays or not. For a compiled function: its recordings and the
    reasons some calls run eagerly (ExplainOutput, as torch._dynamo.explain's). For a plain
    function: a callable that records fn on the given arguments and explains that run."""
    c = getattr(fn, "_ember_compiled", None)
    if c is not None:
        return _explain_compiled(c)
    from ._dynamo import explain as dynamo_explain
    return dynamo_explain(fn)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """torch.compile by capture and replay: records the ops `model` runs on its first call and replays them on
    later calls that pass the guards (compile(model) -> OptimizedModule; compile(fn) -> a
    wrapper of fn; compile(**kw) -> decorator). docs/compile.md.

    >>> f = ember.compile(lambda x: x * 2 + 1)
    >>> f(ember.tensor([1.0, 2.0]))
    tensor([3., 5.])
    """
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
        om = OptimizedModule(model)
        object.__setattr__(om, "_ember_compiled", _Compiled(model))
        return om
    c = _Compiled(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return c(*args, **kwargs)
    compiled._ember_compiled = c
    return compiled


compile.explain = explain
