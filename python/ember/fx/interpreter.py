"""fx.Interpreter and fx.Transformer: run a GraphModule node by node, as torch.fx's.

Interpreter.run executes each node with the method named after its opcode (placeholder,
get_attr, call_function, call_method, call_module, output); subclasses override those to
observe or change execution. A value is dropped from the environment after its last use.
Transformer runs the same walk on Proxies, so the overrides build a new graph: transform()
returns it as a GraphModule.
"""
import collections
import inspect

from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from ._routing import routed_alias, routing
from .proxy import Proxy, TracerBase

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs `module`'s graph (or `graph` with module's attributes) one node at a time.

    >>> gm = ember.fx.symbolic_trace(lambda x: x.relu() + 1)
    >>> ember.fx.Interpreter(gm).run(ember.tensor([-1.0, 2.0]))
    tensor([1., 3.])
    """

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            self.user_to_last_uses = {}
            seen = set()
            for node in reversed(self.graph.nodes):
                for n in node.all_input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Runs the graph on args (one per placeholder) and returns what its output returns."""
        self.env = dict(initial_env) if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    e.args = (f"{e.args[0]}\n\n{msg}" if e.args else msg,) + e.args[1:]
                raise
            if self.garbage_collect_values:
                for dead in self.user_to_last_uses.get(node, []):
                    self.env.pop(dead, None)
            if node.op == "output":
                output_val = self.env[node]
                return output_val
        return None

    def boxed_run(self, args_list):
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def run_node(self, n):
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        # while routing is on, overrides see the names they compare with (`target is ember.relu`)
        target = routed_alias(n.target) if n.op == "call_function" else n.target
        return getattr(self, n.op)(target, args, kwargs)

    # ---- one method per opcode ----------------------------------------------------
    def placeholder(self, target, args, kwargs):
        if target.startswith("**"):
            return {}
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from None

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ---- helpers --------------------------------------------------------------------
    def fetch_attr(self, target):
        obj = self.module
        for i, atom in enumerate(target.split(".")):
            if not hasattr(obj, atom):
                raise RuntimeError(f"Node referenced nonexistent target "
                                   f"{'.'.join(target.split('.')[:i + 1])}")
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n):
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n):
        def load(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[n_arg]
        return map_arg(args, load)


class _TransformerTracer(TracerBase):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.module_stack = collections.OrderedDict()

    def is_leaf_module(self, _, __):
        return True


class Transformer(Interpreter):
    """An Interpreter that records instead of computing: override call_function & co. to
    rewrite nodes; transform() returns the new GraphModule.

    >>> class ReluToSigmoid(ember.fx.Transformer):
    ...     def call_function(self, target, args, kwargs):
    ...         if target is ember.relu:
    ...             target = ember.sigmoid
    ...         return super().call_function(target, args, kwargs)
    >>> gm = ember.fx.symbolic_trace(lambda x: ember.relu(x))
    >>> ReluToSigmoid(gm).transform()(ember.tensor([0.0]))
    tensor([0.5000])
    """

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        default = args[0] if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target, args, kwargs):
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def transform(self):
        """The new GraphModule (the module's attributes, the rewritten graph)."""
        with routing():  # overrides may call ember.relu(proxy) and the like
            result = super().run(enable_io_processing=False)
        if result is not None:
            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a
            self.new_graph.output(map_aggregate(result, strip_proxy))
        return GraphModule(self.module, self.new_graph)
