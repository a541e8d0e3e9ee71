"""Operator schemas for ember.library: torch's schema strings, read from text ("foo(Tensor x,
float a=1.0, *, SymInt n) -> Tensor") or inferred from a Python function's annotations
(infer_schema), and the checks a call's arguments go through (bind), with torch's messages.

A schema is a name, a list of Args and a list of return types. Types are torch's names:
Tensor, Tensor?, Tensor[], Tensor?[], SymInt (a Python int), float, bool, str, ScalarType
(dtype), Device, Scalar (int | float | bool), each optionally `?` and `[]`. A mutated Tensor
is written `Tensor(a0!)`.
"""
import collections.abc
import inspect
import re
import typing
from dataclasses import dataclass

__all__ = ["Schema", "Arg", "parse_schema", "infer_schema"]


@dataclass
class Arg:
    name: str
    type: str            # "Tensor", "Tensor?", "SymInt[]", ...
    default: object = inspect.Parameter.empty
    kwarg_only: bool = False
    alias: str = ""      # "a0!" for a mutated tensor

    def text(self):
        t = self.type if not self.alias else self.type.replace("Tensor", f"Tensor({self.alias})", 1)
        s = f"{t} {self.name}"
        if self.default is not inspect.Parameter.empty:
            s += "=" + _default_text(self.default)
        return s

    @property
    def mutated(self):
        return self.alias.endswith("!")


@dataclass
class Schema:
    name: str            # "mylib::foo" (or "foo" before a namespace is known)
    args: list
    returns: list        # type names

    def text(self, with_name=True):
        parts, star = [], False
        for a in self.args:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(a.text())
        rets = self.returns
        ret = rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"
        return (self.name if with_name else "") + "(" + ", ".join(parts) + ") -> " + ret

    __str__ = text

    def bind(self, op, args, kwargs):
        """The arguments by name, defaults filled in, each checked against its type."""
        positional = [a for a in self.args if not a.kwarg_only]
        if len(args) > len(positional):
            raise RuntimeError(f"{op}() expected at most {len(positional)} argument(s) but "
                               f"received {len(args)} argument(s). Declaration: {self}")
        bound = {}
        for a, v in zip(positional, args):
            bound[a.name] = v
        names = {a.name for a in self.args}
        for k, v in kwargs.items():
            if k not in names:
                raise RuntimeError(f"{op}() got an unexpected keyword argument '{k}'. "
                                   f"Declaration: {self}")
            if k in bound:
                raise RuntimeError(f"{op}() got multiple values for argument '{k}'. "
                                   f"Declaration: {self}")
            bound[k] = v
        for position, a in enumerate(self.args):
            if a.name not in bound:
                if a.default is inspect.Parameter.empty:
                    raise RuntimeError(f"{op}() is missing value for argument '{a.name}'. "
                                       f"Declaration: {self}")
                bound[a.name] = a.default
            if not _fits(a.type, bound[a.name]):
                raise RuntimeError(f"{op}() Expected a value of type '{_py_name(a.type)}' for "
                                   f"argument '{a.name}' but instead found type "
                                   f"'{type(bound[a.name]).__name__}'.\nPosition: {position}\n"
                                   f"Value: {bound[a.name]!r}\nDeclaration: {self}")
        return bound


# ---- checking a value against a type --------------------------------------------------
def _fits(t, v):
    from .. import Tensor, device, dtype
    if t.endswith("?"):
        return v is None or _fits(t[:-1], v)
    if t.endswith("[]"):
        return isinstance(v, (list, tuple)) and all(_fits(t[:-2], x) for x in v)
    scalar_int = isinstance(v, int) and not isinstance(v, bool)
    return {"Tensor": lambda: isinstance(v, Tensor),
            "SymInt": lambda: scalar_int, "int": lambda: scalar_int,
            "float": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
            "bool": lambda: isinstance(v, bool),
            "str": lambda: isinstance(v, str),
            "ScalarType": lambda: isinstance(v, dtype),
            "Device": lambda: isinstance(v, (device, str)),
            "Scalar": lambda: isinstance(v, (int, float, bool)),
            "Any": lambda: True}.get(t, lambda: False)()


def _py_name(t):
    return {"SymInt": "int", "ScalarType": "dtype", "Device": "device"}.get(t, t)


def _default_text(v):
    from .. import dtype
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, dtype):
        return str(v).split(".")[-1]
    if v is None:
        return "None"
    return repr(v)


# ---- reading schema text ----------------------------------------------------------------
_ARG = re.compile(r"^(?P<type>[A-Za-z]+)(?:\((?P<alias>[a-z0-9!]+)\))?(?P<mods>(?:\?|\[\d*\])*)"
                  r"\s+(?P<name>\w+)(?:\s*=\s*(?P<default>.+))?$")


