"""ember.utils._pytree against torch 2.13's torch.utils._pytree: the same trees give the same
leaves, specs (repr, dumps, pprint, sizes), key paths, mapped trees and errors; specs dumped by
either library load in the other."""
import copy
import dataclasses
import enum
import pickle
import time
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
import torch
import torch.utils._pytree as tp

import ember
from ember.utils import _pytree as ep

Point = namedtuple("Point", ["x", "y"])


class Pair:
    """A custom node registered in both libraries, with keys and a serialized name."""

    def __init__(self, a, b, tag="t"):
        self.a, self.b, self.tag = a, b, tag

    def __eq__(self, other):
        return type(other) is Pair and (self.a, self.b, self.tag) == (other.a, other.b, other.tag)

    def __repr__(self):
        return f"Pair({self.a!r}, {self.b!r}, {self.tag!r})"


@dataclasses.dataclass
class Box:
    lo: object
    hi: object
    note: object = None


@dataclasses.dataclass(frozen=True)
class Config:
    norm: str


class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


class Tagged:
    """A node whose context is an Enum (written by torch's EnumEncoder)."""

    def __init__(self, value, mode):
        self.value, self.mode = value, mode

    def __repr__(self):
        return f"Tagged({self.value!r}, {self.mode})"


for _m in (tp, ep):
    _m.register_pytree_node(Pair, lambda p: ([p.a, p.b], p.tag),
                            lambda children, tag: Pair(*children, tag),
                            serialized_type_name="test_pytree.Pair",
                            flatten_with_keys_fn=lambda p: ([(_m.GetAttrKey("a"), p.a),
                                                             (_m.GetAttrKey("b"), p.b)], p.tag))
    _m.register_dataclass(Box, serialized_type_name="test_pytree.Box")
    _m.register_constant(Config)
    _m._register_namedtuple(Point, serialized_type_name="test_pytree.Point")
    _m.register_pytree_node(Tagged, lambda t: ([t.value], t.mode),
                            lambda children, mode: Tagged(children[0], mode),
                            serialized_type_name="test_pytree.Tagged")


def trees(lib):
    """Trees over every built-in node kind, with tensors of `lib` among the leaves."""
    t = lib.tensor
    dd = defaultdict(list, {"k": [1, 2], "j": (t([1.0]),)})
    return [
        1, None, t([1.0, 2.0]), [], (), {}, [1, None, (2,)],
        {"b": t([3]), "a": [1, {"z": None, "y": (4.5, "s")}]},
        (Point(1, t([2])), [Point([3, 4], None)]),
        OrderedDict([("w", t([1.0])), ("v", [2, 3])]),
        dd,
        deque([1, [2, 3]], maxlen=5), deque([]),
        Pair(t([1]), [2, 3], "tag"),
        Box(t([0.0]), (1, 2)), Box(1, 2, note=[3]),
        [Config("l2"), 7],
        {"nested": [[[[1]]]], 3: "int key", ("t", 1): 2.5},
        [Tagged(5, Mode.SLOW)],
        (t([[1, 2, 3]]).shape, lib.Size([])),  # a Size is a node of its ints, as in torch
    ]


def plain(x):
    """A comparable form of a leaf or tree: tensors of either library as (dtype name, list)."""
    if isinstance(x, (torch.Tensor, ember.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], x.tolist())
    return x


def same_tree(e, t):
    """Same structure (by spec repr) and same leaves."""
    el, es = ep.tree_flatten(e)
    tl, ts = tp.tree_flatten(t)
    return repr(es) == repr(ts) and [plain(x) for x in el] == [plain(x) for x in tl]


CASES = list(range(len(trees(torch))))


@pytest.mark.parametrize("i", CASES)
def test_flatten_gives_torchs_leaves_and_spec(i):
    e, t = trees(ember)[i], trees(torch)[i]
    el, es = ep.tree_flatten(e)
    tl, ts = tp.tree_flatten(t)
    assert [plain(x) for x in el] == [plain(x) for x in tl]
    assert repr(es) == repr(ts)
    assert (es.num_leaves, es.num_nodes, es.num_children, es.is_leaf()) == \
        (ts.num_leaves, ts.num_nodes, ts.num_children, ts.is_leaf())
    assert [repr(c) for c in es.children()] == [repr(c) for c in ts.children()]
    assert ep.treespec_pprint(es) == tp.treespec_pprint(ts)
    assert [plain(x) for x in ep.tree_leaves(e)] == [plain(x) for x in tp.tree_leaves(t)]
    assert repr(ep.tree_structure(e)) == repr(tp.tree_structure(t))
    assert [plain(x) for x in ep.tree_iter(e)] == [plain(x) for x in tp.tree_iter(t)]


