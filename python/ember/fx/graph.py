"""fx.Graph: the list of Nodes of one program, as torch.fx.Graph.

The nodes form a doubly linked list around a sentinel `root` node, so inserting and erasing are
O(1) and `graph.nodes` can be walked (forwards or reversed) while nodes are erased or inserted.
New nodes go where the insert point says: at the end, or before/after a node
(`with graph.inserting_before(n):`). Names come from a Namespace (`add`, `add_1`, `sum_1`).
"""
import inspect

from ._naming import Namespace, snake_case
from .node import Node, map_arg

__all__ = ["Graph", "PythonCode"]


class _NodeList:
    """graph.nodes: iterable (forwards and reversed), sized; walking it survives erasure."""

    def __init__(self, graph, direction="_next"):
        self._graph = graph
        self._dir = direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = getattr(root, self._dir)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self._dir)

    def __reversed__(self):
        return _NodeList(self._graph, "_prev" if self._dir == "_next" else "_next")

    def __repr__(self):
        return f"[{', '.join(n.name for n in self)}]"


class _InsertPoint:
    def __init__(self, graph, insert):
        self.graph = graph
        self.orig, graph._insert = graph._insert, insert

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.graph._insert = self.orig


class PythonCode:
    """What Graph.python_code returns: the source of `forward` and the globals it needs."""

    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_


class Graph:
    """A program as a list of Nodes; GraphModule turns it into Python code.

    >>> g = ember.fx.Graph()
    >>> x = g.placeholder("x")
    >>> _ = g.output(g.call_function(ember.relu, (x,)))
    >>> ember.fx.GraphModule(ember.nn.Module(), g)(ember.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = Namespace()
        self._insert = self._root.prepend
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen_options = {}

    @property
    def nodes(self):
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- building -----------------------------------------------------------------
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError(f"create_node: args must be a tuple, got {type(args).__name__}")
        if not isinstance(kwargs, dict):
            raise AssertionError(f"create_node: kwargs must be a dict, got {type(kwargs).__name__}")
        target = getattr(target, "__fx_orig__", target)  # a router stands for its function
        candidate = name if name is not None else self._target_to_str(target)
        node = Node(self, "", op, target, args, kwargs, type_expr)
        node.name = self._namespace.create_name(candidate, node)
        self._insert(node)
        self._len += 1
        return node

    def _target_to_str(self, target):
        if callable(target) and not isinstance(target, str):
            op = getattr(target, "__name__", None) or type(target).__name__
        else:
            op = str(target)
            if op.startswith("__") and op.endswith("__") and len(op) > 4:
                op = op[2:-2]
        return snake_case(op)

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        return self.create_node("call_function", the_function, args, kwargs, name=name,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n=None):
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase):
        """Removes a node that nothing reads any more."""
        if to_erase.graph is not self:
            raise RuntimeError(f"erase_node: node {to_erase} is not in this graph")
        if to_erase._erased:
            return
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copies `node` (of any graph) into this one, mapping its input nodes by arg_transform."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        name = node.name if node.op != "output" else None
        copy = self.create_node(node.op, node.target, args, kwargs, name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies every node of g into this graph (val_map: g's nodes -> this graph's); returns
        what g's output node returns, mapped (the output node itself is not copied)."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, {}, return_output_node=True)
        if out is not None:
            rv, old_out = out
            new_out = g.output(rv, type_expr=old_out.type)
            new_out.meta = dict(old_out.meta)
        return g

    # ---- checks and passes --------------------------------------------------------
    def lint(self):
        """Checks the graph's invariants: inputs defined before use, one output at the end,
        targets of get_attr/call_module present in the owning module."""
        seen = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.op not in ("placeholder", "call_method", "call_module", "call_function",
                               "get_attr", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for inp in node.all_input_nodes:
                if inp not in seen:
                    raise RuntimeError(f"Argument '{inp}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the graph "
                                       "are topologically ordered")
                if node not in inp.users:
                    raise RuntimeError(f"Node {node} is not among the users of its input {inp}")
            seen.add(node)
            if self.owning_module is not None and node.op in ("get_attr", "call_module"):
                obj = self.owning_module
                for atom in node.target.split("."):
                    if not hasattr(obj, atom):
                        raise RuntimeError(f"Node {node} target {node.target} references "
                                           f"nonexistent attribute {atom} of {obj}")
                    obj = getattr(obj, atom)
        outputs = [n for n in self.nodes if n.op == "output"]
        if len(outputs) > 1:
            raise RuntimeError(f"Graph has {len(outputs)} output nodes; expected at most one")

    def eliminate_dead_code(self, is_impure_node=None):
        """Erases the nodes whose results nothing reads (keeping impure ones); returns whether
        anything changed."""
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and not node.users:
                self.erase_node(node)
                changed = True
        return changed

    # ---- printing and code --------------------------------------------------------
    def python_code(self, root_module="self", *, verbose=False, include_stride=False,
                    include_device=False, colored=False):
        from ._codegen import generate
        src, globals_ = generate(self, root_module)
        return PythonCode(src, globals_)

    def on_generate_code(self, make_transformer):
        raise NotImplementedError("Graph.on_generate_code: ember's fx has no code transformers")

    def __str__(self):
        names = []
        lines = [node.format_node(names) for node in self.nodes]
        return "graph():\n" + "\n".join("    " + line for line in lines)

    def print_tabular(self):
        """Prints the nodes as a table: opcode, name, target, args, kwargs."""
        rows = [(n.op, n.name, n._pretty_print_target(n.target), str(n.args), str(n.kwargs))
                for n in self.nodes]
        head = ("opcode", "name", "target", "args", "kwargs")
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
        fmt = "  ".join("{:<%d}" % w for w in widths)
        lines = [fmt.format(*head), fmt.format(*("-" * w for w in widths))]
        lines += [fmt.format(*r) for r in rows]
        print("\n".join(line.rstrip() for line in lines))
