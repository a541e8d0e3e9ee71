"""Elementwise ops against PyTorch: every op in ops.def (the list comes from ember._C, so an
op added there is tested here), all dtypes and layouts, broadcasting, 0-d and empty
tensors, NaN/inf and domain edges, Python scalars on either side, operators, in-place
variants and augmented assignment, clamp/where/masked_fill, and the errors PyTorch raises."""
import math
import operator

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op

ALL = ["bool", "uint8", "int32", "int64", "float32", "float64"]
INTS = ["uint8", "int32", "int64"]
FLOATS = ["float32", "float64"]

_info = getattr(ember._C, "_op_info", None) or ember._C.op_info
OPS = _info()
UNARY = [n for n, fam, _ in OPS if fam == "unary"]
BINARY = [n for n, fam, _ in OPS if fam == "binary"]
COMPARE = [n for n, fam, _ in OPS if fam == "compare"]
FLOAT_UNARY = {n for n, fam, kind in OPS if fam == "unary" and kind == "F"}


def tol(dtype):
    """rtol/atol: float64 tight, float32 loose enough for transcendental ops."""
    return dict(rtol=1e-6, atol=1e-6) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)


def check_each(fn, shapes, dtypes, layouts=("contiguous",), **kw):
    for dt in dtypes:
        check_op(fn, shapes, [dt], layouts, **{**tol(dt), **kw})


def both(data, dtype=None):
    """The same values as an (ember, torch) pair."""
    e = ember.tensor(data, dtype=getattr(ember, dtype) if dtype else None)
    t = torch.tensor(data, dtype=getattr(torch, dtype) if dtype else None)
    return e, t


def run_both(fn, *datas, dtype=None, **kw):
    """fn(module, *tensors) on the same literal data in both libraries; equal results or
    the same refusal."""
    pairs = [both(d, dtype) for d in datas]
    try:
        expected = fn(torch, *[t for _, t in pairs])
    except Exception:
        with pytest.raises((RuntimeError, ValueError, TypeError, IndexError, NotImplementedError)):
            fn(ember, *[e for e, _ in pairs])
        return
    assert_same(fn(ember, *[e for e, _ in pairs]), expected, **{**tol(dtype or "float32"), **kw})


def test_op_list_is_complete():
    assert len(UNARY) >= 23 and len(BINARY) >= 13 and len(COMPARE) >= 9
    for name in UNARY + BINARY + COMPARE:
        assert hasattr(ember, name) and hasattr(ember.Tensor, name), name
    for name in UNARY + BINARY:
        assert hasattr(ember.Tensor, name + "_"), name


# ---- unary ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, layout):
    check_each(lambda m, x: getattr(m, name)(x), [(3, 4)], ALL, [layout])
    check_each(lambda m, x: getattr(x, name)(), [(2, 3, 4)], FLOATS, [layout])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (1,), (5,), (70, 33)])
def test_unary_shapes(name, shape):
    check_each(lambda m, x: getattr(m, name)(x), [shape], ["float32", "int64"])


SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5,
           2.5, -2.5, 3.7, -3.7, 1e-30, 1e-3, 88.0, -88.0, 700.0, -700.0, 1e6, -1e6]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_special_values(name, dtype):
    """NaN and inf pass through, log/sqrt of negatives give NaN, 1/0 gives inf, round
    is half-to-even, sign(NaN) is 0, exp overflows to inf..."""
    run_both(lambda m, x: getattr(m, name)(x), SPECIAL, dtype=dtype)


@pytest.mark.parametrize("name", ["log", "log2", "sqrt", "rsqrt", "log1p"])
def test_unary_domain_edges_give_nan(name):
    e = getattr(ember, name)(ember.tensor([-1.5, -5.0]))
    assert all(math.isnan(v) for v in e.tolist())


def test_unary_on_integers_promote_to_float():
    for name in FLOAT_UNARY:
        for dt in INTS + ["bool"]:
            x = ember.ones(3, dtype=getattr(ember, dt))
            assert getattr(ember, name)(x).dtype == ember.float32, (name, dt)


@pytest.mark.parametrize("name", ["neg", "abs", "floor", "ceil", "round", "trunc", "relu"])
def test_unary_bool_refused_like_torch(name):
    run_both(lambda m, x: getattr(m, name)(x), [True, False])


def test_unary_bool_square_is_int64_and_sign_stays_bool():
    run_both(lambda m, x: m.square(x), [True, False])
    run_both(lambda m, x: m.sign(x), [True, False])


def test_unsigned_wraps_like_torch():
    run_both(lambda m, x: -x, [0, 1, 200], dtype="uint8")
    run_both(lambda m, x: m.square(x), [16, 250], dtype="uint8")
    run_both(lambda m, x: m.abs(x), [0, 255], dtype="uint8")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_inplace(name, layout):
    # integer inputs of the float ops must refuse (the result can't be cast back);
    # the expanded layout must refuse (several elements share one memory location).
    def fn(m, x):
        y = x.clone() if layout != "expanded" else x
        out = getattr(y, name + "_")()
        assert out is y
        return y
    check_each(fn, [(3, 4)], ALL, [layout])


