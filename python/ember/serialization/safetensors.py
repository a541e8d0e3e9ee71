"""Objects of tensors in the safetensors format (docs/serialization.md), chosen by
ember.save for a path ending in .safetensors and by ember.load when the bytes are not a zip.

    ember.save(model.state_dict(), "model.safetensors")
    model.load_state_dict(ember.load("model.safetensors"))
    ember.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, "ckpt.safetensors")

A safetensors file holds named tensors and a string-to-string "__metadata__" map, and
nothing that can run code. So a nested object is saved as its tensors, named by their
dotted paths ("model.0.weight", "optim.state.0.exp_avg"), plus one metadata entry,
"ember.structure", a JSON description of the containers (dicts, OrderedDicts, lists,
tuples) and of the plain values (numbers, strings, booleans, None) around those tensors.
ember.load rebuilds the same object from it; a file written by another safetensors
writer (no such entry) loads as a dict of its tensors. The file format and all its
checks are C++ (src/io); this module only flattens and rebuilds containers.
"""
import os
from collections import OrderedDict

from .. import _C
from .._tensor import Tensor

__all__ = ["save_safetensors", "load_safetensors", "save_file", "load_file"]

STRUCTURE_KEY = "ember.structure"  # the metadata entry describing the saved object
TENSOR_KEY = "__tensor__"          # the name of a tensor saved on its own
_VERSION = 1
_MAX_DEPTH = 64                    # containers nested deeper are refused on save and load
_SCALARS = (str, int, float, bool, type(None))


def _path(f, op):
    """The str path a file name (str, bytes or PathLike) names; ValueError naming op for an
    embedded NUL (ember.save/load use it too)."""
    path = os.fspath(f)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if "\0" in path:
        raise ValueError(f"{op}: embedded null byte in path")
    return path


def _check_metadata(metadata, op, reserve=True):
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise TypeError(f"{op}: metadata must be a dict of str to str")
    if reserve and STRUCTURE_KEY in metadata:
        raise ValueError(f"{op}: the metadata key {STRUCTURE_KEY!r} is reserved by ember")
    return dict(metadata)


# ---- flatten: object -> (name -> tensor, structure) ----------------------------------------
def _flatten(obj):
    tensors, names = {}, {}  # name -> tensor; id(tensor) -> name (a shared tensor is saved once)

    def node(x, path, depth):
        if depth > _MAX_DEPTH:
            raise ValueError(f"save: object nested deeper than {_MAX_DEPTH} levels at {path!r}")
        if isinstance(x, Tensor):
            name = names.get(id(x))
            if name is None:
                name = TENSOR_KEY if path is None else path
                if name in tensors:
                    raise ValueError(f"save: two entries are both named {name!r} once flattened "
                                     "to dotted names; rename one of the keys")
                tensors[name], names[id(x)] = x, name
            return {"tensor": name}
        if isinstance(x, dict):
            items = []
            for k, v in x.items():
                if not isinstance(k, _SCALARS):
                    raise TypeError(f"save: cannot save a dict key of type {type(k).__name__} "
                                    f"(at {path!r}); keys must be str, int, float, bool or None")
                items.append([k, node(v, _join(path, k), depth + 1)])
            out = {"dict": items}
            if isinstance(x, OrderedDict):
                out["ordered"] = True
                meta = getattr(x, "_metadata", None)  # Module.state_dict()'s layer versions
                if meta is not None:
                    out["_metadata"] = node(meta, _join(path, "_metadata"), depth + 1)
            return out
        if isinstance(x, (list, tuple)):
            kind = "tuple" if isinstance(x, tuple) else "list"
            return {kind: [node(v, _join(path, i), depth + 1) for i, v in enumerate(x)]}
        if isinstance(x, _SCALARS):
            return {"value": x}
        raise TypeError(f"save: cannot save an object of type {type(x).__name__} (at "
                        f"{path or 'the top level'!r}); ember saves tensors, dicts, lists, "
                        "tuples, numbers, strings, booleans and None")

    tree = node(obj, None, 0)
    return tensors, tree


def _join(path, key):
    return str(key) if path is None else f"{path}.{key}"


