"""The node types of ember.utils._pytree (torch.utils._pytree): the registry that says which
containers are nodes and how each flattens, the key entries of key paths, and the built-in nodes
(tuple, list, dict, namedtuples, OrderedDict, defaultdict, deque, ember.return_types).
ember.utils._pytree re-exports every name; import them from there.
"""
import dataclasses
import importlib
import threading
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, Iterable, NamedTuple, Protocol

from .. import _C, return_types as _return_types

__all__ = ["Context", "PyTree", "FlattenFn", "UnflattenFn", "DumpableContext",
           "ToDumpableContextFn", "FromDumpableContextFn", "FlattenWithKeysFn", "KeyPath",
           "FlattenFunc", "UnflattenFunc", "FlattenWithKeysFunc", "KeyEntry", "NodeDef",
           "DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL", "NO_SERIALIZED_TYPE_NAME_FOUND",
           "SUPPORTED_NODES", "SUPPORTED_SERIALIZED_TYPES", "SERIALIZED_TYPE_TO_PYTHON_TYPE",
           "CONSTANT_NODES", "STANDARD_DICT_TYPES", "BUILTIN_TYPES", "ConstantNode",
           "register_pytree_node", "register_dataclass", "register_constant", "is_constant_class",
           "SequenceKey", "MappingKey", "GetAttrKey", "keystr", "key_get", "is_namedtuple",
           "is_namedtuple_class", "is_namedtuple_instance", "structseq", "is_structseq",
           "is_structseq_class", "is_structseq_instance", "tree_is_leaf"]

# torch's type aliases (kept out of __all__: they are typing objects, not API with a docstring).
Context = Any
PyTree = Any
FlattenFn = Callable[[PyTree], tuple]
UnflattenFn = Callable[[Iterable, Context], PyTree]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
FlattenWithKeysFn = Callable[[PyTree], tuple]
KeyPath = tuple
FlattenFunc, UnflattenFunc, FlattenWithKeysFunc = FlattenFn, UnflattenFn, FlattenWithKeysFn

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class KeyEntry(Protocol):
    """One step of a key path: hashable, comparable, printable, and `get(parent)` reads it."""

    def __hash__(self) -> int: ...

    def __eq__(self, other) -> bool: ...

    def __str__(self) -> str: ...

    def get(self, parent): ...


class NodeDef(NamedTuple):
    """How one registered node type flattens (children, context) and unflattens."""
    type: type
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Any


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict = {}
SUPPORTED_SERIALIZED_TYPES: dict = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}
CONSTANT_NODES: set = set()


# ------------------------------------------------------------------------------------------------
# Registration


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None):
    """Registers (or re-registers, with a warning) `cls` as a node type."""
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         "be None or registered.")
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. Overwriting the previous "
                          "registration.", stacklevel=3)
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        name = serialized_type_name or NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context,
                                                            from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
    to_dumpable_context=None, from_dumpable_context=None, flatten_with_keys_fn=None)

    Makes `cls` a node: flatten_fn(x) -> (children, context), unflatten_fn(children, context) -> x;
    flatten_with_keys_fn(x) -> ([(key, child)], context) gives key paths; serialized_type_name and
    the dumpable-context pair let treespec_dumps write it. ValueError if `cls` is registered.

    >>> from ember.utils import _pytree as pytree
    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> pytree.register_pytree_node(Pair, lambda p: ([p.a, p.b], None),
    ...                             lambda children, _: Pair(*children))
    >>> pytree.tree_leaves([Pair(1, 2), 3])
    [1, 2, 3]
    """
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
        _private_register_pytree_node(
            cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
            to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
            flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None,
                          *, serialized_type_name=None, to_dumpable_context=None,
                          from_dumpable_context=None, flatten_with_keys_fn=None):
    """The old private spelling (HF transformers calls it): registers like register_pytree_node,
    overwriting an earlier registration, with torch's FutureWarning."""
    warnings.warn("`torch.utils._pytree._register_pytree_node` is deprecated. Please use "
                  "`torch.utils._pytree.register_pytree_node` instead.", FutureWarning,
                  stacklevel=2)
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
                      "`to_dumpable_context` and `from_dumpable_context` instead.",
                      FutureWarning, stacklevel=2)
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _deregister_pytree_node(cls):
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        entry = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[entry.serialized_type_name]
        CONSTANT_NODES.discard(cls)


