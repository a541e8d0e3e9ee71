"""Matrix products (matmul, mm, bmm, mv, dot, outer, addmm, @) against PyTorch."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op, make_inputs

DTYPES = ["float32", "float64", "int64"]
# float32 sums of products: BLAS libraries add in different orders.
TOL = dict(rtol=1e-4, atol=1e-5)

MATMUL_SHAPES = [
    [(4,), (4,)],
    [(3, 4), (4,)],
    [(4,), (4, 5)],
    [(3, 4), (4, 5)],
    [(1, 4), (4, 1)],
    [(2, 3, 4), (4, 5)],        # folded into one (6, 4) @ (4, 5)
    [(2, 3, 4), (4,)],
    [(2, 2, 3, 4), (4,)],
    [(4,), (2, 4, 3)],
    [(3, 4), (2, 4, 5)],
    [(2, 3, 4), (2, 4, 5)],
    [(2, 1, 3, 4), (5, 4, 2)],  # batch dims broadcast: (2, 5)
    [(1, 3, 4), (6, 4, 2)],
    [(6, 1, 3, 4), (1, 5, 4, 2)],
    [(3, 1, 4), (3, 4, 1)],
]
EMPTY_SHAPES = [
    [(0,), (0,)],
    [(0, 4), (4, 5)],
    [(3, 0), (0, 5)],           # k == 0: zeros
    [(3, 4), (4, 0)],
    [(3, 0), (0,)],
    [(0,), (0, 5)],
    [(2, 0, 3, 4), (4, 5)],
    [(0, 3, 4), (4,)],
    [(2, 3, 0), (2, 0, 5)],
    [(0, 3, 4), (0, 4, 5)],
    [(2, 3, 0), (0,)],
]


# ---- matmul ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_matmul_matches_torch(shapes, layout):
    check_op(lambda m, a, b: m.matmul(a, b), shapes, DTYPES, [layout], **TOL)


@pytest.mark.parametrize("shapes", EMPTY_SHAPES, ids=str)
def test_matmul_empty(shapes):
    check_op(lambda m, a, b: m.matmul(a, b), shapes, DTYPES, LAYOUTS, **TOL)


@pytest.mark.parametrize("dtype", ["int32", "uint8"])
def test_matmul_small_int_dtypes_wrap_like_torch(dtype):
    check_op(lambda m, a, b: a @ b, [(5, 7), (7, 3)], [dtype], LAYOUTS, low=0, high=200)
    check_op(lambda m, a, b: a @ b, [(2, 5, 7), (7,)], [dtype], LAYOUTS, low=0, high=200)


def test_matmul_int64_overflow_wraps_like_torch():
    big = np.full((2, 2), 2**62, dtype=np.int64)
    got = ember.from_numpy(big) @ ember.from_numpy(big.copy())
    want = torch.from_numpy(big) @ torch.from_numpy(big.copy())
    assert_same(got, want)


def _views(m, arr, kind):
    """The same view of `arr` in either library: a row-major matrix, a transposed one (its
    columns contiguous), a column-strided one (copied), or a batch that is not contiguous."""
    t = m.from_numpy(arr.copy())
    if kind == "t":
        return t.transpose(-1, -2).contiguous().transpose(-1, -2)
    if kind == "strided":
        return t.unflatten(-1, (t.shape[-1] // 2, 2)).select(-1, 0)
    if kind == "batch_t":  # batch dim strided, matrices row-major
        return t.transpose(0, 1).contiguous().transpose(0, 1)
    return t


@pytest.mark.parametrize("ka", ["c", "t", "strided"])
@pytest.mark.parametrize("kb", ["c", "t", "strided"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_mixed_layouts(ka, kb, dtype):
    """Every pairing of operand layouts, including one transposed and one not: the BLAS
    trans flags and leading dims must be right for each operand separately."""
    rng = np.random.default_rng(1)
    A = rng.integers(-5, 6, size=(7, 10)).astype(dtype)
    B = rng.integers(-5, 6, size=(5, 12)).astype(dtype)
    ea, eb = _views(ember, A, ka), _views(ember, B, kb)
    ta, tb = _views(torch, A, ka), _views(torch, B, kb)
    # a is (7, 10) or (7, 5), b is (5, 12) or (5, 6): narrowing a's columns fixes k = 5
    k = eb.shape[0]
    ea, ta = ea.narrow(1, 0, k), ta.narrow(1, 0, k)
    assert_same(ea @ eb, ta @ tb, **TOL)
    assert_same(ember.mm(ea, eb), torch.mm(ta, tb), **TOL)
    assert_same(ea.t() @ ea, ta.t() @ ta, **TOL)  # the same storage on both sides
    v_e, v_t = eb.select(1, 0), tb.select(1, 0)  # a strided vector
    assert_same(ea @ v_e, ta @ v_t, **TOL)
    assert_same(ember.mv(ea, v_e), torch.mv(ta, v_t), **TOL)
    assert_same(eb.t() @ v_e, tb.t() @ v_t, **TOL)
    assert_same(v_e @ eb, v_t @ tb, **TOL)
    assert_same(ember.dot(v_e, ea.select(0, 1)), torch.dot(v_t, ta.select(0, 1)), **TOL)


@pytest.mark.parametrize("kind", ["c", "t", "batch_t", "strided"])
def test_matmul_batched_layouts(kind):
    rng = np.random.default_rng(2)
    A = rng.standard_normal((3, 4, 5, 8)).astype(np.float32)
    B = rng.standard_normal((4, 4, 7)).astype(np.float32)
    ea, ta = _views(ember, A, kind), _views(torch, A, kind)
    eb, tb = ember.from_numpy(B), torch.from_numpy(B)
    if ea.shape[-1] != 4:
        ea, ta = ea.narrow(-1, 0, 4), ta.narrow(-1, 0, 4)
    assert_same(ea @ eb, ta @ tb, **TOL)
    assert_same(ea @ eb.select(0, 0), ta @ tb.select(0, 0), **TOL)
    assert_same(ea @ eb.select(2, 1).select(0, 2), ta @ tb.select(2, 1).select(0, 2), **TOL)
    assert_same(eb.transpose(1, 2) @ ea.transpose(2, 3).select(0, 1),
                tb.transpose(1, 2) @ ta.transpose(2, 3).select(0, 1), **TOL)


def test_matmul_expanded_operands():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((1, 5)).astype(np.float32)
    B = rng.standard_normal((5, 1)).astype(np.float32)
    e = ember.from_numpy(A).expand(4, 5) @ ember.from_numpy(B).expand(5, 3)
    t = torch.from_numpy(A).expand(4, 5) @ torch.from_numpy(B).expand(5, 3)
    assert_same(e, t, **TOL)
    e = ember.from_numpy(A).expand(3, 4, 5) @ ember.from_numpy(B)
    t = torch.from_numpy(A).expand(3, 4, 5) @ torch.from_numpy(B)
    assert_same(e, t, **TOL)
    v = ember.from_numpy(A[0, :1].copy()).expand(5)
    tv = torch.from_numpy(A[0, :1].copy()).expand(5)
    assert_same(ember.from_numpy(B).expand(5, 5) @ v, torch.from_numpy(B).expand(5, 5) @ tv, **TOL)
    assert_same(ember.dot(v, v), torch.dot(tv, tv), **TOL)


@pytest.mark.parametrize("shapes", [[(64, 1000), (1000, 100)], [(300, 8, 8), (300, 8, 8)],
                                    [(3, 130, 70), (70, 90)], [(40, 200, 3), (3,)]], ids=str)
def test_matmul_large_threads(shapes):
    """Big enough for BLAS's threads, the parallel batch loop and the parallel integer loop."""
    check_op(lambda m, a, b: m.matmul(a, b), shapes, ["float32"], ["contiguous", "transposed"],
             rtol=1e-4, atol=1e-4)
    check_op(lambda m, a, b: m.matmul(a, b), shapes, ["int64"], ["contiguous", "transposed"])