def test_unary_large_tensor_parallel_path():
    check_each(lambda m, x: m.exp(x) + m.sin(x), [(300, 700)], FLOATS)
    check_each(lambda m, x: m.sigmoid(x.t()), [(500, 300)], ["float32"])


# ---- binary --------------------------------------------------------------------------------

BCAST = [[(3, 4), (3, 4)], [(3, 1), (4,)], [(2, 3, 4), (3, 1)], [(4,), (2, 1, 4)],
         [(), (3,)], [(2, 3), ()], [(), ()], [(0, 3), (3,)], [(0, 3), (1, 1)], [(5, 0), (5, 1)]]


def int_safe(name):
    """The integer floor_divide/remainder raise on a zero divisor: shift divisors away
    from 0 so the values (not only the error) get compared."""
    if name in ("floor_divide", "remainder"):
        return lambda m, x, y: getattr(m, name)(x, m.where(y == 0, 1, y))
    return lambda m, x, y: getattr(m, name)(x, y)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, layout):
    check_each(int_safe(name), [(3, 4), (3, 4)], ALL, [layout])


@pytest.mark.parametrize("shapes", BCAST, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcast(name, shapes):
    check_each(int_safe(name), shapes, ["float32", "float64", "int32", "int64"])


@pytest.mark.parametrize("name", BINARY)
def test_binary_raw_random_ints_raise_or_match(name):
    # random int divisors include 0: floor_divide/remainder must raise like torch
    check_each(lambda m, x, y: getattr(m, name)(x, y), [(4, 5), (5,)], ALL)


def test_binary_shapes_that_do_not_broadcast():
    for name in BINARY + COMPARE:
        with pytest.raises(ValueError, match=name):
            getattr(ember, name)(ember.ones(3, 4, dtype=ember.int64), ember.ones(5, dtype=ember.int64))


MIXED_OPS = ["add", "sub", "mul", "div", "maximum", "atan2", "bitwise_or", "eq", "lt",
             "logical_and", "floor_divide", "pow"]


@pytest.mark.parametrize("da", ALL)
@pytest.mark.parametrize("db", ALL)
def test_binary_mixed_dtypes(da, db):
    """Operands of two dtypes: the promoted result dtype and values match torch (or both refuse)."""
    # negative floats converted to uint8 are platform-defined in torch: keep them >= 0 there
    low = 0 if "uint8" in (da, db) else -4
    positive = db not in ("bool", "uint8")  # divisors/exponents shifted away from 0

    def fn(m, x, y, name):
        x, y = x.to(getattr(m, da)), y.to(getattr(m, db))
        if name in ("floor_divide", "pow") and positive:
            y = y.abs() + 1
        return getattr(m, name)(x, y)
    for name in MIXED_OPS:
        check_op(lambda m, x, y: fn(m, x, y, name), [(3, 4), (4,)], ["float64"], low=low, high=4)


@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_special_values(dtype):
    a = [1.0, -1.0, 0.0, -0.0, float("inf"), -float("inf"), float("nan"), 7.0, -7.0, 1.0, 5.0, 1e30]
    b = [0.0, 0.0, 0.0, 0.0, 2.0, float("inf"), 1.0, -2.0, 2.0, 0.1, float("inf"), -1e-30]
    for name in BINARY:
        run_both(lambda m, x, y: getattr(m, name)(x, y), a, b, dtype=dtype)
        run_both(lambda m, x, y: getattr(m, name)(y, x), a, b, dtype=dtype)


def test_float_division_by_zero_and_python_floor_division():
    run_both(lambda m, x, y: x / y, [1.0, -1.0, 0.0], [0.0, 0.0, 0.0])  # inf, -inf, nan
    # floor division rounds like Python: 1 // 0.1 == 9 (not floor(1 / 0.1) == 10)
    run_both(lambda m, x, y: x // y, [1.0, 0.3, -1.0, 7.0, -7.0], [0.1, 0.1, 0.3, -2.0, 2.0])
    run_both(lambda m, x, y: x // y, [1.0, 0.3, -1.0, 7.0], [0.1, 0.1, 0.3, -2.0], dtype="float64")
    run_both(lambda m, x, y: x % y, [1.0, 0.3, -1.0, 7.0, -7.0], [0.1, 0.1, 0.3, -2.0, 2.0])


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero_raises(dtype):
    x = ember.tensor([5, 6], dtype=getattr(ember, dtype))
    z = ember.tensor([1, 0], dtype=getattr(ember, dtype))
    for fn in [lambda: x // 0, lambda: x % 0, lambda: x // z, lambda: x % z,
               lambda: ember.floor_divide(x, z), lambda: ember.remainder(x, 0),
               lambda: 5 // z, lambda: 5 % z, lambda: x.clone().floor_divide_(z),
               lambda: x.clone().remainder_(0)]:
        with pytest.raises(RuntimeError, match="division by zero"):
            fn()
    assert x.tolist() == [5, 6]  # untouched
    # true division of integers is float: x / 0 is inf
    assert (x / 0).tolist() == [math.inf, math.inf]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_floor_division_and_remainder_signs(dtype):
    a = [-7, 7, -7, 7, 0, -1, 6, -6]
    b = [2, -2, -2, 2, 3, 5, -4, 4]
    run_both(lambda m, x, y: x // y, a, b, dtype=dtype)
    run_both(lambda m, x, y: x % y, a, b, dtype=dtype)
    run_both(lambda m, x, y: m.floor_divide(x, -1), [-2**31, 5, -5], dtype=dtype)
    run_both(lambda m, x, y: m.remainder(x, -1), [-2**31, 5, -5], dtype=dtype)


def test_integer_pow():
    run_both(lambda m, x, y: x ** y, [2, 3, -2, 0, 1, -1, 5], [3, 0, 3, 0, -2, -3, -1])
    run_both(lambda m, x: x ** 2, [2, -3, 0])
    run_both(lambda m, x: x ** 0.5, [4, 9])
    run_both(lambda m, x: 2 ** x, [0, 3, 10, -1])
    run_both(lambda m, x: x ** 40, [2, 3], dtype="int32")  # wraps like torch
    for exp in [-1, -2]:  # a negative int exponent has no integer result: refused
        for dt in ["int64", "int32", "uint8", "bool"]:
            run_both(lambda m, x: x ** exp, [2, 1], dtype=dt)
            run_both(lambda m, x: x.clone().pow_(exp), [2, 1], dtype=dt)


@pytest.mark.parametrize("name", ["pow", "floor_divide", "remainder", "sub"])
def test_bool_only_ops_refused(name):
    run_both(lambda m, x, y: getattr(m, name)(x, y), [True, False], [True, True])


def test_bool_arithmetic():
    for op in [operator.add, operator.mul, operator.truediv, operator.and_, operator.or_,
               operator.xor]:
        run_both(lambda m, x, y: op(x, y), [True, False, True], [True, True, False])
    run_both(lambda m, x, y: m.maximum(x, y), [True, False], [False, False])
    # `-` with any bool operand is refused, even against a float
    for fn in [lambda m, x, y: x - 1.5, lambda m, x, y: 1.5 - x, lambda m, x, y: y - x,
               lambda m, x, y: x - y, lambda m, x, y: y - True, lambda m, x, y: m.sub(y, x)]:
        pairs = [both([True, False]), both([1.0, 2.0])]
        with pytest.raises(Exception):
            fn(torch, *[t for _, t in pairs])
        with pytest.raises(TypeError, match="sub"):
            fn(ember, *[e for e, _ in pairs])


def test_bitwise_refuses_floats():
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"]:
        fn = getattr(ember, name)
        with pytest.raises(TypeError, match=name):
            fn(ember.ones(2)) if name == "bitwise_not" else fn(ember.ones(2), ember.ones(2))
    with pytest.raises(TypeError):
        ~ember.ones(2)


@pytest.mark.parametrize("dtype", ["bool"] + INTS)
def test_bitwise_not(dtype):
    check_op(lambda m, x: m.bitwise_not(x), [(3, 4)], [dtype], LAYOUTS)
    check_op(lambda m, x: ~x, [(3, 4)], [dtype])


def test_add_sub_alpha():
    check_each(lambda m, x, y: m.add(x, y, alpha=2), [(3, 4), (4,)], ALL)
    check_each(lambda m, x, y: m.sub(x, y, alpha=3), [(3, 4), (4,)], ["int32", "int64", "float32"])
    check_each(lambda m, x, y: x.add(y, alpha=-0.5), [(3, 4), (3, 4)], FLOATS)
    check_each(lambda m, x, y: x.clone().add_(y, alpha=2), [(3, 4), (4,)], ["int64", "float32"])
    check_each(lambda m, x, y: x.clone().sub_(y, alpha=0.5), [(3, 4), (4,)], FLOATS)
    check_each(lambda m, x: m.add(x, 2, alpha=3), [(3,)], ["int64", "float32"])
    check_each(lambda m, x: x.add(2.5, alpha=2), [(3,)], ["int64", "float32"])
    # a float alpha needs a float result; a bool alpha a bool one
    check_each(lambda m, x, y: m.add(x, y, alpha=1.5), [(3,), (3,)], ALL)
    check_each(lambda m, x, y: x.clone().add_(y, alpha=1.5), [(3,), (3,)], ALL)
    check_each(lambda m, x, y: m.add(x, y, alpha=True), [(3,), (3,)], ALL)


def _into_first(fn):
    """fn(m, x, y, out=x) on a copy of x (out aliasing the input, as a Polyak update writes)."""
    def run(m, x, y):
        x = x.clone()
        r = fn(m, x, y, out=x)
        assert r is x
        return x
    return run


def test_add_sub_div_alpha_or_mode_with_out():
    check_each(_into_first(lambda m, x, y, out: m.add(x, y, alpha=0.005, out=out)),
               [(3, 4), (4,)], FLOATS)
    check_each(_into_first(lambda m, x, y, out: m.sub(x, y, alpha=2, out=out)),
               [(3, 4), (3, 4)], ["int64", "float32"])
    check_each(_into_first(lambda m, x, y, out: m.div(x, y, rounding_mode="floor", out=out)),
               [(3, 4), (4,)], ["float32", "float64"])
    check_each(lambda m, x, y: m.add(x, y, alpha=2, out=m.empty(0, dtype=x.dtype)), [(2, 3), (3,)],
               ["float32"])
    for m in (torch, ember):
        with pytest.raises(RuntimeError):  # an int tensor cannot hold a float result
            m.add(m.ones(3), m.ones(3), alpha=0.5, out=m.zeros(3, dtype=m.int64))


# ---- Python scalars, operators, reflected operators ------------------------------------------

ARITH_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod, "**": operator.pow}
BIT_OPS = {"&": operator.and_, "|": operator.or_, "^": operator.xor}
CMP_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne}
SCALARS = [2, -3, 0, 2.5, -0.5, True, False]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("sym", list(ARITH_OPS) + list(BIT_OPS) + list(CMP_OPS))
def test_operator_with_scalar(sym, scalar):
    op = {**ARITH_OPS, **BIT_OPS, **CMP_OPS}[sym]
    for dt in ALL:
        check_op(lambda m, x: op(x, scalar), [(3, 4)], [dt], **tol(dt))      # t op s
        check_op(lambda m, x: op(scalar, x), [(3, 4)], [dt], **tol(dt))      # s op t (reflected)
    check_op(lambda m, x: op(x, scalar), [()], ["float32", "int32"])        # 0-d


@pytest.mark.parametrize("sym", list(ARITH_OPS) + list(BIT_OPS) + list(CMP_OPS))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_operator_tensor_tensor(sym, layout):
    op = {**ARITH_OPS, **BIT_OPS, **CMP_OPS}[sym]
    safe = sym in ("//", "%")
    for dt in ALL:
        check_op(lambda m, x, y: op(x, m.where(y == 0, 1, y) if safe else y), [(3, 4), (3, 4)],
                 [dt], [layout], **tol(dt))
        check_op(lambda m, x, y: op(x, y), [(2, 3, 4), (3, 1)], [dt], **tol(dt))


@pytest.mark.parametrize("name", BINARY)
def test_function_forms_with_scalars(name):
    if name in ("maximum", "minimum", "atan2"):
        # torch accepts only tensors here; ember also takes a number (a documented extension)
        check_each(lambda m, x: getattr(m, name)(x, m.tensor(2.5)), [(3, 4)], ALL)
        assert_same(getattr(ember, name)(ember.tensor([1.0, 4.0]), 2.5),
                    getattr(torch, name)(torch.tensor([1.0, 4.0]), torch.tensor(2.5)))
        return
    for s in [3, 2.5, True]:
        check_each(lambda m, x: getattr(m, name)(x, s), [(3, 4)], ALL)
        check_each(lambda m, x: getattr(x, name)(s), [(3, 4)], ["float32", "int64"])
    if name not in ("maximum", "minimum", "atan2"):  # torch has no scalar form of these
        for s in [3, 2.5]:
            check_each(lambda m, x: getattr(m, name)(s, x), [(3, 4)], ["float32", "int64"])


def test_huge_python_scalars_overflow_to_inf():
    # a Python float too big for float32 is not an error in arithmetic (unlike fill_/full)
    for fn in [lambda m, x: x * 1e300, lambda m, x: x + 1e300, lambda m, x: 1e300 - x,
               lambda m, x: m.add(x, 1e300, alpha=2), lambda m, x: x / 1e-300]:
        run_both(fn, [1.0, -1.0])
        e, t = both([1.0, -1.0])
        assert_same(fn(ember, e.requires_grad_()), fn(torch, t.requires_grad_()).detach())


def test_unary_operators():
    check_each(lambda m, x: -x, [(3, 4)], ALL, LAYOUTS)
    check_each(lambda m, x: abs(x), [(3, 4)], ALL)
    check_each(lambda m, x: +x, [(3, 4)], ALL)


def test_numpy_scalars_as_operands():
    check_each(lambda m, x: x * np.float64(2.5), [(3,)], ["int64", "float32"])
    check_each(lambda m, x: x + np.int64(2), [(3,)], ["int32", "float32"])
    e = np.float32(2.0) * ember.ones(2, dtype=ember.int32)
    assert isinstance(e, ember.Tensor) and e.dtype == ember.float32


def test_operator_with_unsupported_type():
    x = ember.ones(2)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x * [1, 2]
    assert (x == None) is False  # noqa: E711  (falls back to identity, like torch)
    assert (x != None) is True  # noqa: E711


# ---- comparison and logical ops --------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", COMPARE)
def test_compare(name, layout):
    check_op(lambda m, x, y: getattr(m, name)(x, y), [(3, 4), (3, 4)], ALL, [layout], low=-2, high=2)
    check_op(lambda m, x, y: getattr(x, name)(y), [(3, 1), (4,)], ALL, low=-1, high=1)


@pytest.mark.parametrize("name", COMPARE)
def test_compare_with_scalars_nan_and_empty(name):
    for s in [0, 1, -1.5, 0.5, True, 300]:
        if name.startswith("logical"):  # torch takes tensors only; compare with a 0-d tensor
            check_op(lambda m, x: getattr(m, name)(x, m.tensor(s)), [(3, 4)], ALL)
            assert_same(getattr(ember, name)(ember.tensor([0.0, 2.0]), s),
                        getattr(torch, name)(torch.tensor([0.0, 2.0]), torch.tensor(s)))
        else:
            check_op(lambda m, x: getattr(m, name)(x, s), [(3, 4)], ALL)
    nan = [float("nan"), 1.0, float("inf"), -float("inf"), 0.0]
    run_both(lambda m, x, y: getattr(m, name)(x, y), nan, [float("nan"), 1.0, 1.0, -float("inf"), -0.0])
    check_op(lambda m, x, y: getattr(m, name)(x, y), [(0, 3), (3,)], ALL)
    check_op(lambda m, x, y: getattr(m, name)(x, y), [(), (2,)], ALL)


def test_logical_not():
    check_op(lambda m, x: m.logical_not(x), [(3, 4)], ALL, LAYOUTS)
    run_both(lambda m, x: m.logical_not(x), [float("nan"), 0.0, -0.0, 2.0])


def test_compare_mixed_dtypes_promote():
    run_both(lambda m, x, y: x == y.float(), [1, 2, 3], [1, 2, 4])
    run_both(lambda m, x: x < 1.5, [1, 2])
    run_both(lambda m, x: x == 1.0, [True, False])
    run_both(lambda m, x: x > -1, [1, 5], dtype="uint8")


# ---- in-place and augmented assignment --------------------------------------------------------

INPLACE_BINARY = [n for n in BINARY if n not in ("maximum", "minimum")]  # torch has no maximum_


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", INPLACE_BINARY)
def test_binary_inplace(name, layout):
    def fn(m, x, y):
        if name in ("floor_divide", "remainder"):
            y = m.where(y == 0, 1, y)
        z = x.clone() if layout != "expanded" else x  # expanded self: refused by both
        out = getattr(z, name + "_")(y)
        assert out is z
        return z
    check_each(fn, [(3, 4), (3, 4)], ALL, [layout])
    check_each(fn, [(3, 4), (4,)], ALL, [layout])


@pytest.mark.parametrize("name", INPLACE_BINARY)
def test_binary_inplace_scalar_and_promotion_rules(name):
    for s in [2, 2.5, True] if name != "atan2" else []:  # torch's atan2_ takes tensors only
        # int_tensor.add_(2.5) and bool_tensor.add_(2) can't be cast back: refused
        check_each(lambda m, x: getattr(x.clone(), name + "_")(s), [(3, 4)], ALL)
    # self of lower dtype than other: the promoted result must fit self's dtype
    for da, db in [("int32", "float32"), ("float32", "float64"), ("uint8", "int64"),
                   ("int64", "int32"), ("bool", "int64"), ("float64", "int32")]:
        check_op(lambda m, x, y: getattr(x.to(getattr(m, da)).clone(), name + "_")(
            y.to(getattr(m, db)).abs() + 1), [(3, 4), (4,)], ["float64"], low=0, high=5)


def test_inplace_computes_in_promoted_dtype():
    # uint8 //= int64: torch computes in int64, then wraps into uint8
    run_both(lambda m, x: x.to(m.uint8).floor_divide_(m.tensor([-3, 7])), [200, 100])
    run_both(lambda m, x: x.to(m.uint8).remainder_(m.tensor([-3, 7])), [200, 100])
    run_both(lambda m, x: x.float().mul_(m.tensor([0.1, 3.0], dtype=m.float64)), [1, 2])


def test_inplace_broadcast_self_refused():
    for name in ["add_", "mul_", "sub_"]:
        x = ember.ones(3, 1)
        with pytest.raises(RuntimeError, match=name):  # torch's type
            getattr(x, name)(ember.ones(3, 4))
        assert x.tolist() == [[1.0]] * 3


def test_inplace_on_expanded_tensor_refused():
    for fn in [lambda x: x.add_(1), lambda x: x.exp_(), lambda x: x.clamp_(0, 1),
               lambda x: x.mul_(ember.ones(3)), lambda x: x.copy_(ember.ones(3)),
               lambda x: x.neg_()]:
        base = ember.zeros(1)
        with pytest.raises(RuntimeError, match="single memory location"):
            fn(base.expand(3))
        assert base.tolist() == [0.0]
    x = ember.zeros(1).expand(3)
    x.fill_(2)  # allowed, as in torch
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_inplace_with_overlapping_operand():
    # b aliases a's storage with another layout. torch refuses ("some elements of the input
    # tensor and the written-to tensor refer to a single memory location"); ember reads b
    # before writing a, so the result is that of a.op_(b.clone()).
    def fn(m, x, overlap):
        other = x.t() if overlap == "t" else x.narrow(0, 0, 3)
        target = x if overlap == "t" else x.narrow(0, 1, 3)
        if m is torch:
            other = other.clone()
        target.add_(other)
        return x
    check_op(lambda m, x: fn(m, x, "t"), [(4, 4)], ["float32", "int64"])
    check_op(lambda m, x: fn(m, x, "narrow"), [(4, 3)], ["float64"])
    check_op(lambda m, x: x.mul_(x), [(3, 4)], ["int64"], LAYOUTS[:3])  # same layout: fine in both


def test_augmented_assignment_keeps_identity():
    for sym, op in [("+=", operator.iadd), ("-=", operator.isub), ("*=", operator.imul),
                    ("/=", operator.itruediv), ("//=", operator.ifloordiv), ("%=", operator.imod),
                    ("**=", operator.ipow)]:
        for other in [2, 1.5, "tensor"]:
            et, tt = both([[1.0, -2.0, 3.0], [4.5, 5.0, -6.0]])
            eo = ember.tensor([1.5, 2.0, -3.0]) if other == "tensor" else other
            to = torch.tensor([1.5, 2.0, -3.0]) if other == "tensor" else other
            ev, tv = et.t(), tt.t()
            e_id = id(et)
            et = op(et, eo)
            tt = op(tt, to)
            assert id(et) == e_id, sym
            assert_same(et, tt)
            assert_same(ev, tv)  # the view sees the in-place change
    for sym, op in [("&=", operator.iand), ("|=", operator.ior), ("^=", operator.ixor)]:
        et, tt = both([5, 3, 0])
        e_id = id(et)
        et = op(et, 6)
        tt = op(tt, 6)
        assert id(et) == e_id
        assert_same(et, tt)


def test_augmented_assignment_refusals_leave_self_untouched():
    x = ember.tensor([1, 2, 3])
    for fn in [lambda: x.__iadd__(1.5), lambda: x.__itruediv__(2), lambda: x.__imul__(ember.ones(2, 3))]:
        with pytest.raises(RuntimeError):  # torch's type for both refusals
            fn()
    assert x.tolist() == [1, 2, 3]
    b = ember.tensor([True])
    with pytest.raises(RuntimeError):
        b += 1
    assert b.tolist() == [True]


def test_version_counter_bumps_on_every_inplace_write():
    x = ember.zeros(3, 4)
    v = x.t()
    seen = [x._version]
    for fn in [lambda: x.add_(1), lambda: v.mul_(2), lambda: x.exp_(), lambda: x.clamp_(0, 1),
               lambda: x.masked_fill_(x > 0.5, 0), lambda: v.copy_(ember.ones(4, 3)),
               lambda: x.fill_(3), lambda: x.zero_(), lambda: x.narrow(0, 0, 1).neg_(),
               lambda: x.select(1, 2).sub_(ember.ones(3)), lambda: x.__iadd__(1),
               lambda: v.__imul__(v)]:
        fn()
        assert x._version > seen[-1]
        assert v._version == x._version  # one counter per storage, views included
        seen.append(x._version)
    y = x + 1  # out-of-place ops leave it alone
    assert x._version == seen[-1] and y._version == 0


def test_version_counter_counts_like_torch():
    def run(m):
        x = m.zeros(3)
        v = x.view(3)
        x.add_(1)
        v.mul_(2)
        x.sub_(m.ones(3))
        x += 1
        return x._version, v._version
    assert run(ember) == run(torch)


def test_data_has_its_own_version_counter_like_torch():
    """`.data` shares the memory but not the counter (its views share its counter), so a write
    through it is not seen by autograd's check: torchdiffeq's `scratch.data[i] = value`."""
    def run(m):
        x = m.zeros(3, 4)
        x.add_(1)
        d = x.data
        seen = [x._version, d._version]
        d[0] = 5            # a view of .data, then an in-place copy
        d.mul_(2)
        seen += [x._version, d._version, d[1]._version, x.detach()._version]
        x.add_(1)
        seen += [x._version, d._version, x.tolist() == d.tolist()]
        return seen
    assert run(ember) == run(torch)

    def sneak(m):  # autograd's saved-tensor check passes: the write went through .data
        a = m.ones(2, 3, requires_grad=True)
        k = m.zeros(2, 3)
        y = k * a
        k.data[...] = 2.0
        y.sum().backward()
        return a.grad.tolist()
    assert sneak(ember) == sneak(torch)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        a = ember.ones(2, requires_grad=True)
        k = ember.zeros(2)
        y = k * a
        k[...] = 2.0  # through the tensor itself: caught, as in torch
        y.sum().backward()


def test_failed_inplace_does_not_bump_version_or_modify():
    x = ember.ones(3, dtype=ember.int64)
    v0 = x._version
    for fn in [lambda: x.add_(0.5), lambda: x.exp_(), lambda: x.add_(ember.ones(2)),
               lambda: x.floor_divide_(0), lambda: x.pow_(-1)]:
        with pytest.raises(Exception):
            fn()
    assert x._version == v0 and x.tolist() == [1, 1, 1]


# ---- type promotion --------------------------------------------------------------------------

PROMO_CASES = [
    ("int32", [1, 2], 2.5),
    ("float32", [1.0], "float64_0d"),
    ("int32", [1], "int64_0d"),
    ("bool", [True], True),
    ("bool", [True], "bool_t"),
    ("uint8", [1], "int32_t"),
    ("uint8", [1], -3),
    ("bool", [True], 1),
    ("bool", [True], 1.5),
    ("int32", [1], "float64_0d"),
    ("uint8", [1], "int64_0d"),
    ("int64", [1], "float32_t"),
]


def _operand(m, spec):
    if not isinstance(spec, str):
        return spec
    name, kind = spec.rsplit("_", 1)
    dt = getattr(m, name)
    return m.ones((), dtype=dt) if kind == "0d" else m.ones(2, dtype=dt)


@pytest.mark.parametrize("dtype,data,other", PROMO_CASES, ids=str)
def test_promotion_examples(dtype, data, other):
    for op in [operator.add, operator.mul, operator.truediv, lambda a, b: b * a]:
        e = op(ember.tensor(data, dtype=getattr(ember, dtype)), _operand(ember, other))
        t = op(torch.tensor(data, dtype=getattr(torch, dtype)), _operand(torch, other))
        assert_same(e, t)


def test_promotion_named_in_the_brief():
    assert (ember.ones(2, dtype=ember.int64) * 2.5).dtype == ember.float32
    assert (ember.ones(2) + ember.tensor(1.0, dtype=ember.float64)).dtype == ember.float32
    assert (ember.ones(2, dtype=ember.int32) + ember.tensor(1)).dtype == ember.int32
    assert (ember.tensor([True]) + ember.tensor([True])).dtype == ember.bool
    assert (ember.tensor(1.0) + ember.ones(2, dtype=ember.float64)).dtype == ember.float64
    assert (ember.tensor(1, dtype=ember.int32) + 2.5).dtype == ember.float32


@pytest.mark.parametrize("da", ALL)
def test_result_type_all_combinations(da):
    """Every dtype pair, with each side 1-d or 0-d, and Python scalars: ember's result
    dtype equals torch's, for the result_type function and for an actual add."""
    for db in ALL:
        for a_dims in [(2,), ()]:
            for b_dims in [(2,), ()]:
                ea, ta = ember.zeros(a_dims, dtype=getattr(ember, da)), torch.zeros(a_dims, dtype=getattr(torch, da))
                eb, tb = ember.zeros(b_dims, dtype=getattr(ember, db)), torch.zeros(b_dims, dtype=getattr(torch, db))
                expected = str(torch.result_type(ta, tb)).split(".")[-1]
                assert str(ember.result_type(ea, eb)).split(".")[-1] == expected, (da, db, a_dims, b_dims)
                assert str((ea * eb).dtype).split(".")[-1] == expected
        assert ember.promote_types(getattr(ember, da), getattr(ember, db)).name == \
            str(torch.promote_types(getattr(torch, da), getattr(torch, db))).split(".")[-1]
        assert ember.can_cast(getattr(ember, da), getattr(ember, db)) == \
            torch.can_cast(getattr(torch, da), getattr(torch, db))
    for s in [1, 1.5, True]:
        for dims in [(2,), ()]:
            ea, ta = ember.zeros(dims, dtype=getattr(ember, da)), torch.zeros(dims, dtype=getattr(torch, da))
            assert str(ember.result_type(ea, s)).split(".")[-1] == \
                str(torch.result_type(ta, s)).split(".")[-1], (da, s, dims)


# ---- clamp, where, masked_fill ----------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("bounds", [(-1, 1), (None, 0.5), (-0.5, None), (2, -2), (0, 0),
                                    (-1.5, 1.5), (1, 2.5)], ids=str)