@pytest.mark.parametrize("i", CASES)
def test_unflatten_rebuilds_the_tree(i):
    e = trees(ember)[i]
    leaves, spec = ep.tree_flatten(e)
    back = ep.tree_unflatten(leaves, spec)
    assert type(back) is type(e)
    torch_back = tp.tree_unflatten(*tp.tree_flatten(trees(torch)[i]))
    assert same_tree(back, torch_back)
    assert same_tree(ep.tree_unflatten(spec, leaves), torch_back)  # spec first, as torch
    if isinstance(e, deque):
        assert back.maxlen == e.maxlen
    if isinstance(e, defaultdict):
        assert back.default_factory is list
    if i == len(CASES) - 1:
        assert back == ((1, 3), ())  # Size unflattens to a tuple, as in torch


@pytest.mark.parametrize("i", CASES)
def test_key_paths_are_torchs(i):
    e, t = trees(ember)[i], trees(torch)[i]
    if tp.tree_any(lambda x: isinstance(x, Tagged), t, is_leaf=lambda x: isinstance(x, Tagged)):
        with pytest.raises(ValueError) as te:
            tp.tree_leaves_with_path(t)
        with pytest.raises(ValueError) as ee:
            ep.tree_leaves_with_path(e)
        assert str(ee.value) == str(te.value)
        return
    ek, es = ep.tree_flatten_with_path(e)
    tk, ts = tp.tree_flatten_with_path(t)
    assert [repr(k) for k, _ in ek] == [repr(k) for k, _ in tk]
    assert [ep.keystr(k) for k, _ in ek] == [tp.keystr(k) for k, _ in tk]
    assert [plain(v) for _, v in ek] == [plain(v) for _, v in tk]
    assert repr(es) == repr(ts)
    assert [ep.keystr(k) for k, _ in ep.tree_leaves_with_path(e)] == [ep.keystr(k) for k, _ in ek]
    for k, v in ek:
        assert ep.key_get(e, k) is v
    mapped_e = ep.tree_map_with_path(lambda k, v: ep.keystr(k), e)
    mapped_t = tp.tree_map_with_path(lambda k, v: tp.keystr(k), t)
    assert same_tree(mapped_e, mapped_t)


@pytest.mark.parametrize("i", CASES)
def test_dumps_are_torchs_and_load_both_ways(i):
    e, t = trees(ember)[i], trees(torch)[i]
    es, ts = ep.tree_structure(e), tp.tree_structure(t)
    try:
        text = tp.treespec_dumps(ts)
    except NotImplementedError as te:  # a node without a serialized name (the constant)
        with pytest.raises(NotImplementedError) as ee:
            ep.treespec_dumps(es)
        assert str(ee.value) == str(te)
        return
    assert ep.treespec_dumps(es) == text
    loaded, torch_loaded = ep.treespec_loads(text), tp.treespec_loads(text)
    assert repr(loaded) == repr(torch_loaded)
    # JSON turns a tuple key into a list: the loaded spec then differs, in torch too
    assert (loaded == es) == (torch_loaded == ts)
    if loaded == es:
        assert hash(loaded) == hash(es)
    assert repr(tp.treespec_loads(ep.treespec_dumps(es))) == repr(torch_loaded)


@pytest.mark.parametrize("i", CASES)
def test_specs_compare_hash_pickle_and_copy(i):
    spec = ep.tree_structure(trees(ember)[i])
    again = ep.tree_structure(trees(ember)[i])
    assert spec == again and hash(spec) == hash(again)
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert copy.deepcopy(spec) == spec and copy.copy(spec) == spec
    assert {spec: 1}[again] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.type = list