def test_transposed_operand_is_not_copied():
    x, w = ember.randn(64, 30), ember.randn(64, 20)
    before = ember._C.allocator_stats()["allocations"]
    out = x.t().mm(w)  # only the (30, 20) result is allocated
    assert ember._C.allocator_stats()["allocations"] - before == 1
    assert_same(out, torch.from_numpy(x.numpy()).t().mm(torch.from_numpy(w.numpy())), **TOL)


# ---- mm, bmm, mv, dot, outer ------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5)], [(1, 1), (1, 1)], [(0, 4), (4, 5)],
                                    [(3, 0), (0, 5)], [(3, 4), (4, 0)]], ids=str)
def test_mm(shapes):
    check_op(lambda m, a, b: m.mm(a, b), shapes, DTYPES, LAYOUTS, **TOL)
    check_op(lambda m, a, b: a.mm(b), shapes, DTYPES, ["contiguous"], **TOL)


@pytest.mark.parametrize("shapes", [[(2, 3, 4), (2, 4, 5)], [(1, 3, 4), (1, 4, 1)],
                                    [(0, 3, 4), (0, 4, 5)], [(2, 3, 0), (2, 0, 5)],
                                    [(64, 5, 6), (64, 6, 7)]], ids=str)
def test_bmm(shapes):
    check_op(lambda m, a, b: m.bmm(a, b), shapes, DTYPES, LAYOUTS, **TOL)
    check_op(lambda m, a, b: a.bmm(b), shapes, DTYPES, ["contiguous"], **TOL)