def test_clamp(bounds, layout):
    lo, hi = bounds
    check_each(lambda m, x: m.clamp(x, lo, hi), [(3, 4)], ALL[1:], [layout])
    check_each(lambda m, x: x.clamp(min=lo, max=hi), [(3, 4)], ALL[1:], [layout])
    if layout != "expanded":
        check_each(lambda m, x: x.clone().clamp_(lo, hi), [(3, 4)], ALL[1:], [layout])


def test_clamp_special_cases():
    run_both(lambda m, x: x.clamp(-1, 1), [float("nan"), float("inf"), -float("inf"), 0.5])
    run_both(lambda m, x: x.clamp(min=0.5), [1, 5])          # int tensor, float bound -> float32
    run_both(lambda m, x: x.clamp(max=2.5), [1, 5], dtype="int32")
    run_both(lambda m, x: x.clone().clamp_(max=2.5), [1, 5], dtype="int32")  # refused
    run_both(lambda m, x: x.clamp(-1), [0, 5], dtype="uint8")
    run_both(lambda m, x: x.clamp(300), [0, 5], dtype="uint8")    # out of range: refused
    run_both(lambda m, x: x.clamp(min=2**40), [0, 5], dtype="int32")
    run_both(lambda m, x: x.clamp(min=1e300), [0.0, 5.0])
    run_both(lambda m, x: x.clamp(0, 1), [True, False])
    run_both(lambda m, x: m.clamp(x), [1.0])                    # neither bound: refused
    e = ember.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="clamp"):
        e.clamp()