def parse_schema(text):
    """A Schema from torch's text form, with or without the name ("(Tensor x) -> Tensor")."""
    m = re.match(r"^\s*(?P<name>[\w:.]*)\s*\((?P<args>.*)\)\s*->\s*(?P<ret>.+?)\s*$", text)
    if m is None:
        raise RuntimeError(f"Could not parse the schema '{text}': expected 'name(args) -> returns'")
    args, kwarg_only = [], False
    for piece in _split(m.group("args")):
        if piece == "*":
            kwarg_only = True
            continue
        a = _ARG.match(piece)
        if a is None:
            raise RuntimeError(f"Could not parse the argument '{piece}' of schema '{text}'")
        base = a.group("type") + re.sub(r"\[\d*\]", "[]", a.group("mods") or "")
        default = inspect.Parameter.empty
        if a.group("default") is not None:
            default = _parse_default(a.group("default").strip(), base)
        args.append(Arg(a.group("name"), base, default, kwarg_only, a.group("alias") or ""))
    ret = m.group("ret")
    if ret == "()":
        returns = []
    elif ret.startswith("("):
        returns = [r.split()[0] for r in _split(ret[1:-1])]
    else:
        returns = [ret.split()[0]]
    returns = [re.sub(r"\(.*?\)", "", r) for r in returns]
    return Schema(m.group("name"), args, returns)


def _split(s):
    """Split on top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _parse_default(text, t):
    from .. import _dtype
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith('"') or text.startswith("'"):
        return text[1:-1]
    if t.startswith("ScalarType"):
        return getattr(_dtype, text)
    if text.startswith("["):
        return [_parse_default(x.strip(), t[:-2]) for x in text[1:-1].split(",") if x.strip()]
    try:
        return int(text)
    except ValueError:
        return float(text)


# ---- inferring a schema from annotations ----------------------------------------------
def _type_table():
    from .. import Tensor, device, dtype
    Opt, Seq, List = typing.Optional, typing.Sequence, typing.List
    table = {}

    def add(py, name, optional=True, sequence=True):
        table[py] = name
        if optional:
            table[Opt[py]] = name + "?"
        if sequence:
            for s in (Seq[py], List[py], collections.abc.Sequence[py], list[py]):
                table[s] = name + "[]"
                if optional and py is not Tensor:
                    table[Opt[s]] = name + "[]?"
    add(Tensor, "Tensor")
    for s in (Seq[Opt[Tensor]], List[Opt[Tensor]], collections.abc.Sequence[Opt[Tensor]],
              list[Opt[Tensor]]):
        table[s] = "Tensor?[]"
    add(int, "SymInt")
    add(float, "float")
    add(bool, "bool")
    add(str, "str", sequence=False)
    add(dtype, "ScalarType", sequence=False)
    add(device, "Device", sequence=False)
    scalar = typing.Union[int, float, bool]
    table[scalar] = "Scalar"
    table[Opt[scalar]] = "Scalar?"
    for s in (Seq[scalar], List[scalar], collections.abc.Sequence[scalar], list[scalar]):
        table[s] = "Scalar[]"
    return table


_RETURNS = {"Tensor": "Tensor", "SymInt": "SymInt", "float": "float", "bool": "bool",
            "Tensor[]": "Tensor[]", "Scalar": "Scalar"}


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The schema string of a function from its type annotations (torch.library.infer_schema):
    `mutates_args` names the Tensor arguments it writes to ("unknown": all of them).

    >>> def f(x: ember.Tensor, n: int, scale: float = 1.0) -> ember.Tensor: ...
    >>> ember.library.infer_schema(f, mutates_args=())
    '(Tensor x, SymInt n, float scale=1.0) -> Tensor'
    """
    sig = inspect.signature(prototype_function)
    try:
        hints = typing.get_type_hints(prototype_function)
    except Exception:  # noqa: BLE001  (unresolvable string annotations: use them raw)
        hints = {}
    table = _type_table()

    def fail(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    args, seen_mutated = [], set()
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            fail("We do not support *args or **kwargs.")
        ann = hints.get(name, p.annotation)
        if ann is inspect.Parameter.empty:
            fail(f"Parameter {name} must have a type annotation.")
        try:
            t = table.get(ann)
        except TypeError:
            t = None
        if t is None:
            fail(f"Parameter {name} has unsupported type {ann}.")
        default = p.default
        if default is not inspect.Parameter.empty and not (
                default is None or isinstance(default, (int, float, bool, str))
                or type(default).__name__ == "dtype"):
            fail(f"Parameter {name} has an unsupported default value type {type(default)}.")
        alias = ""
        if t.startswith("Tensor") and (mutates_args == "unknown" or name in mutates_args):
            alias = f"a{len(seen_mutated)}!"
            seen_mutated.add(name)
        args.append(Arg(name, t, default, p.kind == p.KEYWORD_ONLY, alias))
    if mutates_args != "unknown":
        for name in mutates_args:
            if name not in sig.parameters:
                fail(f"{name} in mutates_args is not a parameter.")
    ret = hints.get("return", sig.return_annotation)
    if ret is inspect.Parameter.empty:
        fail("No return type annotation was provided. Please add one.")
    returns = _returns(ret, table, fail)
    return Schema(op_name or "", args, returns).text(with_name=op_name is not None)


def _returns(ret, table, fail):
    if ret is None or ret is type(None):
        return []
    origin = typing.get_origin(ret)
    if origin is tuple:
        return [_one_return(a, table, fail) for a in typing.get_args(ret)]
    return [_one_return(ret, table, fail)]


def _one_return(ann, table, fail):
    t = table.get(ann)
    if t not in _RETURNS:
        fail(f"Return has unsupported type {ann}.")
    return t
