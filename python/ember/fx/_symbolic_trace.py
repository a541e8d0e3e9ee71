"""Symbolic tracing: run a module's forward on Proxies and keep the graph it records.

As torch.fx's Tracer: the inputs become placeholders; submodules ember.nn defines (Linear,
Conv2d, LSTM, ... but not Sequential) are leaves, recorded as call_module; other modules are
traced through; parameters and buffers read as `self.x` become get_attr nodes; other tensors the
code uses are stored on the root as `_tensor_constant0`, ... . During the trace Module.__call__
and Module.__getattr__ are patched, and ember's functions are routed (_routing.py).
"""
import builtins
import collections
import functools
import inspect
import math
import warnings

from ..nn import Module, Sequential
from ..nn.parameter import Parameter
from . import _routing
from ._compatibility import compatibility  # noqa: F401  (torch.fx._symbolic_trace has it)
from ._routing import Patcher, router
from .graph import Graph
from .proxy import ParameterProxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH"]

_wrapped_fns = {}  # (id(globals), name) -> (globals, name): registered by wrap()


class PHBase:
    """A placeholder marker for concrete_args: the argument stays an input of the graph."""

    def __repr__(self):
        return "PH"


PH = PHBase()
PH.__doc__ = """The marker of symbolic_trace's concrete_args (torch.fx.PH): an argument given as PH
stays an input of the graph while the others are specialized. Unlike torch, ember takes PH only
as a whole argument, not inside a container.

>>> def f(x, flag):
...     return x + 1 if flag else x
>>> gm = ember.fx.symbolic_trace(f, concrete_args={"x": ember.fx.PH, "flag": True})
>>> gm(ember.tensor([1.0]), True)
tensor([2.])
"""


def _assert_is_none(value, msg):
    assert value is None, msg


def wrap(fn_or_name):
    """Marks a module-level function so that traces record a call to it (a call_function node)
    instead of tracing into it. Call it at the top level of the function's module.

    >>> def scale(x, k):
    ...     return x * k
    >>> ember.fx.wrap("scale")
    'scale'
    >>> gm = ember.fx.symbolic_trace(lambda x: scale(x, 2))
    >>> [n.op for n in gm.graph.nodes], gm(ember.tensor([1.0]))
    (['placeholder', 'call_function', 'output'], tensor([2.]))
    """
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    if callable(fn_or_name) and not isinstance(fn_or_name, str):
        name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        name = fn_or_name
    else:
        raise AssertionError("wrap(fn_or_name): expected a function or the name of a global "
                             f"function, got {type(fn_or_name).__name__}")
    g = frame.f_globals
    _wrapped_fns[(id(g), name)] = (g, name)
    return fn_or_name


