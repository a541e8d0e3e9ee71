"""Python autograd.Function: what apply records and what the node running backward checks
(gradient count, types, shapes, dtypes, materialized zeros, marked and saved outputs), each
checked against torch 2.13 running the same Function."""
import numpy as np
import pytest
import torch

import ember as E

LIBS = [E, torch]


def _fn(lib, forward, backward):
    return type("Fn", (lib.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("lib", LIBS)
def test_gradient_count_extra_nones_allowed_extra_tensors_raise(lib):
    x = lib.ones(3, requires_grad=True)
    extra_none = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: (g * 2, None))
    extra_none.apply(x).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0, 2.0])
    extra = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: (g, g))
    with pytest.raises(RuntimeError, match=r"function FnBackward returned an incorrect number of "
                                           r"gradients \(expected 1, got 2\)"):
        extra.apply(x).sum().backward()
    few = _fn(lib, lambda ctx, x, y: x * y, lambda ctx, g: g)
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 1\)"):
        few.apply(x, x).sum().backward()


@pytest.mark.parametrize("lib", LIBS)
def test_bad_gradient_values_raise(lib):
    x = lib.ones(3, requires_grad=True)
    not_a_tensor = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: 1)
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got int\)"):
        not_a_tensor.apply(x).sum().backward()
    for_a_float = _fn(lib, lambda ctx, x, k: x * k, lambda ctx, g: (g, g))
    with pytest.raises(RuntimeError, match="returned a gradient different than None at position "
                                           "2, but the corresponding forward input was not a "
                                           "Variable"):
        for_a_float.apply(x, 2.0).sum().backward()
    assert x.grad is None  # nothing was accumulated by the failed backwards


@pytest.mark.parametrize("lib", LIBS)
def test_gradient_is_cast_to_the_input_dtype(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    f = _fn(lib, lambda ctx, x: x * 3, lambda ctx, g: g.double() * 3)
    f.apply(x).sum().backward()
    assert x.grad.dtype == lib.float32
    np.testing.assert_allclose(_np(x.grad), [3.0, 3.0])


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("materialize", [True, False])
def test_missing_output_gradient_is_zeros_or_none(lib, materialize):
    seen = []

    def forward(ctx, x):
        ctx.set_materialize_grads(materialize)
        return x * 2, x.double() * 3

    def backward(ctx, ga, gb):
        seen.append(gb if gb is None else (tuple(gb.shape), gb.dtype, _np(gb).tolist()))
        return ga * 2

    x = lib.ones(2, 3, requires_grad=True)
    a, _ = _fn(lib, forward, backward).apply(x)
    a.sum().backward()
    expect = (((2, 3), lib.float64, [[0.0] * 3] * 2) if materialize else None)
    assert seen == [expect]
    np.testing.assert_allclose(_np(x.grad), np.full((2, 3), 2.0))


@pytest.mark.parametrize("lib", LIBS)
def test_input_returned_unchanged_becomes_a_new_tensor(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    grad_fn = y.grad_fn
    out = _fn(lib, lambda ctx, y: y, lambda ctx, g: g * 5).apply(y)
    assert out is not y and y.grad_fn == grad_fn and out.grad_fn.name() == "FnBackward"
    out.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [5.0, 5.0, 5.0])


@pytest.mark.parametrize("lib", LIBS)
def test_non_differentiable_output_and_saved_output(lib):
    def forward(ctx, x):
        y, idx = x.exp(), x.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(y)  # an output: kept without its own history
        return y, idx

    def backward(ctx, g, _):  # one gradient per output, the marked one's too
        y, = ctx.saved_tensors
        return g * y

    x = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y, idx = _fn(lib, forward, backward).apply(x)
    assert y.requires_grad and not idx.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)
    y2, _ = _fn(lib, forward, backward).apply(x)
    with lib.no_grad():
        y2.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y2.sum().backward()


