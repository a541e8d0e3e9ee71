"""torch.special's orthogonal polynomials, Hurwitz zeta and round(decimals=) (src/ops/
special_polynomials.cpp, python/ember/special.py) against torch 2.13: values over x inside and
outside [-1, 1] and over integer, fractional, negative, NaN and large degrees n; dtypes and
promotion; broadcasting; 0-d, empty; out=; no gradient for the polynomials (as torch); zeta's
gradient in q and its refusal in x; bad inputs."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_op

POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]

# x at the special points (+-1, 0, 1/2), inside and outside the interval; degrees integer,
# fractional (truncated), negative (0), NaN and inf (0), and past Hermite's limit. Where a value
# overflows double, or x is NaN or infinite, torch's recurrence gives NaN (inf - inf) or reads
# an unset value: those cases are checked on their own below.
XS = [-2.5, -1.5, -1.0, -0.999, -0.7, -0.3, 0.0, 0.25, 0.5, 0.75, 0.999, 1.0, 1.5, 3.0]
NS = [0, 1, 2, 3, 4, 6, 7, 9, 12, 17, 25, 40, 100, -1, -3, 2.7, 0.5, -0.5, float("nan"),
      float("inf"), 130, 200]


def _pair(xs, ns, dtype):
    x = np.array(xs)[:, None].astype(dtype)
    n = np.array(ns)[None, :].astype(dtype)
    return ((ember.from_numpy(x.copy()), ember.from_numpy(n.copy())),
            (torch.from_numpy(x.copy()), torch.from_numpy(n.copy())))


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_float64(name):
    (ex, en), (tx, tn) = _pair(XS, NS, np.float64)
    got = getattr(ember.special, name)(ex, en)
    want = getattr(torch.special, name)(tx, tn)
    assert_same(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_float32(name):
    # float32: ember computes in double and rounds once, torch recurs in float (closer to
    # exact for ember); the degrees where float32 recursion has lost digits are left out
    xs = [x for x in XS if math.isnan(x) or abs(x) <= 3.0]
    (ex, en), (tx, tn) = _pair(xs, [0, 1, 2, 3, 5, 8, -1, 2.7], np.float32)
    got = getattr(ember.special, name)(ex, en)
    want = getattr(torch.special, name)(tx, tn)
    assert_same(got, want, rtol=2e-5, atol=1e-4)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_random_broadcast_and_no_grad(name):
    check_op(lambda m, x, n: getattr(m.special, name)(x, n.floor()), [(4, 1, 3), (5, 1)],
             dtypes=("float32", "float64"), low=0.0, high=7.0, rtol=1e-4, atol=1e-4)
    x = ember.tensor([0.3, 1.7], requires_grad=True)
    y = getattr(ember.special, name)(x, 3)
    assert y.grad_fn is None and not y.requires_grad  # torch records no gradient either
    assert getattr(torch.special, name)(torch.tensor([0.3], requires_grad=True), 3).grad_fn is None


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_scalars_dtypes_and_shapes(name):
    fe, ft = getattr(ember.special, name), getattr(torch.special, name)
    assert_same(fe(ember.tensor([0.3, -0.4]), 4), ft(torch.tensor([0.3, -0.4]), 4))
    assert_same(fe(0.3, ember.tensor([1, 2, 3])), ft(0.3, torch.tensor([1, 2, 3])))
    assert_same(fe(ember.tensor([1, 2]), ember.tensor([2, 3])),
                ft(torch.tensor([1, 2]), torch.tensor([2, 3])))  # int -> float32
    assert_same(fe(ember.tensor([True, False]), 2), ft(torch.tensor([True, False]), 2))
    assert_same(fe(ember.tensor(0.5, dtype=ember.float64), ember.tensor(3.0)),
                ft(torch.tensor(0.5, dtype=torch.float64), torch.tensor(3.0)))
    assert_same(fe(ember.tensor(0.5), ember.tensor(3.0)), ft(torch.tensor(0.5), torch.tensor(3.0)))
    assert_same(fe(ember.zeros(0, 3), ember.tensor([1.0, 2.0, 3.0])),
                ft(torch.zeros(0, 3), torch.tensor([1.0, 2.0, 3.0])))
    assert_same(fe(x=ember.tensor([0.2]), n=ember.tensor([5.0])),
                ft(x=torch.tensor([0.2]), n=torch.tensor([5.0])))
    out = ember.empty(2)
    r = fe(ember.tensor([0.3, 0.6]), ember.tensor([3.0, 4.0]), out=out)
    assert r is out
    assert_same(out, ft(torch.tensor([0.3, 0.6]), torch.tensor([3.0, 4.0])))


@pytest.mark.parametrize("name", ["chebyshev_polynomial_t", "legendre_polynomial_p",
                                  "laguerre_polynomial_l", "hermite_polynomial_he"])
def test_polynomial_bad_inputs(name):
    fe, ft = getattr(ember.special, name), getattr(torch.special, name)
    # shapes that do not broadcast: torch's RuntimeError, ember's ValueError naming the op and
    # the shapes (ember's convention for every broadcasting op, docs/compatibility.md)
    with pytest.raises(RuntimeError):
        ft(torch.ones(2), torch.ones(3))
    with pytest.raises(ValueError, match=rf"special_{name}: shapes \(2,\) and \(3,\)"):
        fe(ember.ones(2), ember.ones(3))
    with pytest.raises(TypeError):
        ft(0.5, 2)
    with pytest.raises(TypeError):
        fe(0.5, 2)
    with pytest.raises(TypeError):
        fe("a", ember.ones(2))


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_nan_inf_and_overflow(name):
    fe, ft = getattr(ember.special, name), getattr(torch.special, name)
    nan = float("nan")
    # NaN x: 1 for n == 0 and 0 for n < 0, as torch; NaN for n >= 1 (torch's U, W, Laguerre
    # and Legendre return the unset result of a loop that never ran there)
    e = fe(ember.tensor([nan, nan], dtype=ember.float64), ember.tensor([0.0, -1.0], dtype=ember.float64))
    t = ft(torch.tensor([nan, nan], dtype=torch.float64), torch.tensor([0.0, -1.0], dtype=torch.float64))
    assert_same(e, t)
    assert fe(ember.tensor([nan]), ember.tensor([3.0])).isnan().all()
    # past double's range the value is +-inf (torch's recurrence turns it into NaN)
    if not name.startswith("hermite") and name != "laguerre_polynomial_l":
        big = fe(ember.tensor([3.0], dtype=ember.float64), ember.tensor([2000.0], dtype=ember.float64))
        assert big.isinf().all()


def test_large_degrees_are_bounded():
    # Chebyshev at huge n: closed forms (no n-step loop); Legendre/Laguerre past 2^24: NaN
    # (documented), Hermite past 128/512: NaN as torch
    big = ember.tensor([1e12, 2.0 ** 40], dtype=ember.float64)
    t = ember.special.chebyshev_polynomial_t(ember.tensor([0.3, 1.0 + 1e-12], dtype=ember.float64), big)
    assert t.isfinite().tolist() == [True, False] or t[0].abs().item() <= 1.0
    assert ember.special.legendre_polynomial_p(ember.tensor(0.3), ember.tensor(1e9)).isnan().item()
    assert ember.special.laguerre_polynomial_l(ember.tensor(0.3), ember.tensor(1e9)).isnan().item()
    assert_same(ember.special.hermite_polynomial_h(ember.tensor([0.3]), ember.tensor([129.0])),
                torch.special.hermite_polynomial_h(torch.tensor([0.3]), torch.tensor([129.0])))


# ---- zeta ----------------------------------------------------------------------------------
def test_zeta_values():
    xs = [2.0, 3.0, 1.0, 0.5, 1.5, 4.5, 10.0, 40.0, -2.0, 2.0, 3.0, 2.5, 2.0, 2.0, float("nan"), 2.0]
    qs = [1.0, 2.0, 1.0, 1.0, 0.3, 7.0, 0.01, 1.0, 1.0, -2.5, -1.5, -2.5, 0.0, -3.0, 1.0, 1e9]
    for dt in (ember.float64, ember.float32):
        tdt = getattr(torch, str(dt).split(".")[-1])
        got = ember.special.zeta(ember.tensor(xs, dtype=dt), ember.tensor(qs, dtype=dt))
        want = torch.special.zeta(torch.tensor(xs, dtype=tdt), torch.tensor(qs, dtype=tdt))
        assert_same(got, want, rtol=1e-12 if dt == ember.float64 else 1e-6, atol=0)
    check_op(lambda m, x, q: m.special.zeta(x, q), [(3, 4), (4,)], dtypes=("float32", "float64"),
             low=1.1, high=6.0, rtol=1e-6)


def test_zeta_scalars_dtypes_keywords_out():
    assert_same(ember.special.zeta(2.0, ember.tensor([1.0, 2.0])),
                torch.special.zeta(2.0, torch.tensor([1.0, 2.0])))
    assert_same(ember.special.zeta(ember.tensor([2.0, 3.0]), 2.0),
                torch.special.zeta(torch.tensor([2.0, 3.0]), 2.0))
    assert_same(ember.special.zeta(ember.tensor([2, 3]), ember.tensor([1, 2])),
                torch.special.zeta(torch.tensor([2, 3]), torch.tensor([1, 2])))
    assert_same(ember.special.zeta(input=ember.tensor([2.0]), other=3),
                torch.special.zeta(input=torch.tensor([2.0]), other=3))
    out = ember.empty(2, dtype=ember.float64)
    assert ember.special.zeta(ember.tensor([2.0, 3.0], dtype=ember.float64), 1.0, out=out) is out
    assert_same(out, torch.special.zeta(torch.tensor([2.0, 3.0], dtype=torch.float64), 1.0))


def test_zeta_gradient_in_q_and_refused_in_x():
    rng = np.random.default_rng(3)
    x = rng.uniform(1.5, 5.0, (3, 4))
    q = rng.uniform(0.2, 3.0, (4,))
    ex, eq = ember.from_numpy(x.copy()), ember.from_numpy(q.copy()).requires_grad_()
    tx, tq = torch.from_numpy(x.copy()), torch.from_numpy(q.copy()).requires_grad_()
    ey, ty = ember.special.zeta(ex, eq), torch.special.zeta(tx, tq)
    assert ey.grad_fn.name() == ty.grad_fn.name()
    ey.sum().backward()
    ty.sum().backward()
    assert_same(eq.grad, tq.grad, rtol=1e-10, atol=1e-12)
    assert ember.autograd.gradcheck(lambda qq: ember.special.zeta(ex, qq),
                                    [ember.from_numpy(q.copy()).requires_grad_()])
    ex2 = ember.from_numpy(x.copy()).requires_grad_()
    tx2 = torch.from_numpy(x.copy()).requires_grad_()
    with pytest.raises(NotImplementedError, match="zeta"):
        torch.special.zeta(tx2, tq).sum().backward()
    with pytest.raises(NotImplementedError, match="zeta"):
        ember.special.zeta(ex2, eq).sum().backward()


def test_zeta_bad_inputs():
    with pytest.raises(RuntimeError):
        torch.special.zeta(torch.ones(3), torch.ones(2))
    with pytest.raises(ValueError, match=r"special_zeta: shapes \(3,\) and \(2,\)"):
        ember.special.zeta(ember.ones(3), ember.ones(2))
    with pytest.raises(TypeError):
        ember.special.zeta("2", ember.ones(2))


# ---- round ---------------------------------------------------------------------------------
@pytest.mark.parametrize("decimals", [0, 1, 2, 3, -1, -2])
def test_round_decimals(decimals):
    check_op(lambda m, x: m.special.round(x * 100, decimals=decimals), [(3, 5)],
             dtypes=("float32", "float64"), layouts=("contiguous", "transposed"))
    x = ember.tensor([1.25, 2.5, -3.35, 0.125, 1255.0], requires_grad=True)
    t = torch.tensor([1.25, 2.5, -3.35, 0.125, 1255.0], requires_grad=True)
    ey, ty = ember.special.round(x, decimals=decimals), torch.special.round(t, decimals=decimals)
    assert_same(ey, ty)
    ey.sum().backward()
    ty.sum().backward()
    assert_same(x.grad, t.grad)  # zero, as torch


def test_round_edges_and_bad_inputs():
    assert_same(ember.special.round(ember.tensor(2.5)), torch.special.round(torch.tensor(2.5)))
    out = ember.empty(2)
    assert ember.special.round(ember.tensor([1.26, 2.0]), decimals=1, out=out) is out
    assert_same(out, torch.special.round(torch.tensor([1.26, 2.0]), decimals=1))
    with pytest.raises(NotImplementedError):
        torch.special.round(torch.tensor([12, 34]))
    with pytest.raises(NotImplementedError, match="round"):
        ember.special.round(ember.tensor([12, 34]))
    with pytest.raises(NotImplementedError):
        torch.special.round(torch.tensor([12, 34]), decimals=-1)
    with pytest.raises(NotImplementedError, match="round"):
        ember.special.round(ember.tensor([12, 34]), decimals=-1)
    with pytest.raises(TypeError):
        torch.special.round(torch.tensor([1.0]), 2)
    with pytest.raises(TypeError):
        ember.special.round(ember.tensor([1.0]), 2)
    with pytest.raises(TypeError, match="decimals"):
        ember.special.round(ember.tensor([1.0]), decimals=1.5)
    assert ember.special.round(ember.tensor([1.0]), decimals=400).isnan().all()
