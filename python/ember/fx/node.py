"""fx.Node: one operation of a Graph, as torch.fx.Node.

A node has an opcode (`op`: placeholder, get_attr, call_function, call_method, call_module,
output), a `target` (the function, the method or attribute name, the module path), `args` and
`kwargs` that may hold other nodes, and `users` (the nodes reading it). Setting args/kwargs keeps
the users of every input up to date. Nodes sit in their graph's doubly linked list (`prev`,
`next`); an erased node keeps its links so a loop over `graph.nodes` can erase as it goes.
"""
import operator
from typing import Any, Callable, Optional, Union

__all__ = ["Node", "map_arg", "map_aggregate", "Target", "Argument"]

# The annotations torch.fx.node exports (custom tracers' signatures use them).
Target = Union[Callable[..., Any], str]
Argument = Optional[Union[tuple, list, dict, slice, range, "Node", str, int, float, bool, complex]]

_OPCODES = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output",
            "root")


def map_aggregate(a, fn):
    """Applies fn to every leaf of a nest of tuples, lists, dicts and slices (as torch.fx)."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(e, fn) for e in a)
        return type(a)(*mapped) if hasattr(a, "_fields") else mapped
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Applies fn to every Node inside the nest `a`, leaving other leaves as they are.

    >>> gm = ember.fx.symbolic_trace(lambda x: x + 1)
    >>> x_node = next(iter(gm.graph.nodes))
    >>> ember.fx.map_arg((x_node, [x_node, 3]), lambda n: n.name)
    ('x', ['x', 3])
    """
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(fn):
    """'module.name' of a function, for printing a target (operator.add, torch.relu, ...)."""
    from ._naming import qualified_name
    return qualified_name(fn)


def _format_arg(arg, max_list_len=float("inf")):
    if isinstance(arg, (list, tuple)):
        items = ", ".join(_format_arg(a) for a in arg)
        if isinstance(arg, list):
            return f"[{items}]"
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """A node of an fx Graph; build them with Graph.create_node (or the Graph's helpers).

    >>> gm = ember.fx.symbolic_trace(lambda x: x.relu())
    >>> [(n.op, n.name) for n in gm.graph.nodes]
    [('placeholder', 'x'), ('call_method', 'relu'), ('output', 'output')]
    """

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPCODES:
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a Callable is expected")
        if op in ("placeholder", "call_method", "call_module", "get_attr", "output") \
                and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self.meta = {}
        self._prev = self
        self._next = self
        self._erased = False
        self._args = ()
        self._kwargs = {}
        self._update_args_kwargs(args, kwargs)

    # ---- the list -----------------------------------------------------------------
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Moves (or inserts) node x right before this node."""
        if x is self:
            raise AssertionError("Cannot prepend self")
        if x.graph is not self.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Moves (or inserts) node x right after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # ---- inputs -------------------------------------------------------------------
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        """The distinct nodes among args and kwargs, in order of appearance."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = tuple(map_arg(tuple(new_args), self._collect_input))
        self._kwargs = dict(map_arg(dict(new_kwargs), self._collect_input))
        for node in self._input_nodes:
            node.users.setdefault(self, None)

    def _collect_input(self, n):
        if n.graph is not self.graph and self.graph is not None:
            raise RuntimeError(f"Argument '{n}' of Node '{self}' was used before it has been "
                               "defined, or belongs to another Graph")
        self._input_nodes.setdefault(n, None)
        return n

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def replace_input_with(self, old_input, new_input):
        """Replaces every use of old_input among this node's inputs with new_input."""
        def swap(n):
            return new_input if n is old_input else n
        self._update_args_kwargs(map_arg(self.args, swap), map_arg(self.kwargs, swap))

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Makes every user of this node read replace_with instead; returns those users."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_"
                                     "meta=True), but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        to_process = [u for u in self.users if delete_user_cb(u)]
        for user in to_process:
            user.replace_input_with(self, replace_with)
        return to_process

    # ---- properties ---------------------------------------------------------------
    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random=True):
        """Whether dead-code elimination must keep this node (inputs, outputs, in-place calls,
        calls into modules that are themselves impure)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_method":
            return isinstance(self.target, str) and self.target.endswith("_") \
                and not self.target.endswith("__")
        if self.op == "call_function":
            name = getattr(self.target, "__name__", "")
            return name.endswith("_") and not name.endswith("__") or \
                getattr(self.target, "_fx_side_effect", False) or \
                self.target in _SIDE_EFFECTFUL
        if self.op == "call_module" and self.graph.owning_module is not None:
            mod = self.graph.owning_module.get_submodule(self.target)
            return getattr(mod, "_is_impure", False)
        return False

    def _pretty_print_target(self, target):
        return target if isinstance(target, str) else _qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None, *,
                    include_tensor_metadata=False):
        """One line of the graph's printout: `%name : [num_users=N] = op[target=...](...)`."""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : [num_users={len(self.users)}] = " \
                   f"placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : [num_users={len(self.users)}] = " \
                   f"get_attr[target={self._pretty_print_target(self.target)}]"
        if self.op == "output":
            return f"return {self.args[0]}"
        return f"%{self.name} : [num_users={len(self.users)}] = " \
               f"{self.op}[target={self._pretty_print_target(self.target)}](" \
               f"args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"

    def __repr__(self):
        return self.name


_SIDE_EFFECTFUL = set()


def has_side_effect(fn):
    """Marks fn so dead-code elimination keeps its call nodes (torch.fx.node.has_side_effect).

    >>> log = []
    >>> def record(x):
    ...     log.append(1)
    ...     return x
    >>> ember.fx.has_side_effect(record) is record
    True
    """
    _SIDE_EFFECTFUL.add(fn)
    return fn


# Operators that print as Python syntax in generated code (also used by Proxy's magic methods).
BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
          operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
          operator.lshift: "<<", operator.rshift: ">>", operator.and_: "&", operator.or_: "|",
          operator.xor: "^", operator.eq: "==", operator.ne: "!=", operator.lt: "<",
          operator.le: "<=", operator.gt: ">", operator.ge: ">="}
UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
