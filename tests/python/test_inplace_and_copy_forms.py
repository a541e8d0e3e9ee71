"""torch's top-level in-place forms (torch.exp_(x), ...), the Tensor in-place forms of
out-of-place ops (addmm_, greater_, ...) and the *_copy forms, one parametrized test per table
(python/ember/_inplace_and_copy.py), against torch 2.13: values, dtypes, `out is input`,
gradients, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_grad, check_op

from ember._inplace_and_copy import COPY_FORMS, INPLACE_ALIASES, INPLACE_METHODS, INPLACE_NAMES

# name -> fn(module, x, y) where x is float (0.2, 0.8) of shape (3, 4); y an int64 (3, 4)
# tensor in 1..5; each returns what the in-place call returned.
UNARY_FLOAT = ["abs_", "arccos_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "ceil_", "cos_",
               "deg2rad_", "erf_", "exp_", "expm1_", "fix_", "floor_", "frac_", "log1p_", "log2_",
               "log_", "neg_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_",
               "sigmoid_", "sin_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_",
               "detach_"]
CASES = {n: (lambda n: lambda m, x, y: getattr(m, n)(x))(n) for n in UNARY_FLOAT}
CASES.update({
    "arccosh_": lambda m, x, y: m.arccosh_(x.add_(1)),
    "clamp_": lambda m, x, y: m.clamp_(x, min=0.3, max=0.6),
    "clip_": lambda m, x, y: m.clip_(x, 0.4, 0.5),
    "clamp_max_": lambda m, x, y: m.clamp_max_(x, 0.5),
    "clamp_min_": lambda m, x, y: m.clamp_min_(x, 0.5),
    "fill_": lambda m, x, y: m.fill_(x, 2.5),
    "gcd_": lambda m, x, y: m.gcd_(y, m.full((4,), 4, dtype=m.int64)),
    "lcm_": lambda m, x, y: m.lcm_(y, m.full((4,), 4, dtype=m.int64)),
    "ldexp_": lambda m, x, y: m.ldexp_(x, y),
    "addmv_": lambda m, x, y: m.addmv_(m.ones(3), x, x[0].clone(), beta=0.5, alpha=2),
    "index_put_": lambda m, x, y: m.index_put_(x, (m.tensor([0, 2]),), m.tensor(7.0)),
    "resize_as_": lambda m, x, y: m.resize_as_(x, m.zeros(2, 6)),
    "as_strided_": lambda m, x, y: m.as_strided_(x, (2, 2), (1, 4), 1),
})


def _inputs():
    rng = np.random.default_rng(0)
    a = rng.uniform(0.2, 0.8, (3, 4)).astype(np.float32)
    b = rng.integers(1, 6, (3, 4))
    return ((ember.from_numpy(a.copy()), ember.from_numpy(b.copy())),
            (torch.from_numpy(a.copy()), torch.from_numpy(b.copy())))


def test_every_inplace_name_has_a_case():
    assert set(CASES) == set(INPLACE_NAMES)


@pytest.mark.parametrize("name", INPLACE_NAMES)
def test_inplace_function_matches_torch(name):
    (ex, ey), (tx, ty) = _inputs()
    e_out, t_out = CASES[name](ember, ex, ey), CASES[name](torch, tx, ty)
    assert_same(e_out, t_out)
    if name in ("gcd_", "lcm_", "addmv_"):  # they write into a tensor the case builds
        return
    assert e_out is ex, f"{name} must return its input"
    assert_same(ex, tx)
    assert ex.stride() == tx.stride()


@pytest.mark.parametrize("name", ["exp_", "sqrt_", "sigmoid_", "clamp_", "index_put_"])
def test_inplace_function_refuses_leaf_and_integer_result(name):
    (ex, ey), (tx, ty) = _inputs()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        CASES[name](torch, tx.requires_grad_(), ty)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        CASES[name](ember, ex.requires_grad_(), ey)
    if name in ("exp_", "sqrt_", "sigmoid_"):
        with pytest.raises(RuntimeError, match="can't be cast"):
            getattr(torch, name)(ty)
        with pytest.raises(RuntimeError, match=rf"{name}.*can't be cast"):
            getattr(ember, name)(ey)
    with pytest.raises(TypeError, match=rf"{name}\(\)"):
        getattr(ember, name)([1.0, 2.0])


def test_inplace_function_gradient_through_history():
    def fn(m, a):
        b = a * 2
        m.neg_(b)
        b.mul_(3)
        return m.exp_(b)
    check_grad(fn, [(3, 4)], low=-1, high=1)


def test_fill_out_of_place():
    check_op(lambda m, x: m.fill(x, 1.5), [(2, 3)], ["float32", "int64", "bool"])
    check_op(lambda m, x: m.fill(x, m.tensor(2)), [(2, 3)], ["float32", "int64"])
    check_grad(lambda m, x, v: m.fill(x, v.sum()), [(2, 3), (4,)])
    check_op(lambda m, x: m.fill(x, m.ones(2)), [(2, 3)])  # a 1-d value is refused


# ---- Tensor in-place forms of out-of-place ops ----------------------------------------------------
METHOD_CASES = {
    "addmm_": lambda m, x: x.addmm_(x.clone(), x.t().clone(), beta=0.5, alpha=2),
    "bitwise_not_": lambda m, x: x.to(m.int64).bitwise_not_(),
    "greater_": lambda m, x: x.greater_(0.5),
    "greater_equal_": lambda m, x: x.greater_equal_(x[0].clone()),
    "less_": lambda m, x: x.less_(0.5),
    "less_equal_": lambda m, x: x.less_equal_(x[:, :1].clone()),
    "not_equal_": lambda m, x: x.not_equal_(x[1].clone()),
}


@pytest.mark.parametrize("name", list(INPLACE_METHODS) + list(INPLACE_ALIASES))
def test_inplace_method_matches_torch(name):
    shape = [(3, 3)] if name == "addmm_" else [(3, 4)]
    check_op(lambda m, x: METHOD_CASES[name](m, x.clone()), shape, ["float32", "float64"])


def test_inplace_method_errors_and_gradient():
    # a result of another shape, a bool result into an integer tensor is fine, float into int not
    check_op(lambda m, x: x.clone().greater_(m.ones(2, 3, 4)), [(3, 4)])
    check_op(lambda m, x: x.clone().addmm_(m.ones(3, 2), m.ones(2, 3), alpha=1.5), [(3, 3)],
             ["int64"])
    check_op(lambda m, x: x.clone().greater_(x[0]), [(3, 4)])  # overlapping operands refused
    with pytest.raises((RuntimeError, ValueError), match="greater_"):  # gt_'s own type
        ember.ones(3).greater_(ember.ones(2, 3))
    check_grad(lambda m, a, b, c: (a * 1).addmm_(b, c, beta=0.5), [(2, 3), (2, 4), (4, 3)])


def test_fill_diagonal():
    for shape, wrap in [((3, 3), False), ((5, 2), False), ((5, 2), True), ((2, 5), True),
                        ((3, 3, 3), False), ((7, 3), True), ((0, 3), False)]:
        check_op(lambda m, x: x.clone().fill_diagonal_(9, wrap=wrap), [shape],
                 ["float32", "int64", "bool"])
    check_op(lambda m, x: x.clone().fill_diagonal_(1), [(2, 3, 3)])  # unequal dims refused
    check_op(lambda m, x: x.clone().fill_diagonal_(1), [(3,)])
    check_grad(lambda m, x: (x * 1).fill_diagonal_(0.5), [(3, 4)])


def test_apply_map_map2():
    check_op(lambda m, x: x.clone().apply_(lambda v: v * 2 + 1), [(2, 3)], ["float64", "int64"])
    check_op(lambda m, x, y: x.clone().map_(y, lambda a, b: a - b), [(2, 3), (3,)],
             ["float64", "int64"])
    check_op(lambda m, x, y, z: x.clone().map2_(y, z, lambda a, b, c: a * b + c),
             [(2, 3), (2, 3), (1, 3)], ["float64"])
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="apply_.*requires grad"):
            lib.ones(3, requires_grad=True).apply_(lambda v: v)
        with pytest.raises(TypeError):
            lib.ones(3).apply_(lambda v: "a")


# ---- *_copy forms ----------------------------------------------------------------------------------
COPY_CASES = {  # name -> (shape, fn(module, x))
    "alias_copy": ((3, 4), lambda m, x: m.alias_copy(x)),
    "as_strided_copy": ((3, 4), lambda m, x: m.as_strided_copy(x, (2, 3), (1, 2), 1)),
    "detach_copy": ((3, 4), lambda m, x: m.detach_copy(x)),
    "diagonal_copy": ((3, 4), lambda m, x: m.diagonal_copy(x, offset=1)),
    "expand_copy": ((3, 1), lambda m, x: m.expand_copy(x, (2, 3, 5))),
    "narrow_copy": ((3, 4), lambda m, x: m.narrow_copy(x, 1, 1, 2)),
    "permute_copy": ((2, 3, 4), lambda m, x: m.permute_copy(x, (2, 0, 1))),
    "select_copy": ((3, 4), lambda m, x: m.select_copy(x, 1, -1)),
    "slice_copy": ((5, 4), lambda m, x: m.slice_copy(x, 0, 1, None, 2)),
    "split_copy": ((5, 4), lambda m, x: m.split_copy(x, 2)),
    "split_with_sizes_copy": ((5, 4), lambda m, x: m.split_with_sizes_copy(x, [1, 3], dim=1)),
    "squeeze_copy": ((3, 1, 4), lambda m, x: m.squeeze_copy(x, 1)),
    "t_copy": ((3, 4), lambda m, x: m.t_copy(x)),
    "transpose_copy": ((2, 3, 4), lambda m, x: m.transpose_copy(x, 0, 2)),
    "unbind_copy": ((3, 4), lambda m, x: m.unbind_copy(x, 1)),
    "unfold_copy": ((3, 7), lambda m, x: m.unfold_copy(x, 1, 3, 2)),
    "unsqueeze_copy": ((3, 4), lambda m, x: m.unsqueeze_copy(x, -1)),
    "view_copy": ((3, 4), lambda m, x: m.view_copy(x, (2, 6))),
}


def test_every_copy_form_has_a_case():
    assert set(COPY_CASES) == set(COPY_FORMS)


@pytest.mark.parametrize("name", list(COPY_FORMS))
def test_copy_form_matches_torch(name):
    shape, fn = COPY_CASES[name]
    check_op(fn, [shape], ["float32", "int64"])
    x = ember.arange(float(np.prod(shape))).reshape(shape)
    results = fn(ember, x)
    for r in results if isinstance(results, (list, tuple)) else [results]:
        assert r.is_contiguous() and not r._shares_storage(x)
    if name != "detach_copy":
        check_grad(lambda m, x: fn(m, x), [shape])


def test_copy_forms_out_and_errors():
    for lib in (torch, ember):
        x = lib.arange(12.0).view(3, 4)
        out = lib.empty(0)
        r = lib.t_copy(x, out=out)
        assert r is out and tuple(out.shape) == (4, 3)
    e = ember.arange(12.0).view(3, 4)
    assert_same(ember.t_copy(e, out=ember.empty(0)), torch.arange(12.0).view(3, 4).t())
    for lib in (torch, ember):  # the sequence forms return a tuple, as torch's
        assert type(lib.split_copy(e if lib is ember else torch.ones(3, 4), 2)) is tuple
        assert type(lib.unbind_copy(e if lib is ember else torch.ones(3, 4))) is tuple
    outs = [ember.empty(2, 4), ember.empty(1, 4)]
    assert ember.split_copy(e, 2, out=outs) is None
    assert_same(outs[1], torch.arange(12.0).view(3, 4)[2:])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="resized"):
            ember.t_copy(e, out=ember.empty(5))
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.t_copy(e, out=ember.empty(4, 3, dtype=ember.int64))
    check_op(lambda m, x: m.select_copy(x, 0, 5), [(3, 4)])  # index out of range: IndexError
    check_op(lambda m, x: m.transpose_copy(x, 0, 3), [(3, 4)])
    check_op(lambda m, x: m.view_copy(x, (5, 2)), [(3, 4)])
    check_op(lambda m, x: m.unfold_copy(x, 0, 9, 1), [(3, 4)])
    with pytest.raises(TypeError, match=r"t_copy\(\)"):
        ember.t_copy([[1.0]])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "uint8"])
def test_same_dtype_copies_contiguous_broadcast_and_strided(dtype):
    # copy_ within one dtype is a memmove per contiguous run, a fill for a broadcast source
    # and an element loop otherwise; each layout against torch.
    rng = np.random.default_rng(0)
    src = (rng.standard_normal((5, 7)) * 3).astype(dtype)
    for lib in (ember, torch):
        a = lib.from_numpy(src.copy())
        out = {"contiguous": a.t().contiguous(), "expanded": a[:1].expand(4, 7).contiguous(),
               "cat": lib.cat([a, a[:, :2]], dim=1)}
        dst = lib.zeros(7, 10, dtype=a.dtype)
        dst[:, ::2].copy_(a.t())
        out["strided"] = dst
        row = lib.zeros(5, 7, dtype=a.dtype)
        row.copy_(a[2])
        out["broadcast"] = row
        if lib is ember:
            got = {k: v.numpy() for k, v in out.items()}
        else:
            for k, v in out.items():
                np.testing.assert_array_equal(got[k], v.numpy(), err_msg=k)