@pytest.mark.parametrize("lib", LIBS)
def test_forward_runs_without_grad_and_restores_grad_mode_on_error(lib):
    modes = []

    def forward(ctx, x):
        modes.append(lib.is_grad_enabled())
        if x.shape[0] == 0:
            raise ValueError("empty")
        return x * 2

    f = _fn(lib, forward, lambda ctx, g: g * 2)
    x = lib.ones(2, requires_grad=True)
    assert f.apply(x).requires_grad
    with pytest.raises(ValueError, match="empty"):
        f.apply(lib.ones(0, requires_grad=True))
    assert lib.is_grad_enabled() and modes == [False, False]
    with lib.no_grad():
        assert f.apply(x).grad_fn is None


@pytest.mark.parametrize("lib", LIBS)
def test_double_backward_through_a_python_backward(lib):
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2

    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    (gx,) = lib.autograd.grad(_fn(lib, forward, backward).apply(x).sum(), x, create_graph=True)
    (ggx,) = lib.autograd.grad(gx.sum(), x)
    np.testing.assert_allclose(_np(ggx), [6.0, 12.0])
    assert lib.autograd.gradgradcheck(_fn(lib, forward, backward).apply, (x,))


@pytest.mark.parametrize("lib", LIBS)
def test_retain_graph_and_release(lib):
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    def backward(ctx, g):
        ctx.saved_tensors
        return g * 2

    x = lib.ones(2, requires_grad=True)
    y = _fn(lib, forward, backward).apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(_np(x.grad), [4.0, 4.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    # Nothing saved: nothing freed, so a second backward runs (as torch).
    y = _fn(lib, lambda ctx, x: x * 2, lambda ctx, g: g * 2).apply(x)
    y.backward(lib.ones(2))
    y.backward(lib.ones(2))
    np.testing.assert_allclose(_np(x.grad), [8.0, 8.0])


@pytest.mark.parametrize("lib", LIBS)
def test_backward_gets_a_gradient_per_output(lib):
    seen = []

    def forward(ctx, x):
        ctx.set_materialize_grads(materialize)
        i = x.argmax()
        ctx.mark_non_differentiable(i)
        return x * 2, i, 5, x * 3

    def backward(ctx, *gs):
        seen.append([g if g is None else (tuple(g.shape), str(g.dtype).split(".")[-1],
                                          g.sum().item()) for g in gs])
        return gs[0]

    x = lib.ones(3, requires_grad=True)
    for materialize in (True, False):
        a, i, k, b = _fn(lib, forward, backward).apply(x)
        assert k == 5 and not i.requires_grad
        a.sum().backward()
    assert seen == [[((3,), "float32", 3.0), ((), "int64", 0), None, ((3,), "float32", 0.0)],
                    [((3,), "float32", 3.0), None, None, None]]


# ---- the setup_context style: forward(*args) without ctx, then setup_context(ctx, inputs, out)


def _scaled_square(m):
    class ScaledSquare(m.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * x * k, (x * 2).floor()

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.seen = tuple(ctx.needs_input_grad)
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, g, g_floor):
            x, = ctx.saved_tensors
            return 2 * x * g * ctx.k, None
    return ScaledSquare


def test_setup_context_style_as_torch():
    results = []
    for m in (E, torch):
        x = m.tensor([1.0, -2.0, 3.5], requires_grad=True)
        fn = _scaled_square(m)
        y, floor = fn.apply(x, 3.0)
        (y * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert not floor.requires_grad
        assert y.grad_fn.name() == "ScaledSquareBackward"
        results.append((y.tolist(), floor.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_setup_context_sees_needs_input_grad_and_gradcheck():
    fn = _scaled_square(E)
    x = E.tensor([0.5, 1.5], dtype=E.float64, requires_grad=True)
    y, _ = fn.apply(x, 2.0)
    assert y.grad_fn is not None
    assert E.autograd.gradcheck(lambda t: fn.apply(t, 2.0)[0], (x,))
    with E.no_grad():  # no graph: setup_context still runs (as torch), forward's values
        y, _ = fn.apply(x, 2.0)
    assert y.grad_fn is None and y.tolist() == [0.5, 4.5]


def test_forward_with_ctx_unchanged_when_setup_context_not_overridden():
    class Double(E.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = E.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
