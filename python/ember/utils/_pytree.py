"""ember.utils._pytree: torch.utils._pytree, nested containers ("pytrees") taken apart into a flat
list of leaves and a TreeSpec that puts them back together.

A node is a container whose type is registered (ember/utils/_pytree_nodes.py): tuple, list, dict,
namedtuples, OrderedDict, defaultdict, deque, ember.return_types (as torch's structseqs), ember.Size
(its ints; it unflattens to a tuple, as torch's) and what
register_pytree_node, register_dataclass or register_constant add. Everything else (tensors,
numbers, strings, None) is a leaf. Specs print, compare, hash and serialize (treespec_dumps,
torch's JSON) as torch's do, so a spec dumped by torch loads here and back. Pure Python: no tensor
is ever read.
"""
import dataclasses
import functools
import importlib
import json
import types
import warnings
from collections import OrderedDict, defaultdict, deque
from enum import Enum
from typing import Any

from ._pytree_nodes import *  # noqa: F401,F403  (the registry, keys and node types: public names)
from ._pytree_nodes import (BUILTIN_TYPES, STANDARD_DICT_TYPES, SUPPORTED_NODES,  # noqa: F401
                            SUPPORTED_SERIALIZED_TYPES, SERIALIZED_TYPE_TO_PYTHON_TYPE,
                            NO_SERIALIZED_TYPE_NAME_FOUND, DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL,
                            ConstantNode, tree_is_leaf, _get_node_type,
                            _private_register_pytree_node, _register_pytree_node,
                            _deregister_pytree_node, _register_namedtuple, _is_leaf,
                            _is_namedtuple_instance, _NODE_REGISTRY_LOCK, _SerializeNodeDef,
                            _tuple_flatten, _tuple_flatten_with_keys, _tuple_unflatten,
                            _list_flatten, _list_flatten_with_keys, _list_unflatten,
                            _dict_flatten, _dict_flatten_with_keys, _dict_unflatten,
                            _namedtuple_flatten, _namedtuple_flatten_with_keys,
                            _namedtuple_unflatten, _namedtuple_serialize, _namedtuple_deserialize,
                            _ordereddict_flatten, _ordereddict_unflatten, _defaultdict_flatten,
                            _defaultdict_flatten_with_keys, _defaultdict_unflatten,
                            _defaultdict_serialize, _defaultdict_deserialize, _deque_flatten,
                            _deque_flatten_with_keys, _deque_unflatten)

__all__ = ["TreeSpec", "LeafSpec", "keystr", "key_get", "register_pytree_node",
           "register_dataclass", "register_constant", "tree_is_leaf", "tree_flatten",
           "tree_flatten_with_path", "tree_unflatten", "tree_iter", "tree_leaves",
           "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path",
           "tree_map_", "map_only", "tree_map_only", "tree_map_only_", "tree_all", "tree_any",
           "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads",
           "treespec_pprint", "treespec_leaf", "treespec_tuple", "treespec_dict",
           "arg_tree_leaves", "SequenceKey", "MappingKey", "GetAttrKey", "is_namedtuple",
           "is_namedtuple_class", "is_namedtuple_instance", "is_structseq", "is_structseq_class",
           "is_structseq_instance"]

_odict_flatten, _odict_unflatten = _ordereddict_flatten, _ordereddict_unflatten


# ------------------------------------------------------------------------------------------------
# TreeSpec


