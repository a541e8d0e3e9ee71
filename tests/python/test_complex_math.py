"""Arithmetic on complex tensors against torch 2.13: add/sub/mul/div/pow/neg/reciprocal/exp/
log/sqrt/sin/cos/tanh/square, sum/mean, matmul (cgemm/zgemm), eq/ne, isfinite/isnan/isinf,
with real <-> complex broadcasting and promotion, and Python complex scalars."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

NP = {"complex64": np.complex64, "complex128": np.complex128, "float32": np.float32,
      "float64": np.float64, "int64": np.int64}


def pair(shape, dtype="complex64", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype.startswith("c") else 0)
    if dtype == "int64":
        a = rng.integers(-3, 4, size=shape)
    a = np.asarray(a).astype(NP[dtype])
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def tol(*dts):
    single = any(d in ("complex64", "float32", "int64") for d in dts)  # int with 1j: complex64
    return dict(rtol=1e-4, atol=1e-5) if single else dict(rtol=1e-10, atol=1e-12)


BINARY = [lambda m, a, b: a + b, lambda m, a, b: a - b, lambda m, a, b: a * b, lambda m, a, b: a / b,
          lambda m, a, b: m.add(a, b, alpha=2), lambda m, a, b: m.sub(a, b, alpha=0.5),
          lambda m, a, b: a == b, lambda m, a, b: a != b, lambda m, a, b: m.pow(a, b)]


@pytest.mark.parametrize("da,db", [("complex64", "complex64"), ("complex128", "complex64"),
                                   ("complex64", "float32"), ("float64", "complex64"),
                                   ("int64", "complex128"), ("complex64", "float64")])
def test_binary_promotion_broadcasting(da, db):
    ea, ta = pair((3, 4), da, 1)
    eb, tb = pair((4,), db, 2)
    for i, op in enumerate(BINARY):
        assert_same(op(ember, ea, eb), op(torch, ta, tb), **tol(da, db)), i
        assert_same(op(ember, eb, ea), op(torch, tb, ta), **tol(da, db)), i


@pytest.mark.parametrize("dt", ["complex64", "complex128", "float32", "float64", "int64"])
@pytest.mark.parametrize("s", [2j, 1.5 - 0.5j, 2, 0.5])
def test_scalars(dt, s):
    e, t = pair((2, 3), dt, 3)
    for op in (lambda x: x + s, lambda x: s - x, lambda x: x * s, lambda x: x / s, lambda x: s / (x + 10),
               lambda x: x == s):
        assert_same(op(e), op(t), **tol(dt))
    if dt.startswith("c"):
        assert_same(e ** s, t ** s, **tol(dt))
        x, xt = e.clone(), t.clone()
        x += s
        x *= s
        xt += s
        xt *= s
        assert_same(x, xt, **tol(dt))


def test_zero_dim_promotion():
    f64, t64 = pair((3,), "float64")
    z0, zt0 = ember.tensor(1 + 1j), torch.tensor(1 + 1j)
    assert_same(f64 + z0, t64 + zt0)  # complex128: float64 keeps its precision
    f32, t32 = pair((3,), "float32")
    z1, zt1 = ember.tensor(1j, dtype=ember.complex128), torch.tensor(1j, dtype=torch.complex128)
    assert_same(f32 + z1, t32 + zt1)  # complex64
    assert_same(f64 * 1j, t64 * 1j)
    assert_same(ember.arange(3) * 1j, torch.arange(3) * 1j)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_unary(dt):
    e, t = pair((3, 5), dt, 4)
    for name in ("neg", "reciprocal", "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "square",
                 "sigmoid", "abs", "angle", "isfinite", "isnan", "isinf"):
        assert_same(getattr(ember, name)(e), getattr(torch, name)(t), **tol(dt)), name
    assert_same(-e, -t)
    assert_same(e ** 2, t ** 2, **tol(dt))
    assert_same(e ** -1, t ** -1, **tol(dt))
    assert_same(e ** 0.5, t ** 0.5, **tol(dt))
    assert_same(ember.zeros(2, dtype=e.dtype) ** 2, torch.zeros(2, dtype=t.dtype) ** 2)
    x, xt = e.clone(), t.clone()
    x.exp_(), xt.exp_()
    assert_same(x, xt, **tol(dt))
    special = [complex("nan+1j"), complex("inf-1j"), 1 + 1j, complex("1+infj")]
    for name in ("isfinite", "isnan", "isinf"):
        assert_same(getattr(ember, name)(ember.tensor(special)), getattr(torch, name)(torch.tensor(special)))


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_reductions(dt):
    e, t = pair((3, 4, 5), dt, 5)
    for args in ((), (0,), (-1,), ((0, 2),), (1, True)):
        assert_same(e.sum(*args), t.sum(*args), **tol(dt))
        assert_same(e.mean(*args), t.mean(*args), **tol(dt))
    assert_same(e[0, 0, 0].sum(), t[0, 0, 0].sum())
    assert_same(e.t().sum(0) if e.dim() == 2 else e.transpose(0, 2).sum(1), t.transpose(0, 2).sum(1), **tol(dt))
    assert_same(ember.zeros(0, 3, dtype=e.dtype).sum(0), torch.zeros(0, 3, dtype=t.dtype).sum(0))


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((4,), (4, 2)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2)),
                                   ((4,), (4,)), ((0, 3), (3, 2))])
def test_matmul(dt, sa, sb):
    ea, ta = pair(sa, dt, 6)
    eb, tb = pair(sb, dt, 7)
    assert_same(ea @ eb, ta @ tb, **tol(dt))
    assert_same(ember.matmul(ea.mT if ea.dim() > 1 else ea, eb) if False else ember.matmul(ea, eb), torch.matmul(ta, tb), **tol(dt))
    if ea.dim() == 2 and eb.dim() == 2:
        assert_same(ember.mm(ea.t().contiguous().t(), eb.t().contiguous().t()), torch.mm(ta, tb), **tol(dt))
        assert_same(ea.conj() @ eb, ta.conj() @ tb, **tol(dt))


def test_matmul_mixed_dtype_refused():
    a, ta = pair((2, 3), "complex64")
    b, tb = pair((3, 2), "float32")
    with pytest.raises(RuntimeError):
        ta @ tb
    with pytest.raises(TypeError, match="matmul: expected both operands to have the same dtype"):
        a @ b  # ember's matmul raises TypeError for any dtype mismatch (torch: RuntimeError)
