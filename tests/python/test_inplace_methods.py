"""Tensor in-place methods (div_, subtract_, bitwise_and_, logical_or_, ge_, addbmm_, ...), the
top-level in-place functions torch has beside them (torch.acosh_, atanh_, cosh_) and torch's
alias names (arccosh, arctanh, greater_equal, less_equal, not_equal, logical_or, logical_xor),
against torch 2.13: values over dtypes, a non-contiguous self and a broadcast other, `out is
self` and the version counter, gradients through the in-place op (and gradcheck), and torch's
errors for a self that cannot hold the result."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_grad, gradcheck_op

FLOATS = ("float32", "float64")
INTS = ("int64", "int32", "uint8")


def _pair(arr):
    return ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _operands(dtype, low, high, seed=0):
    """self (3, 4), non-contiguous (the transpose of a (4, 3) array); other of shape (4,)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        a, b = rng.random((4, 3)) < 0.5, rng.random(4) < 0.5
    elif dtype in INTS:
        a = rng.integers(max(low, 0 if dtype == "uint8" else low), high, (4, 3)).astype(dtype)
        b = rng.integers(max(low, 0 if dtype == "uint8" else low), high, 4).astype(dtype)
    else:
        a = rng.uniform(low, high, (4, 3)).astype(dtype)
        b = rng.uniform(low, high, 4).astype(dtype)
    (ea, ta), (eb, tb) = _pair(a), _pair(b)
    return (ea.t(), eb), (ta.t(), tb)


# name -> (call(self, other), dtypes, (low, high) of the inputs, differentiable in torch)
BINARY = {
    "arctan2_": (lambda x, y: x.arctan2_(y), FLOATS, (-2, 2), True),
    "div_": (lambda x, y: x.div_(y), FLOATS, (0.5, 3), True),
    "divide_": (lambda x, y: x.divide_(y), FLOATS, (0.5, 3), True),
    "div_floor": (lambda x, y: x.div_(y, rounding_mode="floor"), FLOATS + ("int64",), (1, 9),
                  False),
    "divide_trunc": (lambda x, y: x.divide_(y, rounding_mode="trunc"), FLOATS + ("int64",),
                     (1, 9), False),
    "multiply_": (lambda x, y: x.multiply_(y), FLOATS + INTS, (-3, 4), True),
    "subtract_": (lambda x, y: x.subtract_(y, alpha=2), FLOATS + ("int64", "int32"), (-3, 4),
                  True),
    "heaviside_": (lambda x, y: x.heaviside_(y), FLOATS + ("int64",), (-2, 3), False),
    "ge_": (lambda x, y: x.ge_(y), FLOATS + INTS, (-2, 3), False),
    "le_": (lambda x, y: x.le_(y), FLOATS + INTS, (-2, 3), False),
    "ne_": (lambda x, y: x.ne_(y), FLOATS + INTS, (-2, 3), False),
    "logical_and_": (lambda x, y: x.logical_and_(y), FLOATS + INTS + ("bool",), (-1, 2), False),
    "logical_or_": (lambda x, y: x.logical_or_(y), FLOATS + INTS + ("bool",), (-1, 2), False),
    "logical_xor_": (lambda x, y: x.logical_xor_(y), FLOATS + INTS + ("bool",), (-1, 2), False),
    "bitwise_and_": (lambda x, y: x.bitwise_and_(y), INTS + ("bool",), (0, 64), False),
    "bitwise_or_": (lambda x, y: x.bitwise_or_(y), INTS + ("bool",), (0, 64), False),
    "bitwise_xor_": (lambda x, y: x.bitwise_xor_(y), INTS + ("bool",), (0, 64), False),
    "bitwise_left_shift_": (lambda x, y: x.bitwise_left_shift_(y), INTS, (0, 5), False),
    "bitwise_right_shift_": (lambda x, y: x.bitwise_right_shift_(y), INTS, (0, 5), False),
}

