"""Names in fx: a target's printable qualified name, and the namespace that hands out node names.

ember's op functions come from the extension (their __module__ is 'ember._C'); a graph prints
them by where users reach them (ember.relu, ember.nn.functional.relu). Under the drop-in runner
(`import torch` gives ember) the same names print as torch.relu, as PyTorch's graphs do, and the
generated code binds both `torch` and `ember` to ember.
"""
import builtins
import keyword
import re
import sys

# Public namespaces whose functions are printed by their public path, searched in this order.
_PUBLIC = ("", "nn.functional", "special", "linalg", "fft")
_public_paths = None


def root_name():
    """'torch' when ember runs as torch (python -m ember run), else 'ember'."""
    import ember
    return "torch" if sys.modules.get("torch") is ember else "ember"


def _public_path_table():
    global _public_paths
    if _public_paths is None:
        import importlib
        table = {}
        for sub in reversed(_PUBLIC):  # earlier namespaces win
            try:
                mod = importlib.import_module("ember" + ("." + sub if sub else ""))
            except ImportError:
                continue
            for name, value in list(vars(mod).items()):
                value = getattr(value, "__fx_orig__", value)  # a router stands for its function
                if not name.startswith("__") and callable(value) and not isinstance(value, type):
                    table[id(value)] = (value, (sub + "." if sub else "") + name)
        _public_paths = table
    return _public_paths


def qualified_name(fn):
    """'operator.add', 'builtins.getattr', 'torch.relu' / 'ember.relu', 'pkg.mod.fn'."""
    hit = _public_path_table().get(id(fn))
    if hit is not None and hit[0] is fn:
        return f"{root_name()}.{hit[1]}"
    name = getattr(fn, "__name__", None) or type(fn).__name__
    module = getattr(fn, "__module__", None) or "builtins"
    if module == "_operator":
        module = "operator"
    if module == "ember" or module.startswith("ember."):
        module = root_name() + module[len("ember"):]
    return f"{module}.{name}"


def snake_case(s):
    """CamelCase -> camel_case, as torch.fx names nodes of module classes."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


_ILLEGAL_CHAR = re.compile(r"[^0-9a-zA-Z_]+")
_SUFFIX = re.compile(r"(.*)_(\d+)$")
_RESERVED = {"torch", "ember", "inf", "nan", "NoneType", "device", "fx_pytree", "pytree"}


class Namespace:
    """Hands out unique, legal Python identifiers: `add`, `add_1`, `add_2`; a candidate that is a
    keyword or a builtin (`sum`, `max`, `getattr`) gets a suffix, as torch.fx does."""

    def __init__(self):
        # id -> (obj, name): the entry keeps obj alive, as torch.fx's dict keyed by the object
        # does; keyed by a bare id, an erased node's id was reused by the next node, which then
        # got the erased node's name.
        self._obj_to_name = {}
        self._used = set()
        self._base_count = {}

    def create_name(self, candidate, obj=None):
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)][1]
        candidate = _ILLEGAL_CHAR.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = "_" + candidate
        m = _SUFFIX.match(candidate)
        base, num = (candidate, None) if m is None else (m.group(1), int(m.group(2)))
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = self._base_count.get(base, 0)
        while candidate in self._used or self._is_illegal(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = (obj, candidate)
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[id(obj)] = (obj, name)

    def _is_illegal(self, name, obj):
        if keyword.iskeyword(name) or name in _RESERVED:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        return False
