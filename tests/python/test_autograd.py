"""The autograd engine: PyTorch's semantics for backward, grad, graph lifetime, hooks,
in-place checks, grad modes and custom Functions."""
import gc
import os

import numpy as np
import pytest
import torch

import ember
from _legendre_function import legendre_p3
from helpers import check_grad, gradcheck_op

E = ember


def test_leaf_and_grad_fn():
    x = E.ones(3, requires_grad=True)
    y = x * 2
    assert x.is_leaf and not y.is_leaf
    assert x.grad_fn is None and y.grad_fn.name() == "MulBackward0"
    assert y.requires_grad and not (E.ones(3) * 2).requires_grad


def test_grad_accumulates_across_backward_calls():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        (x * x).backward(E.ones(2))
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


def test_grad_buffer_is_accumulated_in_place():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).backward(E.ones(2))
    g = x.grad
    ptr = g.data_ptr()
    (x * 3).backward(E.ones(2))
    assert x.grad.data_ptr() == ptr
    np.testing.assert_allclose(g.numpy(), [6.0, 6.0])


def test_seed_is_not_stolen():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    seed = E.ones(2)
    (x + 0).backward(seed)
    x.grad.mul_(5)
    np.testing.assert_allclose(seed.numpy(), [1.0, 1.0])


def test_backward_errors():
    x = E.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        E.ones(3).backward(E.ones(3))
    with pytest.raises(ValueError, match="shape"):
        (x * 2).backward(E.ones(4))


def test_second_backward_through_freed_graph_raises():
    x = E.ones(2, requires_grad=True)
    y = x.exp()
    y.backward(E.ones(2))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward(E.ones(2))


def test_retain_graph_allows_second_backward():
    x = E.ones(2, requires_grad=True)
    y = x.exp()
    y.backward(E.ones(2), retain_graph=True)
    y.backward(E.ones(2))
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.e * np.ones(2), rtol=1e-6)


def test_deep_chain_does_not_overflow_the_stack():
    x = E.ones(1, requires_grad=True)
    h = x
    for _ in range(100_000):
        h = h * 1.0
    h.backward(E.ones(1))
    assert x.grad.item() == 1.0


def test_diamond_and_unused_branch():
    x = E.tensor([2.0], requires_grad=True)
    a = x * 3
    b = a * a      # a used twice
    c = a + b
    _unused = a.exp()
    c.backward(E.ones(1))
    # dc/dx = 3 + 2*a*3 = 3 + 36
    assert x.grad.item() == pytest.approx(39.0)


def test_no_grad_and_friends():
    x = E.ones(2, requires_grad=True)
    with E.no_grad():
        assert not (x * 2).requires_grad
        with E.enable_grad():
            assert (x * 2).requires_grad
    with E.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    with E.inference_mode():
        assert not (x * 2).requires_grad
    assert E.is_grad_enabled()

    @E.no_grad()
    def f():
        return x * 2
    assert not f().requires_grad


def test_bare_grad_mode_decorators_as_torch():
    """@no_grad, @enable_grad and @inference_mode without parentheses, as torch allows."""
    for lib in (E, torch):
        x = lib.ones(2, requires_grad=True)

        @lib.no_grad
        def off():
            return (x * 2).requires_grad, lib.is_grad_enabled()

        @lib.enable_grad
        def on():
            return (x * 2).requires_grad

        @lib.inference_mode
        def inference():
            return (x * 2).requires_grad, lib.is_inference_mode_enabled()

        assert off() == (False, False) and off.__name__ == "off"
        with lib.no_grad():
            assert on()
        assert inference() == (False, True)
        assert lib.is_grad_enabled() and not lib.is_inference_mode_enabled()
        assert isinstance(lib.no_grad(), lib.no_grad)


def test_inplace_on_leaf_raises_and_leaves_it_unmodified():
    x = E.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.narrow(0, 0, 1).mul_(2)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0])
    with E.no_grad():
        x.add_(1)
    np.testing.assert_allclose(x.detach().numpy(), [2.0, 2.0])


def test_modified_saved_tensor_raises_at_backward():
    x = E.ones(2, requires_grad=True)
    y = x * 1
    z = y.sin()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward(E.ones(2))


def test_inplace_gradients_match_torch():
    def f(m, a, b):
        y = a * 1
        y.mul_(b)
        y.sin_()
        y += a
        return y
    check_grad(f, [(3, 4), (3, 4)])


def test_inplace_through_view_rewrites_base_history():
    def f(m, a):
        y = a * 1
        y.narrow(1, 0, 2).mul_(10)
        y.select(0, 1).exp_()
        return y * 2
    check_grad(f, [(3, 4)])


