"""Activations that are one op each (src/ops/layers.cpp, SIMD kernels in
src/kernels/cpu/elementwise_hwy.cpp) instead of a chain of ops in Python: silu (on sigmoid's
kernel and fix-ups; exactly the values of x * sigmoid(x), the two ops it replaces) and
hardswish (torch's formula and gradient branches), softplus (torch's formula with ember's exp
and log1p kernels; logsigmoid and mish are built on it). Forward and backward against torch on
random and edge inputs, every float dtype, strided and broadcast operands, gradcheck, double
backward, in-place, bad input."""
import numpy as np
import pytest
import torch

import ember
from helpers import check_grad, check_op, gradcheck_op, to_numpy

nan, inf = float("nan"), float("inf")
EDGES = [0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, 100.0, -100.0, -88.5, -88.72, -88.75, -90.0,
         -104.0, -700.0, -709.75, -710.0, -746.0, 1e30, -1e30, 3.4e38, -3.4e38, inf, -inf, nan]


def values_and_grads(name, x, dtype, g=None, **kw):
    """[(ember, torch) for F.name(x) and for its gradient seeded with g (default ones)], as float64
    arrays; x and g are float64 arrays rounded once to dtype in both libraries."""
    g = np.ones(x.size) if g is None else g
    e = ember.tensor(x.tolist(), dtype=getattr(ember, dtype), requires_grad=True)
    t = torch.tensor(x.tolist(), dtype=getattr(torch, dtype), requires_grad=True)
    ye, yt = getattr(ember.nn.functional, name)(e, **kw), getattr(torch.nn.functional, name)(t, **kw)
    ye.backward(ember.tensor(g.tolist(), dtype=getattr(ember, dtype)))
    yt.backward(torch.tensor(g.tolist(), dtype=getattr(torch, dtype)))
    return [(to_numpy(a.double()), b.double().numpy()) for a, b in
            [(ye.detach(), yt.detach()), (e.grad, t.grad)]]