def register_dataclass(cls, *, field_names=None, drop_field_names=None,
                       serialized_type_name=None):
    """register_dataclass(cls, *, field_names=None, drop_field_names=None,
    serialized_type_name=None)

    Makes a dataclass (or a class built from keyword fields, listed in field_names) a node whose
    children are its fields; fields that are None are kept in the context, not as leaves.

    >>> import dataclasses
    >>> from ember.utils import _pytree as pytree
    >>> @dataclasses.dataclass
    ... class Point:
    ...     x: object
    ...     y: object
    >>> pytree.register_dataclass(Point)
    >>> pytree.tree_map(lambda v: v * 10, Point(1, 2))
    Point(x=10, y=20)
    """
    drop = set(drop_field_names or [])
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
    else:
        init_fields = [f.name for f in dataclasses.fields(cls) if f.init]
        if field_names is None:
            field_names = init_fields
        elif set(init_fields) - drop != set(field_names):
            expected = set(init_fields) - drop
            msg = "field_names does not include all dataclass fields.\n"
            if expected - set(field_names):
                msg += (f"Missing fields in `field_names`: {expected - set(field_names)}. If you "
                        "want to include these fields in the pytree, please add them to "
                        "`field_names`, otherwise please add them to `drop_field_names`.\n")
            if set(field_names) - expected:
                msg += (f"Unexpected fields in `field_names`: {set(field_names) - expected}. "
                        "Please remove these fields, or add them to `drop_field_names`.\n")
            raise ValueError(msg)
    field_names = list(field_names)

    def flatten(obj):
        values = [(name, getattr(obj, name)) for name in field_names]
        kept = [(n, v) for n, v in values if v is not None]
        return [v for _, v in kept], [[n for n, _ in kept], [n for n, v in values if v is None]]

    def unflatten(children, context):
        names, none_names = context
        return cls(**dict(zip(names, children, strict=True)), **dict.fromkeys(none_names))

    def flatten_with_keys(obj):
        children, (names, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(names, children)], names

    _private_register_pytree_node(cls, flatten, unflatten,
                                  serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


@dataclasses.dataclass(frozen=True, slots=True)
class ConstantNode:
    """The context of a register_constant node: the constant itself."""
    value: Any


def register_constant(cls):
    """register_constant(cls)

    Makes instances of `cls` nodes without leaves that carry themselves in their spec (they must
    define __eq__ and __hash__): compared as part of the structure, never mapped over.

    >>> import dataclasses
    >>> from ember.utils import _pytree as pytree
    >>> @dataclasses.dataclass(frozen=True)
    ... class Config:
    ...     norm: str
    >>> pytree.register_constant(Config)
    >>> pytree.tree_flatten([Config("l2"), 1])[0]
    [1]
    """
    if cls.__eq__ is object.__eq__:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default `__eq__` "
                        "implementation.")
    if cls.__hash__ is None:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default `__hash__` "
                        "implementation.")
    with _NODE_REGISTRY_LOCK:
        _private_register_pytree_node(cls, lambda x: ([], ConstantNode(x)),
                                      lambda _, context: context.value,
                                      flatten_with_keys_fn=lambda x: ([], ConstantNode(x)))
        CONSTANT_NODES.add(cls)


def is_constant_class(cls):
    return isinstance(cls, type) and cls in CONSTANT_NODES


def _register_namedtuple(cls, *, serialized_type_name):
    """A namedtuple class with a name treespec_dumps can write (namedtuples are nodes anyway)."""
    _private_register_pytree_node(cls, _namedtuple_flatten, _namedtuple_unflatten,
                                  serialized_type_name=serialized_type_name,
                                  to_dumpable_context=_namedtuple_serialize,
                                  from_dumpable_context=_namedtuple_deserialize,
                                  flatten_with_keys_fn=_namedtuple_flatten_with_keys)


# ------------------------------------------------------------------------------------------------
# Key paths


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """SequenceKey(idx): the key of a tuple's or list's child; prints as `[idx]`.

    >>> from ember.utils import _pytree as pytree
    >>> key = pytree.SequenceKey(1)
    >>> str(key), key.get(["a", "b"])
    ('[1]', 'b')
    """
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey:
    """MappingKey(key): the key of a dict's child; prints as `['key']`.

    >>> from ember.utils import _pytree as pytree
    >>> key = pytree.MappingKey("w")
    >>> str(key), key.get({"w": 3})
    ("['w']", 3)
    """
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """GetAttrKey(name): the key of an attribute (namedtuple and dataclass fields); prints `.name`.

    >>> from ember.utils import _pytree as pytree
    >>> str(pytree.GetAttrKey("real")), pytree.GetAttrKey("real").get(3 + 4j)
    ('.real', 3.0)
    """
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp):
    """keystr(kp) -> str

    A key path (a tuple of keys) as the Python expression that reaches the leaf.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.keystr((pytree.MappingKey("a"), pytree.SequenceKey(0), pytree.GetAttrKey("x")))
    "['a'][0].x"
    """
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """key_get(obj, kp)

    The value that the key path `kp` reaches in `obj`.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.key_get({"a": [5, 6]}, (pytree.MappingKey("a"), pytree.SequenceKey(1)))
    6
    """
    for k in kp:
        obj = k.get(obj)
    return obj