# name -> (call(self), dtypes, (low, high), differentiable)
UNARY = {
    "absolute_": (lambda x: x.absolute_(), FLOATS + ("int64", "int32"), (-3, 3), True),
    "acosh_": (lambda x: x.acosh_(), FLOATS, (1.1, 4), False),  # no torch derivative: below
    "atanh_": (lambda x: x.atanh_(), FLOATS, (-0.9, 0.9), False),
    "cosh_": (lambda x: x.cosh_(), FLOATS, (-3, 3), True),
    "sgn_": (lambda x: x.sgn_(), FLOATS + ("int64",), (-3, 3), False),  # zero: below
    "sign_": (lambda x: x.sign_(), FLOATS + ("int64",), (-3, 3), False),
}


def _check_inplace(call, e_args, t_args):
    ex, tx = e_args[0], t_args[0]
    version = ex._version
    e_out, t_out = call(*e_args), call(*t_args)
    assert e_out is ex, "an in-place method returns self"
    assert ex._version > version, "an in-place method bumps the version counter"
    assert_same(e_out, t_out)
    assert ex.stride() == tx.stride()  # written through the view, not replaced


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_inplace_method_values(name):
    call, dtypes, (low, high), _ = BINARY[name]
    for dtype in dtypes:
        (ex, ey), (tx, ty) = _operands(dtype, low, high)
        _check_inplace(call, (ex, ey), (tx, ty))
        # a 0-d other, and an empty self
        (ex, ey), (tx, ty) = _operands(dtype, low, high, seed=1)
        _check_inplace(call, (ex, ey[0]), (tx, ty[0]))
        _check_inplace(call, (ex[:0], ey), (tx[:0], ty))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_inplace_method_values(name):
    call, dtypes, (low, high), _ = UNARY[name]
    for dtype in dtypes:
        (ex, _), (tx, _) = _operands(dtype, low, high)
        _check_inplace(call, (ex,), (tx,))
        _check_inplace(call, (ex[0, 0],), (tx[0, 0],))  # 0-d view


DIFFERENTIABLE_BINARY = sorted(n for n, c in BINARY.items() if c[3])
DIFFERENTIABLE_UNARY = sorted(n for n, c in UNARY.items() if c[3])


@pytest.mark.parametrize("name", DIFFERENTIABLE_BINARY)
def test_binary_inplace_method_grad(name):
    call, _, (low, high), _ = BINARY[name]
    # on a clone (torch refuses in-place on a leaf): the gradient flows through the in-place op
    check_grad(lambda m, x, y: call(x.clone(), y), [(3, 4), (4,)], low=low, high=high)
    gradcheck_op(lambda m, x, y: call(x.clone(), y), [(3, 4), (4,)], low=low, high=high)


@pytest.mark.parametrize("name", DIFFERENTIABLE_UNARY)
def test_unary_inplace_method_grad(name):
    call, _, (low, high), _ = UNARY[name]
    check_grad(lambda m, x: call(x * 1), [(3, 4)], low=low, high=high)
    if name not in ("sgn_", "sign_"):  # piecewise constant: finite differences are all zero
        gradcheck_op(lambda m, x: call(x * 1), [(3, 4)], low=low, high=high)


@pytest.mark.parametrize("name", ["acosh_", "atanh_"])
def test_inplace_inverse_hyperbolic_grad(name):
    # torch 2.13 has no derivative for the in-place acosh_/atanh_ ("not implemented"); ember's
    # is that of the out-of-place op, checked against torch's acosh/atanh
    call, _, (low, high), _ = UNARY[name]
    x = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(NotImplementedError):
        getattr(x * 0.2 + (1 if name == "acosh_" else 0), name)().sum().backward()
    check_grad(lambda m, x: call(x * 1) if m is ember else getattr(x, name[:-1])(),
               [(3, 4)], low=low, high=high)
    gradcheck_op(lambda m, x: call(x * 1), [(3, 4)], low=low, high=high)