@dataclasses.dataclass(init=False, frozen=True, eq=False, repr=False, slots=True)
class TreeSpec:
    """TreeSpec(type, context, children_specs)

    The structure of a pytree without its leaves: the node's type, its context (dict keys, a
    namedtuple's class, ...) and one spec per child; a leaf is a spec of type None. Immutable,
    hashable, compared by structure; prints as torch's.

    >>> from ember.utils import _pytree as pytree
    >>> spec = pytree.tree_structure({"a": 1, "b": (2, 3)})
    >>> spec.num_leaves, spec.num_nodes, spec.num_children, spec.unflatten([4, 5, 6])
    (3, 5, 2, {'a': 4, 'b': (5, 6)})
    """
    type: Any
    _context: Any
    _children: list
    num_nodes: int = dataclasses.field(init=False)
    num_leaves: int = dataclasses.field(init=False)
    num_children: int = dataclasses.field(init=False)

    def __init__(self, type, context, children_specs):
        if type is None and (context is not None or children_specs):
            raise ValueError("TreeSpec: a leaf (type None) has no context and no children")
        children = list(children_specs)
        set_field = functools.partial(object.__setattr__, self)
        set_field("type", type)
        set_field("_context", context)
        set_field("_children", children)
        set_field("num_nodes", 1 + sum(c.num_nodes for c in children))
        set_field("num_leaves", 1 if type is None else sum(c.num_leaves for c in children))
        set_field("num_children", len(children))

    def __repr__(self, indent=0):
        if self.type is None:
            return "*"
        out = f"TreeSpec({self.type.__name__}, {self._context}, ["
        indent += 2
        parts = [c.__repr__(indent) for c in self._children]
        return out + (",\n" + " " * indent).join(parts) + "])"

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        kind, context = self.type, self._context
        if kind is defaultdict:
            key = (context[0], tuple(context[1]))
        elif kind in (dict, OrderedDict):
            key = tuple(context)
        elif kind is None or kind in BUILTIN_TYPES:
            key = context
        elif isinstance(context, ConstantNode):
            key = context.value
        else:
            key = None  # a custom node's context may not be hashable: equal specs still agree
        return hash((kind, key, tuple(self._children)))

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to "
                      "access a single child, or `treespec.children()` to get all children.",
                      FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def flatten_up_to(self, tree):
        """The subtrees of `tree` at this spec's leaves (tree must have this spec as a prefix)."""
        out = []
        _flatten_up_to(self, tree, out)
        return out

    def unflatten(self, leaves):
        """The pytree of this structure holding `leaves`, in order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                             f"the spec refers to a pytree that holds {self.num_leaves} items "
                             f"({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self._children:
            children.append(spec.unflatten(leaves[start:start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


def _flatten_up_to(spec, node, out):
    if spec.is_leaf():
        out.append(node)
        return
    kind = _get_node_type(node)
    if spec.type not in BUILTIN_TYPES:  # a custom node matches its type and context exactly
        if kind != spec.type:
            raise ValueError(f"Type mismatch; expected {spec.type!r}, but got {kind!r}.")
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        if len(children) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got "
                             f"{len(children)}.")
        if context != spec._context:
            raise ValueError(f"Node context mismatch for custom node type {spec.type!r}.")
    else:
        both_dicts = spec.type in STANDARD_DICT_TYPES and kind in STANDARD_DICT_TYPES
        if not both_dicts and kind != spec.type:
            raise ValueError(f"Node type mismatch; expected {spec.type!r}, but got {kind!r}.")
        if len(node) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got "
                             f"{len(node)}.")
        if both_dicts:  # the dict kinds match each other by keys, in the spec's order
            keys = spec._context[1] if spec.type is defaultdict else spec._context
            missing, extra = set(keys) - set(node), set(node) - set(keys)
            if missing or extra:
                raise ValueError("Node keys mismatch" + (f"; missing key(s): {missing}" if missing
                                                         else "")
                                 + (f"; extra key(s): {extra}" if extra else "") + ".")
            children = [node[k] for k in keys]
        else:
            children, context = SUPPORTED_NODES[kind].flatten_fn(node)
            if kind is not deque and context != spec._context:  # a deque's maxlen may differ
                raise ValueError(f"Node context mismatch for node type {spec.type!r}; expected "
                                 f"{spec._context!r}, but got {context!r}.")
    for child, child_spec in zip(children, spec._children):
        _flatten_up_to(child_spec, child, out)


class LeafSpec(TreeSpec):
    """LeafSpec()

    The spec of a leaf (deprecated by torch, which warns: use `spec.is_leaf()`); prints as `*`.

    >>> from ember.utils import _pytree as pytree
    >>> spec = pytree.tree_structure(ember.ones(2))
    >>> spec, spec.is_leaf(), spec.num_leaves
    (*, True, 1)
    """
    __slots__ = ()

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        TreeSpec.__init__(self, None, None, [])


# Every leaf shares one spec object.
_LEAF_SPEC = object.__new__(LeafSpec)
TreeSpec.__init__(_LEAF_SPEC, None, None, [])
PyTreeSpec = TreeSpec


def treespec_leaf():
    """treespec_leaf() -> TreeSpec

    The spec of a leaf.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.treespec_leaf() == pytree.tree_structure(1)
    True
    """
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /):
    """treespec_tuple(iterable=()) -> TreeSpec

    The spec of a tuple whose children have the given specs.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.treespec_tuple([pytree.treespec_leaf()] * 2) == pytree.tree_structure((1, 2))
    True
    """
    children = list(iterable)
    if not all(isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs):
    """treespec_dict(mapping=(), /, **kwargs) -> TreeSpec

    The spec of a dict whose children have the given specs, in the mapping's order.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.treespec_dict(a=pytree.treespec_leaf()) == pytree.tree_structure({"a": 0})
    True
    """
    entries = dict(mapping, **kwargs)
    if not all(isinstance(c, TreeSpec) for c in entries.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {entries!r}.")
    return TreeSpec(dict, list(entries), list(entries.values()))


# ------------------------------------------------------------------------------------------------
# Flattening, rebuilding, mapping


def tree_flatten(tree, is_leaf=None):
    """tree_flatten(tree, is_leaf=None) -> (leaves, TreeSpec)

    The leaves of `tree` in order (depth first) and the spec that rebuilds it. is_leaf(x) True
    makes a subtree one leaf.

    >>> from ember.utils import _pytree as pytree
    >>> leaves, spec = pytree.tree_flatten({"w": ember.ones(2), "n": [3, None]})
    >>> leaves
    [tensor([1., 1.]), 3, None]
    >>> spec
    TreeSpec(dict, ['w', 'n'], [*,
      TreeSpec(list, None, [*,
        *])])
    """
    leaves = []

    def walk(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        kind = _get_node_type(node)
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        return TreeSpec(kind, context, [walk(c) for c in children])
    return leaves, walk(tree)


def tree_unflatten(leaves, treespec):
    """tree_unflatten(leaves, treespec)

    The inverse of tree_flatten: the pytree of structure `treespec` holding `leaves`.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_unflatten([1, 2, 3], pytree.tree_structure([0, (0, 0)]))
    [1, (2, 3)]
    """
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item of "
                            f"type {type(treespec)}.")
        leaves, treespec = treespec, leaves  # torch accepts the spec first, too
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """tree_iter(tree, is_leaf=None) -> iterator

    The leaves of `tree`, one at a time, without building a spec.

    >>> from ember.utils import _pytree as pytree
    >>> next(pytree.tree_iter([(7, 8), 9]))
    7
    """
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    """tree_leaves(tree, is_leaf=None) -> list

    The leaves of `tree` in flattening order.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_leaves({"a": [1, 2], "b": (3,)})
    [1, 2, 3]
    """
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    """tree_structure(tree, is_leaf=None) -> TreeSpec

    The spec of `tree` (tree_flatten's second result).

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_structure((1, [2]))
    TreeSpec(tuple, None, [*,
      TreeSpec(list, None, [*])])
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """tree_map(func, tree, *rests, is_leaf=None)

    A pytree of `tree`'s structure with func(leaf, *others) at each leaf; each of `rests` has
    `tree`'s structure as a prefix and gives the matching subtree.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_map(lambda t: t * 2, {"w": ember.tensor([1, 2]), "n": 3})
    {'w': tensor([2, 4]), 'n': 6}
    >>> pytree.tree_map(lambda x, y: [x] + y, [5, 6], [[7], [8]])
    [[5, 7], [6, 8]]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec.unflatten(list(map(func, leaves, *[spec.flatten_up_to(r) for r in rests])))


def tree_map_(func, tree, *rests, is_leaf=None):
    """tree_map_(func, tree, *rests, is_leaf=None)

    Calls func(leaf, *others) at every leaf for its effect (e.g. an in-place op) and returns
    `tree` itself.

    >>> from ember.utils import _pytree as pytree
    >>> params = [ember.zeros(2), ember.zeros(1)]
    >>> pytree.tree_map_(lambda t: t.add_(1), params)
    [tensor([1., 1.]), tensor([1.])]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    for _ in map(func, leaves, *[spec.flatten_up_to(r) for r in rests]):
        pass
    return tree


def map_only(type_or_types_or_pred, /):
    """map_only(type_or_types_or_pred)

    A decorator: the function applies only to values of the type(s) (or passing the predicate)
    and returns other values unchanged.

    >>> from ember.utils import _pytree as pytree
    >>> double = pytree.map_only(int)(lambda x: 2 * x)
    >>> double(3), double("a")
    (6, 'a')
    """
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None)

    tree_map over the leaves of the given type(s) (or passing the predicate); others stay.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_map_only(ember.Tensor, lambda t: t.shape, [ember.ones(2, 3), "x"])
    [ember.Size([2, 3]), 'x']
    """
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None)

    tree_map_ over the leaves of the given type(s) (or passing the predicate); returns `tree`.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_map_only_(ember.Tensor, lambda t: t.mul_(3), {"a": ember.ones(1), "b": 2})
    {'a': tensor([3.]), 'b': 2}
    """
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    """tree_all(pred, tree, is_leaf=None) -> bool

    Whether pred holds for every leaf.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_all(lambda x: x > 0, [1, (2, 3)])
    True
    """
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    """tree_any(pred, tree, is_leaf=None) -> bool

    Whether pred holds for some leaf.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_any(lambda x: x is None, {"a": 1, "b": None})
    True
    """
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    """tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool

    Whether pred holds for every leaf of the given type(s); other leaves are skipped.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_all_only(ember.Tensor, lambda t: t.dim() == 1, [ember.ones(2), "x"])
    True
    """
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    """tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool

    Whether pred holds for some leaf of the given type(s); other leaves are skipped.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_any_only(int, lambda n: n > 5, [1, "long string", 7])
    True
    """
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def arg_tree_leaves(*args, **kwargs):
    """arg_tree_leaves(*args, **kwargs) -> list

    The leaves of the arguments, positional then keyword (tree_leaves((args, kwargs))).

    >>> from ember.utils import _pytree as pytree
    >>> pytree.arg_tree_leaves(1, [2, 3], scale=(4,))
    [1, 2, 3, 4]
    """
    leaves = []
    for tree in (*args, *kwargs.values()):
        leaves.extend(tree_iter(tree))
    return leaves


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    """`tree` (a prefix of treespec's structure) with each of its leaves repeated over the
    leaves of the matching subtree, flattened; None if `tree` is not a prefix."""
    full = treespec.unflatten([0] * treespec.num_leaves)
    try:
        subtrees = tree_structure(tree, is_leaf).flatten_up_to(full)
    except ValueError:
        return None
    out = []
    for value, sub in zip(tree_leaves(tree, is_leaf), subtrees):
        out.extend([value] * tree_structure(sub, is_leaf).num_leaves)
    return out