@pytest.mark.parametrize("i", CASES)
def test_tree_map_and_predicates_as_torch(i):
    e, t = trees(ember)[i], trees(torch)[i]

    def f(x):
        return x * 2 if isinstance(x, (int, float, ember.Tensor, torch.Tensor)) else repr(x)
    assert same_tree(ep.tree_map(f, e), tp.tree_map(f, t))
    for lib, m, tree in ((ember, ep, e), (torch, tp, t)):
        assert m.tree_all(lambda x: x is not None, tree) == \
            tp.tree_all(lambda x: x is not None, t)
        assert m.tree_any(lambda x: isinstance(x, lib.Tensor), tree) == \
            tp.tree_any(lambda x: isinstance(x, torch.Tensor), t)
        assert m.tree_all_only(int, lambda x: x < 5, tree) == \
            tp.tree_all_only(int, lambda x: x < 5, t)
        assert m.tree_any_only(str, lambda x: len(x) > 3, tree) == \
            tp.tree_any_only(str, lambda x: len(x) > 3, t)
    assert same_tree(ep.tree_map_only(ember.Tensor, lambda x: x + 1, e),
                     tp.tree_map_only(torch.Tensor, lambda x: x + 1, t))
    assert same_tree(ep.tree_map_only((int, float), lambda x: -x, e),
                     tp.tree_map_only((int, float), lambda x: -x, t))


def test_is_leaf_everywhere_torch_takes_it():
    def stop(x):
        return isinstance(x, tuple)
    e = [1, (2, [3]), {"a": (4,)}]
    for fn in ("tree_flatten", "tree_leaves", "tree_structure", "tree_flatten_with_path",
               "tree_leaves_with_path"):
        got, want = getattr(ep, fn)(e, is_leaf=stop), getattr(tp, fn)(e, is_leaf=stop)
        assert repr(got) == repr(want), fn
    assert list(ep.tree_iter(e, is_leaf=stop)) == list(tp.tree_iter(e, is_leaf=stop))
    assert ep.tree_map(len, [(1, 2), (3,)], is_leaf=stop) == [2, 1]
    assert ep.tree_map_with_path(lambda k, v: len(v), [(1, 2)], is_leaf=stop) == [2]
    assert ep.tree_all(lambda x: isinstance(x, tuple), [(1,), (2,)], is_leaf=stop)
    assert ep.tree_any(lambda x: x == (2,), [(1,), (2,)], is_leaf=stop)
    assert ep.tree_all_only(tuple, lambda x: len(x) == 1, [(1,), 2], is_leaf=stop)
    assert ep.tree_any_only(tuple, lambda x: len(x) == 2, [(1, 2)], is_leaf=stop)
    assert ep.tree_map_only(tuple, list, [(1,), 2], is_leaf=stop) == [[1], 2]
    got = []
    ep.tree_map_only_(tuple, got.append, [(1,), 2], is_leaf=stop)
    assert got == [(1,)]
    assert ep.tree_is_leaf((1, 2), is_leaf=stop) and not ep.tree_is_leaf((1, 2))


def test_tree_map_with_several_trees_and_prefixes():
    e = ep.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]])
    assert e == tp.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]])
    assert e == [[5, 7, 9], [6, 1, 2]]
    # dict kinds match each other by keys, in the first tree's key order
    d = ep.tree_map(lambda a, b: (a, b), {"x": 1, "y": 2}, OrderedDict([("y", 20), ("x", 10)]))
    assert d == {"x": (1, 10), "y": (2, 20)}
    assert ep.tree_map(lambda a, b: a + b, deque([1], maxlen=3), deque([2])) == deque([3])
    seen = []
    out = ep.tree_map_(lambda a, b: seen.append(a + b), [1, 2], [10, 20])
    assert seen == [11, 22] and out == [1, 2]
    tree = {"a": ember.zeros(2)}
    assert ep.tree_map_(lambda t: t.add_(1), tree) is tree and tree["a"].tolist() == [1.0, 1.0]


MISMATCHES = [
    ([1, 2], (1, 2)),             # node type
    ([1, 2], [1, 2, 3]),          # arity
    ({"a": 1, "b": 2}, {"a": 1, "c": 2}),   # keys
    ({"a": 1}, {"b": 1, "a": 2}),
    (Point(1, 2), namedtuple("Other", "x y")(1, 2)),  # namedtuple class (the context)
    (Pair(1, 2, "p"), Pair(1, 2, "q")),   # custom context
    (Pair(1, 2), [1, 2]),                 # custom type
    ((1, 2), 3),
]