class Tracer(TracerBase):
    """Turns a Module or a function into a Graph (torch.fx.Tracer); subclass it and override
    is_leaf_module, create_node, create_proxy, ... to change what is recorded.

    >>> graph = ember.fx.Tracer().trace(ember.nn.ReLU())
    >>> [n.op for n in graph.nodes]
    ['placeholder', 'call_function', 'output']
    """

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(v) for m in autowrap_modules for k, v in vars(m).items()
            if not k.startswith("_") and callable(v)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root_module_name = ""
        self.scope = None
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}
        self.proxy_buffer_attributes = True

    # ---- arguments ------------------------------------------------------------------
    def create_arg(self, a):
        from .._tensor import Tensor
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            for n, m in self.root.named_modules():
                if a is m:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("module is not installed as a submodule")
        if isinstance(a, Tensor):
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = qualname
                self._keep.append(a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m, module_qualified_name):
        """ember.nn's own layers (not Sequential) are leaves, as torch.nn's are in torch.fx."""
        mod = type(m).__module__ or ""
        return (mod.startswith("ember.nn") or mod.startswith("torch.nn")) and \
            not isinstance(m, Sequential)

    def path_of_module(self, mod):
        if self.submodule_paths is not None:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A leaf becomes one call_module node; any other module is traced through."""
        name = self.path_of_module(m)
        self.module_stack[name] = (name, type(m))
        try:
            if not self.is_leaf_module(m, name):
                self._patcher.route_function(type(m).forward)
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", name, args, kwargs)
        finally:
            self.module_stack.pop(name, None)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """`self.x` of a module during the trace: a Parameter (or buffer) becomes a get_attr
        node (one per name), anything else is returned as it is."""
        from .._tensor import Tensor
        if isinstance(attr_val, Parameter):
            candidates = self.root.named_parameters()
        elif self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            candidates = self.root.named_buffers()
        else:
            return attr_val
        for n, p in candidates:
            if attr_val is p:
                if n not in parameter_proxy_cache:
                    if self.param_shapes_constant and isinstance(p, Parameter):
                        def factory(node, n=n, p=p):
                            return ParameterProxy(self, node, n, p)
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {},
                                                                     proxy_factory_fn=factory)
                    else:
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {})
                return parameter_proxy_cache[n]
        return attr_val

    # ---- the trace ------------------------------------------------------------------
    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """Placeholders for fn's parameters (defaults kept); returns (fn, the Proxy args)."""
        fn = inspect.unwrap(root_fn)
        code = fn.__code__
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[1 if is_module else 0:]
        concrete_args = dict(concrete_args or {})
        args = []
        for p in params:
            if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
                star = "*" if p.kind is p.VAR_POSITIONAL else "**"
                self.create_proxy("placeholder", star + p.name, (), {}, name="_" + p.name)
                continue
            if p.kind is p.KEYWORD_ONLY:
                raise NotImplementedError(f"symbolic_trace: keyword-only argument '{p.name}' of "
                                          f"{code.co_name} is not supported")
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            if p.name not in concrete_args:
                args.append(self.create_proxy("placeholder", p.name, default, {}))
                continue
            args.append(self._concrete_arg(p.name, default, concrete_args[p.name]))
        return root_fn, args

    def _concrete_arg(self, name, default, value):
        """A concrete_args entry: the input stays (as `name_1`), the code sees `value`, and the
        graph checks at run time that the input still is that value (as torch's)."""
        out = self.create_proxy("placeholder", f"{name}_1", default, {})
        if isinstance(value, PHBase):
            return out
        import ember
        msg = f"{name} has been specialized to have value {value} but got another value"
        if type(value) in (bool, int, float, str, complex, ember.dtype, ember.device):
            self.create_proxy("call_function", ember._assert, (out == value, msg), {})
        elif value is None:
            self.create_proxy("call_function", _assert_is_none, (out, msg), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to "
                          "specialized function. It is up to the user to make sure that your "
                          "inputs match the inputs you specialized the function with.")
        return value

    def trace(self, root, concrete_args=None):
        """Traces root (a Module or a function) and returns the Graph."""
        from .._tensor import Tensor
        if isinstance(root, Module):
            self.root = root
            fn = getattr(type(root), self.traced_func_name)
            self.root_module_name = root._get_name()
            is_module = True
        else:
            if not callable(root):
                raise AssertionError(f"Expected FunctionType, got {type(root)}")
            self.root = Module()
            fn = root
            is_module = False
        self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
        self.tensor_attrs = {}
        self._keep = []
        for name, mod in self.root.named_modules():
            for k, v in list(mod.__dict__.items()) + list(mod._buffers.items()) + \
                    list(mod._parameters.items()):
                if isinstance(v, Tensor) and id(v) not in self.tensor_attrs:
                    self.tensor_attrs[id(v)] = f"{name}.{k}" if name else k
                    self._keep.append(v)
        self.submodule_paths = {id(m): n for n, m in self.root.named_modules()}
        self.module_stack = collections.OrderedDict()
        fn, args = self.create_args_for_root(fn, is_module, concrete_args)
        if is_module:
            args = [root] + args
        parameter_proxy_cache = {}
        orig_getattr = Module.__getattr__
        orig_call = Module.__call__
        tracer = self

        @functools.wraps(orig_getattr)
        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        @functools.wraps(orig_call)
        def module_call_wrapper(mod, *a, **k):
            def forward(*a2, **k2):
                return orig_call(mod, *a2, **k2)
            return tracer.call_module(mod, forward, a, k)

        with _routing.routing(tracing=True), Patcher() as patcher:
            self._patcher = patcher
            patcher.routed_ids = _routing.routed_ids() | self._autowrap_function_ids
            patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
            patcher.patch_method(Module, "__call__", module_call_wrapper)
            for g, name in list(_wrapped_fns.values()):
                orig = g[name] if name in g else getattr(builtins, name, None)
                if orig is not None:
                    patcher.patch(g, name, router(orig, wrapped=True))
            patcher.route_function(inspect.unwrap(fn))
            result = fn(*args)
            self.create_node("output", "output", (self.create_arg(result),), {},
                             type_expr=getattr(fn, "__annotations__", {}).get("return"))
        self._patcher = None
        self.submodule_paths = None
        return self.graph


def symbolic_trace(root, concrete_args=None):
    """Traces `root` (a Module or a function) into a GraphModule (torch.fx.symbolic_trace).

    >>> model = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.ReLU())
    >>> gm = ember.fx.symbolic_trace(model)
    >>> [n.op for n in gm.graph.nodes]
    ['placeholder', 'call_module', 'call_module', 'output']
    """
    from .graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

