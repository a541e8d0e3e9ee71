"""Python source for a Graph: one line per node, in torch.fx's layout.

    def forward(self, x, y = 2):
        add = x + y;  x = y = None
        relu = torch.relu(add);  add = None
        return relu

Operators print as syntax (`+`, `x[i]`, `x.attr`), ember's functions by their public path
through the `torch`/`ember` globals, any other callable through a global named after its
qualified name (`__main___my_fn`). After a value's last use the line clears it (`x = None`) so
intermediate tensors are freed as soon as the code is done with them.
"""
import builtins
import math
import operator
import types

from ._naming import Namespace, qualified_name, root_name
from .node import BINARY, UNARY, Node, map_arg


def _is_identifier(s):
    return isinstance(s, str) and s.isidentifier()


def format_target(base, target):
    """'self.a.b' for target 'a.b'; getattr(...) for atoms that are not identifiers."""
    out = base
    for atom in target.split("."):
        out = f"{out}.{atom}" if _is_identifier(atom) else f'getattr({out}, "{atom}")'
    return out


class _Globals:
    def __init__(self, graph):
        import ember
        self.ns = Namespace()
        self.ns._used.update(n.name for n in graph.nodes)
        self.globals = {"torch": ember, "ember": ember, "inf": math.inf, "nan": math.nan,
                        "NoneType": type(None)}

    def add(self, obj):
        """The expression that names obj in the generated code."""
        name = getattr(obj, "__name__", None)
        if name is not None and builtins.__dict__.get(name) is obj:
            return name
        qual = qualified_name(obj)
        root = root_name()
        if qual.startswith(root + ".") and _resolves(qual, obj):
            return qual
        gname = self.ns.create_name(qual.replace(".", "_"), obj)
        self.globals[gname] = obj
        return gname


def _resolves(qual, obj):
    import ember
    cur = ember
    for atom in qual.split(".")[1:]:
        cur = getattr(cur, atom, None)
        if cur is None:
            return False
    return getattr(cur, "__fx_orig__", cur) is obj  # (a router while routing is on)


def _repr_arg(arg, g):
    if isinstance(arg, Node):
        return arg.name
    if isinstance(arg, list):
        return "[" + ", ".join(_repr_arg(a, g) for a in arg) + "]"
    if isinstance(arg, tuple):
        if hasattr(arg, "_fields"):  # a namedtuple: rebuild it by its class
            return g.add(type(arg)) + "(" + ", ".join(_repr_arg(a, g) for a in arg) + ")"
        items = [_repr_arg(a, g) for a in arg]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_repr_arg(v, g)}" for k, v in arg.items()) + "}"
    if isinstance(arg, slice):
        return f"slice({_repr_arg(arg.start, g)}, {_repr_arg(arg.stop, g)}, " \
               f"{_repr_arg(arg.step, g)})"
    if arg is None or arg is Ellipsis or isinstance(arg, (bool, int, float, str, complex)):
        return repr(arg)
    import ember
    if isinstance(arg, ember.dtype):
        return f"ember.{repr(arg).rsplit('.', 1)[-1]}"
    if isinstance(arg, ember.device):
        return f"ember.device({str(arg)!r})"
    if isinstance(arg, (type, types.FunctionType, types.BuiltinFunctionType)) or callable(arg):
        return g.add(arg)
    name = g.ns.create_name(type(arg).__name__.lower(), arg)
    g.globals[name] = arg
    return name


def _args_str(args, kwargs, g):
    parts = [_repr_arg(a, g) for a in args]
    parts += [f"{k} = {_repr_arg(v, g)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _node_line(node, root_module, g):
    a, k = node.args, node.kwargs
    if node.op == "get_attr":
        return f"{node.name} = {format_target(root_module, node.target)}"
    if node.op == "call_module":
        return f"{node.name} = {format_target(root_module, node.target)}({_args_str(a, k, g)})"
    if node.op == "call_method":
        if not a:
            raise RuntimeError(f"call_method node {node.name} ({node.target}) has no self argument")
        return f"{node.name} = {_repr_arg(a[0], g)}.{node.target}({_args_str(a[1:], k, g)})"
    if node.op == "output":
        return f"return {_repr_arg(a[0], g)}"
    t = node.target
    if t in BINARY and len(a) == 2 and not k:
        return f"{node.name} = {_repr_arg(a[0], g)} {BINARY[t]} {_repr_arg(a[1], g)}"
    if t in UNARY and len(a) == 1 and not k:
        return f"{node.name} = {UNARY[t]}{_repr_arg(a[0], g)}"
    if t is operator.getitem and len(a) == 2 and not k:
        return f"{node.name} = {_repr_arg(a[0], g)}[{_repr_arg(a[1], g)}]"
    if t is builtins.getattr and len(a) == 2 and not k and _is_identifier(a[1]):
        return f"{node.name} = {_repr_arg(a[0], g)}.{a[1]}"
    return f"{node.name} = {g.add(t)}({_args_str(a, k, g)})"


def generate(graph, root_module="self"):
    """(source of `def forward(...)`, the globals it runs in)."""
    g = _Globals(graph)
    last_uses = {}  # node -> the nodes whose last read it is
    seen = set()
    for node in reversed(graph.nodes):
        def note(n, user=node):
            if n not in seen:
                seen.add(n)
                last_uses.setdefault(user, []).append(n)
        map_arg(node.args, note)
        map_arg(node.kwargs, note)
    params, body = [], []
    for node in graph.nodes:
        if node.op == "placeholder":
            t = node.target
            if t.startswith("*"):
                params.append(t)
                body.append(f"{node.name} = {t.lstrip('*')}")
            else:
                params.append(t if not node.args else f"{t} = {_repr_arg(node.args[0], g)}")
                if node.name != t:
                    body.append(f"{node.name} = {t}")
            continue
        line = _node_line(node, root_module, g)
        if node.op != "output":
            dead = list(last_uses.get(node, []))
            if not node.users:
                dead.append(node)
            if dead:
                line += ";  " + " = ".join(n.name for n in dead) + " = None"
        body.append(line)
    # torch puts keyword-with-default params after plain ones and *args/**kwargs last
    plain = [p for p in params if "=" not in p and not p.startswith("*")]
    dflt = [p for p in params if "=" in p]
    star = sorted((p for p in params if p.startswith("*")), key=lambda p: p.startswith("**"))
    sig = ", ".join([root_module] + plain + dflt + star)
    if not body or not body[-1].startswith("return"):
        body.append("return None")
    # fx.wrap'ed functions stay wrapped when the generated module is traced again (as torch's)
    wraps = dict.fromkeys(g.add(n.target) for n in graph.nodes
                          if n.op == "call_function" and n.meta.get("is_wrapped"))
    head = "\n".join(f'{root_name()}.fx._symbolic_trace.wrap("{w}")' for w in wraps)
    src = f"\n{head}\n\ndef forward({sig}):\n" + "".join(f"    {b}\n" for b in body) + "    "
    return src, g.globals