# ------------------------------------------------------------------------------------------------
# namedtuple and structseq recognition (by shape, as torch and optree do)


def is_namedtuple_class(cls):
    """is_namedtuple_class(cls) -> bool

    Whether `cls` is a namedtuple class (a tuple subclass with _fields, _make and _asdict).

    >>> from ember.utils import _pytree as pytree
    >>> from collections import namedtuple
    >>> pytree.is_namedtuple_class(namedtuple("P", "x y")), pytree.is_namedtuple_class(tuple)
    (True, False)
    """
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj):
    """is_namedtuple_instance(obj) -> bool

    Whether `obj` is an instance of a namedtuple class.

    >>> from ember.utils import _pytree as pytree
    >>> from collections import namedtuple
    >>> pytree.is_namedtuple_instance(namedtuple("P", "x")(1)), pytree.is_namedtuple_instance((1,))
    (True, False)
    """
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    """is_namedtuple(obj) -> bool

    Whether `obj` is a namedtuple class or an instance of one. ember.return_types are namedtuples
    (torch's are structseqs).

    >>> from ember.utils import _pytree as pytree
    >>> pytree.is_namedtuple(ember.tensor([3, 1]).max(0)), pytree.is_namedtuple([1])
    (True, False)
    """
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


class structseq(tuple):
    """The type of CPython's PyStructSequence classes (os.stat_result, time.struct_time), for
    annotations; it cannot be subclassed or built."""
    __slots__ = ()

    def __init_subclass__(cls):
        raise TypeError("type 'structseq' is not an acceptable base type")

    def __new__(cls, sequence, dict=None):
        raise TypeError("structseq is a type for annotations; it cannot be instantiated")


_Py_TPFLAGS_BASETYPE = 1 << 10


def is_structseq_class(cls):
    """is_structseq_class(cls) -> bool

    Whether `cls` is a PyStructSequence class (a final direct tuple subclass with n_fields).

    >>> import time
    >>> from ember.utils import _pytree as pytree
    >>> pytree.is_structseq_class(time.struct_time), pytree.is_structseq_class(tuple)
    (True, False)
    """
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & _Py_TPFLAGS_BASETYPE)


def is_structseq_instance(obj):
    """is_structseq_instance(obj) -> bool

    Whether `obj` is an instance of a PyStructSequence class.

    >>> import time
    >>> from ember.utils import _pytree as pytree
    >>> pytree.is_structseq_instance(time.gmtime(0)), pytree.is_structseq_instance((1, 2))
    (True, False)
    """
    return is_structseq_class(type(obj))


def is_structseq(obj):
    """is_structseq(obj) -> bool

    Whether `obj` is a PyStructSequence class or an instance of one.

    >>> import time
    >>> from ember.utils import _pytree as pytree
    >>> pytree.is_structseq(time.gmtime(0)), pytree.is_structseq(time.struct_time)
    (True, True)
    """
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


# ------------------------------------------------------------------------------------------------
# The built-in node types


def _sequence_keys(values):
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _tuple_flatten(d):
    return list(d), None


def _tuple_flatten_with_keys(d):
    return _sequence_keys(d), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return d, None


def _list_flatten_with_keys(d):
    return _sequence_keys(d), None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values, strict=True))


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    return [(GetAttrKey(f), v) for f, v in zip(type(d)._fields, d)], type(d)


def _namedtuple_unflatten(values, context):
    return context(*values)


def _namedtuple_serialize(context):
    entry = SUPPORTED_SERIALIZED_TYPES.get(context)
    if entry is None or entry.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        why = "didn't register" if entry is None else "couldn't find"
        raise NotImplementedError(f"Can't serialize TreeSpec of namedtuple class {context} "
                                  f"because we {why} a serializated_type_name. Please register "
                                  "using `_register_namedtuple`.")
    return entry.serialized_type_name


def _namedtuple_deserialize(dumpable_context):
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class "
                                  f"{dumpable_context} because we couldn't find a serializated "
                                  "name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _ordereddict_flatten(d):
    return list(d.values()), list(d.keys())