@pytest.mark.parametrize("shapes", [[(3, 4), (4,)], [(1, 4), (4,)], [(3, 1), (1,)],
                                    [(0, 4), (4,)], [(3, 0), (0,)], [(200, 300), (300,)]], ids=str)
def test_mv(shapes):
    check_op(lambda m, a, v: m.mv(a, v), shapes, DTYPES, LAYOUTS, **TOL)
    check_op(lambda m, a, v: a.mv(v), shapes, DTYPES, ["contiguous"], **TOL)


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_dot(n):
    check_op(lambda m, a, b: m.dot(a, b), [(n,), (n,)], DTYPES + ["int32", "uint8"], LAYOUTS, **TOL)
    check_op(lambda m, a, b: a.dot(b), [(n,), (n,)], DTYPES, ["contiguous"], **TOL)


@pytest.mark.parametrize("shapes", [[(3,), (4,)], [(1,), (5,)], [(0,), (3,)]], ids=str)
def test_outer(shapes):
    check_op(lambda m, a, b: m.outer(a, b), shapes, DTYPES + ["bool"], LAYOUTS, **TOL)
    check_op(lambda m, a, b: a.outer(b), shapes, DTYPES, ["contiguous"], **TOL)


def test_outer_promotes_like_torch():
    a_e, a_t = make_inputs([(3,)], "int32")
    b_e, b_t = make_inputs([(4,)], "float64")
    assert_same(ember.outer(a_e[0], b_e[0]), torch.outer(a_t[0], b_t[0]))


# ---- addmm --------------------------------------------------------------------------------------

@pytest.mark.parametrize("self_shape", [(2, 3), (3,), (1, 3), (2, 1), (), (1,)], ids=str)
@pytest.mark.parametrize("coef", [(1, 1), (0.5, 2.0), (0, 1), (2, 0), (-1.5, 0.25)], ids=str)
def test_addmm(self_shape, coef):
    beta, alpha = coef
    check_op(lambda m, s, a, b: m.addmm(s, a, b, beta=beta, alpha=alpha),
             [self_shape, (2, 4), (4, 3)], DTYPES, LAYOUTS, **TOL)


def test_addmm_method_and_defaults():
    shapes = [(3,), (2, 4), (4, 3)]
    check_op(lambda m, s, a, b: s.addmm(a, b), shapes, DTYPES, ["contiguous"], **TOL)
    check_op(lambda m, s, a, b: m.addmm(s, a, b), [(2, 3), (2, 0), (0, 3)], DTYPES, LAYOUTS,
             **TOL)
    check_op(lambda m, s, a, b: m.addmm(input=s, mat1=a, mat2=b, alpha=3),
             [(3,), (2, 4), (4, 3)], DTYPES, ["contiguous"], **TOL)