def test_clamp_with_tensor_bounds():
    check_each(lambda m, x, lo: m.clamp(x, min=lo), [(3, 4), (4,)], ["float32", "int64"])
    check_each(lambda m, x, hi: x.clamp(max=hi), [(3, 4), (3, 1)], ["float32", "int32"])
    check_each(lambda m, x, lo: x.clamp(lo, lo + 1), [(3, 4), (3, 4)], FLOATS)
    check_each(lambda m, x, lo: x.clone().clamp_(min=lo), [(3, 4), (4,)], FLOATS)
    run_both(lambda m, x, lo: x.clamp(min=lo), [1.0, float("nan"), 3.0], [float("nan"), 0.0, 0.0])
    run_both(lambda m, x, lo: x.clamp(min=lo), [1, 5], [2.0, 0.0])  # int with float bounds -> float32
    run_both(lambda m, x: x.clamp(min=m.tensor(2)), [1, 5], dtype="int32")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_where(layout):
    check_each(lambda m, c, x, y: m.where(c > 0, x, y), [(3, 4), (3, 4), (3, 4)], ALL, [layout])
    check_each(lambda m, c, x, y: m.where(c > 0, x, y), [(3, 1), (4,), (2, 1, 1)], ALL)
    check_each(lambda m, c, x, y: m.where(c > 0, x, y), [(), (0, 3), (3,)], ALL)


