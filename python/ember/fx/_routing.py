"""How `ember.relu(proxy)` and `F.linear(proxy, w)` reach the graph.

torch gives Proxy a __torch_function__ that every torch function consults. ember's op functions
are direct C++ entry points (one call, no Python in between), and a permanent Python check on
every call would cost each eager op what ember exists to save. So fx routes them only while
something is being traced, as torch.fx.wrap does for user functions: a Patcher swaps every
public function of ember, ember.nn.functional, ember.special, ember.linalg, ember.fft and of the
extension ember._C itself (which layers' forwards call directly), and the traced code's own
global names for them (e.g. after `from torch import relu`), for a router that records a
call_function node when an argument holds a Proxy and calls the original otherwise.
The node's target is always the original function. Everything is restored when the trace ends.

Routing is active during Tracer.trace and while a GraphModule is called with Proxy arguments
(inlining a traced module into another graph); outside those, `ember.relu(proxy)` raises the op's
TypeError (use `proxy.relu()` or a trace).
"""
import functools
import importlib

from .proxy import Proxy

_NAMESPACES = ("ember", "ember.nn.functional", "ember.special", "ember.linalg", "ember.fft",
               "ember._C", "ember.ops.profiler")
_PRIVATE_NAMES_TOO = ("ember.ops.profiler",)  # torch.ops.profiler._record_function_enter & co.
_routers = {}  # id(original) -> (original, router)


def find_proxy(args, kwargs):
    """The first Proxy inside args/kwargs (through lists, tuples, dicts, slices), or None."""
    stack = [args, kwargs]
    while stack:
        a = stack.pop()
        if isinstance(a, Proxy):
            return a
        if isinstance(a, (list, tuple)):
            stack.extend(reversed(a))
        elif isinstance(a, dict):
            stack.extend(a.values())
        elif isinstance(a, slice):
            stack.extend((a.start, a.stop, a.step))
    return None


def router(orig, wrapped=False):
    """The routing stand-in for function `orig` (one per function, reused). `wrapped`: orig was
    registered by fx.wrap, and its nodes say so (meta['is_wrapped'], as torch's)."""
    if getattr(orig, "__fx_router__", False):
        return orig
    hit = _routers.get((id(orig), wrapped))
    if hit is not None and hit[0] is orig:
        return hit[1]

    @functools.wraps(orig)
    def routed(*args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return orig(*args, **kwargs)
        out = proxy.tracer.create_proxy("call_function", orig, args, kwargs)
        if wrapped:
            out.node.meta["is_wrapped"] = True
        return out
    routed.__fx_router__ = True
    routed.__fx_orig__ = orig
    _routers[(id(orig), wrapped)] = (orig, routed)
    return routed


def routed_alias(fn):
    """The router standing for fn while routing is on (so that `target is ember.relu` holds in
    code that runs then, e.g. a Transformer's overrides), else fn."""
    hit = _routers.get((id(fn), False))
    return hit[1] if hit is not None and hit[0] is fn else fn


def _routable(value):
    return callable(value) and not isinstance(value, type) and \
        not getattr(value, "__fx_router__", False) and type(value).__name__ in (
            "function", "nb_func", "builtin_function_or_method", "cython_function_or_method")


class Patcher:
    """Replaces attributes and dict entries, and puts every one back on exit (last first)."""

    def __init__(self):
        self._undo = []
        self._patched_dicts = set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self._undo:
            self._undo.pop()()
        self._patched_dicts.clear()

    def patch(self, d, name, new):
        """d[name] = new (a dict: a module's or a function's globals)."""
        missing = name not in d
        old = d.get(name)
        d[name] = new
        self._undo.append((lambda: d.pop(name, None)) if missing else
                          (lambda: d.__setitem__(name, old)))

    def patch_method(self, cls, name, new):
        old = cls.__dict__.get(name)
        setattr(cls, name, new)
        self._undo.append((lambda: delattr(cls, name)) if old is None else
                          (lambda: setattr(cls, name, old)))

    def route_namespaces(self, extra_ids=()):
        """Routes ember's public functions (and the functions whose ids are in extra_ids, when
        found in globals patched later)."""
        self._routed_ids = set(extra_ids)
        for modname in _NAMESPACES:
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                continue
            d = mod.__dict__
            for name, value in list(d.items()):
                if (not name.startswith("_") or modname in _PRIVATE_NAMES_TOO) and \
                        not name.startswith("__") and _routable(value):
                    self._routed_ids.add(id(value))
                    self.patch(d, name, router(value))

    def route_globals(self, globals_):
        """Routes the names of a traced function's globals that hold routed functions."""
        if id(globals_) in self._patched_dicts:
            return
        self._patched_dicts.add(id(globals_))
        ids = getattr(self, "_routed_ids", ())
        for name, value in list(globals_.items()):
            if id(value) in ids and _routable(value):
                self.patch(globals_, name, router(value))

    def route_function(self, fn):
        """Routes what fn reads from its globals and its closure cells (a function defined
        inside another reads ember.relu as a free variable after `relu = ember.relu`)."""
        fn = getattr(fn, "__func__", fn)
        self.route_globals(getattr(fn, "__globals__", {}))
        ids = getattr(self, "_routed_ids", ())
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if id(value) in ids and _routable(value):
                cell.cell_contents = router(value)
                self._undo.append(lambda cell=cell, value=value:
                                  setattr(cell, "cell_contents", value))


def routing():
    """A context manager routing ember's public functions to Proxies' graphs."""
    p = Patcher()
    p.route_namespaces()
    return p