@pytest.mark.parametrize("name", ["sgn_", "sign_"])
def test_inplace_sign_grad_is_zero(name):
    # torch's is a zero tensor too (an "efficient zero tensor" that cannot be read directly)
    x = ember.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    getattr(x * 1, name)().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_inplace_form_keeps_saved_inputs_for_backward():
    # hypot_/ldexp_/addr_ on a non-leaf: the op's saved inputs are not the tensor written into
    for name, args in (("hypot_", (2.0,)), ("ldexp_", (1,)), ("addmv_", "mv")):
        check_grad(lambda m, x, y: (getattr(x.clone(), name)(m.full_like(y, args[0]))
                                    if args != "mv" else
                                    x.clone().addmv_(m.ones(4, 4, dtype=y.dtype), y, beta=0.5)),
                   [(4,), (4,)], dtypes=("float64",))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_inplace_method_refuses_a_self_that_cannot_hold_the_result(name):
    call, dtypes, (low, high), _ = BINARY[name]
    dtype = dtypes[0]
    (ex, ey), (tx, ty) = _operands(dtype, low, high)
    # broadcasting would grow self: torch refuses, and self is left as it was
    e_small, t_small = ex[:1].clone(), tx[:1].clone()
    e_big, t_big = ember.ones(3, 4, dtype=ex.dtype), torch.ones(3, 4, dtype=tx.dtype)
    before = e_small.tolist()
    with pytest.raises(RuntimeError):
        call(t_small, t_big)
    with pytest.raises((RuntimeError, ValueError)):
        call(e_small, e_big)
    assert e_small.tolist() == before


def test_inplace_result_type_that_self_cannot_hold():
    for lib in (torch, ember):
        i = lib.tensor([3, 4])
        with pytest.raises(RuntimeError, match="can't be cast"):
            i.div_(lib.tensor([2.0, 2.0]))
        with pytest.raises(RuntimeError):
            i.divide_(2.5)
        with pytest.raises(RuntimeError):
            i.arctan2_(lib.tensor([1, 1]))
        with pytest.raises(RuntimeError):
            i.acosh_()
        with pytest.raises((RuntimeError, TypeError)):  # torch: RuntimeError, ember: TypeError
            lib.tensor([1.5]).bitwise_and_(lib.tensor([1]))
        with pytest.raises(RuntimeError, match="leaf Variable"):
            lib.ones(2, requires_grad=True).cosh_()


# ---- matrix in-place forms -------------------------------------------------------------------
MATRIX = {
    "addbmm_": (lambda m, s, a, b: s.addbmm_(a, b, beta=0.5, alpha=2), [(3, 5), (4, 3, 2),
                                                                          (4, 2, 5)]),
    "baddbmm_": (lambda m, s, a, b: s.baddbmm_(a, b, beta=0.5, alpha=2), [(4, 3, 5), (4, 3, 2),
                                                                            (4, 2, 5)]),
    "addr_": (lambda m, s, a, b: s.addr_(a, b, beta=0.5, alpha=2), [(3, 5), (3,), (5,)]),
}


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_matrix_inplace_methods(name):
    call, shapes = MATRIX[name]
    for dtype in FLOATS:
        rng = np.random.default_rng(3)
        arrays = [rng.uniform(-2, 2, s).astype(dtype) for s in shapes]
        es, ts = zip(*(_pair(a) for a in arrays))
        # a non-contiguous self: a transposed copy viewed back
        es = (es[0].transpose(-1, -2).contiguous().transpose(-1, -2),) + es[1:]
        ts = (ts[0].transpose(-1, -2).contiguous().transpose(-1, -2),) + ts[1:]
        _check_inplace(lambda *xs: call(None, *xs), es, ts)
    check_grad(lambda m, s, a, b: call(m, s.clone(), a, b), shapes)
    gradcheck_op(lambda m, s, a, b: call(m, s.clone(), a, b), shapes)
    # self of the wrong shape
    bad = [(2,) + tuple(shapes[0][1:])] + shapes[1:]
    for lib in (torch, ember):
        xs = [lib.ones(*s) for s in bad]
        with pytest.raises(RuntimeError):
            call(lib, *xs)