def test_addmm_beta_zero_ignores_nan_and_leaves_self_alone():
    s_np = np.full((3,), np.nan, dtype=np.float32)
    a_np = np.ones((2, 4), np.float32)
    b_np = np.ones((4, 3), np.float32)
    e_self = ember.from_numpy(s_np.copy())
    got = ember.addmm(e_self, ember.from_numpy(a_np), ember.from_numpy(b_np), beta=0)
    want = torch.addmm(torch.from_numpy(s_np.copy()), torch.from_numpy(a_np),
                       torch.from_numpy(b_np), beta=0)
    assert_same(got, want)
    assert np.isnan(e_self.numpy()).all()
    # alpha == 0 never reads a and b (BLAS semantics, which PyTorch keeps)
    nan_a = np.full((2, 4), np.nan, np.float32)
    got = ember.addmm(ember.ones(3), ember.from_numpy(nan_a), ember.from_numpy(b_np), alpha=0)
    want = torch.addmm(torch.ones(3), torch.from_numpy(nan_a), torch.from_numpy(b_np), alpha=0)
    assert_same(got, want)


def test_addmm_int_coefficients_truncate_like_torch():
    check_op(lambda m, s, a, b: m.addmm(s, a, b, beta=1.7, alpha=2.6),
             [(3,), (2, 4), (4, 3)], ["int64", "int32"], ["contiguous"])


# ---- operators -----------------------------------------------------------------------------------

def test_matmul_operators():
    check_op(lambda m, a, b: a @ b, [(3, 4), (4, 5)], DTYPES, LAYOUTS, **TOL)
    check_op(lambda m, a, b: b.__rmatmul__(a), [(3, 4), (4, 5)], DTYPES, ["contiguous"], **TOL)
    check_op(lambda m, a, b: m.matmul(a, other=b), [(2, 3, 4), (4,)], DTYPES, ["contiguous"], **TOL)
    check_op(lambda m, a, b: a.matmul(b), [(2, 3, 4), (4,)], DTYPES, ["contiguous"], **TOL)


def test_imatmul_rebinds_like_torch():
    a = ember.ones(2, 3)
    orig = a
    a @= ember.ones(3, 4)
    assert a is not orig and tuple(a.shape) == (2, 4) and tuple(orig.shape) == (2, 3)
    assert np.all(a.numpy() == 3) and np.all(orig.numpy() == 1)


def test_matmul_with_non_tensor_raises_type_error():
    a = ember.ones(2, 2)
    with pytest.raises(TypeError):
        a @ 3
    with pytest.raises(TypeError):
        3 @ a


# ---- bad input -----------------------------------------------------------------------------------

def _raises(fn, exc, *words):
    """fn raises `exc` in ember, PyTorch raises too, and ember's message has every word."""
    with pytest.raises(Exception):
        fn(torch, torch)
    with pytest.raises(exc) as info:
        fn(ember, ember)
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


def Z(m, *shape, dtype="float32"):
    return m.zeros(*shape, dtype=getattr(m, dtype))