def test_where_scalars_and_promotion():
    c = [True, False, True]
    run_both(lambda m, c: m.where(c, 1.0, 0), c)
    run_both(lambda m, c: m.where(c, 1, 0), c)
    run_both(lambda m, c: m.where(c, m.tensor([1, 2, 3], dtype=m.int32), 2.5), c)
    run_both(lambda m, c: m.where(c, m.tensor([1, 2, 3], dtype=m.int32), 2), c)
    run_both(lambda m, c: m.where(c, 7, m.tensor([1.0, 2.0, 3.0], dtype=m.float64)), c)
    run_both(lambda m, c: m.where(c, m.tensor([1, 2, 3], dtype=m.uint8), m.tensor(3)), c)
    run_both(lambda m, c: m.where(c, m.ones(3), m.zeros(3, dtype=m.int64)), c)
    run_both(lambda m, c: m.where(c.int(), 1.0, 0.0), c)  # condition must be bool
    run_both(lambda m, c: m.where(c, m.ones(2), m.ones(3)), c)  # no broadcast: refused
    # the scalar must fit the dtype it takes (torch's checked conversion); uint8 takes -1 as 255
    for v in (300, -129, 127, 2.5):
        run_both(lambda m, c: m.where(c, m.tensor([1, 2, 3], dtype=m.int8), v), c)
        run_both(lambda m, c: m.where(c, v, m.tensor([1, 2, 3], dtype=m.int8)), c)
    for v in (-1, -256, 256):
        run_both(lambda m, c: m.where(c, m.tensor([1, 2, 3], dtype=m.uint8), v), c)
    for v in (1e300, float("inf"), float("nan")):
        run_both(lambda m, c: m.where(c, m.ones(3), v), c)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill(layout):
    for v in [0, 2.5, -1, True]:
        check_each(lambda m, x, y: m.masked_fill(x, y > 0, v), [(3, 4), (3, 4)], ALL, [layout])
        check_each(lambda m, x, y: x.masked_fill(y > 0, v), [(3, 4), (4,)], ALL, [layout])
        if layout != "expanded":
            check_each(lambda m, x, y: x.clone().masked_fill_(y > 0, v), [(3, 4), (3, 1)], ALL, [layout])


