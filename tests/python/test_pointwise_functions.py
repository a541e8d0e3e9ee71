"""acos/asin/atan/log10/exp2 (C++, src/ops/special.cpp), the elementwise composites of
python/ember/_pointwise.py (hypot, logaddexp, frac, fmod, float_power, ...) and torch's
aliases (arccos, fix, true_divide, ...): forward and gradients against PyTorch in every
layout, float64 gradchecks, in-place forms, 0-d/empty inputs and bad inputs."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op, gradcheck_op

NUM = ["uint8", "int32", "int64", "float32", "float64"]
INT = ["int32", "int64"]
FLOAT = ["float32", "float64"]

FORWARD = {
    "acos": (lambda m, x: m.acos(x / 3), [(3, 4)], FLOAT),
    "acos_out_of_range": (lambda m, x: m.acos(x), [(3, 4)], FLOAT),
    "acos_int": (lambda m, x: m.acos(x), [(3, 4)], INT),
    "asin": (lambda m, x: x.asin(), [(3, 4)], FLOAT + INT),
    "atan": (lambda m, x: m.atan(x * 10), [(5, 7)], NUM),
    "log10": (lambda m, x: m.log10(x), [(3, 4)], NUM),
    "exp2": (lambda m, x: m.exp2(x), [(3, 4)], NUM),
    "exp2_integers": (lambda m, x: m.exp2(x.round()), [(3, 4)], FLOAT),
    "arccos": (lambda m, x: m.arccos(x / 3), [(3, 4)], FLOAT),
    "arcsin": (lambda m, x: x.arcsin(), [(3, 4)], FLOAT),
    "arctan": (lambda m, x: m.arctan(x), [(3, 4)], FLOAT),
    "arctan2": (lambda m, a, b: m.arctan2(a, b), [(3, 4), (4,)], FLOAT),
    "arcsinh": (lambda m, x: m.arcsinh(x), [(3, 4)], FLOAT),
    "fix": (lambda m, x: m.fix(x), [(3, 4)], NUM),
    "absolute": (lambda m, x: x.absolute(), [(3, 4)], NUM),
    "negative": (lambda m, x: m.negative(x), [(3, 4)], FLOAT + INT),
    "sgn": (lambda m, x: m.sgn(x), [(3, 4)], FLOAT + INT),
    "true_divide": (lambda m, a, b: m.true_divide(a, b), [(3, 4), (3, 4)], INT + FLOAT),
    "multiply": (lambda m, a, b: m.multiply(a, b), [(3, 4), (4,)], NUM),
    "subtract": (lambda m, a, b: a.subtract(b), [(3, 4), (4,)], FLOAT),
    "greater": (lambda m, a, b: m.greater(a, b), [(3, 4), (4,)], NUM),
    "clip": (lambda m, x: m.clip(x, -1, 1), [(3, 4)], FLOAT),
    "hypot": (lambda m, a, b: m.hypot(a, b), [(3, 4), (4,)], FLOAT),
    "logaddexp": (lambda m, a, b: m.logaddexp(a * 100, b), [(3, 4), (3, 4)], FLOAT),
    "logaddexp_inf": (lambda m, a, b: m.logaddexp(a / 0, b / 0), [(3, 4), (3, 4)], FLOAT),
    "logaddexp2": (lambda m, a, b: a.logaddexp2(b), [(3, 4), (1, 4)], FLOAT),
    "frac": (lambda m, x: m.frac(x * 1.7), [(3, 4)], FLOAT),
    "deg2rad": (lambda m, x: m.deg2rad(x * 60), [(3, 4)], FLOAT + INT),
    "rad2deg": (lambda m, x: x.rad2deg(), [(3, 4)], FLOAT + INT),
    "float_power": (lambda m, a, b: m.float_power(a.abs(), b), [(3, 4), (4,)], NUM),
    "float_power_scalar": (lambda m, x: m.float_power(x, 2), [(3, 4)], FLOAT + INT),
    "fmod": (lambda m, a, b: m.fmod(a * 3.3, b), [(3, 4), (4,)], FLOAT),
    "fmod_int": (lambda m, a, b: m.fmod(a, b.abs() + 1), [(3, 4), (3, 4)], INT),
    "fmod_scalar": (lambda m, x: x.fmod(-1.5), [(3, 4)], FLOAT),
    "clamp_min": (lambda m, x: m.clamp_min(x, 0.5), [(3, 4)], FLOAT + INT),
    "clamp_max": (lambda m, x: x.clamp_max(-0.5), [(3, 4)], FLOAT),
    "clamp_min_tensor": (lambda m, a, b: m.clamp_min(a, b), [(3, 4), (4,)], FLOAT),
    "positive": (lambda m, x: m.positive(x), [(3, 4)], NUM),
    "rsub": (lambda m, a, b: m.rsub(a, b, alpha=2), [(3, 4), (4,)], FLOAT + INT),
    "rsub_scalar": (lambda m, x: m.rsub(x, 5), [(3, 4)], NUM),
    "fmax": (lambda m, a, b: m.fmax(a.log(), b.log()), [(3, 4), (4,)], FLOAT),
    "fmin": (lambda m, a, b: a.fmin(b), [(3, 4), (4,)], NUM),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), [(3, 4), (4,)], FLOAT + INT),
    "left_shift": (lambda m, a, b: m.bitwise_left_shift(a, b.abs() * 9), [(3, 4), (4,)],
                   ["uint8", "int32", "int64"]),
    "right_shift": (lambda m, a, b: m.bitwise_right_shift(a * 1000, b.abs() * 11), [(3, 4), (4,)],
                    ["uint8", "int32", "int64"]),
    "shift_operators": (lambda m, a: (a << 3, a >> 1), [(3, 4)], ["int32", "int64"]),
    "concat": (lambda m, a, b: m.concat([a, b], 1), [(3, 4), (3, 2)], NUM),
    "gcd": (lambda m, a, b: m.gcd(a * 6, b * 4), [(3, 4), (4,)], ["uint8", "int32", "int64"]),
    "gcd_method": (lambda m, a, b: a.gcd(b), [(3, 4), (3, 4)], ["int64", "bool", "float32"]),
    "lcm": (lambda m, a, b: m.lcm(a * 6, b * 4), [(3, 4), (4,)], ["uint8", "int32", "int64"]),
    "lcm_method": (lambda m, a, b: a.lcm(b), [(3, 4), (3, 4)], ["int64", "bool", "float64"]),
    "concatenate": (lambda m, a, b: m.concatenate((a, b)), [(3, 4), (2, 4)], NUM),
    "round_decimals": (lambda m, x: m.round(x * 123.456, decimals=2), [(3, 4)], FLOAT),
    "round_decimals_negative": (lambda m, x: x.mul(1e4).round(decimals=-2), [(3, 4)], FLOAT),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    fn, shapes, dtypes = FORWARD[name]
    check_op(fn, shapes, dtypes=dtypes, layouts=LAYOUTS, rtol=1e-5, atol=1e-5)


GRADS = {
    "acos": (lambda m, x: m.acos(x / 2.5), [(3, 4)]),
    "asin": (lambda m, x: m.asin(x / 2.5), [(3, 4)]),
    "atan": (lambda m, x: m.atan(x), [(3, 4)]),
    "log10": (lambda m, x: m.log10(x.abs() + 0.1), [(3, 4)]),
    "exp2": (lambda m, x: m.exp2(x), [(3, 4)]),
    "hypot": (lambda m, a, b: m.hypot(a, b), [(3, 4), (4,)]),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), [(3, 4), (3, 1)]),
    "logaddexp2": (lambda m, a, b: m.logaddexp2(a, b), [(3, 4), (3, 4)]),
    "frac": (lambda m, x: m.frac(x * 1.3), [(3, 4)]),
    "deg2rad": (lambda m, x: m.deg2rad(x), [(3, 4)]),
    "rad2deg": (lambda m, x: m.rad2deg(x), [(3, 4)]),
    "float_power": (lambda m, a, b: m.float_power(a.abs() + 0.5, b), [(3, 4), (4,)]),
    "fmod": (lambda m, a, b: m.fmod(a * 3, b.abs() + 0.5), [(3, 4), (3, 4)]),
    "clamp_min": (lambda m, x: m.clamp_min(x, 0.1), [(3, 4)]),
    "clamp_max": (lambda m, x: m.clamp_max(x, 0.1), [(3, 4)]),
    "rsub": (lambda m, a, b: m.rsub(a, b, alpha=0.5), [(3, 4), (4,)]),
    "fmax": (lambda m, a, b: m.fmax(a, b), [(3, 4), (4,)]),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), [(3, 4), (4,)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_matches_torch(name):
    fn, shapes = GRADS[name]
    check_grad(fn, shapes, layouts=LAYOUTS)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, shapes = GRADS[name]
    gradcheck_op(fn, shapes)


def test_simd_and_scalar_paths_agree_with_torch_on_edges():
    # long enough for the vector loop and a tail; values at and beyond the domains' edges
    vals = [-2.0, -1.0, -0.5, -0.0, 0.0, 1e-40, 0.5, 1.0, 2.0, math.inf, -math.inf, math.nan,
            1e30, -1e30, 3.0, 7.25, 1024.0, -126.0, 127.5]
    for dt in ("float32", "float64"):
        arr = np.array(vals * 3, dtype=dt)
        for name in ("acos", "asin", "atan", "log10", "exp2"):
            got = getattr(ember, name)(ember.from_numpy(arr.copy()))
            want = getattr(torch, name)(torch.from_numpy(arr.copy()))
            assert_same(got, want, rtol=2e-6 if dt == "float32" else 1e-12, atol=0)


@pytest.mark.parametrize("name,args", [("acos_", ()), ("asin_", ()), ("atan_", ()),
                                       ("log10_", ()), ("exp2_", ()), ("arccos_", ()),
                                       ("fix_", ()), ("hypot_", ("y",)), ("frac_", ()),
                                       ("deg2rad_", ()), ("fmod_", (0.7,)),
                                       ("clamp_min_", (0.0,)), ("float_power_", (2.0,)),
                                       ("true_divide_", ("y",)), ("ldexp_", ("y",))])
def test_inplace_forms(name, args):
    x = np.random.default_rng(3).uniform(-0.9, 0.9, (3, 4))
    y = np.random.default_rng(4).uniform(0.5, 2, (4,))
    e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    ea = [ember.from_numpy(y.copy()) if a == "y" else a for a in args]
    ta = [torch.from_numpy(y.copy()) if a == "y" else a for a in args]
    r = getattr(e, name)(*ea)
    getattr(t, name)(*ta)
    assert r is e
    assert_same(e, t)


def test_inplace_refuses_a_result_it_cannot_hold():
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="deg2rad_"):
        x.deg2rad_()
    assert x.tolist() == [1, 2]
    with pytest.raises(RuntimeError):
        ember.tensor([1, 2]).acos_()
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).acos_()


@pytest.mark.parametrize("shape", [(), (0,), (2, 0)])
def test_0d_and_empty(shape):
    for fn in (lambda m, x: m.acos(x / 4), lambda m, x: m.exp2(x), lambda m, x: m.hypot(x, x),
               lambda m, x: m.logaddexp(x, x), lambda m, x: m.fmod(x, 0.7),
               lambda m, x: m.float_power(x, 3), lambda m, x: m.frac(x)):
        check_op(fn, [shape], dtypes=FLOAT)


def test_bad_inputs_match_torch_exception_types():
    i = ember.tensor([1, 2])
    for name in ("hypot", "logaddexp", "logaddexp2"):
        with pytest.raises(NotImplementedError, match=name):
            getattr(ember, name)(i, i)
        with pytest.raises(NotImplementedError):
            getattr(torch, name)(torch.tensor([1, 2]), torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="frac"):
        ember.frac(i)
    with pytest.raises(TypeError, match="hypot"):
        ember.hypot([1.0], ember.ones(1))
    with pytest.raises(ValueError, match=r"true_divide.*\(3, 4\).*\(5, 6\)"):
        ember.true_divide(ember.ones(3, 4), ember.ones(5, 6))


def test_round_decimals_bit_exact_against_torch():
    """nearbyint(x * 10^d) / 10^d (or / and * for d < 0), as torch computes it: every bit,
    over magnitudes 1e-6..1e8, halves, overflow of 10^d (NaN) and the 16-bit dtypes (in
    float32, rounded once)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000) * 10.0 ** rng.integers(-6, 8, 5000)
    x = np.concatenate([x, [0.5, 1.5, 2.5, -0.5, 0.125, 0.135, -0.0, math.inf, -math.inf,
                            math.nan, 1e38, 3.4e38, 1e-40]])
    for dt in ("float32", "float64", "bfloat16", "float16"):
        t = torch.from_numpy(x).to(getattr(torch, dt))
        e = ember.from_numpy(x).to(getattr(ember, dt))
        for d in (-40, -3, -1, 0, 1, 2, 3, 6, 9, 40):
            assert_same(ember.round(e, decimals=d).float(), torch.round(t, decimals=d).float(),
                        rtol=0, atol=0)