@pytest.mark.parametrize("first, other", MISMATCHES)
def test_prefix_mismatch_errors_are_torchs(first, other):
    with pytest.raises(ValueError) as te:
        tp.tree_structure(first).flatten_up_to(other)
    with pytest.raises(ValueError) as ee:
        ep.tree_structure(first).flatten_up_to(other)
    assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError) as ee:
        ep.tree_map(lambda a, b: a, first, other)
    assert str(ee.value) == str(te.value)


def test_flatten_up_to_keeps_subtrees():
    spec_e, spec_t = ep.tree_structure([0, {"a": 0}]), tp.tree_structure([0, {"a": 0}])
    tree = [(1, 2), {"a": [3, {"b": 4}]}]
    assert spec_e.flatten_up_to(tree) == spec_t.flatten_up_to(tree) == [(1, 2), [3, {"b": 4}]]
    spec = ep.tree_structure(defaultdict(int, {"k": 0}))
    assert spec.flatten_up_to({"k": 5}) == [5]  # a defaultdict spec takes any dict kind


def test_unflatten_errors_are_torchs():
    for leaves in ([1], [1, 2, 3]):
        with pytest.raises(ValueError) as te:
            tp.tree_structure([0, (0,)]).unflatten(leaves)
        with pytest.raises(ValueError) as ee:
            ep.tree_structure([0, (0,)]).unflatten(leaves)
        assert str(ee.value) == str(te.value)
    with pytest.raises(TypeError, match="Expected `treespec` to be an instance of PyTreeSpec"):
        ep.tree_unflatten([1], [1])
    assert ep.tree_structure([0, 0]).unflatten(iter([1, 2])) == [1, 2]


def test_result_tuples_flatten_as_torchs_structseqs():
    e = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
    t = torch.tensor([[1.0, 5.0], [3.0, 2.0]])
    for name, args in (("max", (0,)), ("min", (1,)), ("sort", ()), ("topk", (1,))):
        er, tr = getattr(e, name)(*args), getattr(t, name)(*args)
        assert same_tree(er, tr)
        assert [repr(k) for k, _ in ep.tree_leaves_with_path(er)] == \
            [repr(k) for k, _ in tp.tree_leaves_with_path(tr)]
        back = ep.tree_map(lambda x: x + 1, er)
        assert type(back) is type(er)
    with pytest.raises(NotImplementedError) as te:
        tp.treespec_dumps(tp.tree_structure(t.max(0)))
    with pytest.raises(NotImplementedError) as ee:
        ep.treespec_dumps(ep.tree_structure(e.max(0)))
    assert str(ee.value).replace("ember", "torch") == str(te.value)


def test_namedtuple_and_structseq_predicates():
    import os
    for m in (ep, tp):
        assert m.is_namedtuple(Point) and m.is_namedtuple(Point(1, 2))
        assert m.is_namedtuple_class(Point) and not m.is_namedtuple_class(Point(1, 2))
        assert m.is_namedtuple_instance(Point(1, 2)) and not m.is_namedtuple_instance(Point)
        assert not m.is_namedtuple((1, 2)) and not m.is_namedtuple(tuple)
        st = os.stat(".")
        assert m.is_structseq(st) and m.is_structseq(time.struct_time)
        assert m.is_structseq_instance(st) and m.is_structseq_class(type(st))
        assert not m.is_structseq(Point(1, 2)) and not m.is_structseq((1,))
    assert ep.is_namedtuple(ember.ones(2).max(0))   # ember's result tuples are namedtuples
    assert tp.is_structseq(torch.ones(2).max(0))    # torch's are structseqs
    # an unregistered structseq is a leaf in both
    assert repr(ep.tree_structure(time.gmtime(0))) == repr(tp.tree_structure(time.gmtime(0)))
    with pytest.raises(TypeError):
        class Sub(ep.structseq):  # noqa: F841
            pass


