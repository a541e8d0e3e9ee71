"""How `ember.relu(proxy)` and `F.linear(proxy, w)` reach the graph.

torch gives Proxy a __torch_function__ that every torch function consults. ember's op functions
are direct C++ entry points (one call, no Python in between), and a permanent Python check on
every call would cost each eager op what ember exists to save. So fx *routes* them only while
they can meet a Proxy: while a trace runs, and while any Proxy object is alive (building a graph
by hand with Proxies, inlining a traced module, a Transformer). Routing swaps every public
function of ember, ember.nn.functional, ember.special, ember.linalg, ember.fft, ember._C (which
layers' forwards call directly) and ember.ops.profiler for a router that records a
call_function node when an argument holds a Proxy and calls the original otherwise; a trace
also routes the traced code's own global names and closure cells that hold those functions
(after `from torch import relu`). A node's target is always the original function. When the
last reason ends (the trace returns, the last Proxy made outside a trace is freed) everything is
put back, and eager code runs the C++ entry points directly again.

While routing is on, `ember.relu` is the router: it compares equal (==, hash, dict keys) to
the function it stands for, but `is` does not hold (Transformer's overrides are handed the
router, so `target is ember.relu` works there).
"""
import functools
import importlib
import sys
import threading

Proxy = None  # set by proxy.py (which imports this module)
torch_function = None  # ember.overrides.dispatch, once the protocol can apply

_NAMESPACES = ("ember", "ember.nn.functional", "ember.special", "ember.linalg", "ember.fft",
               "ember._C", "ember.ops.profiler")
_PRIVATE_NAMES_TOO = ("ember.ops.profiler",)  # torch.ops.profiler._record_function_enter & co.
_routers = {}  # (id(original), wrapped) -> (original, router)


_NESTS = (list, tuple, dict, slice)


def find_proxy(args, kwargs):
    """The first Proxy inside args/kwargs (through lists, tuples, dicts, slices), or None."""
    for a in args:  # the common case first: flat positional arguments, no keywords
        if isinstance(a, Proxy):
            return a
        if isinstance(a, _NESTS):
            break
    else:
        if not kwargs:
            return None
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