BAD_SHAPES = [
    ("matmul", (3, 4), (5, 6), ["matmul: shapes (3, 4) and (5, 6) cannot be multiplied (4 != 5)"]),
    ("matmul", (4,), (5,), ["matmul", "(4,)", "(5,)", "4 != 5"]),
    ("matmul", (3, 4), (5,), ["matmul", "(3, 4)", "(5,)", "4 != 5"]),
    ("matmul", (4,), (5, 6), ["matmul", "(4,)", "(5, 6)", "4 != 5"]),
    ("matmul", (2, 3, 4), (2, 5, 6), ["matmul", "(2, 3, 4)", "(2, 5, 6)", "4 != 5"]),
    ("matmul", (2, 3, 4), (5,), ["matmul", "(2, 3, 4)", "(5,)"]),
    ("matmul", (2, 3, 4), (3, 4, 6), ["matmul", "(2, 3, 4)", "(3, 4, 6)", "broadcast"]),
    ("matmul", (), (3,), ["matmul", "1-d", "()", "(3,)"]),
    ("matmul", (3, 3), (), ["matmul", "1-d"]),
    ("mm", (3,), (3, 4), ["mm", "2-d", "(3,)", "(3, 4)"]),
    ("mm", (2, 3, 4), (4, 4), ["mm", "2-d", "(2, 3, 4)"]),
    ("mm", (3, 4), (5, 6), ["mm: shapes (3, 4) and (5, 6) cannot be multiplied (4 != 5)"]),
    ("bmm", (3, 4), (4, 6), ["bmm", "3-d", "(3, 4)", "(4, 6)"]),
    ("bmm", (2, 3, 4), (3, 4, 6), ["bmm", "(2, 3, 4)", "(3, 4, 6)", "2 != 3"]),
    ("bmm", (2, 3, 4), (2, 5, 6), ["bmm", "(2, 3, 4)", "(2, 5, 6)", "4 != 5"]),
    ("mv", (3, 4), (5,), ["mv", "(3, 4)", "(5,)", "4 != 5"]),
    ("mv", (3,), (3,), ["mv", "2-d", "(3,)"]),
    ("mv", (3, 4), (4, 1), ["mv", "1-d", "(4, 1)"]),
    ("dot", (3,), (4,), ["dot", "(3,)", "(4,)", "3 != 4"]),
    ("dot", (3, 1), (3,), ["dot", "1-d", "(3, 1)"]),
    ("outer", (3, 2), (4,), ["outer", "1-d", "(3, 2)"]),
    ("outer", (), (4,), ["outer", "1-d", "()"]),
]


@pytest.mark.parametrize("op,sa,sb,words", BAD_SHAPES, ids=lambda x: str(x))
def test_bad_shapes(op, sa, sb, words):
    _raises(lambda m, _: getattr(m, op)(Z(m, *sa), Z(m, *sb)), ValueError, *words)


@pytest.mark.parametrize("op,sa,sb", [("matmul", (3, 4), (4, 5)), ("matmul", (4,), (4,)),
                                      ("matmul", (3, 4), (4,)), ("matmul", (2, 3, 4), (2, 4, 5)),
                                      ("mm", (3, 4), (4, 5)), ("bmm", (2, 3, 4), (2, 4, 5)),
                                      ("mv", (3, 4), (4,)), ("dot", (4,), (4,))])
def test_bad_dtypes(op, sa, sb):
    _raises(lambda m, _: getattr(m, op)(Z(m, *sa), Z(m, *sb, dtype="float64")), TypeError,
            op, "float32", "float64")
    _raises(lambda m, _: getattr(m, op)(Z(m, *sa, dtype="int64"), Z(m, *sb, dtype="int32")),
            TypeError, op, "int64", "int32")
    _raises(lambda m, _: getattr(m, op)(Z(m, *sa, dtype="bool"), Z(m, *sb, dtype="bool")),
            TypeError, op, "bool")


def test_addmm_bad_input():
    _raises(lambda m, _: m.addmm(Z(m, 4, 3), Z(m, 2, 4), Z(m, 4, 3)), ValueError,
            "addmm", "(4, 3)", "(2, 3)")
    _raises(lambda m, _: m.addmm(Z(m, 2, 4, 3), Z(m, 2, 4), Z(m, 4, 3)), ValueError, "addmm")
    _raises(lambda m, _: m.addmm(Z(m, 3), Z(m, 2, 4), Z(m, 5, 3)), ValueError,
            "addmm", "(2, 4)", "(5, 3)", "4 != 5")
    _raises(lambda m, _: m.addmm(Z(m, 3), Z(m, 4), Z(m, 4, 3)), ValueError, "addmm", "2-d")
    _raises(lambda m, _: m.addmm(Z(m, 3, dtype="float64"), Z(m, 2, 4), Z(m, 4, 3)), TypeError,
            "addmm", "float64", "float32")
    _raises(lambda m, _: m.addmm(Z(m, 3), Z(m, 2, 4), Z(m, 4, 3, dtype="float64")), TypeError,
            "addmm", "float64", "float32")


def test_failed_call_leaves_inputs_untouched():
    s = ember.ones(4, 3)
    with pytest.raises(ValueError):
        ember.addmm(s, ember.ones(2, 4), ember.ones(4, 3))
    assert np.all(s.numpy() == 1)