def _ordereddict_unflatten(values, context):
    return OrderedDict(zip(context, values, strict=True))


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], [d.default_factory, list(d.keys())]


def _defaultdict_unflatten(values, context):
    factory, keys = context
    return defaultdict(factory, zip(keys, values, strict=True))


def _defaultdict_serialize(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_deserialize(dumpable_context):
    expected = {"default_factory_module", "default_factory_name", "dict_context"}
    if not isinstance(dumpable_context, dict) or set(dumpable_context) != expected:
        raise ValueError(f"treespec_loads: a defaultdict context has the keys {expected}, got "
                         f"{dumpable_context!r}")
    module = importlib.import_module(dumpable_context["default_factory_module"])
    return [getattr(module, dumpable_context["default_factory_name"]),
            dumpable_context["dict_context"]]


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_flatten_with_keys(d):
    return _sequence_keys(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


for _cls, _flat, _unflat, _keys, _name, _dump in [
        (tuple, _tuple_flatten, _tuple_unflatten, _tuple_flatten_with_keys, "builtins.tuple", None),
        (list, _list_flatten, _list_unflatten, _list_flatten_with_keys, "builtins.list", None),
        (dict, _dict_flatten, _dict_unflatten, _dict_flatten_with_keys, "builtins.dict", None),
        (namedtuple, _namedtuple_flatten, _namedtuple_unflatten, _namedtuple_flatten_with_keys,
         "collections.namedtuple", (_namedtuple_serialize, _namedtuple_deserialize)),
        (OrderedDict, _ordereddict_flatten, _ordereddict_unflatten, _dict_flatten_with_keys,
         "collections.OrderedDict", None),
        (defaultdict, _defaultdict_flatten, _defaultdict_unflatten,
         _defaultdict_flatten_with_keys, "collections.defaultdict",
         (_defaultdict_serialize, _defaultdict_deserialize)),
        (deque, _deque_flatten, _deque_unflatten, _deque_flatten_with_keys, "collections.deque",
         None)]:
    _private_register_pytree_node(_cls, _flat, _unflat, serialized_type_name=_name,
                                  to_dumpable_context=_dump and _dump[0],
                                  from_dumpable_context=_dump and _dump[1],
                                  flatten_with_keys_fn=_keys)

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _register_result_tuple(cls):
    """ember.return_types are namedtuples; torch's are structseqs, registered as nodes of their
    own type (spec `TreeSpec(max, None, [*, *])`, SequenceKey paths): ember registers its own
    the same way, so specs and key paths of op results match torch's."""
    _private_register_pytree_node(cls, _tuple_flatten, lambda values, _: cls(*values),
                                  flatten_with_keys_fn=_tuple_flatten_with_keys)
    _RESULT_TUPLES.add(cls)


_RESULT_TUPLES: set = set()
for _name in _return_types.__all__:
    _register_result_tuple(getattr(_return_types, _name))

# As torch (torch/fx/experimental/proxy_tensor.py, registered when torch imports): a Size is a node
# of its ints and unflattens to a plain tuple (Size() takes only ints; mapped leaves need not be).
_private_register_pytree_node(_C.Size, _tuple_flatten, _tuple_unflatten,
                              serialized_type_name="torch.Size",
                              flatten_with_keys_fn=_tuple_flatten_with_keys)


def _get_node_type(tree):
    cls = type(tree)
    if cls in _RESULT_TUPLES:
        return cls
    # Every namedtuple class is a node of type `namedtuple` (its class is the context), even a
    # registered one: torch's rule, which its specs and dumps depend on.
    return namedtuple if is_namedtuple_class(cls) else cls


def tree_is_leaf(tree, is_leaf=None):
    """tree_is_leaf(tree, is_leaf=None) -> bool

    Whether `tree` is a leaf: not a registered node, or accepted by is_leaf. None is a leaf.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_is_leaf(ember.ones(2)), pytree.tree_is_leaf([1]), pytree.tree_is_leaf(None)
    (True, False, True)
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


def _is_leaf(tree, is_leaf=None):
    warnings.warn("torch.utils._pytree._is_leaf is private and will be removed in a future "
                  "release. Please use torch.utils._pytree.tree_is_leaf instead.", FutureWarning,
                  stacklevel=2)
    return tree_is_leaf(tree, is_leaf)


def _is_namedtuple_instance(tree):
    warnings.warn("torch.utils._pytree._is_namedtuple_instance is private and will be removed in "
                  "a future release. Please use torch.utils._pytree.is_namedtuple_instance "
                  "instead.", FutureWarning, stacklevel=2)
    return is_namedtuple_instance(tree)

