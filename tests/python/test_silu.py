"""silu as one op (src/ops/layers.cpp, kernel on sigmoid's SIMD path in
src/kernels/cpu/elementwise_hwy.cpp): forward and backward against torch on random and edge
inputs, every float dtype, strided and broadcast operands, gradcheck, double backward, bad input.
Its values are exactly those of x * sigmoid(x) (the two ops it replaces)."""
import numpy as np
import pytest
import torch

import ember
from helpers import check_grad, check_op, gradcheck_op, to_numpy

nan, inf = float("nan"), float("inf")
EDGES = [0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, 100.0, -100.0, -88.5, -88.72, -88.75, -90.0,
         -104.0, -700.0, -709.75, -710.0, -746.0, 1e30, -1e30, 3.4e38, -3.4e38, inf, -inf, nan]


def silu(m, x):
    return m.nn.functional.silu(x)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_silu_forward_backward_like_torch(layout):
    check_op(silu, [(7, 37)], dtypes=("float32", "float64"), layouts=(layout,), low=-12, high=12)
    check_grad(silu, [(7, 37)], layouts=(layout,), low=-12, high=12)
    check_op(silu, [()], dtypes=("float32", "float64"))
    check_op(silu, [(0, 3)], dtypes=("float32", "float64"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_silu_edges_like_torch(dtype):
    x = np.concatenate([EDGES, np.random.default_rng(1).standard_normal(1000)])
    if dtype in ("bfloat16", "float16"):
        e = ember.tensor(x.tolist(), dtype=getattr(ember, dtype), requires_grad=True)
        t = torch.tensor(x.tolist(), dtype=getattr(torch, dtype), requires_grad=True)
    else:
        e = ember.from_numpy(x.astype(dtype)).requires_grad_(True)
        t = torch.from_numpy(x.astype(dtype)).requires_grad_(True)
    ye, yt = ember.nn.functional.silu(e), torch.nn.functional.silu(t)
    ye.backward(ember.ones_like(ye))
    yt.backward(torch.ones_like(yt))
    for got, want in [(ye.detach(), yt.detach()), (e.grad, t.grad)]:
        got, want = to_numpy(got.float()), want.float().numpy()
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