# ---- top-level in-place functions and alias names -------------------------------------------
TOP_INPLACE = {"acosh_": (1.1, 4), "atanh_": (-0.9, 0.9), "cosh_": (-3, 3)}


@pytest.mark.parametrize("name", sorted(TOP_INPLACE))
def test_top_level_inplace_functions(name):
    low, high = TOP_INPLACE[name]
    for dtype in FLOATS:
        (ex, _), (tx, _) = _operands(dtype, low, high)
        _check_inplace(lambda x: (ember if isinstance(x, ember.Tensor) else torch).__dict__[name](x),
                       (ex,), (tx,))
    check_grad(lambda m, x: getattr(m, name)(x * 1) if m is ember or name == "cosh_"
               else getattr(m, name[:-1])(x), [(3, 4)], low=low, high=high)
    (ei, _), (ti, _) = _operands("int64", 1, 3)
    with pytest.raises(RuntimeError):
        getattr(torch, name)(ti)
    with pytest.raises(RuntimeError, match=name):
        getattr(ember, name)(ei)
    with pytest.raises(TypeError):
        getattr(ember, name)([1.0])


# alias -> (domain of the inputs, number of tensor arguments, differentiable)
ALIASES = {"arccosh": ((1.1, 4), 1, True), "arctanh": ((-0.9, 0.9), 1, True),
           "greater_equal": ((-2, 3), 2, False), "less_equal": ((-2, 3), 2, False),
           "not_equal": ((-2, 3), 2, False), "logical_or": ((-1, 2), 2, False),
           "logical_xor": ((-1, 2), 2, False)}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_alias_functions_and_methods(name):
    (low, high), nargs, differentiable = ALIASES[name]
    dtypes = FLOATS if nargs == 1 else FLOATS + ("int64", "bool")
    for dtype in dtypes:
        (ex, ey), (tx, ty) = _operands(dtype, low, high)
        e_args, t_args = (ex, ey)[:nargs], (tx, ty)[:nargs]
        assert_same(getattr(ember, name)(*e_args), getattr(torch, name)(*t_args))
        assert_same(getattr(ex, name)(*e_args[1:]), getattr(tx, name)(*t_args[1:]))
        assert_same(getattr(ember, name)(ex[:0], *e_args[1:]),
                    getattr(torch, name)(tx[:0], *t_args[1:]))
    if differentiable:
        check_grad(lambda m, x: getattr(m, name)(x), [(3, 4)], low=low, high=high)
        check_grad(lambda m, x: getattr(x, name)(), [(2, 3)], low=low, high=high)
        gradcheck_op(lambda m, x: getattr(m, name)(x), [(3, 4)], low=low, high=high)
    else:
        e_out = getattr(ember, name)(*(ember.ones(2, 3, requires_grad=True),) * nargs)
        assert not e_out.requires_grad and e_out.dtype == ember.bool
    with pytest.raises(TypeError):
        getattr(torch, name)("abc", *([torch.ones(2)] * (nargs - 1)))
    with pytest.raises(TypeError):
        getattr(ember, name)("abc", *([ember.ones(2)] * (nargs - 1)))
    if nargs == 2:
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.ones(3, 4), torch.ones(5, 6))
        with pytest.raises((RuntimeError, ValueError), match=r"\(3, 4\)"):
            getattr(ember, name)(ember.ones(3, 4), ember.ones(5, 6))