def test_registration_errors_and_warnings_are_torchs():
    class Fresh:
        pass
    for m in (ep, tp):
        m.register_pytree_node(Fresh, lambda x: ([], None), lambda c, _: Fresh())
    with pytest.raises(ValueError) as te:
        tp.register_pytree_node(Fresh, lambda x: ([], None), lambda c, _: Fresh())
    with pytest.raises(ValueError) as ee:
        ep.register_pytree_node(Fresh, lambda x: ([], None), lambda c, _: Fresh())
    assert str(ee.value) == str(te.value)
    # HF's spelling: a FutureWarning, and it overwrites (warning that it does)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep._register_pytree_node(Fresh, lambda x: ([1], None), lambda c, _: Fresh())
    kinds = sorted(w.category.__name__ for w in caught)
    assert kinds == ["FutureWarning", "UserWarning"]
    assert any("_register_pytree_node` is deprecated" in str(w.message) for w in caught)
    assert ep.tree_leaves(Fresh()) == [1]
    with pytest.raises(ValueError, match="must be None or registered"):
        ep.register_pytree_node(type("T", (), {}), list, list, to_dumpable_context=str)
    ep._deregister_pytree_node(Fresh)
    assert ep.tree_leaves([Fresh()])[0].__class__ is Fresh


def test_dataclass_and_constant_registration_errors_are_torchs():
    @dataclasses.dataclass
    class D:
        a: int
        b: int
    for kwargs in ({"field_names": ["a"]}, {"field_names": ["a", "b", "c"]}):
        with pytest.raises(ValueError) as te:
            tp.register_dataclass(D, **kwargs)
        with pytest.raises(ValueError) as ee:
            ep.register_dataclass(D, **kwargs)
        assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError, match="field_names must be specified"):
        ep.register_dataclass(type("NotDC", (), {}))
    ep.register_dataclass(D, field_names=["a"], drop_field_names=["b"])

    class NoEq:
        pass

    class NoHash:
        def __eq__(self, other):
            return True
    for cls in (NoEq, NoHash):
        with pytest.raises(TypeError) as te:
            tp.register_constant(cls)
        with pytest.raises(TypeError) as ee:
            ep.register_constant(cls)
        assert str(ee.value) == str(te.value)
    spec = ep.tree_structure([Config("a")])
    assert spec != ep.tree_structure([Config("b")]) and spec == ep.tree_structure([Config("a")])
    assert ep.tree_unflatten([], spec) == [Config("a")]
    assert ep.is_constant_class(Config) and not ep.is_constant_class(Box)


def test_serialization_errors_are_torchs():
    class Unnamed:
        pass
    Anon = namedtuple("Anon", "x")
    for m in (ep, tp):
        m.register_pytree_node(Unnamed, lambda x: ([], None), lambda c, _: Unnamed())
    for tree in ([Unnamed()], [Anon(1)], Pair(1, 2, object())):
        with pytest.raises((NotImplementedError, TypeError)) as te:
            tp.treespec_dumps(tp.tree_structure(tree))
        with pytest.raises(te.type) as ee:
            ep.treespec_dumps(ep.tree_structure(tree))
        assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError) as te:
        tp.treespec_dumps(tp.tree_structure([1]), protocol=2)
    with pytest.raises(ValueError) as ee:
        ep.treespec_dumps(ep.tree_structure([1]), protocol=2)
    assert str(ee.value) == str(te.value)
    bad = '[1, {"type": "no.such.Type", "context": "null", "children_spec": []}]'
    with pytest.raises(NotImplementedError) as te:
        tp.treespec_loads(bad)
    with pytest.raises(NotImplementedError) as ee:
        ep.treespec_loads(bad)
    assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError, match="Unknown protocol 7"):
        ep.treespec_loads('[7, {}]')
    with pytest.raises(TypeError, match="PyTreeSpec"):
        ep.treespec_dumps([1])


def test_spec_constructors_and_leaf_spec():
    assert ep.treespec_tuple([ep.treespec_leaf(), ep.treespec_leaf()]) == ep.tree_structure((1, 2))
    assert ep.treespec_dict({"a": ep.treespec_leaf()}, b=ep.treespec_leaf()) == \
        ep.tree_structure({"a": 1, "b": 2})
    assert repr(ep.treespec_tuple()) == repr(tp.treespec_tuple())
    for bad in (lambda m: m.treespec_tuple([1]), lambda m: m.treespec_dict(a=1)):
        with pytest.raises(ValueError) as te:
            bad(tp)
        with pytest.raises(ValueError) as ee:
            bad(ep)
        assert str(ee.value) == str(te.value)
    leaf = ep.tree_structure(ember.ones(1))
    assert repr(leaf) == "*" and leaf.is_leaf() and leaf is ep.treespec_leaf()
    assert isinstance(leaf, ep.LeafSpec) and isinstance(leaf, ep.TreeSpec)
    with pytest.warns(FutureWarning, match="LeafSpec"):
        made = ep.LeafSpec()
    assert made == leaf and hash(made) == hash(leaf)
    assert pickle.loads(pickle.dumps(leaf)) == leaf
    spec = ep.tree_structure([1, (2,)])
    with pytest.warns(FutureWarning, match="children_specs"):
        assert spec.children_specs == spec.children()
    assert spec.child(1) == ep.tree_structure((0,)) and spec.context is None
    assert ep.tree_structure({"k": 1}).context == ["k"]
    assert ep.TreeSpec(list, None, [leaf, leaf]) == ep.tree_structure([1, 2])
    assert ep.tree_structure([1]) != ep.tree_structure((1,))