def test_round_decimals_grad_inplace_out_and_bad_input():
    x = ember.tensor([1.26, -3.335], requires_grad=True)
    y = x.round(decimals=1)
    assert y.grad_fn.name() == "RoundBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    gradcheck_op(lambda m, a: m.round(a * 10, decimals=1), [(2, 3)])
    z = ember.tensor([1.26, 3.333])
    assert z.round_(decimals=1) is z
    assert_same(z, torch.tensor([1.26, 3.333]).round_(decimals=1))
    out = ember.empty(2)
    assert ember.round(ember.tensor([1.26, 3.333]), decimals=2, out=out) is out
    assert_same(out, torch.round(torch.tensor([1.26, 3.333]), decimals=2))
    for e in (ember.empty(0), ember.tensor(2.55)):
        assert_same(e.round(decimals=1), torch.from_numpy(e.numpy()).round(decimals=1))
    with pytest.raises(NotImplementedError, match="round.*Long"):
        ember.round(ember.tensor([1, 2]), decimals=1)
    with pytest.raises(NotImplementedError):
        torch.round(torch.tensor([1, 2]), decimals=1)
    assert ember.round(ember.tensor([1, 2]), decimals=0).tolist() == [1, 2]


def test_shift_edges_match_torch():
    a = [1, -3, 5, -8, 7, 2 ** 40, -1]
    b = [1, 2, 63, 62, 64, 70, 0]
    for dt in ("int64", "int32", "uint8"):
        ea, ta = ember.tensor(a).to(getattr(ember, dt)), torch.tensor(a).to(getattr(torch, dt))
        eb, tb = ember.tensor(b), torch.tensor(b)
        assert_same(ember.bitwise_left_shift(ea, eb), torch.bitwise_left_shift(ta, tb))
        assert_same(ember.bitwise_right_shift(ea, eb), torch.bitwise_right_shift(ta, tb))
    with pytest.raises(NotImplementedError, match="lshift"):
        ember.bitwise_left_shift(ember.ones(2), 1)
    with pytest.raises(RuntimeError, match="positive"):
        ember.positive(ember.tensor([True]))


def test_gcd_lcm_edges_and_inplace():
    a, b = [0, 0, -4, 6, 12, -7, 2 ** 40], [0, 5, 6, -9, 0, -7, 2 ** 20 * 3]
    e = (ember.tensor(a), ember.tensor(b))
    t = (torch.tensor(a), torch.tensor(b))
    assert_same(ember.gcd(*e), torch.gcd(*t))
    assert_same(ember.lcm(*e), torch.lcm(*t))
    x, y = ember.tensor(a), torch.tensor(a)
    assert x.gcd_(ember.tensor(b)) is x
    assert_same(x, y.gcd_(torch.tensor(b)))
    with pytest.raises(TypeError, match="gcd"):
        ember.gcd(ember.ones(2), ember.ones(2))
    with pytest.raises(RuntimeError):
        torch.gcd(torch.ones(2), torch.ones(2))


def test_aliases_are_one_table_entry_each():
    from ember import _pointwise
    for alias, target in _pointwise.ALIASES.items():
        assert hasattr(ember, alias), alias
        assert hasattr(torch, alias) or hasattr(torch.Tensor, alias), alias
        assert getattr(ember, alias).__doc__.startswith(f"Alias of {target}.\n\n>>> ember.{alias}(")