# ---- reshape_as, retains_grad ----------------------------------------------------------------
def test_reshape_as():
    for dtype in FLOATS + ("int64", "bool"):
        (ex, ey), (tx, ty) = _operands(dtype, 0, 3)
        for e_other, t_other in ((ember.zeros(4, 3), torch.zeros(4, 3)),
                                 (ember.zeros(12), torch.zeros(12)),
                                 (ember.zeros(2, 1, 6), torch.zeros(2, 1, 6))):
            assert_same(ex.reshape_as(e_other), tx.reshape_as(t_other))
    e = ember.arange(6.0)
    v = e.reshape_as(ember.zeros(2, 3))
    assert v.data_ptr() == e.data_ptr()  # contiguous input: a view, as torch
    check_grad(lambda m, x: x.reshape_as(m.zeros(4, 3)), [(3, 4)], layouts=("contiguous",
                                                                              "transposed"))
    gradcheck_op(lambda m, x: x.reshape_as(m.zeros(6, 2)), [(3, 4)])
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 12"):
        torch.ones(3, 4).reshape_as(torch.zeros(5))
    with pytest.raises(ValueError, match=r"reshape: shape \(5,\) is invalid for input of size 12"):
        ember.ones(3, 4).reshape_as(ember.zeros(5))
    for lib in (torch, ember):
        with pytest.raises(TypeError):
            lib.ones(3, 4).reshape_as((4, 3))


def test_retains_grad():
    for lib in (torch, ember):
        leaf = lib.ones(3, requires_grad=True)
        mid = leaf * 2
        assert not leaf.retains_grad and not mid.retains_grad
        mid.retain_grad()
        assert mid.retains_grad and not leaf.retains_grad  # a leaf keeps .grad without it
        (mid * 3).sum().backward()
        assert mid.grad.tolist() == [3.0, 3.0, 3.0]
        other = leaf * 5
        other.sum().backward()
        assert other.grad is None and not other.retains_grad
        with pytest.raises(AttributeError):
            mid.retains_grad = False  # read-only, as torch's


# ---- div / divide with rounding_mode --------------------------------------------------------
@pytest.mark.parametrize("mode", ["trunc", "floor", None])
@pytest.mark.parametrize("name", ["div", "divide"])
def test_div_rounding_mode(name, mode):
    for dtype in FLOATS + ("int64", "int32", "uint8"):
        rng = np.random.default_rng(5)
        lo = 0 if dtype == "uint8" else -9
        a = rng.integers(lo, 10, (3, 4)).astype(dtype)
        b = rng.integers(1, 5, (4,)).astype(dtype) * (1 if dtype == "uint8" else
                                                       rng.choice([-1, 1], 4).astype(dtype))
        (ea, ta), (eb, tb) = _pair(a), _pair(b)
        assert_same(getattr(ember, name)(ea.t().contiguous().t(), eb, rounding_mode=mode),
                    getattr(torch, name)(ta.t().contiguous().t(), tb, rounding_mode=mode))
        assert_same(getattr(ea, name)(3, rounding_mode=mode), getattr(ta, name)(3, rounding_mode=mode))
        assert_same(getattr(ember, name)(ea, 2.5, rounding_mode=mode),
                    getattr(torch, name)(ta, 2.5, rounding_mode=mode))
        assert_same(getattr(ember, name)(ea[:0], eb, rounding_mode=mode),
                    getattr(torch, name)(ta[:0], tb, rounding_mode=mode))
    if mode is not None:  # torch's gradient of a rounded quotient: zeros
        check_grad(lambda m, x, y: getattr(m, name)(x, y, rounding_mode=mode), [(3, 4), (4,)],
                   low=0.5, high=3.0)


def test_div_rounding_mode_errors():
    for lib in (torch, ember):
        a = lib.tensor([7, -7])
        with pytest.raises(RuntimeError, match="rounding_mode to be one of None, 'trunc', or "
                                               "'floor' but found 'round'"):
            lib.div(a, 2, rounding_mode="round")
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            lib.div(a, lib.tensor([0, 1]), rounding_mode="trunc")
        with pytest.raises(NotImplementedError, match="Bool"):
            lib.div(lib.tensor([True]), lib.tensor([True]), rounding_mode="trunc")
        with pytest.raises(RuntimeError, match="can't be cast"):
            a.clone().div_(2.5, rounding_mode="floor")
        with pytest.raises((RuntimeError, ValueError)):  # ember's broadcast error: ValueError
            lib.ones(3, 4).div(lib.ones(5, 6), rounding_mode="floor")
        with pytest.raises(RuntimeError, match="leaf Variable"):
            lib.ones(2, requires_grad=True).div_(2, rounding_mode="trunc")