# ---- rebuild: structure + tensors -> object -------------------------------------------------
def _rebuild(text, tensors, where):
    import json

    def bad(msg):
        return ValueError(f"load: {where}: the {STRUCTURE_KEY} metadata is invalid: {msg}")

    # A real structure has a few containers per tensor and per plain value; a hostile one
    # could pack millions of "{}" into the header, each a Python object. Count them first.
    containers = text.count("{") + text.count("[")
    limit = 8 * len(tensors) + 100_000
    if containers > limit:
        raise bad(f"{containers} containers for {len(tensors)} tensors (at most {limit})")
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise bad(f"not JSON ({e})") from None
    if not isinstance(doc, dict) or "tree" not in doc:
        raise bad("expected an object with a 'tree'")
    if doc.get("version") != _VERSION:
        raise bad(f"version {doc.get('version')!r} (this ember reads version {_VERSION}); "
                  "was the file written by a newer ember?")

    def node(n, depth):
        if depth > _MAX_DEPTH:
            raise bad(f"nested deeper than {_MAX_DEPTH} levels")
        if not isinstance(n, dict) or not n:
            raise bad(f"a node must be a non-empty object, got {type(n).__name__}")
        if "tensor" in n:
            name = n["tensor"]
            if not isinstance(name, str) or name not in tensors:
                raise bad(f"it names a tensor {name!r} that the file does not hold")
            return tensors[name]
        if "value" in n:
            v = n["value"]
            if not isinstance(v, _SCALARS):
                raise bad(f"a value must be a number, string, boolean or null, got {type(v).__name__}")
            return v
        for kind, make in (("list", list), ("tuple", tuple)):
            if kind in n:
                if not isinstance(n[kind], list):
                    raise bad(f"{kind} must be an array")
                return make(node(v, depth + 1) for v in n[kind])
        if "dict" in n:
            items = n["dict"]
            if not isinstance(items, list):
                raise bad("dict must be an array of [key, value] pairs")
            out = OrderedDict() if n.get("ordered") else {}
            for item in items:
                if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], _SCALARS)):
                    raise bad("dict must be an array of [key, value] pairs")
                out[item[0]] = node(item[1], depth + 1)
            if "_metadata" in n and isinstance(out, OrderedDict):
                out._metadata = node(n["_metadata"], depth + 1)
            return out
        raise bad(f"unknown node {sorted(n)[:3]}")

    return node(doc["tree"], 0)


# ---- the API (ember.save / ember.load dispatch here, see __init__.py) ------------------------
def save_safetensors(obj, f, metadata=None):
    """Saves `obj` — a tensor, or dicts / lists / tuples of tensors and plain values — to
    `f`, a path (atomically: a crash mid-save leaves the previous file intact) or a binary
    file object, in the safetensors format, with `metadata` (str -> str) in "__metadata__"."""
    metadata = _check_metadata(metadata, "save")
    tensors, tree = _flatten(obj)
    import json
    metadata[STRUCTURE_KEY] = json.dumps({"version": _VERSION, "tree": tree},
                                         separators=(",", ":"))
    if hasattr(f, "write"):
        f.write(_C._save_bytes(tensors, metadata))
    else:
        _C._save_file(tensors, _path(f, "save"), metadata)


def load_safetensors(f, mmap=False):
    """What save_safetensors wrote (or any safetensors file, as a dict of its tensors) from
    `f`, a path or a binary file object; mmap=True (paths only) maps the file copy-on-write.
    A malformed or hostile file raises ValueError naming the file and the problem."""
    if hasattr(f, "read"):
        if mmap:
            raise ValueError("load: mmap=True needs a file path, not a file object")
        pairs, metadata = _C._load_bytes(bytes(f.read()))
        where = "<file object>"
    else:
        where = _path(f, "load")
        pairs, metadata = _C._load_file(where, bool(mmap))
        where = repr(where)
    tensors = dict(pairs)
    text = metadata.get(STRUCTURE_KEY)
    if text is None:
        return tensors
    return _rebuild(text, tensors, where)


def save_file(tensors, filename, metadata=None):
    """safetensors.torch.save_file's API: a dict of name -> tensor, saved as is (no
    ember structure entry), atomically."""
    if not isinstance(tensors, dict) or not all(
            isinstance(k, str) and isinstance(v, Tensor) for k, v in tensors.items()):
        raise TypeError("save_file: expected a dict of str to Tensor")
    _C._save_file(tensors, _path(filename, "save_file"), _check_metadata(metadata, "save_file", False))


def load_file(filename, mmap=False):
    """(dict of name -> tensor in file order, metadata dict) of any safetensors file."""
    pairs, metadata = _C._load_file(_path(filename, "load_file"), bool(mmap))
    return dict(pairs), metadata