@pytest.mark.parametrize("name, low, high", [("silu", -12, 12), ("hardswish", -5, 5)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_forward_backward_like_torch(name, low, high, layout):
    fn = lambda m, x: getattr(m.nn.functional, name)(x)  # noqa: E731
    check_op(fn, [(7, 37)], dtypes=("float32", "float64"), layouts=(layout,), low=low, high=high)
    check_grad(fn, [(7, 37)], layouts=(layout,), low=low, high=high)
    check_op(fn, [()], dtypes=("float32", "float64"))
    check_op(fn, [(0, 3)], dtypes=("float32", "float64"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_silu_edges_like_torch(dtype):
    x = np.concatenate([EDGES, np.random.default_rng(1).standard_normal(1000)])
    for got, want in values_and_grads("silu", x, dtype):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        tol = 1e-2 if dtype in ("bfloat16", "float16") else 1e-6
        # torch gives a denormal where sigmoid's exp(-x) overflows float32 (below -88.72);
        # ember gives 0 there, as its sigmoid does (test_simd_fixups.py)
        np.testing.assert_allclose(got[ok], want[ok], rtol=tol, atol=1e-36)
        np.testing.assert_array_equal(np.signbit(got[ok & (want == 0)]),
                                      np.signbit(want[ok & (want == 0)]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_silu_is_x_times_sigmoid_bitwise(dtype):
    """The fused op keeps the two ops' values (sigmoid's fix-ups included), whatever the layout
    and the length (tails)."""
    x = np.concatenate([EDGES, np.random.default_rng(2).standard_normal(1003) * 30]).astype(dtype)
    for arr in (x, x[::3], x[:7]):
        e = ember.from_numpy(np.ascontiguousarray(arr))
        np.testing.assert_array_equal(to_numpy(ember.nn.functional.silu(e)),
                                      to_numpy(e * ember.sigmoid(e)))
    strided = ember.from_numpy(x)[::3]
    np.testing.assert_array_equal(to_numpy(ember.nn.functional.silu(strided)),
                                  to_numpy(ember.nn.functional.silu(strided.contiguous())))


def test_silu_broadcast_grad_and_module():
    # sum().backward() seeds a broadcast (stride 0) gradient: the gathered path
    x = np.random.default_rng(3).standard_normal((5, 300)).astype(np.float32)
    e = ember.from_numpy(x).requires_grad_(True)
    t = torch.from_numpy(x).requires_grad_(True)
    ember.nn.SiLU()(e).sum().backward()
    torch.nn.SiLU()(t).sum().backward()
    np.testing.assert_allclose(to_numpy(e.grad), t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_silu_gradcheck_and_double_backward():
    gradcheck_op(lambda m, x: m.nn.functional.silu(x), [(4, 9)], low=-6, high=6)
    x = np.random.default_rng(4).uniform(-5, 5, 20)
    e = ember.from_numpy(x).requires_grad_(True)
    t = torch.from_numpy(x).requires_grad_(True)
    (ge,) = ember.autograd.grad(ember.nn.functional.silu(e).sum(), e, create_graph=True)
    (gt,) = torch.autograd.grad(torch.nn.functional.silu(t).sum(), t, create_graph=True)
    np.testing.assert_allclose(to_numpy(ge.detach()), gt.detach().numpy(), rtol=1e-12)
    ge.sum().backward()
    gt.sum().backward()
    np.testing.assert_allclose(to_numpy(e.grad), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_silu_inplace():
    x = np.linspace(-4, 4, 9).astype(np.float32)
    e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    assert ember.nn.functional.silu(e, inplace=True) is e
    torch.nn.functional.silu(t, inplace=True)
    np.testing.assert_allclose(to_numpy(e), t.numpy(), rtol=1e-6)
    leaf = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="silu_"):
        ember.nn.functional.silu(leaf, inplace=True)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_silu_refuses_integers_as_torch(dtype):
    with pytest.raises(RuntimeError):
        torch.nn.functional.silu(torch.ones(3, dtype=getattr(torch, dtype)))
    with pytest.raises(TypeError, match="silu: .*" + dtype):
        ember.nn.functional.silu(ember.ones(3, dtype=getattr(ember, dtype)))
    with pytest.raises(TypeError):
        ember.nn.functional.silu([1.0, 2.0])


def hardswish(m, x):
    return m.nn.functional.hardswish(x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_hardswish_edges_bitwise_like_torch(dtype):
    """Values and gradients at the kinks (+-3, exactly and one ulp off), 0, +-inf, NaN, with
    NaN and inf among the incoming gradients: torch's bits (its branches return 0 for x <= -3
    whatever the gradient, g itself from 3 on, NaN for NaN)."""
    x = np.array(EDGES + [-3.0, 3.0, -2.9999998, 2.9999998, -3.0000002, 3.0000002, 1.5, -1.5]
                 + list(np.random.default_rng(5).uniform(-5, 5, 200)))
    g = np.random.default_rng(6).standard_normal(x.size)
    g[[0, 6, 21, 24, 25]] = [nan, nan, inf, nan, -inf]
    for got, want in values_and_grads("hardswish", x, dtype, g):
        np.testing.assert_array_equal(got, want)
        num = ~np.isnan(want)  # a NaN's sign bit is not specified
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]))


def test_hardswish_strided_gradcheck_double_backward_inplace():
    x = np.random.default_rng(7).uniform(-5, 5, (6, 50))
    e = ember.from_numpy(x)
    np.testing.assert_array_equal(to_numpy(ember.nn.functional.hardswish(e.t())),
                                  to_numpy(ember.nn.functional.hardswish(e.t().contiguous())))
    gradcheck_op(hardswish, [(4, 9)], low=-2.9, high=2.9)
    xs = np.array([-4.0, -2.0, 0.5, 2.0, 4.0])
    e = ember.from_numpy(xs).requires_grad_(True)
    t = torch.from_numpy(xs).requires_grad_(True)
    (ge,) = ember.autograd.grad(ember.nn.functional.hardswish(e).sum(), e, create_graph=True)
    (gt,) = torch.autograd.grad(torch.nn.functional.hardswish(t).sum(), t, create_graph=True)
    np.testing.assert_allclose(to_numpy(ge.detach()), gt.detach().numpy(), rtol=1e-15)
    (ge * ge).sum().backward()
    (gt * gt).sum().backward()
    np.testing.assert_allclose(to_numpy(e.grad), t.grad.numpy(), rtol=1e-14)
    v = ember.from_numpy(xs.copy())
    assert ember.nn.functional.hardswish(v, inplace=True) is v
    np.testing.assert_array_equal(to_numpy(v), torch.nn.functional.hardswish(torch.from_numpy(xs)).numpy())


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_hardswish_refuses_integers_as_torch(dtype):
    with pytest.raises(RuntimeError):
        torch.nn.functional.hardswish(torch.ones(3, dtype=getattr(torch, dtype)))
    with pytest.raises((TypeError, RuntimeError), match="hardswish"):
        ember.nn.functional.hardswish(ember.ones(3, dtype=getattr(ember, dtype)))
    with pytest.raises(TypeError, match="hardswish"):
        ember._C.hardswish(ember.ones(3, dtype=getattr(ember, dtype)))


@pytest.mark.parametrize("kw", [{}, {"beta": 2.0, "threshold": 3.0}, {"beta": 0.5},
                                {"beta": -1.5, "threshold": 4.0}, {"threshold": 100.0}])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_softplus_forward_backward_like_torch(kw, layout):
    fn = lambda m, x: m.nn.functional.softplus(x, **kw)  # noqa: E731
    check_op(fn, [(7, 37)], dtypes=("float32", "float64"), layouts=(layout,), low=-30, high=30)
    check_grad(fn, [(7, 37)], layouts=(layout,), low=-30, high=30)
    check_op(fn, [()], dtypes=("float32", "float64"))
    check_op(fn, [(0, 3)], dtypes=("float32", "float64"))


@pytest.mark.parametrize("name", ["softplus", "logsigmoid", "mish"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_softplus_family_edges_like_torch(name, dtype):
    """-100 (denormal results), the exp overflow band, +-inf, NaN, denormal inputs: torch's
    values and gradients (within an ulp, or a few denormal steps)."""
    x = np.concatenate([EDGES, [-87.0, -87.5, -89.0, -103.0, -104.5, 19.9, 20.0, 20.1, 88.8],
                        np.random.default_rng(8).standard_normal(300) * 40])
    tol = {"float32": 2e-6, "float64": 1e-13}.get(dtype, 1e-2)
    # denormal results (x ~ -100): a few denormal steps apart (torch rounds its chain differently)
    tiny = {"float32": 1e-40, "float64": 1e-305}.get(dtype, 1e-7)
    if name == "mish":  # still a chain of ops (x * tanh(softplus)): it rounds at each step, and
        # its gradient near x ~ -88 is a difference of denormal-sized terms (as before the fusion)
        tol, tiny = {"float32": (3e-6, 1e-36), "float64": (1e-13, 1e-300)}.get(dtype, (6e-2, 2e-3))
    for got, want in values_and_grads(name, x, dtype):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        np.testing.assert_allclose(got[ok], want[ok], rtol=tol, atol=tiny)


def test_softplus_strided_gradcheck_double_backward():
    x = np.random.default_rng(9).uniform(-30, 30, (6, 50)).astype(np.float32)
    e = ember.from_numpy(x)
    for kw in ({}, {"beta": 2.0, "threshold": 3.0}):
        np.testing.assert_array_equal(
            to_numpy(ember.nn.functional.softplus(e.t(), **kw)),
            to_numpy(ember.nn.functional.softplus(e.t().contiguous(), **kw)))
    gradcheck_op(lambda m, x: m.nn.functional.softplus(x, beta=2.0, threshold=3.0), [(4, 9)])
    xs = np.linspace(-4, 4, 11)
    e = ember.from_numpy(xs).requires_grad_(True)
    t = torch.from_numpy(xs).requires_grad_(True)
    (ge,) = ember.autograd.grad(ember.nn.functional.softplus(e, 1.5, 2.0).sum(), e,
                                create_graph=True)
    (gt,) = torch.autograd.grad(torch.nn.functional.softplus(t, 1.5, 2.0).sum(), t,
                                create_graph=True)
    np.testing.assert_allclose(to_numpy(ge.detach()), gt.detach().numpy(), rtol=1e-14)
    (ge * ge).sum().backward()
    (gt * gt).sum().backward()
    np.testing.assert_allclose(to_numpy(e.grad), t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_softplus_bad_input():
    for dtype in ("int64", "bool"):
        with pytest.raises(RuntimeError, match="softplus"):
            ember.nn.functional.softplus(ember.ones(3, dtype=getattr(ember, dtype)))
        with pytest.raises(TypeError, match="softplus"):
            ember._C.softplus(ember.ones(3, dtype=getattr(ember, dtype)))
    with pytest.raises(TypeError):
        ember._C.softplus(ember.ones(3), beta="two")
