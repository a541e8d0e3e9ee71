"""In-place activations whose backward reads only their result (Note [In-place with the result
saved]): leaky_relu_ (slope >= 0) and the unary relu_/tanh_/sigmoid_/exp_/sqrt_... write into
their input and record one node on it, as torch does. Values, gradients, node names, second
derivatives, edge values, the version check, views and the fallbacks, against torch 2.13."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, gradcheck_op

UNARY = ["relu", "tanh", "sigmoid", "exp", "sqrt", "reciprocal", "neg", "expm1", "rsqrt"]


def _run(m, x_np, fn, create_graph=False):
    """x (leaf) -> y = x * 1.5 (non-leaf) -> fn(y) in place -> weighted sum; returns
    (value, x.grad, grad_fn name, the in-place call's return is y)."""
    x = m.tensor(x_np, requires_grad=True)
    y = x * 1.5
    z = fn(m, y)
    assert z is y
    name = type(z.grad_fn).__name__ if m is torch else z.grad_fn.name()
    w = m.tensor(np.linspace(-1.0, 2.0, x_np.size).reshape(x_np.shape).astype(x_np.dtype))
    loss = (z * w).sum()
    (g,) = m.autograd.grad(loss, x, create_graph=create_graph)
    return z.detach(), g, name


def _both(x_np, fn, **kw):
    return [_run(m, x_np, fn, **kw) for m in (torch, ember)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("slope", [0.0, 0.01, 0.2, 1.5])
def test_leaky_relu_inplace_values_grads_node(dtype, slope):
    x = np.random.default_rng(0).standard_normal((4, 7)).astype(dtype)
    x[0, :3] = 0.0
    (tv, tg, tn), (ev, eg, en) = _both(x, lambda m, y: m.nn.functional.leaky_relu_(y, slope))
    assert_same(ev, tv)
    assert_same(eg, tg)
    assert en == tn == "LeakyReluBackward1"


def test_leaky_relu_inplace_edges():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, -3e38], "float32")
    (tv, tg, _), (ev, eg, _) = _both(x, lambda m, y: m.nn.functional.leaky_relu_(y, 0.2))
    assert_same(ev, tv)
    assert_same(eg, tg)
    for m in (torch, ember):  # empty
        y = m.zeros(0, 3, requires_grad=True) * 1.0
        z = m.nn.functional.leaky_relu_(y, 0.1)
        z.sum().backward()
        assert z.shape == (0, 3)


def test_leaky_relu_inplace_second_derivative_and_gradcheck():
    x = np.random.default_rng(1).standard_normal((3, 5))
    (_, tg, _), (_, eg, _) = _both(x, lambda m, y: m.nn.functional.leaky_relu_(y, 0.3),
                                   create_graph=True)
    assert_same(eg.detach(), tg.detach())

    def fn(m, a):
        y = a * 1.0
        return m.nn.functional.leaky_relu_(y, 0.3)
    gradcheck_op(fn, [(3, 4)])


def test_leaky_relu_inplace_negative_slope_falls_back():
    """torch's in-place backward refuses a negative slope; ember gives the out-of-place
    gradient (the sign of the result no longer tells the input's)."""
    x = np.random.default_rng(2).standard_normal((3, 4))
    ev, eg, _ = _run(ember, x, lambda m, y: m.nn.functional.leaky_relu_(y, -0.5))
    tx = torch.tensor(x, requires_grad=True)
    tz = torch.nn.functional.leaky_relu(tx * 1.5, -0.5)
    w = torch.tensor(np.linspace(-1.0, 2.0, x.size).reshape(x.shape))
    (tg,) = torch.autograd.grad((tz * w).sum(), tx)
    assert_same(ev, tz.detach())
    assert_same(eg, tg)
    with pytest.raises(RuntimeError, match="negative slope"):
        _run(torch, x, lambda m, y: m.nn.functional.leaky_relu_(y, -0.5))


def test_leaky_relu_inplace_half_and_no_grad():
    x = np.random.default_rng(3).standard_normal((5, 6)).astype("float32")
    for dt in ("bfloat16", "float16"):
        t = torch.tensor(x).to(getattr(torch, dt))
        e = ember.tensor(x).to(getattr(ember, dt))
        assert ember.nn.functional.leaky_relu_(e, 0.2) is e
        torch.nn.functional.leaky_relu_(t, 0.2)
        assert_same(e.float(), t.float())
    e = ember.tensor(x, requires_grad=True)
    with ember.no_grad():
        ember.nn.functional.leaky_relu_(e, 0.1)  # a leaf under no_grad: allowed, as torch
    assert e.grad_fn is None


def test_leaky_relu_inplace_on_a_view_rewrites_the_base():
    """A view with history goes through apply_inplace: the base's gradient flows through."""
    x = np.random.default_rng(4).standard_normal((4, 6))
    outs = []
    for m in (torch, ember):
        a = m.tensor(x, requires_grad=True)
        b = a * 2.0
        v = b[1:3, ::2]
        m.nn.functional.leaky_relu_(v, 0.1)
        (g,) = m.autograd.grad((b * b).sum(), a)
        outs.append((b.detach(), g))
    assert_same(outs[1][0], outs[0][0])
    assert_same(outs[1][1], outs[0][1])