def test_map_only_and_arg_tree_leaves():
    for m in (ep, tp):
        f = m.map_only(int)(lambda x: x + 1)
        assert (f(1), f("a")) == (2, "a")
        g = m.map_only(lambda x: x == 3)(lambda x: 0)
        assert (g(3), g(4)) == (0, 4)
        assert m.map_only(int | str)(len)("ab") == 2
        assert m.arg_tree_leaves(1, [2, (3,)], k={"a": 4}) == [1, 2, 3, 4]
    with pytest.raises(TypeError) as te:
        tp.map_only(3)
    with pytest.raises(TypeError) as ee:
        ep.map_only(3)
    assert str(ee.value) == str(te.value)


def test_hf_model_output_pattern():
    """transformers' ModelOutput: an OrderedDict subclass registered through the old private
    spelling, flattened by its own function (not as an OrderedDict)."""
    class ModelOutput(OrderedDict):
        pass

    def flatten(out):
        return list(out.values()), list(out.keys())

    def unflatten(values, context):
        return ModelOutput(zip(context, values))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ep._register_pytree_node(ModelOutput, flatten, unflatten,
                                 serialized_type_name="x.ModelOutput")
    out = ModelOutput(logits=ember.ones(2), loss=ember.zeros(()))
    leaves, spec = ep.tree_flatten(out)
    assert len(leaves) == 2 and spec.type is ModelOutput
    back = ep.tree_map(lambda t: t + 1, out)
    assert type(back) is ModelOutput and back["loss"].item() == 1.0
    assert ep.treespec_loads(ep.treespec_dumps(spec)) == spec


def test_vmap_structure_errors_now_name_the_specs_as_torch():
    x, tx = ember.ones(2, 3), torch.ones(2, 3)
    with pytest.raises(ValueError) as te:
        torch.vmap(lambda a, b: a, in_dims=(0, (0, None)))(tx, [tx, tx])
    with pytest.raises(ValueError) as ee:
        ember.vmap(lambda a, b: a, in_dims=(0, (0, None)))(x, [x, x])
    assert str(ee.value) == str(te.value)
    out = ember.vmap(lambda a, b: a + b["q"], in_dims=(0, {"q": None}))(x, {"q": ember.ones(3)})
    assert out.shape == (2, 3)
    with pytest.raises(ValueError) as te:
        torch.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(tx)
    with pytest.raises(ValueError) as ee:
        ember.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x)
    assert str(ee.value) == str(te.value)
    assert ember.vmap(lambda a: a, out_dims=(1,))(x).shape == (3, 2)


def test_drop_in_names():
    """What programs reach by name: torch.utils._pytree under `import ember as torch`."""
    assert ember.utils._pytree is ep
    for name in tp.__all__:
        assert hasattr(ep, name), name
    for name in ("_register_pytree_node", "SUPPORTED_NODES", "_dict_flatten", "_dict_unflatten",
                 "_dict_flatten_with_keys", "_broadcast_to_and_flatten", "LeafSpec",
                 "PyTreeSpec", "Context", "KeyPath", "register_dataclass", "register_constant"):
        assert hasattr(ep, name), name
    assert ep._broadcast_to_and_flatten(0, ep.tree_structure([1, (2, 3)])) == [0, 0, 0]
    assert ep._broadcast_to_and_flatten([0, 1], ep.tree_structure([1, (2, 3)])) == [0, 1, 1]
    assert ep._broadcast_to_and_flatten([0], ep.tree_structure([1, 2])) is None
