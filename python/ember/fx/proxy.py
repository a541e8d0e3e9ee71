"""fx.Proxy: the stand-in value that records what a traced program does with it.

Every operation on a Proxy (an operator, a method call, an attribute, an index) appends a Node to
its tracer's graph and returns a new Proxy for the result. ember's own functions (ember.relu,
F.linear) cannot see a Proxy by themselves (most are C++ entry points): during a trace they are
routed to the graph by `_routing` (see there), which is what torch does with __torch_function__.
"""
import bisect
import collections
import dis
import enum
import inspect
import operator
import types

from . import _routing
from .node import BINARY, UNARY, Node

__all__ = ["Proxy", "Attribute", "TracerBase", "GraphAppendingTracer", "TraceError",
           "ParameterProxy"]


class TraceError(ValueError):
    pass


class TracerBase:
    """What makes Nodes and Proxies for a graph: create_node, create_proxy, create_arg."""

    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None
    module_stack = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if self.module_stack:
            node.meta["nn_module_stack"] = collections.OrderedDict(self.module_stack)
        return node

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple) or not isinstance(kwargs_, dict):
            raise AssertionError("create_proxy: args must be a tuple and kwargs a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """Turns a value used by the traced program into a graph argument: Proxies become
        their Nodes, containers are walked, plain constants stay."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple):
            items = tuple(self.create_arg(e) for e in a)
            return type(a)(*items) if hasattr(a, "_fields") else items
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain "
                                       f"a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        import ember
        if a is None or a is Ellipsis or isinstance(a, (str, int, float, bool, complex,
                                                        ember.dtype, ember.device, enum.Enum,
                                                        ember.memory_format)):
            return a
        if isinstance(a, (type, types.FunctionType, types.BuiltinFunctionType)):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy "
                         "is used in a loop or as a *args or **kwargs function argument. See the "
                         "torch.fx docs on pytorch.org for a more detailed explanation of what "
                         "types of control flow can be traced, and check out the Proxy docstring "
                         "for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph (for Proxies made outside a trace)."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.module_stack = collections.OrderedDict()


class Proxy:
    """A value of a traced program; operations on it become Nodes of the graph.

    >>> def f(x):
    ...     print(type(x).__name__)
    ...     return x + 1
    >>> _ = ember.fx.symbolic_trace(f)
    Proxy
    """

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        """torch's protocol: a call that dispatches on a Proxy (handle_torch_function in user
        code, or a mode calling func) becomes a node: call_method for a Tensor method,
        call_function otherwise. ember's own functions reach the graph first through the
        routers of _routing.py (the same routers the protocol uses)."""
        args, kwargs = args or (), kwargs or {}
        proxy = _routing.find_proxy(args, kwargs)
        inner = getattr(orig_method, "__wrapped__", None)
        if inner is not None and type(inner).__name__ == "nb_method":  # a Tensor method
            return proxy.tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        target = getattr(orig_method, "__fx_orig__", orig_method)
        return proxy.tracer.create_proxy("call_function", target, args, kwargs)

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        _born(self)

    def __del__(self):
        if self.__dict__.get("_fx_counted"):
            self.__dict__["_fx_counted"] = False
            try:
                _routing.proxy_died()
            except Exception:  # interpreter shutdown
                pass

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):  # copy/pickle probes are not graph ops
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = {k: v for k, v in d.items() if k != "_fx_counted"}
        _born(self)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        insts = list(dis.get_instructions(frame.f_code))
        i = bisect.bisect_left([x.offset for x in insts], frame.f_lasti)
        if i < len(insts) and insts[i].opname == "UNPACK_SEQUENCE":
            return (self[j] for j in range(insts[i].argval))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torch.fx.wrap('len') at "
                           "module scope")

    def __getitem__(self, key):
        return self.tracer.create_proxy("call_function", operator.getitem, (self, key), {})

    def __contains__(self, item):
        return self.tracer.to_bool(self)


class ParameterProxy(Proxy):
    """A Proxy for a Parameter (a get_attr node) that answers shape/size/dim from the real
    parameter, as torch's (used when param_shapes_constant=True)."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


class Attribute(Proxy):
    """`proxy.attr`: becomes a getattr node when used as a value, a call_method when called."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None
        _born(self)

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _born(proxy):
    """Counts a live Proxy: while any is alive, ember's functions are routed (_routing.py)."""
    proxy.__dict__["_fx_counted"] = _routing.proxy_born()


def _binary(op):
    def forward(self, rhs):
        return self.tracer.create_proxy("call_function", op, (self, rhs), {})

    def reflected(self, lhs):
        return self.tracer.create_proxy("call_function", op, (lhs, self), {})
    return forward, reflected


for _op in BINARY:
    _name = _op.__name__.rstrip("_")
    _fwd, _rev = _binary(_op)
    setattr(Proxy, f"__{_name}__", _fwd)
    if _op not in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        setattr(Proxy, f"__r{_name}__", _rev)
def _unary(op):
    return lambda self: self.tracer.create_proxy("call_function", op, (self,), {})


for _op in UNARY:
    setattr(Proxy, f"__{_op.__name__}__", _unary(_op))

_routing.Proxy = Proxy
