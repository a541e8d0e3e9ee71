"""fx.GraphModule: a Module whose forward is the Python code generated from a Graph.

As torch's: each GraphModule gets its own class (so `forward` can be replaced by recompile()
without touching other instances); the submodules, parameters and buffers the graph's get_attr
and call_module nodes name are copied from the root (a Module, or a dict of name -> object).
The generated source is registered with linecache, so tracebacks and inspect show its lines.
"""
import copy
import itertools
import linecache
import os

from ..nn import Module
from .graph import Graph

__all__ = ["GraphModule"]

_counter = itertools.count()


def _copy_attr(from_module, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    from .._tensor import Tensor
    from ..nn.parameter import Parameter
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter) and \
            field in getattr(from_module, "_buffers", {}):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    setattr(to_module, field, from_obj)


_STANDARD_GLOBALS = ("torch", "ember", "inf", "nan", "NoneType")


def _rebuild(body, code, globals_, class_name):
    """Unpickles a GraphModule: runs its code, traces it (submodules kept whole)."""
    import math
    import ember
    from ._symbolic_trace import Tracer
    g = dict(globals_, torch=ember, ember=ember, inf=math.inf, nan=math.nan, NoneType=type(None))
    exec(compile(code, f"<rebuilt {class_name}>", "exec"), g)
    holder_cls = type(class_name, (Module,), {"forward": g["forward"]})
    holder = Module.__new__(holder_cls)
    holder.__dict__.update(body)

    class KeepModules(Tracer):
        def is_leaf_module(self, m, qualname):
            return True
    return GraphModule(holder, KeepModules().trace(holder), class_name)


class GraphModule(Module):
    """GraphModule(root, graph, class_name='GraphModule'): runs `graph` as its forward.

    >>> gm = ember.fx.symbolic_trace(lambda x: x * 2 + 1)
    >>> isinstance(gm, ember.fx.GraphModule), gm(ember.tensor([1.0, 2.0]))
    (True, tensor([3., 5.]))
    """

    def __new__(cls, *args, **kwargs):
        # One class per instance, so that recompile() can set forward on it.
        for t in cls.__mro__:
            c = t.__qualname__.split(".")[-1]
            if c != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if not isinstance(node.target, str):
                        raise AssertionError(f"node {node.name}: target must be a str")
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that "
                                           "target was not provided in ``root``!")
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.__dict__["meta"] = {}
        self.__dict__["_tracer_cls"] = getattr(graph, "_tracer_cls", None)
        self.graph = graph

    # ---- graph and code -----------------------------------------------------------
    @property
    def graph(self):
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g).__name__}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        if "_code" not in self.__dict__:
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self.__dict__["_code"]

    def recompile(self):
        """Regenerates forward (and .code) from self.graph; call it after editing the graph."""
        python_code = self.graph.python_code(root_module="self")
        src = python_code.src
        self.__dict__["_code"] = src
        key = f"<eval_with_key>.{next(_counter)}"
        linecache.cache[key] = (len(src), None, src.splitlines(True), key)
        globals_ = dict(python_code.globals)
        exec(compile(src, key, "exec"), globals_)
        cls = type(self)
        cls.forward = globals_["forward"]
        return python_code

    # ---- submodules -----------------------------------------------------------------
    def add_submodule(self, target, m):
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                mod.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, name) or not isinstance(getattr(mod, name), Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self):
        used = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                for i in range(1, len(atoms) + 1):
                    used.add(".".join(atoms[:i]))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    used.update(f"{node.target}.{n}" for n, _ in sub.named_modules() if n)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # ---- printing -------------------------------------------------------------------
    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False):
        """The module as a class with its forward: `class M(torch.nn.Module): ...`."""
        lines = self.code.strip("\n").rstrip().splitlines()
        at = next(i for i, ln in enumerate(lines) if ln.startswith("def forward"))
        if at + 1 < len(lines) and not lines[at + 1].strip().startswith("return"):
            # ember records no stack traces (torch does with record_stack_traces=True)
            lines.insert(at + 1, "    # No stacktrace found for following nodes")
        body = "\n".join("    " + line if line else line for line in lines)
        from ._naming import root_name
        out = f"class {type(self).__name__}({root_name()}.nn.Module):\n{body}\n"
        if print_output:
            print(out)
        return out

    def __str__(self):
        return super().__repr__() + "\n\n\n" + self.code + "\n# To see more debug info, " \
            "please use `graph_module.print_readable()`"

    def __deepcopy__(self, memo):
        res = Module.__new__(Module)
        memo[id(self)] = res
        d = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        res.__dict__ = copy.deepcopy(d, memo)
        return GraphModule(res, copy.deepcopy(self.graph, memo), type(self).__name__)

    def __reduce__(self):
        # As torch's: the attributes, the generated code and what it names besides ember; the
        # graph is rebuilt on load by tracing that code with every submodule kept whole.
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        globals_ = {k: v for k, v in self.graph.python_code("self").globals.items()
                    if k not in _STANDARD_GLOBALS}
        return (_rebuild, (body, self.code, globals_, type(self).__name__))

    def __copy__(self):
        res = GraphModule(self, self.graph, type(self).__name__)
        res.meta = dict(getattr(self, "meta", {}))
        return res

    def to_folder(self, folder, module_name="FxModule"):
        """Writes module.py (the class with its forward), __init__.py and state_dict.pt (the
        parameters and buffers) to `folder`, so that `from folder import FxModule` rebuilds it.
        Submodules are written by their repr, so only ember.nn layers can be written."""
        from ._naming import root_name
        from ..serialization import save
        r = root_name()
        extra = set(self.graph.python_code("self").globals) - {"torch", "ember", "inf", "nan",
                                                               "NoneType"}
        if extra:
            raise NotImplementedError(f"to_folder: the code calls {sorted(extra)}, which cannot "
                                      "be written as an import")
        lines = []
        for name, mod in self.named_children():
            text = repr(mod)
            if "\n" in text or not type(mod).__module__.startswith("ember.nn"):
                raise NotImplementedError(f"to_folder: cannot write submodule {name} "
                                          f"({type(mod).__name__}) as code")
            lines.append(f"self.add_module({name!r}, {r}.nn.{text})")
        def empty(t):
            return f"{r}.empty({list(t.shape)}, dtype={r}.{str(t.dtype).split('.')[-1]})"
        for name, p in self._parameters.items():
            lines.append(f"self.register_parameter({name!r}, {r}.nn.Parameter({empty(p)}))")
        for name, b in self._buffers.items():
            lines.append(f"self.register_buffer({name!r}, {empty(b)})")
        lines.append(f"self.load_state_dict({r}.load(os.path.join(os.path.dirname(__file__), "
                     "'state_dict.pt')))")
        init = "".join(f"        {ln}\n" for ln in lines)
        fwd = "\n".join("    " + ln for ln in self.code.strip("\n").rstrip().splitlines())
        src = (f"import os\n\nimport {r}\nfrom math import inf, nan\n\n\n"
               f"class {module_name}({r}.nn.Module):\n    def __init__(self):\n"
               f"        super().__init__()\n{init}\n{fwd}\n")
        os.makedirs(folder, exist_ok=True)
        save(self.state_dict(), os.path.join(folder, "state_dict.pt"))
        with open(os.path.join(folder, "module.py"), "w") as f:
            f.write(src)
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write(f"from .module import {module_name}  # noqa: F401\n")