def test_leaky_relu_inplace_saved_result_modified_again_raises():
    for m in (torch, ember):
        y = m.randn(3, 4, requires_grad=True) * 1.0
        z = m.nn.functional.leaky_relu_(y, 0.1)
        z.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
    for m in (torch, ember):  # a leaf that requires grad is refused, nothing written
        leaf = m.tensor([-1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf"):
            m.nn.functional.leaky_relu_(leaf, 0.1)
        assert leaf.detach().tolist() == [-1.0, 2.0]


def test_leaky_relu_inplace_module_and_bad_input():
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 4)).astype("float32")
    res = []
    for m in (torch, ember):
        a = m.tensor(x, requires_grad=True)
        y = m.nn.LeakyReLU(0.2, inplace=True)(m.nn.functional.batch_norm(
            a, None, None, training=True))
        y.pow(2).sum().backward()
        res.append((y.detach(), a.grad))
    assert_same(res[1][0], res[0][0], rtol=1e-5, atol=1e-6)
    assert_same(res[1][1], res[0][1], rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="leaky_relu_"):
        ember._C.leaky_relu_([1.0, -1.0], 0.1)
    with pytest.raises((TypeError, RuntimeError)):
        ember.nn.functional.leaky_relu_(ember.tensor([1, -2]), 0.1)


def test_inplace_step_runs_no_copies():
    """One kernel pass forward and one backward: no clone, copy_, where or masked_fill."""
    x = ember.randn(64, 64, requires_grad=True)
    with ember.profiler.profile() as p:
        y = x * 1.0
        ember.nn.functional.leaky_relu_(y, 0.2)
        z = (y * 2.0).relu_()
        z.sum().backward()
    names = {e.key for e in p.key_averages()}
    assert not names & {"clone", "copy_", "where", "masked_fill", "full"}, names


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_inplace_values_grads_node(name, dtype):
    rng = np.random.default_rng(6)
    x = rng.uniform(0.2, 2.0, (3, 5)) if name in ("sqrt", "rsqrt", "reciprocal") else \
        rng.standard_normal((3, 5))
    x = x.astype(dtype)
    (tv, tg, tn), (ev, eg, en) = _both(x, lambda m, y: getattr(y, name + "_")())
    tol = dict(rtol=2e-6, atol=1e-7) if dtype == "float32" else {}
    assert_same(ev, tv, **tol)
    assert_same(eg, tg, **tol)
    assert en == tn


@pytest.mark.parametrize("name", ["relu", "tanh", "sigmoid", "exp"])
def test_unary_inplace_second_derivative_edges_and_views(name):
    x = np.array([0.0, -0.0, 1.0, -2.0, np.inf, -np.inf, np.nan, 40.0, -40.0])
    (tv, tg, _), (ev, eg, _) = _both(x, lambda m, y: getattr(y, name + "_")(),
                                     create_graph=True)
    assert_same(ev, tv)
    assert_same(eg.detach(), tg.detach())
    xs = np.random.default_rng(7).standard_normal((3, 4))
    outs = []
    for m in (torch, ember):  # second derivative through the saved result
        a = m.tensor(xs, requires_grad=True)
        y = a * 1.0
        getattr(y, name + "_")()
        (g,) = m.autograd.grad(y.pow(2).sum(), a, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), a)
        b = a * 2.0  # through a view: the base's history is rewritten
        getattr(b[:, 1:3], name + "_")()
        (gv,) = m.autograd.grad((b * b).sum(), a)
        outs.append((g.detach(), gg, gv))
    for e, t in zip(outs[1], outs[0]):
        assert_same(e, t, rtol=1e-6, atol=1e-9)

    def fn(m, a):
        y = a * 1.0
        return getattr(y, name + "_")()
    gradcheck_op(fn, [(3, 4)])


def test_unary_inplace_saving_input_keeps_apply_inplace():
    """sin_, log_, abs_... need their input: the old path, right gradients."""
    x = np.random.default_rng(8).uniform(0.5, 2.0, (3, 4))
    for name in ("sin", "log", "abs", "erf", "square"):
        (tv, tg, tn), (ev, eg, en) = _both(x, lambda m, y: getattr(y, name + "_")())
        assert_same(ev, tv)
        assert_same(eg, tg)


@pytest.mark.parametrize("name", ["neg", "sign", "floor", "ceil", "round", "trunc"])
def test_unary_saving_nothing_allows_later_inplace(name):
    """Their gradient reads neither input nor output, so a later in-place write to the result
    is fine (torch: no error); in place or out of place."""
    x = np.random.default_rng(9).standard_normal((3, 4))
    for inplace in (False, True):
        gs = []
        for m in (torch, ember):
            a = m.tensor(x, requires_grad=True)
            b = getattr(a * 1.0, name + "_")() if inplace else getattr(m, name)(a)
            b.mul_(3)
            (g,) = m.autograd.grad((b * a).sum(), a)
            gs.append(g)
        assert_same(gs[1], gs[0])
