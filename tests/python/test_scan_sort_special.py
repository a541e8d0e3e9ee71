"""Scans, flips, triangles, sorting, the special functions, the float classifiers and
lerp/addcmul/addcdiv: forward and gradients against PyTorch, finite-difference gradchecks,
edge cases (0-d, empty, NaN, zeros in cumprod) and bad inputs."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op, gradcheck_op, on_thread_counts

ALL = ["bool", "uint8", "int32", "int64", "float32", "float64"]
NUM = ["uint8", "int32", "int64", "float32", "float64"]
FLOAT = ["float32", "float64"]

def _topk_checked(m, x, k, dim=-1, largest=True):
    values, indices = m.topk(x, k, dim=dim, largest=largest)
    return values, x.gather(dim, indices)


# name: (fn, shapes, dtypes). Every case runs in every layout.
FORWARD = {
    "cumsum": (lambda m, x: m.cumsum(x, 1), [(3, 5)], ALL),
    "cumsum_neg": (lambda m, x: x.cumsum(-1), [(2, 3, 4)], NUM),
    "cumsum_dim0": (lambda m, x: x.cumsum(0), [(4, 3)], NUM),
    "cumsum_dtype": (lambda m, x: m.cumsum(x, 0, dtype=m.float64), [(4, 3)], NUM),
    "cumprod": (lambda m, x: m.cumprod(x, 1), [(3, 5)], ALL),
    "cumprod_dtype": (lambda m, x: x.cumprod(-2, dtype=m.float32), [(2, 3, 4)], NUM),
    "tril": (lambda m, x: m.tril(x), [(4, 5)], ALL),
    "tril_diag": (lambda m, x: m.tril(x, 1), [(2, 4, 5)], ALL),
    "tril_neg_diag": (lambda m, x: x.tril(diagonal=-2), [(5, 3)], NUM),
    "triu": (lambda m, x: m.triu(x), [(4, 5)], ALL),
    "triu_diag": (lambda m, x: x.triu(2), [(3, 2, 6)], NUM),
    "triu_far": (lambda m, x: x.triu(-9), [(3, 4)], NUM),
    "flip": (lambda m, x: m.flip(x, (0,)), [(3, 4)], ALL),
    "flip_many": (lambda m, x: m.flip(x, [0, -1]), [(2, 3, 4)], ALL),
    "flip_method": (lambda m, x: x.flip(1, 2), [(2, 3, 4)], NUM),
    "flip_int": (lambda m, x: x.flip(-1), [(2, 3)], NUM),
    "fliplr": (lambda m, x: m.fliplr(x), [(2, 3)], NUM),
    "flipud": (lambda m, x: x.flipud(), [(2, 3)], NUM),
    "roll": (lambda m, x: m.roll(x, 1, 0), [(4, 3)], ALL),
    "roll_many": (lambda m, x: m.roll(x, (2, -1), (1, -1)), [(2, 3, 4)], NUM),
    "roll_flat": (lambda m, x: x.roll(5), [(3, 4)], NUM),
    "roll_big": (lambda m, x: x.roll(-7, dims=1), [(2, 3)], NUM),
    "sort": (lambda m, x: tuple(m.sort(x)), [(3, 6)], NUM),
    "sort_dim0_desc": (lambda m, x: tuple(x.sort(0, descending=True)), [(5, 3)], NUM),
    "sort_stable": (lambda m, x: tuple(m.sort(x, dim=1, stable=True)), [(3, 40)], ["int64"]),
    "sort_bool": (lambda m, x: m.sort(x, stable=True)[1], [(3, 7)], ["bool"]),
    "argsort": (lambda m, x: m.argsort(x, dim=1, stable=True), [(3, 30)], ["int32", "float32"]),
    "argsort_desc": (lambda m, x: x.argsort(dim=0, descending=True, stable=True), [(30, 3)], ["int64"]),
    # Ties may pick other (equally valid) indices than torch: compare the values and what
    # the indices point at.
    "topk": (lambda m, x: _topk_checked(m, x, 3), [(4, 7)], NUM),
    "topk_smallest": (lambda m, x: _topk_checked(m, x, 2, dim=0, largest=False), [(7, 4)], FLOAT),
    "topk_distinct": (lambda m, x: tuple(m.topk(x * 1.001 ** m.arange(28.0).view(4, 7), 3)), [(4, 7)], FLOAT),
    "topk_values_unsorted": (lambda m, x: m.topk(x, 3, sorted=False)[0].sort()[0], [(4, 7)], FLOAT),
    "sinh": (lambda m, x: m.sinh(x), [(3, 4)], NUM),
    "cosh": (lambda m, x: x.cosh(), [(3, 4)], NUM),
    "asinh": (lambda m, x: m.asinh(x), [(3, 4)], NUM),
    "acosh": (lambda m, x: m.acosh(x.abs() + 1), [(3, 4)], FLOAT),
    "acosh_nan": (lambda m, x: m.acosh(x), [(3, 4)], FLOAT),
    "atanh": (lambda m, x: m.atanh(x / 4), [(3, 4)], FLOAT),
    "erfinv": (lambda m, x: m.erfinv(x / 3.5), [(3, 4)], FLOAT),
    "isnan": (lambda m, x: m.isnan(x.log()), [(3, 4)], ALL),
    "isinf": (lambda m, x: m.isinf(1 / x.floor()), [(3, 4)], FLOAT),
    "isposinf": (lambda m, x: m.isposinf(1 / x.floor()), [(3, 4)], FLOAT),
    "isneginf": (lambda m, x: x.floor().reciprocal().isneginf(), [(3, 4)], FLOAT),
    "isfinite": (lambda m, x: m.isfinite((1 / x.floor()) * x.sign().log()), [(3, 4)], FLOAT),
    "isfinite_int": (lambda m, x: m.isfinite(x), [(3, 4)], ["bool", "int64", "uint8"]),
    "isinf_int": (lambda m, x: m.isinf(x), [(3, 4)], ["int32"]),
    "lerp": (lambda m, a, b: m.lerp(a, b, 0.3), [(3, 4), (3, 4)], FLOAT),
    "lerp_high": (lambda m, a, b: a.lerp(b, 0.8), [(3, 4), (4,)], FLOAT),
    "lerp_tensor": (lambda m, a, b, w: m.lerp(a, b, w), [(3, 4), (3, 4), (4,)], FLOAT),
    "addcmul": (lambda m, s, a, b: m.addcmul(s, a, b), [(3, 4), (3, 4), (4,)], NUM),
    "addcmul_value": (lambda m, s, a, b: s.addcmul(a, b, value=-0.5), [(3, 4), (3, 1), (4,)], FLOAT),
    "addcmul_int_value": (lambda m, s, a, b: m.addcmul(s, a, b, value=2), [(3, 4), (3, 4), (3, 4)], ["int64"]),
    "addcdiv": (lambda m, s, a, b: m.addcdiv(s, a, b.abs() + 1, value=2.0), [(3, 4), (3, 4), (3, 4)], FLOAT),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    fn, shapes, dtypes = FORWARD[name]
    check_op(fn, shapes, dtypes=dtypes, layouts=LAYOUTS, rtol=1e-5, atol=1e-5)


# name: (fn, shapes). Gradients against torch in every layout, and a gradcheck.
GRADS = {
    "cumsum": (lambda m, x: m.cumsum(x, 1), [(3, 5)]),
    "cumsum_neg": (lambda m, x: x.cumsum(-3), [(2, 3, 4)]),
    "cumsum_dtype": (lambda m, x: x.cumsum(0, dtype=m.float64), [(4, 3)]),
    "cumprod": (lambda m, x: m.cumprod(x, 1), [(3, 5)]),
    "cumprod_dim0": (lambda m, x: x.cumprod(0), [(5, 3)]),
    "tril": (lambda m, x: m.tril(x, -1), [(2, 4, 4)]),
    "triu": (lambda m, x: x.triu(1), [(4, 5)]),
    "flip": (lambda m, x: x.flip(0, 2), [(2, 3, 4)]),
    "roll": (lambda m, x: m.roll(x, (1, -2), (0, 1)), [(3, 4)]),
    "roll_flat": (lambda m, x: m.roll(x, 3), [(3, 4)]),
    "sort_values": (lambda m, x: m.sort(x, 1)[0], [(3, 5)]),
    "sort_desc": (lambda m, x: x.sort(0, True).values, [(4, 3)]),
    "topk": (lambda m, x: m.topk(x, 2)[0], [(3, 5)]),
    "topk_dim0": (lambda m, x: x.topk(3, 0, largest=False).values, [(5, 3)]),
    "sinh": (lambda m, x: m.sinh(x), [(3, 4)]),
    "cosh": (lambda m, x: m.cosh(x), [(3, 4)]),
    "asinh": (lambda m, x: m.asinh(x), [(3, 4)]),
    "acosh": (lambda m, x: m.acosh(x * x + 1.5), [(3, 4)]),
    "atanh": (lambda m, x: m.atanh(x / 3), [(3, 4)]),
    "erfinv": (lambda m, x: m.erfinv(x / 3), [(3, 4)]),
    "lerp": (lambda m, a, b: m.lerp(a, b, 0.25), [(3, 4), (4,)]),
    "lerp_high": (lambda m, a, b: m.lerp(a, b, 0.75), [(3, 4), (3, 4)]),
    "lerp_tensor": (lambda m, a, b, w: m.lerp(a, b, w), [(3, 4), (3, 4), (3, 1)]),
    "addcmul": (lambda m, s, a, b: m.addcmul(s, a, b, value=0.5), [(3, 4), (4,), (3, 4)]),
    "addcdiv": (lambda m, s, a, b: m.addcdiv(s, a, b * b + 1, value=-2), [(3, 4), (3, 4), (3, 1)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_grad_matches_torch(name, layout):
    fn, shapes = GRADS[name]
    if name.startswith("topk") and layout == "expanded":
        pytest.skip("ties (identical rows) may pick other indices than torch's topk")
    check_grad(fn, shapes, layouts=[layout])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, shapes = GRADS[name]
    gradcheck_op(fn, shapes)


# ---- cumprod with zeros: first and double backward, as torch ------------------------------
@pytest.mark.parametrize("vals", [[2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 2.0, 5.0], [1.5, 2.0, 3.0, 0.0],
                                  [0.0, 1.0, 2.0, 3.0], [2.0, -1.0, 0.5, 4.0]])
def test_cumprod_grad_with_zeros(vals):
    g = [0.5, -1.0, 2.0, 1.5]
    xe = ember.tensor([vals, vals[::-1]], dtype=ember.float64, requires_grad=True)
    xt = torch.tensor([vals, vals[::-1]], dtype=torch.float64, requires_grad=True)
    (ge,) = ember.autograd.grad(xe.cumprod(1), xe, ember.tensor([g, g], dtype=ember.float64),
                                create_graph=True)
    (gt,) = torch.autograd.grad(xt.cumprod(1), xt, torch.tensor([g, g], dtype=torch.float64),
                                create_graph=True)
    assert_same(ge, gt, 1e-12, 1e-12)
    # Second order: the create_graph path is made of differentiable ops.
    (gge,) = ember.autograd.grad(ge.sum(), xe)
    (ggt,) = torch.autograd.grad(gt.sum(), xt)
    assert_same(gge, ggt, 1e-10, 1e-10)
    # The fast (no create_graph) path agrees with it.
    xe2 = ember.tensor([vals, vals[::-1]], dtype=ember.float64, requires_grad=True)
    xe2.cumprod(1).backward(ember.tensor([g, g], dtype=ember.float64))
    assert_same(xe2.grad, gt, 1e-12, 1e-12)


def test_cumprod_gradcheck_with_zeros():
    x = ember.tensor([[1.0, 0.0, 2.0, 0.5], [0.3, 1.2, 0.0, 0.0]], dtype=ember.float64,
                     requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.cumprod(1), [x], eps=1e-6, atol=1e-5, rtol=1e-3)


def test_double_backward_cumsum_sort():
    for f in (lambda m, x: (m.cumsum(x, 0) ** 2).sum(), lambda m, x: (m.sort(x, 0)[0] ** 3).sum(),
              lambda m, x: (m.sinh(x) * m.erfinv(x / 3)).sum()):
        xe = ember.tensor([[0.3, -1.2], [0.7, 0.1], [-0.4, 2.0]], dtype=ember.float64, requires_grad=True)
        xt = torch.tensor([[0.3, -1.2], [0.7, 0.1], [-0.4, 2.0]], dtype=torch.float64, requires_grad=True)
        (ge,) = ember.autograd.grad(f(ember, xe), xe, create_graph=True)
        (gt,) = torch.autograd.grad(f(torch, xt), xt, create_graph=True)
        (gge,) = ember.autograd.grad(ge.sum(), xe)
        (ggt,) = torch.autograd.grad(gt.sum(), xt)
        assert_same(gge, ggt, 1e-9, 1e-9)


# ---- sorting details --------------------------------------------------------------------
def test_sort_nan_and_inf_order():
    vals = [3.0, float("nan"), -float("inf"), 1.0, float("inf"), float("nan"), -2.0, 1.0]
    for desc in (False, True):
        for dt in ("float32", "float64"):
            e = ember.sort(ember.tensor(vals, dtype=getattr(ember, dt)), descending=desc, stable=True)
            t = torch.sort(torch.tensor(vals, dtype=getattr(torch, dt)), descending=desc, stable=True)
            assert_same(tuple(e), tuple(t))
    e = ember.topk(ember.tensor(vals), 3)
    t = torch.topk(torch.tensor(vals), 3)
    assert_same(tuple(e), tuple(t))
    e = ember.topk(ember.tensor(vals), 3, largest=False)
    t = torch.topk(torch.tensor(vals), 3, largest=False)
    assert_same(tuple(e), tuple(t))


def test_sort_returns_named_tuple():
    x = ember.tensor([[3.0, 1.0, 2.0]])
    r = x.sort()
    assert type(r).__name__ == "sort" and r.values.tolist() == [[1.0, 2.0, 3.0]]
    assert r.indices.tolist() == [[1, 2, 0]] and r.indices.dtype == ember.int64
    values, indices = ember.topk(x, 2)
    assert values.tolist() == [[3.0, 2.0]] and indices.tolist() == [[0, 2]]
    assert type(ember.topk(x, 1)).__name__ == "topk"
    assert "return_types.sort" in repr(r)
    assert not r.indices.requires_grad


def test_sort_big_rows_match_torch_any_thread_count():
    rng = np.random.default_rng(3)
    arr = rng.integers(0, 50, size=(64, 3000)).astype(np.float32)
    t = torch.sort(torch.from_numpy(arr), dim=1, stable=True)

    def check():
        e = ember.sort(ember.from_numpy(arr), dim=1, stable=True)
        assert_same(tuple(e), tuple(t))
        c = ember.cumsum(ember.from_numpy(arr), 1)
        assert_same(c, torch.cumsum(torch.from_numpy(arr), 1), 1e-6, 1e-3)
    on_thread_counts(check)


# ---- 0-d, empty, in-place ---------------------------------------------------------------
@pytest.mark.parametrize("f", [
    lambda m, x: m.cumsum(x, 0), lambda m, x: m.cumprod(x, -1), lambda m, x: m.flip(x, ()),
    lambda m, x: m.flip(x, (0,)), lambda m, x: m.roll(x, 2), lambda m, x: tuple(m.sort(x)),
    lambda m, x: m.argsort(x), lambda m, x: tuple(m.topk(x, 1)), lambda m, x: m.sinh(x),
    lambda m, x: m.isnan(x), lambda m, x: m.lerp(x, x * 2, 0.5), lambda m, x: m.addcmul(x, x, x),
])
def test_zero_dim(f):
    check_op(f, [()], dtypes=["float32"])


@pytest.mark.parametrize("f", [
    lambda m, x: m.cumsum(x, 1), lambda m, x: m.cumprod(x, 0), lambda m, x: m.tril(x),
    lambda m, x: m.triu(x, 1), lambda m, x: m.flip(x, (0, 1)), lambda m, x: m.roll(x, 1, 1),
    lambda m, x: m.roll(x, 1), lambda m, x: tuple(m.sort(x, 0)), lambda m, x: tuple(m.topk(x, 0)),
    lambda m, x: m.erfinv(x), lambda m, x: m.isinf(x), lambda m, x: m.addcdiv(x, x, x),
])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_empty(f, shape):
    check_op(f, [shape], dtypes=["float32"])


def test_inplace_variants():
    a = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    for name, args in [("tril_", (1,)), ("triu_", (-1,)), ("sinh_", ()), ("asinh_", ()),
                       ("lerp_", (None, 0.3)), ("addcmul_", (None, None)), ("addcdiv_", (None, None)),
                       ("cumsum_", (0,)), ("cumprod_", (1,))]:
        ea = [a * 0.1 + 1 if x is None else x for x in args]
        ta = [t * 0.1 + 1 if x is None else x for x in args]
        e2, t2 = a.clone(), t.clone()
        r = getattr(e2, name)(*ea)
        getattr(t2, name)(*ta)
        assert r is e2, name
        assert_same(e2, t2, 1e-6, 1e-6)
    e2, t2 = a.clone(), t.clone()
    e2.addcmul_(a, a, value=0.5)
    t2.addcmul_(t, t, value=0.5)
    assert_same(e2, t2)
    e2, t2 = a.clone(), t.clone()
    ember.sinh_(e2)
    torch.sinh_(t2)
    assert_same(e2, t2)


def test_inplace_autograd():
    for name, args in [("tril_", (0,)), ("lerp_", ("end", 0.3)), ("addcmul_", ("end", "end")),
                       ("addcdiv_", ("end", "end")), ("sinh_", ()), ("cumprod_", (1,)),
                       ("cumsum_", (0,)), ("triu_", (1,))]:
        grads = []
        for m in (ember, torch):
            x = m.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=m.float64, requires_grad=True)
            end = m.tensor([[0.5, -0.2], [0.25, 0.8]], dtype=m.float64, requires_grad=True)
            y = x * 1.0
            getattr(y, name)(*[end if a == "end" else a for a in args])
            (y * y).sum().backward()
            grads.append((x.grad, end.grad))
        assert_same(grads[0][0], grads[1][0], 1e-10, 1e-10)
        if grads[1][1] is not None:
            assert_same(grads[0][1], grads[1][1], 1e-10, 1e-10)


def test_inplace_on_leaf_raises():
    x = ember.ones(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.tril_()
    with pytest.raises(RuntimeError, match="leaf"):
        x.sinh_()
    with pytest.raises(RuntimeError, match="leaf"):
        x.cumsum_(0)
    with pytest.raises(TypeError, match="flip"):
        x.flip()


def test_erfinv_edges():
    vals = [-1.0, 1.0, 0.0, 1.5, -2.0, float("nan"), 0.999999, -0.9999999, 1e-8]
    for dt in ("float32", "float64"):
        e = ember.erfinv(ember.tensor(vals, dtype=getattr(ember, dt)))
        t = torch.erfinv(torch.tensor(vals, dtype=getattr(torch, dt)))
        # Near +-1 erfinv is ill-conditioned: both libraries are within ~1e-11 of each other.
        assert_same(e, t, 1e-5 if dt == "float32" else 1e-10, 1e-6 if dt == "float32" else 1e-10)
    x = np.linspace(-0.999, 0.999, 2001)
    assert_same(ember.erfinv(ember.from_numpy(x)), torch.erfinv(torch.from_numpy(x)), 1e-12, 1e-13)


def test_lerp_endpoints_exact():
    a, b = ember.tensor([1.0, -3.0, 1e8]), ember.tensor([2.5, 7.0, -1e-8])
    assert ember.lerp(a, b, 1.0).tolist() == b.tolist()
    assert ember.lerp(a, b, 0.0).tolist() == a.tolist()
    w = ember.tensor([1.0, 0.0, 1.0])
    assert_same(ember.lerp(a, b, w), torch.lerp(torch.tensor(a.tolist()), torch.tensor(b.tolist()),
                                                 torch.tensor(w.tolist())), 0, 0)


def test_flip_roll_do_not_share_memory():
    x = ember.arange(6.0).view(2, 3)
    for y in (x.flip(0), x.roll(0, 0), ember.roll(x, 3)):
        y.add_(1)
        assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


# ---- bad inputs --------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, match", [
    (lambda m, x: m.tril(x[0]), RuntimeError, "tril"),
    (lambda m, x: m.triu(x[0][0]), RuntimeError, "triu"),
    (lambda m, x: m.cumsum(x, 2), IndexError, None),
    (lambda m, x: m.cumprod(x, -3), IndexError, None),
    (lambda m, x: m.flip(x, (0, 0)), RuntimeError, "multiple times"),
    (lambda m, x: m.flip(x, (2,)), IndexError, None),
    (lambda m, x: m.roll(x, (1, 1)), RuntimeError, None),
    (lambda m, x: m.roll(x, (1, 1), (0,)), RuntimeError, None),
    (lambda m, x: m.roll(x, 1, 5), IndexError, None),
    (lambda m, x: m.sort(x, 2), IndexError, None),
    (lambda m, x: m.topk(x, 4), RuntimeError, "k out of range"),
    (lambda m, x: m.topk(x, -1), RuntimeError, "k out of range"),
    (lambda m, x: m.topk(x, 1, 3), IndexError, None),
    (lambda m, x: m.lerp(x, x.double(), 0.5), RuntimeError, "dtype"),
    (lambda m, x: m.lerp(x, x, x.double()), RuntimeError, "dtype"),
    (lambda m, x: m.lerp(x.long(), x.long(), 0.5), NotImplementedError, None),
    (lambda m, x: m.addcdiv(x, x.long(), x.long()), RuntimeError, "ivision"),
    # ember refuses unbroadcastable shapes with ValueError, as in all its broadcasting ops.
    (lambda m, x: m.addcmul(x, x, m.ones(4)), (RuntimeError, ValueError), "addcmul"),
    (lambda m, x: x[0].addcmul_(x, x), RuntimeError, "shape"),
    (lambda m, x: x.long().addcmul_(x, x), RuntimeError, "cast"),
    (lambda m, x: x[0].lerp_(x, 0.5), RuntimeError, "shape"),
    (lambda m, x: x.long().sinh_(), RuntimeError, "cast"),
])
def test_bad_inputs(call, exc, match):
    xt = torch.ones(2, 3)
    with pytest.raises(exc):
        call(torch, xt)
    xe = ember.ones(2, 3)
    with pytest.raises(exc, match=match):
        call(ember, xe)


def test_error_messages_name_the_op():
    x = ember.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"topk: .*k = 5.*\(2, 3\)"):
        ember.topk(x, 5)
    with pytest.raises(RuntimeError, match=r"tril: .*\(3,\)"):
        ember.tril(ember.ones(3))
    with pytest.raises(IndexError, match="cumsum"):
        ember.cumsum(x, 4)


def test_functions_and_methods_exported():
    names = ["tril", "triu", "flip", "fliplr", "flipud", "roll", "cumsum", "cumprod", "sort",
             "argsort", "topk", "lerp", "addcmul", "addcdiv", "sinh", "cosh", "asinh", "acosh",
             "atanh", "erfinv", "isnan", "isinf", "isposinf", "isneginf", "isfinite"]
    for n in names:
        assert callable(getattr(ember, n)), n
        assert callable(getattr(ember.Tensor, n)), n
    for n in ["tril_", "triu_", "lerp_", "addcmul_", "addcdiv_", "sinh_", "erfinv_", "cumsum_"]:
        assert callable(getattr(ember.Tensor, n)), n
    assert math.isclose(ember.tensor(0.5).erfinv().item(), torch.tensor(0.5).erfinv().item(),
                        rel_tol=1e-6)


@pytest.mark.parametrize("name", ["sinh", "cosh", "asinh", "acosh", "atanh", "erfinv"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_special_functions_edges_long_runs(name, dt):
    # Long contiguous runs take the SIMD kernels; out-of-range elements (NaN, inf, overflow,
    # |x| >= 1 for atanh, x < 1 for acosh) must come out as torch's, wherever they sit.
    rng = np.random.default_rng(5)
    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 1.0 - 1e-7, 90.0, -90.0,
                705.0, -705.0, 1e30, -1e30, 0.5, 1.5, 1e-30]
    # (not 710: sinh(710) = 1.1e308 is finite; torch's vectorized sinh overflows to inf there)
    arr = np.concatenate([rng.uniform(-5, 5, 200), specials * 3, rng.uniform(0.9, 1.1, 50)])
    arr = rng.permutation(arr).astype(dt)
    got = getattr(ember, name)(ember.from_numpy(arr.copy()))
    want = getattr(torch, name)(torch.from_numpy(arr.copy()))
    tol = 1e-5 if dt == "float32" else 1e-10
    assert_same(got, want, tol, tol)


def test_fused_inplace_with_aliasing_operands():
    # The one-pass kernel reads the operands while writing self: exact aliases are fine, a
    # shifted view of self must see the old values (it takes the out-of-place path).
    base = np.arange(1.0, 13.0, dtype=np.float32)
    # torch refuses partial overlap outright; ember computes it as if out of place, which is
    # what torch gives with the operand cloned.
    results = []
    for m in (ember, torch):
        copy = (lambda t: t) if m is ember else (lambda t: t.clone())
        x = m.from_numpy(base.copy())
        x.addcmul_(x, x, value=0.5)
        y = m.from_numpy(base.copy())
        y[1:].addcdiv_(copy(y[:-1]), y[:-1] + 1, value=2)
        z = m.from_numpy(base.copy())
        z[:-1].lerp_(copy(z[1:]), 0.7)
        w = m.from_numpy(base.copy()).view(3, 4)
        w.lerp_(w.t().contiguous().view(3, 4), w * 0.1)
        results.append((x, y, z, w))
    assert_same(results[0], results[1], 1e-6, 1e-6)


def test_mixed_dtypes_take_the_general_path():
    for f in (lambda m: m.addcmul(m.ones(3, dtype=m.float64), m.arange(3), m.ones(3), value=2),
              lambda m: m.addcdiv(m.ones(3), m.arange(3.0, dtype=m.float64), m.arange(1, 4)),
              lambda m: m.addcmul(m.arange(3), m.arange(3), m.arange(3)),
              lambda m: m.addcmul(m.tensor(1.0), m.ones(2, 3), m.ones(3), value=0.25)):
        assert_same(f(ember), f(torch))