# ------------------------------------------------------------------------------------------------
# Key paths


def _key_paths(path, tree, is_leaf):
    if is_leaf is not None and is_leaf(tree):
        yield path, tree
        return
    kind = _get_node_type(tree)
    node = SUPPORTED_NODES.get(kind)
    if node is None:
        yield path, tree
        return
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {kind}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in node.flatten_with_keys_fn(tree)[0]:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """tree_flatten_with_path(tree, is_leaf=None) -> ([(key_path, leaf)], TreeSpec)

    tree_flatten, with each leaf's key path (a tuple of SequenceKey / MappingKey / GetAttrKey).

    >>> from ember.utils import _pytree as pytree
    >>> pairs, spec = pytree.tree_flatten_with_path({"a": [7]})
    >>> pairs
    [((MappingKey(key='a'), SequenceKey(idx=0)), 7)]
    """
    _, spec = tree_flatten(tree, is_leaf)
    return list(_key_paths((), tree, is_leaf)), spec


def tree_leaves_with_path(tree, is_leaf=None):
    """tree_leaves_with_path(tree, is_leaf=None) -> [(key_path, leaf)]

    The leaves with their key paths.

    >>> from ember.utils import _pytree as pytree
    >>> [(pytree.keystr(k), v) for k, v in pytree.tree_leaves_with_path({"w": (1, 2)})]
    [("['w'][0]", 1), ("['w'][1]", 2)]
    """
    return list(_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """tree_map_with_path(func, tree, *rests, is_leaf=None)

    tree_map where func also gets the leaf's key path first: func(key_path, leaf, *others).

    >>> from ember.utils import _pytree as pytree
    >>> pytree.tree_map_with_path(lambda k, v: f"{pytree.keystr(k)}={v}", {"a": 1, "b": [2]})
    {'a': "['a']=1", 'b': ["['b'][0]=2"]}
    """
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    paths = [p for p, _ in pairs]
    leaves = [v for _, v in pairs]
    return spec.unflatten(list(map(func, paths, leaves, *[spec.flatten_up_to(r) for r in rests])))


# ------------------------------------------------------------------------------------------------
# Serialization: torch's JSON, [protocol, {"type", "context", "children_spec"}]


class EnumEncoder(json.JSONEncoder):
    """Writes an Enum member in a context as {"__enum__": true, "fqn": "module:Class", "name"}."""

    def default(self, obj):
        if isinstance(obj, Enum):
            return {"__enum__": True,
                    "fqn": f"{obj.__class__.__module__}:{obj.__class__.__qualname__}",
                    "name": obj.name}
        return super().default(obj)


def enum_object_hook(obj):
    if "__enum__" not in obj:
        return obj
    module, _, qualname = obj["fqn"].partition(":")
    cls = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    return cls[obj["name"]]


def _treespec_to_json(spec):
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    entry = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if entry is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if entry.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(f"No registered serialization name for {spec.type} found. "
                                  "Please update your _register_pytree_node call with a "
                                  "`serialized_type_name` kwarg.")
    if entry.to_dumpable_context is not None:
        context = entry.to_dumpable_context(spec._context)
    else:
        try:
            context = json.dumps(spec._context, cls=EnumEncoder)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    return {"type": entry.serialized_type_name, "context": context,
            "children_spec": [_treespec_to_json(c) for c in spec._children]}


def _json_to_treespec(schema):
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    cls = SERIALIZED_TYPE_TO_PYTHON_TYPE.get(schema["type"])
    if cls is None:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    entry = SUPPORTED_SERIALIZED_TYPES[cls]
    if entry.from_dumpable_context is not None:
        context = entry.from_dumpable_context(schema["context"])
    else:
        try:
            context = json.loads(schema["context"], object_hook=enum_object_hook)
        except TypeError as e:
            raise TypeError("Unable to deserialize context. Please make the context json "
                            "load-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    return TreeSpec(cls, context, [_json_to_treespec(c) for c in schema["children_spec"]])


_SUPPORTED_PROTOCOLS = {1: (_treespec_to_json, _json_to_treespec)}


def _check_protocol(protocol):
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: "
                         f"{list(_SUPPORTED_PROTOCOLS)}")
    return _SUPPORTED_PROTOCOLS[protocol]


def treespec_dumps(treespec, protocol=None):
    """treespec_dumps(treespec, protocol=None) -> str

    The spec as torch's JSON text (protocol 1); every node type needs a serialized_type_name.

    >>> from ember.utils import _pytree as pytree
    >>> print(pytree.treespec_dumps(pytree.tree_structure([1])))
    [1, {"type": "builtins.list", "context": "null", "children_spec": [{"type": null,
    "context": null, "children_spec": []}]}]
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    to_json = _check_protocol(protocol)[0]
    return json.dumps([protocol, to_json(treespec)], cls=EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized):
    """treespec_loads(serialized) -> TreeSpec

    The spec that treespec_dumps (ember's or torch's) wrote.

    >>> from ember.utils import _pytree as pytree
    >>> spec = pytree.tree_structure({"a": (1, 2)})
    >>> pytree.treespec_loads(pytree.treespec_dumps(spec)) == spec
    True
    """
    protocol, schema = json.loads(serialized)
    return _check_protocol(protocol)[1](schema)


class _Asterisk(str):
    __slots__ = ()

    def __repr__(self):
        return "*"


def treespec_pprint(treespec):
    """treespec_pprint(treespec) -> str

    The structure written as the pytree itself with `*` at each leaf.

    >>> from ember.utils import _pytree as pytree
    >>> pytree.treespec_pprint(pytree.tree_structure({"a": [1, 2], "b": None}))
    "{'a': [*, *], 'b': *}"
    """
    return repr(treespec.unflatten([_Asterisk("*")] * treespec.num_leaves))


def pytree_to_str(treespec):
    warnings.warn("`pytree_to_str` is deprecated. Please use `treespec_dumps` instead.",
                  FutureWarning, stacklevel=2)
    return treespec_dumps(treespec)


def str_to_pytree(json):
    warnings.warn("`str_to_pytree` is deprecated. Please use `treespec_loads` instead.",
                  FutureWarning, stacklevel=2)
    return treespec_loads(json)