class _Router:
    """Stands for one function while routing is on."""

    __fx_router__ = True

    def __init__(self, orig, wrapped):
        functools.update_wrapper(self, orig)
        self.__fx_orig__ = orig
        self._wrapped = wrapped

    def __call__(self, *args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            if torch_function is not None:  # set by ember.overrides (the same routing)
                return torch_function(self, self.__fx_orig__, args, kwargs)
            return self.__fx_orig__(*args, **kwargs)
        out = proxy.tracer.create_proxy("call_function", self.__fx_orig__, args, kwargs)
        if self._wrapped:
            out.node.meta["is_wrapped"] = True
        return out

    def __eq__(self, other):
        return other is self or other is self.__fx_orig__

    def __hash__(self):
        return hash(self.__fx_orig__)

    def __repr__(self):
        return repr(self.__fx_orig__)

    def __reduce__(self):
        return (_original, (self.__fx_orig__,))


def _original(fn):
    return fn


def router(orig, wrapped=False):
    """The routing stand-in for function `orig` (one per function, reused). `wrapped`: orig was
    registered by fx.wrap, and its nodes say so (meta['is_wrapped'], as torch's)."""
    if getattr(orig, "__fx_router__", False):
        return orig
    hit = _routers.get((id(orig), wrapped))
    if hit is not None and hit[0] is orig:
        return hit[1]
    r = _Router(orig, wrapped)
    _routers[(id(orig), wrapped)] = (orig, r)
    return r


def routed_alias(fn):
    """The router standing for fn while routing is on (so that `target is ember.relu` holds in
    code that runs then, e.g. a Transformer's overrides), else fn."""
    if _depth == 0:
        return fn
    hit = _routers.get((id(fn), False))
    return hit[1] if hit is not None and hit[0] is fn else fn


def _routable(value):
    return callable(value) and not isinstance(value, type) and \
        not getattr(value, "__fx_router__", False) and type(value).__name__ in (
            "function", "nb_func", "builtin_function_or_method", "cython_function_or_method")


class Patcher:
    """Replaces attributes, dict entries and closure cells, and puts every one back on exit
    (last first)."""

    def __init__(self):
        self._undo = []
        self._patched_dicts = set()
        self.routed_ids = set()

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

    def route_namespaces(self):
        """Routes the public functions of ember's namespaces."""
        for modname in _NAMESPACES:
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                continue
            d = mod.__dict__
            public = {id(v) for n, v in d.items() if not n.startswith("_") and _routable(v)}
            for name, value in list(d.items()):
                # A private alias of a public function (torch._segment_reduce is
                # torch.segment_reduce) gets the same router, so the two stay one object.
                if (not name.startswith("_") or modname in _PRIVATE_NAMES_TOO or
                        id(value) in public) and not name.startswith("__") and _routable(value):
                    self.routed_ids.add(id(value))
                    self.patch(d, name, router(value))

    def route_globals(self, globals_):
        """Routes the names of a traced function's globals that hold routed functions."""
        if id(globals_) in self._patched_dicts:
            return
        self._patched_dicts.add(id(globals_))
        for name, value in list(globals_.items()):
            if id(value) in self.routed_ids and _routable(value):
                self.patch(globals_, name, router(value))

    def route_function(self, fn):
        """Routes what fn reads from its globals and its closure cells (a function defined
        inside another reads ember.relu as a free variable after `relu = ember.relu`)."""
        fn = getattr(fn, "__func__", fn)
        self.route_globals(getattr(fn, "__globals__", {}))
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if id(value) in self.routed_ids and _routable(value):
                cell.cell_contents = router(value)
                self._undo.append(lambda cell=cell, value=value:
                                  setattr(cell, "cell_contents", value))


# ---- when routing is on: a count of reasons (traces running, one for all live Proxies) -----
_lock = threading.RLock()
_depth = 0
_namespace_patcher = None
_live_proxies = 0
_traces = 0  # traces running: the Proxies they make do not count (the trace is the reason)


def acquire():
    """One more reason to route; the first one patches the namespaces."""
    global _depth, _namespace_patcher
    with _lock:
        _depth += 1
        if _depth == 1:
            p = Patcher()
            p.route_namespaces()
            _namespace_patcher = p


def release():
    """One reason fewer; the last one puts the namespaces back."""
    global _depth, _namespace_patcher
    with _lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth == 0 and _namespace_patcher is not None:
            p, _namespace_patcher = _namespace_patcher, None
            p.__exit__()


_kept = False


def keep_routing():
    """Routes for the rest of the process (a Tensor subclass exists: torch's protocol), the
    routed functions' other names inside ember too (ember.func.vmap is ember.vmap holds)."""
    global _kept
    with _lock:
        if not _kept:
            _kept = True
            acquire()
            for name, mod in list(sys.modules.items()):
                if name.startswith("ember.") and name not in _NAMESPACES and mod is not None:
                    _namespace_patcher.route_globals(mod.__dict__)


def routed_ids():
    """ids of the original functions routing stands for (empty when it is off)."""
    return set(_namespace_patcher.routed_ids) if _namespace_patcher is not None else set()


def proxy_born():
    """Counts a Proxy made outside a trace; returns whether it was counted."""
    global _live_proxies
    with _lock:
        if _traces:
            return False
        _live_proxies += 1
        if _live_proxies == 1:
            acquire()
        return True


def proxy_died():
    global _live_proxies
    with _lock:
        _live_proxies -= 1
        if _live_proxies == 0:
            release()


class routing:
    """`with routing():` routes for the duration of the block (`tracing=True`: a trace, whose
    own Proxies then hold no routing after it ends, even if an exception keeps them alive)."""

    def __init__(self, tracing=False):
        self.tracing = tracing

    def __enter__(self):
        global _traces
        acquire()
        if self.tracing:
            with _lock:
                _traces += 1
        return self

    def __exit__(self, *exc):
        global _traces
        if self.tracing:
            with _lock:
                _traces -= 1
        release()
