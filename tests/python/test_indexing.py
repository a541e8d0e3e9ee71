"""Indexing against PyTorch: t[...] (basic indices are views sharing storage, advanced
indices copy), t[...] = v (broadcasting, dtype conversion, version counter, atomicity on
error), index_select, gather, scatter, scatter_add, nonzero, masked_select and
take_along_dim, on random inputs, non-contiguous bases, 0-d and empty tensors, and bad
indices (exception type and message)."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op, make_inputs, on_thread_counts, to_numpy

ALL_DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64"]
SHAPE = (4, 5, 6)

pytestmark = [pytest.mark.filterwarnings("ignore:Using a non-tuple sequence"),
              pytest.mark.filterwarnings("ignore:indexing with dtype torch.uint8"),
              pytest.mark.filterwarnings("ignore:The reduce argument")]

RNG = np.random.default_rng(123)
MASK4 = RNG.random(4) < 0.5
MASK45 = RNG.random((4, 5)) < 0.5
MASK456 = RNG.random(SHAPE) < 0.5
MASK5 = np.array([True, False, True, True, False])


def T(m, data, dtype=None):
    """A tensor of `data` in module m (ember or torch): bool data stays bool, ints are int64."""
    arr = np.array(data)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif arr.dtype.kind != "b":
        arr = arr.astype(np.int64)
    return m.from_numpy(arr)


# Each entry builds the same index for either module. Basic indices make views.
BASIC = [
    lambda m: 0,
    lambda m: -1,
    lambda m: 3,
    lambda m: slice(1, 3),
    lambda m: slice(None, None, 2),
    lambda m: slice(-3, None),
    lambda m: slice(-100, 100),
    lambda m: slice(3, 1),
    lambda m: slice(None, -1, 3),
    lambda m: (1, 2),
    lambda m: (1, slice(None), -2),
    lambda m: (Ellipsis, 0),
    lambda m: (None, 1, None),
    lambda m: (slice(None), None, slice(1, 4, 2)),
    lambda m: (Ellipsis,),
    lambda m: (),
    lambda m: (0, Ellipsis, slice(None, None, 3)),
    lambda m: (None,),
    lambda m: (slice(1, None), 0, Ellipsis, None),
    lambda m: (Ellipsis, None, 2, slice(1, 2)),
    lambda m: (-4, -5, -6),
    lambda m: [0, slice(None)],      # a list holding a slice is a tuple (NumPy's legacy rule)
    lambda m: T(m, 2),               # a 0-d integer tensor is an int: a view
    lambda m: T(m, -1, "int32"),
    lambda m: np.int64(2),
    lambda m: np.array(1),
    lambda m: (slice(2, 2), 0),
]

ADVANCED = [
    lambda m: [0, 2],
    lambda m: [[0, 1], [2, 3]],
    lambda m: [-1, 0, -4],
    lambda m: [],
    lambda m: ([0, 1], [1, 2]),
    lambda m: ([0, 1], slice(None), [1, 2]),          # separated: index dims go first
    lambda m: (slice(None), [0, 1], [1, 2]),          # adjacent: in place
    lambda m: (0, slice(None), [1, 2]),               # the int is basic: adjacent
    lambda m: (Ellipsis, [0, 2]),
    lambda m: ([[0], [1]], [1, 2, 3]),                # broadcast (2, 1) with (3,)
    lambda m: (None, [0, 1], None, [0, 1]),
    lambda m: ([0, 1], None, [0, 1]),
    lambda m: ([3, 1], slice(1, 4), [[2], [0]]),
    lambda m: True,
    lambda m: False,
    lambda m: (True, 0),
    lambda m: ([0, 1], True),
    lambda m: (0, [True, False, True, True, False]),
    lambda m: [True, False, True, True],
    lambda m: [[1, 2], [0, 3], [5, 0]],  # a list of lists: a tuple of indices
    lambda m: T(m, [1, 0, 3]),
    lambda m: T(m, [[1], [0]], "int32"),
    lambda m: T(m, MASK4),
    lambda m: T(m, MASK45),
    lambda m: T(m, MASK456),
    lambda m: (slice(None), T(m, MASK5)),
    lambda m: (T(m, MASK4.astype(np.uint8)),),
    lambda m: (T(m, MASK45), slice(None, 2)),
    lambda m: (slice(None), T(m, MASK5), [[0], [1]]),   # 3 trues broadcast with (2, 1)
    lambda m: (T(m, [1, 2]), Ellipsis, T(m, [0, 5])),
    lambda m: np.array([0, 3]),
    lambda m: np.array([[True, False, True, False, True]] * 4),
    lambda m: (np.array([2, 1]), slice(None, None, 2)),
    lambda m: T(m, True, "bool"),
    lambda m: (T(m, False, "bool"), 1),
    lambda m: T(m, np.zeros(0, dtype=np.int64)),
    lambda m: (slice(None), []),
    lambda m: (1, [[0, 1, 2]], slice(None, None, 2)),
]


def both(build):
    return build(ember), build(torch)


def check_index(build, layout, dtype="float32", expect_view=None):
    (ex,), (tx,) = make_inputs([SHAPE], dtype, layout, seed=7)
    ei, ti = both(build)
    expected = tx[ti]
    got = ex[ei]
    assert_same(got, expected)
    shares = got._shares_storage(ex)
    assert shares == (expected.untyped_storage().data_ptr() == tx.untyped_storage().data_ptr())
    if expect_view is not None:
        assert shares == expect_view
    return ex, tx, got, expected


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(BASIC)))
def test_basic_index_is_a_view(case, layout):
    ex, tx, got, expected = check_index(BASIC[case], layout, expect_view=True)
    if layout != "expanded" and got.numel() > 0:  # writing through the view reaches the base
        got.fill_(99)
        expected.fill_(99)
        assert_same(ex, tx)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(ADVANCED)))
def test_advanced_index_copies(case, layout):
    check_index(ADVANCED[case], layout, expect_view=False)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_dtypes(dtype):
    for build in [BASIC[3], ADVANCED[0], ADVANCED[5], ADVANCED[24], ADVANCED[13]]:
        check_index(build, "contiguous", dtype)


def test_multiple_ellipsis_is_an_error():
    # NumPy's rule; PyTorch accepts x[..., 0, ...] with surprising results
    with pytest.raises(IndexError, match="single ellipsis"):
        ember.zeros(*SHAPE)[..., 0, ...]


def test_zero_dim_tensor():
    for build in [lambda m: None, lambda m: Ellipsis, lambda m: (), lambda m: True,
                  lambda m: False, lambda m: (None, None), lambda m: T(m, True, "bool"),
                  lambda m: (None, Ellipsis), lambda m: (True, None)]:
        e, t = ember.tensor(5.0), torch.tensor(5.0)
        ei, ti = both(build)
        assert_same(e[ei], t[ti])
    e = ember.tensor(5.0)
    assert e[...]._shares_storage(e) and e[None]._shares_storage(e)
    for bad in [0, slice(None), [0], ember.tensor(0)]:
        with pytest.raises(IndexError):
            e[bad]
    with pytest.raises(IndexError, match="0-dim"):
        e[0]


def test_empty_tensors():
    for shape, build in [((0, 3), lambda m: []),
                         ((0, 3), lambda m: (slice(None), [1, 2])),
                         ((3, 0), lambda m: [2, 0]),
                         ((3, 0), lambda m: T(m, [True, False, True])),
                         ((2, 3), lambda m: T(m, np.zeros((2, 3), bool))),
                         ((3, 0), lambda m: [5])]:  # nothing to read: no error (as PyTorch)
        e, t = ember.zeros(*shape), torch.zeros(*shape)
        ei, ti = both(build)
        assert_same(e[ei], t[ti])
    with pytest.raises(IndexError, match="out of bounds"):
        ember.zeros(0, 3)[[5]]


def test_int_and_slice_are_views_and_cheap():
    x = ember.arange(12).reshape(3, 4)
    r = x[1]
    assert r._shares_storage(x) and r.storage_offset() == 4 and r.tolist() == [4, 5, 6, 7]
    s = x[1:, ::2]
    assert s._shares_storage(x) and s.stride() == (4, 2) and s.tolist() == [[4, 6], [8, 10]]
    s[0, 0] = 100
    assert x[1, 0].item() == 100


def test_negative_index_and_wrap():
    check_op(lambda m, x: x[m.from_numpy(np.array([-1, -6, 0, 5]))], [(6, 3)], ["float32", "int64"])
    check_op(lambda m, x: x[:, [-1, -3]], [(4, 3)], ["float32"], LAYOUTS)


def test_large_index_runs_in_parallel_paths():
    rng = np.random.default_rng(0)
    for shape, idx in [((1000, 64), rng.integers(-1000, 1000, 5000)),
                       ((200000,), rng.integers(0, 200000, 300000)),
                       ((300, 400), rng.integers(0, 300, (50, 20)))]:
        base = rng.standard_normal(shape).astype(np.float32)
        e, t = ember.from_numpy(base.copy()), torch.from_numpy(base.copy())
        ei, ti = ember.from_numpy(idx), torch.from_numpy(idx)
        assert_same(e[ei], t[ti])
        if len(shape) > 1:  # columns of a transposed base: strided gathers
            ci = idx.clip(0, shape[0] - 1)
            assert_same(e.t()[:, ember.from_numpy(ci)], t.t()[:, torch.from_numpy(ci)])
    big = rng.standard_normal((500, 300)).astype(np.float32)
    mask = big > 0.3
    e, t = ember.from_numpy(big), torch.from_numpy(big)
    assert_same(e[ember.from_numpy(mask)], t[torch.from_numpy(mask)])
    assert_same(e[ember.from_numpy(mask[:, 0])], t[torch.from_numpy(mask[:, 0])])
    assert_same(ember.nonzero(ember.from_numpy(mask)), torch.nonzero(torch.from_numpy(mask)))


# ---- bad indices ---------------------------------------------------------------------------

BAD = [
    (lambda m: 4, IndexError, "index 4 is out of bounds for dimension 0 with size 4"),
    (lambda m: (0, 5), IndexError, "index 5 is out of bounds for dimension 1 with size 5"),
    (lambda m: (slice(None), slice(None), -7), IndexError, "index -7 is out of bounds for dimension 2"),
    (lambda m: [0, 4], IndexError, "index 4 is out of bounds for dimension 0 with size 4"),
    (lambda m: (slice(None), [-6]), IndexError, "index -6 is out of bounds for dimension 1 with size 5"),
    (lambda m: slice(None, None, -1), ValueError, "step must be greater than zero"),
    (lambda m: slice(None, None, 0), ValueError, "slice step cannot be zero"),
    (lambda m: 1.5, IndexError, r"only integers, slices .*\(got float\)"),
    (lambda m: (0, 1.0), IndexError, "got float"),
    (lambda m: "a", IndexError, "got str"),
    (lambda m: T(m, [1.0], "float32"), IndexError, "tensors used as indices must be long, int, byte or bool"),
    (lambda m: (0, 0, 0, 0), IndexError, "too many indices for tensor of dimension 3"),
    (lambda m: T(m, np.ones(3, bool)), IndexError, r"shape of the mask \(3,\) at index 0 does not match"),
    (lambda m: (slice(None), T(m, np.ones(4, bool))), IndexError, "at index 1"),
    (lambda m: ([0, 1], [0, 1, 2]), IndexError, r"shape mismatch: indexing tensors could not be broadcast together with shapes \(2,\), \(3,\)"),
    (lambda m: ([0, 1, 1], False), IndexError, "shape mismatch"),
    (lambda m: T(m, 9), IndexError, "index 9 is out of bounds for dimension 0"),
    (lambda m: object(), IndexError, "got object"),
    (lambda m: [[[0, 1], [2]]], ValueError, "expected a sequence of length 2 at dim 1"),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_index(case):
    build, exc, msg = BAD[case]
    e, t = ember.zeros(*SHAPE), torch.zeros(*SHAPE)
    with pytest.raises(Exception):
        t[build(torch)]
    with pytest.raises(exc, match=msg):
        e[build(ember)]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_setitem_leaves_target_unchanged(case):
    build, exc, msg = BAD[case]
    e = ember.arange(120.0).reshape(*SHAPE)
    before, v = e.numpy().copy(), e._version
    with pytest.raises(exc, match=msg):
        e[build(ember)] = 1.0
    np.testing.assert_array_equal(e.numpy(), before)
    assert e._version == v


# ---- setitem ---------------------------------------------------------------------------------

SET = [  # (index, value shape or None for a scalar)
    (lambda m: 0, None),
    (lambda m: 0, (6,)),
    (lambda m: 0, (1, 5, 6)),
    (lambda m: 0, (1, 1, 5, 1)),
    (lambda m: slice(1, None, 2), (5, 1)),
    (lambda m: (Ellipsis, 1), (4, 1)),
    (lambda m: (), (6,)),
    (lambda m: (None, 2), (1, 5, 6)),
    (lambda m: [0, 2], None),
    (lambda m: [0, 2], (2, 5, 6)),
    (lambda m: [0, 2], (1, 6)),
    (lambda m: [2, 0, 2], (3, 1, 1)),  # duplicates: the last write wins
    (lambda m: ([0, 1], slice(None), [1, 2]), (2, 5)),
    (lambda m: (slice(None), [0, 1], [1, 2]), (4, 2)),
    (lambda m: ([[0], [3]], [1, 2, 4]), (6,)),
    (lambda m: T(m, MASK456), None),
    (lambda m: T(m, MASK456), ()),
    (lambda m: T(m, MASK456), (1,)),
    (lambda m: T(m, MASK456), (int(MASK456.sum()),)),
    (lambda m: T(m, MASK4), None),
    (lambda m: T(m, MASK4), (6,)),
    (lambda m: (slice(None), T(m, MASK5)), None),
    (lambda m: (1, T(m, MASK5), slice(1, 3)), (1,)),
    (lambda m: (Ellipsis, T(m, np.array([True, False] * 3))), None),
    (lambda m: True, (5, 6)),
    (lambda m: False, None),
    (lambda m: T(m, MASK4.astype(np.uint8)), None),
    (lambda m: T(m, [[1], [0]], "int32"), (5, 6)),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("case", range(len(SET)))
def test_setitem(case, dtype, layout):
    build, vshape = SET[case]
    (ex,), (tx,) = make_inputs([SHAPE], dtype, layout, seed=3)
    ei, ti = both(build)
    if vshape is None:
        ev = tv = (True if dtype == "bool" else 7)
    else:
        (ev,), (tv,) = make_inputs([vshape], dtype, seed=11)
    v0 = ex._version
    tx[ti] = tv
    ex[ei] = ev
    assert_same(ex, tx)
    assert ex._version == v0 + 1


def test_setitem_converts_value_dtype():
    e = ember.zeros(3, 4, dtype=ember.int64)
    e[0] = 2.7                                    # Python float into int: truncates
    e[[1]] = ember.tensor([1.5, 2.5, 3.5, 4.5])   # a float tensor into an int tensor
    e[e > 3] = ember.tensor(9.9, dtype=ember.float64)
    assert e.tolist() == [[2, 2, 2, 2], [1, 2, 3, 9], [0, 0, 0, 0]]
    b = ember.zeros(3, dtype=ember.bool)
    b[[0, 1]] = ember.tensor([2.0, 0.0])
    assert b.tolist() == [True, False, False]
    f = ember.zeros(2, 2)
    f[:, 0] = ember.tensor([1, 2])
    f[f == 0] = True
    assert f.tolist() == [[1.0, 1.0], [2.0, 1.0]]
    f[0] = np.int64(5)
    f[1] = np.float32(0.5)
    assert f.tolist() == [[5.0, 5.0], [0.5, 0.5]]


def test_setitem_value_aliasing_target():
    for build in [lambda x: (slice(1, None), x[:-1]), lambda x: ([1, 2, 3], x[:3]),
                  lambda x: (x > 2, x[3:]), lambda x: ([7, 6, 5], x[1:4])]:
        e, t = ember.arange(8.0), torch.arange(8.0)
        ei, ev = build(e)
        ti, tv = build(t)
        e[ei] = ev
        t[ti] = tv.clone()  # PyTorch refuses overlapping writes; ember copies the value first
        assert_same(e, t)
    e, t = ember.arange(6), torch.arange(6)
    e[e[:2]] = 5  # the index tensor lives in the target
    t[t[:2].clone()] = 5
    assert_same(e, t)


def test_setitem_mask_fast_path_writes_in_place():
    g = ember.randn(64, 64)
    h = g.clone()
    before = ember._C.allocator_stats()["allocations"]
    g[h < 0] = 0
    after = ember._C.allocator_stats()["allocations"]
    assert after - before <= 1  # just the mask (h < 0)
    assert (g >= 0).all().item() and ((g == 0) == (h <= 0)).all().item()


@pytest.mark.parametrize("value, exc, msg", [
    ([1, 2, 3, 4, 5, 6], TypeError, "can't assign a list"),
    (np.ones(6), TypeError, "can't assign a numpy.ndarray"),
    ("a", TypeError, "can't assign a str"),
    (None, TypeError, "can't assign a NoneType"),
])
def test_setitem_bad_value_type(value, exc, msg):
    e = ember.zeros(*SHAPE)
    with pytest.raises(exc, match=msg):
        e[0, 0] = value


@pytest.mark.parametrize("index, vshape", [
    (0, (2, 5, 6)), ([0, 1], (3,)), ("mask", (7,)), ((0, [0, 1]), (6, 1)), ("mask4", (2, 6)),
])
def test_setitem_bad_value_shape(index, vshape):
    e = ember.arange(120.0).reshape(*SHAPE)
    if index == "mask":
        index = e > 200  # no element: the value must broadcast to (0,)
    elif index == "mask4":
        index = ember.tensor([True, True, True, False])
    before, v = e.numpy().copy(), e._version
    with pytest.raises(ValueError, match="shape mismatch|cannot be broadcast"):
        e[index] = ember.ones(*vshape)
    np.testing.assert_array_equal(e.numpy(), before)
    assert e._version == v


def test_index_put_and_accumulate():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((5, 4)).astype(np.float32)
    idx = np.array([0, 2, 0, 4, 0])
    vals = rng.standard_normal((5, 4)).astype(np.float32)
    for acc in [False, True]:
        e, t = ember.from_numpy(base.copy()), torch.from_numpy(base.copy())
        if acc:
            r = e.index_put_((ember.from_numpy(idx),), ember.from_numpy(vals), accumulate=True)
            t.index_put_((torch.from_numpy(idx),), torch.from_numpy(vals), accumulate=True)
            assert r is e
        else:
            e.index_put_((ember.from_numpy(idx[[1, 3]]),), ember.from_numpy(vals[:2]))
            t.index_put_((torch.from_numpy(idx[[1, 3]]),), torch.from_numpy(vals[:2]))
        assert_same(e, t)
    e, t = ember.zeros(3, 3), torch.zeros(3, 3)
    ii = ([0, 0, 2], [1, 1, 1])
    out = ember.index_put(e, tuple(ember.tensor(i) for i in ii), ember.tensor([1.0, 2.0, 3.0]), True)
    exp = torch.index_put(t, tuple(torch.tensor(i) for i in ii), torch.tensor([1.0, 2.0, 3.0]), True)
    assert_same(out, exp)
    assert_same(e, t)  # out of place: e untouched


# ---- index_select / gather / scatter ------------------------------------------------------------

def rand_index(shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, size=shape)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_index_select(dim, layout):
    idx = rand_index((7,), SHAPE[dim])
    for idt in ["int64", "int32"]:
        check_op(lambda m, x: m.index_select(x, dim, T(m, idx, idt)), [SHAPE], ALL_DTYPES, [layout])
    check_op(lambda m, x: x.index_select(dim, T(m, [1])), [SHAPE], ["float32"], [layout])
    check_op(lambda m, x: x.index_select(dim, T(m, 2)), [SHAPE], ["float32"], [layout])
    check_op(lambda m, x: x.index_select(dim, T(m, np.zeros(0, np.int64))), [SHAPE])


def test_index_select_edge_and_errors():
    check_op(lambda m, x: m.index_select(x, 0, T(m, [0])), [()])
    check_op(lambda m, x: m.index_select(x, 0, T(m, 0)), [()])
    check_op(lambda m, x: m.index_select(x, 1, T(m, [0, 0])), [(3, 0)])
    x = ember.zeros(3, 4)
    with pytest.raises(IndexError, match=r"index_select: index 3 is out of bounds for dimension 0 with size 3"):
        ember.index_select(x, 0, ember.tensor([0, 3]))
    with pytest.raises(IndexError, match="index_select: index -1"):
        ember.index_select(x, 0, ember.tensor([-1]))
    with pytest.raises(IndexError, match="vector"):
        ember.index_select(x, 0, ember.tensor([[0]]))
    with pytest.raises(TypeError, match="index_select: expected an int64 or int32 index tensor, got float32"):
        ember.index_select(x, 0, ember.tensor([0.0]))
    with pytest.raises(IndexError, match="index_select"):
        ember.index_select(x, 2, ember.tensor([0]))
    with pytest.raises(ValueError, match="index_select"):
        ember.index_select(ember.tensor(1.0), 0, ember.tensor([0, 0]))


GATHER_CASES = [  # (input shape, dim, index shape)
    ((4, 5, 6), 0, (3, 5, 6)), ((4, 5, 6), 1, (4, 9, 6)), ((4, 5, 6), 2, (2, 3, 10)),
    ((4, 5, 6), -1, (4, 5, 1)), ((4, 5, 6), -3, (1, 1, 1)), ((7,), 0, (12,)),
    ((3, 4), 1, (0, 2)), ((3, 4), 0, (2, 0)),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", GATHER_CASES)
def test_gather(case, layout):
    shape, dim, ishape = case
    idx = rand_index(ishape, shape[dim], seed=len(ishape))
    for idt in ["int64", "int32"]:
        check_op(lambda m, x: m.gather(x, dim, T(m, idx, idt)), [shape], ALL_DTYPES, [layout])
    check_op(lambda m, x: x.gather(dim, T(m, idx)), [shape], ["float32"], [layout])


def test_gather_zero_dim_and_non_contiguous_index():
    check_op(lambda m, x: m.gather(x, 0, T(m, 0)), [()])
    check_op(lambda m, x: m.gather(x, 0, T(m, [0, 0])), [()])
    check_op(lambda m, x: m.gather(x, 0, T(m, 2)), [(5,)])
    idx = rand_index((4, 5), 3)  # transposed below: a non-contiguous (5, 4) index
    check_op(lambda m, x: m.gather(x, 0, T(m, idx).t()), [(3, 5)], ["float32"], LAYOUTS)


@pytest.mark.parametrize("args, exc, msg", [
    (((3, 4), 1, [[4]]), IndexError, "gather: index 4 is out of bounds for dimension 1 with size 4"),
    (((3, 4), 1, [[-1]]), IndexError, "gather: index -1 is out of bounds"),
    (((3, 4), 1, [0, 1]), ValueError, "gather: index tensor must have the same number of dimensions"),
    (((3, 4), 1, np.zeros((4, 1), np.int64)), ValueError, r"gather: size does not match at dimension 0"),
    (((3, 4), 2, [[0]]), IndexError, "gather"),
    (((3, 4), 1, np.zeros((1, 1), np.uint8)), TypeError, "gather: expected an int64 or int32 index tensor, got uint8"),
])
def test_gather_errors(args, exc, msg):
    shape, dim, idx = args
    with pytest.raises(Exception):
        torch.gather(torch.zeros(shape), dim, torch.from_numpy(np.array(idx)))
    with pytest.raises(exc, match=msg):
        ember.gather(ember.zeros(*shape), dim, ember.from_numpy(np.array(idx)))


SCATTER_CASES = [  # (self shape, dim, index shape, src shape)
    ((4, 5, 6), 0, (3, 5, 6), (3, 5, 6)), ((4, 5, 6), 1, (4, 2, 6), (4, 3, 7)),
    ((4, 5, 6), -1, (2, 3, 10), (2, 3, 10)), ((7,), 0, (12,), (15,)), ((3, 4), 1, (0, 2), (1, 2)),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter(case, layout):
    shape, dim, ishape, sshape = case
    # unique positions along dim for plain scatter (torch leaves duplicates unspecified)
    rng = np.random.default_rng(1)
    n = shape[dim]
    idx = np.argsort(rng.random(ishape[:dim] + (max(n, ishape[dim]),) + ishape[dim + 1:]), axis=dim)
    idx = np.take(idx, np.arange(ishape[dim]), axis=dim) % n if ishape[dim] <= n else None
    dup = rand_index(ishape, n, seed=2)
    for dt in ["float32", "int64", "bool", "uint8"]:
        if idx is not None:
            check_op(lambda m, x, s: m.scatter(x, dim, T(m, idx), s), [shape, sshape], [dt], [layout])
            check_op(lambda m, x, s: x.scatter(dim, T(m, idx, "int32"), 2), [shape, sshape], [dt], [layout])
            check_op(lambda m, x, s: m.scatter(x, dim, T(m, idx), value=2.5), [shape, sshape], [dt], [layout])
        if dt != "bool":
            check_op(lambda m, x, s: m.scatter_add(x, dim, T(m, dup), s), [shape, sshape], [dt], [layout])
    check_op(lambda m, x, s: x.clone().scatter_add_(dim, T(m, dup), s), [shape, sshape], ["float64"])


def test_scatter_in_place_and_version():
    for m in (ember, torch):
        x = m.zeros(3, 4)
        v = x._version
        r = x.scatter_(1, m.tensor([[0, 1], [2, 3]]), m.ones(2, 2))
        assert r is x and x._version == v + 1
        r = x.scatter_add_(0, m.tensor([[0, 0, 0, 0]]), m.ones(1, 4))
        assert r is x and x._version == v + 2
    e, t = ember.zeros(3, 4), torch.zeros(3, 4)
    e.scatter_(1, ember.tensor([[0, 1], [2, 3]]), 5.0)
    t.scatter_(1, torch.tensor([[0, 1], [2, 3]]), 5.0)
    assert_same(e, t)
    e.scatter_(0, ember.tensor([[2]]), ember.tensor([[7.0]]), reduce="add")
    t.scatter_(0, torch.tensor([[2]]), torch.tensor([[7.0]]), reduce="add")
    assert_same(e, t)


def test_scatter_add_deterministic_with_duplicates():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 10, size=(200000,))
    src = rng.standard_normal(200000).astype(np.float32)
    e = ember.zeros(10).scatter_add(0, ember.from_numpy(idx), ember.from_numpy(src))
    t = torch.zeros(10).scatter_add(0, torch.from_numpy(idx), torch.from_numpy(src))
    assert_same(e, t, rtol=1e-3, atol=1e-3)
    e2 = ember.zeros(10).scatter_add(0, ember.from_numpy(idx), ember.from_numpy(src))
    assert e.tolist() == e2.tolist()


@pytest.mark.parametrize("call, exc, msg", [
    (lambda x: x.scatter(1, ember.tensor([[4]]), 1.0), IndexError, "scatter: index 4 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.scatter_(1, ember.tensor([[0, 9]]), ember.ones(1, 2)), IndexError, "scatter_: index 9"),
    (lambda x: x.scatter_(1, ember.tensor([[0, 1]]), ember.ones(1, 2, dtype=ember.float64)), TypeError, "same dtype"),
    (lambda x: x.scatter_(1, ember.tensor([[0, 1]]), ember.ones(1, 1)), ValueError, "no larger than src"),
    (lambda x: x.scatter_(1, ember.zeros(4, 1, dtype=ember.int64), 1.0), ValueError, "no larger than input"),
    (lambda x: x.scatter_(1, ember.tensor([[0.0]]), 1.0), TypeError, "int64 or int32"),
    (lambda x: x.scatter_(1, ember.tensor([0]), 1.0), ValueError, "same number of dimensions"),
    (lambda x: x.scatter_add_(1, ember.tensor([[0, -1]]), ember.ones(1, 2)), IndexError, "scatter_add_: index -1"),
    (lambda x: x.scatter_(2, ember.tensor([[0]]), 1.0), IndexError, "scatter_"),
])
def test_scatter_errors_leave_input_unchanged(call, exc, msg):
    x = ember.arange(12.0).reshape(3, 4)
    before, v = x.numpy().copy(), x._version
    with pytest.raises(exc, match=msg):
        call(x)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == v


def test_scatter_zero_dim():
    e = ember.scatter(ember.tensor(5.0), 0, ember.tensor(0), ember.tensor(1.0))
    t = torch.scatter(torch.tensor(5.0), 0, torch.tensor(0), torch.tensor(1.0))
    assert_same(e, t)
    e = ember.scatter(ember.tensor(5.0), 0, ember.tensor([0]), ember.tensor([1.0]))
    t = torch.scatter(torch.tensor(5.0), 0, torch.tensor([0]), torch.tensor([1.0]))
    assert_same(e, t)


# ---- nonzero / masked_select / take_along_dim ------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(4, 5, 6), (7,), (), (3, 0), (2, 1, 3)])
def test_nonzero(shape, layout):
    check_op(lambda m, x: m.nonzero(x), [shape], ALL_DTYPES, [layout])
    check_op(lambda m, x: x.nonzero(as_tuple=True), [shape], ["bool", "float32"], [layout])
    check_op(lambda m, x: m.argwhere(x), [shape], ["int32"], [layout])
    # where(condition) alone (torchmetrics' curves: torch.where(preds[1:] - preds[:-1])[0])
    check_op(lambda m, x: m.where(x), [shape], ["bool", "float32", "int64"], [layout])


def test_nonzero_nan_and_zero_dim():
    check_op(lambda m, x: m.nonzero(m.tensor([0.0, float("nan"), -0.0, 1.0])), [()])
    for v in [0.0, 3.0]:
        assert_same(ember.nonzero(ember.tensor(v)), torch.nonzero(torch.tensor(v)))
        assert_same(ember.nonzero(ember.tensor(v), as_tuple=True), torch.nonzero(torch.tensor(v), as_tuple=True))
        assert_same(ember.where(ember.tensor(v)), torch.where(torch.tensor(v)))
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            lib.where([1, 0])
        with pytest.raises(TypeError):
            lib.where(lib.ones(2), lib.ones(2))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shapes", [[(4, 5), (4, 5)], [(4, 5), (5,)], [(5,), (3, 5)], [(4, 1), (1, 6)],
                                    [(), ()], [(0, 3), (3,)], [(3,), ()]])
def test_masked_select(shapes, layout):
    xs, ms = shapes
    rng = np.random.default_rng(4)
    mask = rng.random(ms) < 0.5
    check_op(lambda m, x: m.masked_select(x, T(m, mask, "bool")), [xs], ALL_DTYPES, [layout])
    check_op(lambda m, x, mk: x.masked_select(mk), [xs, ms], ["float32"], [layout])


def test_masked_select_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(TypeError, match="masked_select: expected a bool mask, got float32"):
        ember.masked_select(x, ember.ones(4))
    with pytest.raises(TypeError, match="masked_select"):
        ember.masked_select(x, ember.ones(4, dtype=ember.uint8))
    with pytest.raises(ValueError, match="masked_select"):
        ember.masked_select(x, ember.ones(3, dtype=ember.bool))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_dim(layout):
    idx = rand_index((4, 3, 1), 6)
    check_op(lambda m, x: m.take_along_dim(x, T(m, idx), 2), [(4, 1, 6)], ["float32", "int64"], [layout])
    check_op(lambda m, x: m.take_along_dim(x, T(m, idx), -1), [(1, 3, 6)], ["float32"], [layout])
    # without a dim PyTorch needs a viewable input (it calls view(-1)); ember reshapes
    check_op(lambda m, x: x.contiguous().take_along_dim(T(m, [5, 0, 11])), [(3, 4)], ["float32"], [layout])
    check_op(lambda m, x: m.take_along_dim(x, T(m, [[0], [1], [2]]), 1), [(3, 4)], ["float32"], [layout])
    with pytest.raises(TypeError, match="take_along_dim"):
        ember.take_along_dim(ember.zeros(3, 4), ember.tensor([[0]], dtype=ember.int32), 1)
    with pytest.raises(ValueError, match="take_along_dim"):
        ember.take_along_dim(ember.zeros(3, 4), ember.tensor([0]), 1)
    with pytest.raises(ValueError, match="take_along_dim"):
        ember.take_along_dim(ember.zeros(3, 4), ember.tensor([[0, 1]]), 0)


def test_large_puts_and_row_parallel_scatter():
    rng = np.random.default_rng(9)
    base = rng.standard_normal((400, 300)).astype(np.float32)
    idx = rng.integers(0, 300, (400, 500))
    src = rng.standard_normal((400, 500)).astype(np.float32)

    def check():
        e = ember.from_numpy(base.copy()).scatter_add(1, ember.from_numpy(idx), ember.from_numpy(src))
        t = torch.from_numpy(base.copy()).scatter_add(1, torch.from_numpy(idx), torch.from_numpy(src))
        assert_same(e, t, rtol=1e-4, atol=1e-4)
        uniq = np.argsort(rng.random((400, 300)), axis=1)[:, :200]
        e = ember.from_numpy(base.copy()).scatter(1, ember.from_numpy(uniq), ember.from_numpy(src))
        t = torch.from_numpy(base.copy()).scatter(1, torch.from_numpy(uniq), torch.from_numpy(src))
        assert_same(e, t)
        rows = rng.permutation(400)[:150]
        e, t = ember.from_numpy(base.copy()), torch.from_numpy(base.copy())
        e[ember.from_numpy(rows)] = ember.from_numpy(src[:150, :300].copy())
        t[torch.from_numpy(rows)] = torch.from_numpy(src[:150, :300].copy())
        assert_same(e, t)
    on_thread_counts(check)


def test_non_contiguous_index_tensors():
    rng = np.random.default_rng(2)
    idx = rng.integers(-4, 4, (3, 5))
    for build in [lambda m: T(m, idx).t(), lambda m: (slice(None), T(m, idx)[:, ::2]),
                  lambda m: (T(m, idx).t()[:, :1], slice(None), T(m, idx)[0])]:
        check_index(build, "transposed")
    e, t = ember.zeros(4, 5), torch.zeros(4, 5)
    e[ember.from_numpy(idx).t()[:4, 0]] = 1.0
    t[torch.from_numpy(idx).t()[:4, 0]] = 1.0
    assert_same(e, t)
    check_index(lambda m: (np.array([0, 3]), slice(1, None)), "sliced")


# ---- random index expressions against PyTorch ----------------------------------------------------

def _random_index(rng, shape):
    """A random mix of ints, slices, None, one Ellipsis, lists, masks, bools and 0-d tensors,
    in or out of range, as a list of (kind, payload) entries."""
    items, dim, ellipsis = [], 0, False
    for _ in range(rng.integers(0, 5)):
        k = int(rng.integers(0, 10))
        size = shape[dim] if 0 <= dim < len(shape) else 3
        if k == 0:
            items.append(("none", None))
            continue
        if k == 1 and not ellipsis:
            ellipsis = True
            items.append(("ellipsis", None))
            dim = len(shape) - sum(1 for kind, _ in items if kind in ("int", "slice", "list", "t0"))
            continue
        if k == 6:
            items.append(("bool", bool(rng.random() < 0.5)))
            continue
        if k == 2:
            items.append(("int", int(rng.integers(-size - 1, size + 1))))
        elif k == 3:
            pick = lambda: None if rng.random() < 0.3 else int(rng.integers(-size - 2, size + 2))  # noqa: E731
            items.append(("slice", slice(pick(), pick(), [None, 1, 2, 3][rng.integers(0, 4)])))
        elif k == 4:
            items.append(("list", [int(v) for v in rng.integers(-size, max(size, 1), rng.integers(0, 4))]))
        elif k == 5 and 0 <= dim < len(shape):
            mshape = shape[dim:dim + int(rng.integers(1, 3))]
            items.append(("mask", np.asarray(rng.random(mshape) < 0.5)))
            dim += len(mshape)
            continue
        elif k == 7:
            items.append(("t0", int(rng.integers(-size, max(size, 1)))))
        elif k == 8:
            items.append(("list2", rng.integers(-size, max(size, 1), (2, 1)).tolist()))
        else:
            items.append(("slice", slice(None, None, 2)))
        dim += 1
    return items


def _build_index(m, items):
    conv = {"none": lambda p: None, "ellipsis": lambda p: Ellipsis, "int": lambda p: p,
            "slice": lambda p: p, "list": list, "bool": lambda p: p,
            "mask": lambda p: m.from_numpy(p.copy()), "t0": lambda p: m.tensor(p),
            "list2": lambda p: m.tensor(p)}
    return tuple(conv[kind](p) for kind, p in items)


def _outcome(fn):
    try:
        return fn(), None
    except (IndexError, ValueError, TypeError, RuntimeError) as e:
        return None, e


@pytest.mark.parametrize("seed", range(4))
def test_random_indices_match_torch(seed):
    rng = np.random.default_rng(seed)
    for _ in range(400):
        shape = tuple(int(s) for s in rng.integers(0, 5, rng.integers(0, 4)))
        items = _random_index(rng, shape)
        base = rng.standard_normal(shape).astype(np.float32)
        ei, ti = _build_index(ember, items), _build_index(torch, items)
        et, tt = ember.from_numpy(base.copy()), torch.from_numpy(base.copy())
        expected, texc = _outcome(lambda: tt[ti])
        got, eexc = _outcome(lambda: et[ei])
        assert (texc is None) == (eexc is None), f"{shape} {items}: torch {texc!r}, ember {eexc!r}"
        if texc is not None:
            continue
        assert_same(got, expected)
        vshape = tuple(expected.shape)[-1:] if rng.random() < 0.5 else tuple(expected.shape)
        value = rng.standard_normal(vshape).astype(np.float32)
        for ev, tv in [(7.0, 7.0), (ember.from_numpy(value.copy()), torch.from_numpy(value.copy()))]:
            e2, t2 = et.clone(), tt.clone()

            def tset():
                t2[ti] = tv

            def eset():
                e2[ei] = ev
            _, texc = _outcome(tset)
            _, eexc = _outcome(eset)
            assert (texc is None) == (eexc is None), f"{shape} {items} = {vshape}: {texc!r} vs {eexc!r}"
            assert_same(e2, t2)