def test_masked_fill_values_and_errors():
    mask = [True, False]
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), 2.7), [1, 2])  # truncated into int64
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), m.tensor(2.5)), [1.0, 2.0])  # 0-d tensor value
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), m.tensor([2.5])), [1.0, 2.0])  # 1-d: refused
    run_both(lambda m, x: x.masked_fill(m.tensor([1, 0]), 2), [1.0, 2.0])  # int mask: refused
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), 256), [1, 2], dtype="uint8")  # overflow
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), -1), [1, 2], dtype="uint8")  # wraps: 255
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), float("nan")), [1, 2], dtype="int32")
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), 1e300), [1.0, 2.0])
    run_both(lambda m, x: x.masked_fill(m.tensor(mask), float("inf")), [1.0, 2.0])
    run_both(lambda m, x: x.masked_fill_(m.tensor([[True], [False]]), 0), [1.0, 2.0])  # mask too big
    # out of place, torch broadcasts self up to a bigger mask; ember refuses (documented)
    with pytest.raises(ValueError, match="masked_fill"):
        ember.ones(2).masked_fill(ember.tensor([[True], [False]]), 0)
    x = ember.ones(2, 3)
    x.masked_fill_(x.narrow(1, 0, 1) > 0, 5)  # the mask is a view of x itself
    assert x.tolist() == [[5.0] * 3] * 2


# ---- misuse ----------------------------------------------------------------------------------

def test_errors_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"add.*\(3, 4\).*\(5,\)"):
        ember.ones(3, 4) + ember.ones(5)
    with pytest.raises(TypeError, match="bitwise_and.*float32"):
        ember.ones(2) & ember.ones(2)
    with pytest.raises(RuntimeError, match="add_.*float32.*int64"):
        ember.ones(2, dtype=ember.int64).add_(0.5)
    with pytest.raises(RuntimeError, match=r"mul_.*\(3, 1\)"):
        ember.ones(3, 1).mul_(ember.ones(3, 4))
    with pytest.raises(TypeError, match="where.*bool"):
        ember.where(ember.ones(2), ember.ones(2), ember.ones(2))


def test_bad_argument_types():
    for fn in [lambda: ember.add(ember.ones(2), "x"), lambda: ember.exp([1.0]),
               lambda: ember.ones(2).clamp(min="a"), lambda: ember.where(ember.ones(2) > 0, "a", 1)]:
        with pytest.raises(TypeError):
            fn()