def test_create_graph_hessian_vector_product():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal(5)
    vs = rng.standard_normal(5)
    res = []
    for m in (torch, ember):
        x = m.from_numpy(xs.copy()).requires_grad_(True)
        v = m.from_numpy(vs.copy())
        y = (x * x * x).sin()
        (g,) = m.autograd.grad([y], [x], [m.ones_like(x)], create_graph=True)
        (hv,) = m.autograd.grad([g], [x], [v])
        res.append(hv.detach().numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-10)


def test_autograd_grad_does_not_touch_dot_grad():
    x = E.ones(2, requires_grad=True)
    (g,) = E.autograd.grad([x * 3], [x], [E.ones(2)])
    assert x.grad is None
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])
    with pytest.raises(RuntimeError, match="allow_unused"):
        E.autograd.grad([x * 3], [x, E.ones(1, requires_grad=True)], [E.ones(2)])
    g1, g2 = E.autograd.grad([x * 3], [x, E.ones(1, requires_grad=True)], [E.ones(2)],
                             allow_unused=True)
    assert g2 is None


def test_hooks_and_retain_grad():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    (y * y).backward(E.ones(2))
    assert seen == [[6.0, 12.0]]
    np.testing.assert_allclose(y.grad.numpy(), [6.0, 12.0])
    np.testing.assert_allclose(x.grad.numpy(), [180.0, 360.0])
    handle.remove()
    x.grad = None
    (x * 1).backward(E.ones(2))
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_detach_and_requires_grad_rules():
    x = E.ones(2, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d._shares_storage(x)
    with pytest.raises(RuntimeError, match="floating point"):
        E.ones(2, dtype=E.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        (x * 2).requires_grad_(False)


P3 = legendre_p3(ember)


def test_custom_function_and_ctx():
    x = E.tensor([0.5, 1.0, -2.0], requires_grad=True)
    y = P3.apply(x)
    assert y.grad_fn.name() == "P3Backward"
    y.backward(E.ones(3))
    xs = np.array([0.5, 1.0, -2.0])
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * (5 * xs ** 2 - 1), rtol=1e-6)


def test_custom_function_mark_dirty_and_needs_input_grad():
    class AddOneInPlace(E.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.flags = ctx.needs_input_grad
            x.add_(k)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, None

    a = E.ones(2, requires_grad=True)
    b = a * 2
    out = AddOneInPlace.apply(b, 1.0)
    assert out is b
    out.backward(E.ones(2))
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0])


def test_gradcheck_detects_a_wrong_backward():
    class Wrong(E.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g  # should be 2x g

    x = E.tensor([1.0, 2.0], dtype=E.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        E.autograd.gradcheck(Wrong.apply, (x,))
    assert E.autograd.gradcheck(P3.apply, (x,))


def test_custom_function_gradient_of_a_broadcast_shape_is_summed_back():
    # As torch's engine: a backward may return a bias gradient summed with keepdim=True; one of
    # a shape the input does not broadcast to raises.
    def make(lib, bad):
        class AddBias(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, b):
                return x + b

            @staticmethod
            def backward(ctx, g):
                return g, (g.sum(0, keepdim=True) if not bad else g.sum(1))
        return AddBias.apply

    for lib in (E, torch):
        x, b = lib.ones(4, 3, requires_grad=True), lib.ones(3, requires_grad=True)
        make(lib, False)(x, b).sum().backward()
        assert b.grad.tolist() == [4.0, 4.0, 4.0]
        with pytest.raises(RuntimeError, match=r"AddBiasBackward returned an invalid gradient at "
                                               r"index 1 - got \[4\] but expected shape compatible "
                                               r"with \[3\]"):
            make(lib, True)(x, b).sum().backward()


def _rss_mb():
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_memory_stays_flat_over_1000_iterations():
    rng = np.random.default_rng(0)
    x = E.from_numpy(rng.standard_normal((64, 100)).astype(np.float32))
    w = E.from_numpy(rng.standard_normal((100, 10)).astype(np.float32)).requires_grad_(True)

    def step():
        h = (x.unsqueeze(2) * w.unsqueeze(0)).tanh()     # (64, 100, 10)
        y = (h * h + h.sigmoid()).exp()
        y.backward(E.ones_like(y))
        with E.no_grad():
            w.sub_(w.grad * 1e-4)
        w.grad = None

    for _ in range(50):
        step()
    gc.collect()
    before = _rss_mb()
    for _ in range(1000):
        step()
    gc.collect()
    grown = _rss_mb() - before
    assert grown < 20, f"resident memory grew by {grown:.1f} MB over 1000 iterations"
