"""Hooks on autograd nodes (Node.register_prehook / Node.register_hook) and the deprecated
nn.Module.register_backward_hook built on them, against torch 2.13: what each hook sees,
replacing gradients, removal (also from inside a hook), wrong result counts, torch's
deprecation warnings, and the rule that a module takes one kind of backward hook."""
import warnings

import numpy as np
import pytest
import torch

import ember


def data(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def leaf(m, shape, seed):
    return m.from_numpy(data(shape, seed)).requires_grad_()


def shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


def close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)


def node_hook_run(m, replace):
    """x * w, a pre-hook on its node doubling the incoming gradient and a hook tripling the
    gradients it computed (when replace), recording both."""
    x, w = leaf(m, (3, 4), 0), leaf(m, (3, 4), 1)
    y = x * w
    seen = []

    def pre(grad_outputs):
        seen.append(("pre", shapes(grad_outputs)))
        return (grad_outputs[0] * 2,) if replace else None

    def post(grad_inputs, grad_outputs):
        seen.append(("post", shapes(grad_inputs), shapes(grad_outputs)))
        if replace:
            return tuple(None if g is None else g * 3 for g in grad_inputs)

    y.grad_fn.register_prehook(pre)
    y.grad_fn.register_hook(post)
    y.sum().backward()
    return seen, x.grad, w.grad


@pytest.mark.parametrize("replace", [False, True])
def test_node_hooks_see_and_replace_gradients_as_torch(replace):
    seen_e, xg_e, wg_e = node_hook_run(ember, replace)
    seen_t, xg_t, wg_t = node_hook_run(torch, replace)
    assert seen_e == seen_t == [("pre", [(3, 4)]), ("post", [(3, 4), (3, 4)], [(3, 4)])]
    close(xg_e, xg_t)
    close(wg_e, wg_t)


@pytest.mark.parametrize("m", [ember, torch])
def test_post_hook_sees_the_gradient_after_pre_hooks(m):
    x = leaf(m, (5,), 2)
    y = x.exp()
    got = {}
    y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
    y.grad_fn.register_hook(lambda gi, go: got.update(go=go[0].clone()))
    y.backward(m.ones(5))
    close(got["go"], m.full((5,), 2.0))
    close(x.grad, 2 * x.detach().exp())


@pytest.mark.parametrize("m", [ember, torch])
def test_none_for_inputs_without_gradient(m):
    x = leaf(m, (2, 3), 3)
    c = m.from_numpy(data((2, 3), 4))
    y = x * c
    got = []
    y.grad_fn.register_hook(lambda gi, go: got.append(shapes(gi)))
    y.sum().backward()
    assert got == [[(2, 3), None]]


@pytest.mark.parametrize("m", [ember, torch])
def test_remove_and_self_removal(m):
    x = leaf(m, (3,), 5)
    y = x * 2
    calls = []
    h = y.grad_fn.register_hook(lambda gi, go: calls.append("a"))
    handle = {}

    def once(gi, go):
        calls.append("once")
        handle["h"].remove()

    handle["h"] = y.grad_fn.register_hook(once)
    h.remove()
    h.remove()  # a second remove is harmless
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert calls == ["once"]


@pytest.mark.parametrize("which", ["pre", "post"])
def test_wrong_count_raises_as_torch(which):
    msgs = []
    for m in (ember, torch):
        x = leaf(m, (3,), 6)
        y = x * x.detach()
        if which == "pre":
            y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
        else:
            y.grad_fn.register_hook(lambda gi, go: gi + gi)
        with pytest.raises(RuntimeError, match="incorrect number of values") as e:
            y.sum().backward()
        msgs.append(str(e.value))
    assert "got 2, but expected 1" in msgs[0] or "got 4, but expected 2" in msgs[0]


def test_bad_result_type_raises():
    x = leaf(ember, (3,), 7)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (1,))
    with pytest.raises((TypeError, RuntimeError)):
        y.sum().backward()
    z = x * 3
    z.grad_fn.register_prehook(lambda go: 5)
    with pytest.raises(TypeError, match="tuple"):
        z.sum().backward()
    assert x.grad is None  # nothing accumulated from the failed runs


@pytest.mark.parametrize("kind", ["node", "tensor", "retain_grad"])
def test_hook_registered_under_compile_ends_the_capture(kind):
    """A replay would rebuild the graph without the hook (Note [Hooks end a capture])."""
    def step(x):
        y = x * 3
        if kind == "node":
            y.grad_fn.register_hook(lambda gi, go: tuple(None if g is None else g * 2 for g in gi))
        elif kind == "tensor":
            y.register_hook(lambda g: g * 2)
        else:
            y.retain_grad()
        (y * 2 if kind == "retain_grad" else y).sum().backward()
        return x.grad, y.grad if kind == "retain_grad" else None

    x = leaf(ember, (4,), 8)
    f = ember.compile(step)
    for _ in range(3):
        x.grad = None
        xg, yg = f(x)
        close(xg, ember.full((4,), 6.0))
        if kind == "retain_grad":
            close(yg, ember.full((4,), 2.0))
    assert "not captured" in str(ember.compile.explain(step)(x))


# ---- Module.register_backward_hook (the deprecated, node-based kind) --------------------

class Double(object):
    """A module whose forward is two nodes: the hook sees the last one's inputs only."""

    @staticmethod
    def make(m):
        class Mod(m.nn.Module):
            def forward(self, x):
                return (x * 2).relu()
        return Mod()


MODULES = {
    "relu": lambda m: m.nn.ReLU(),
    "sigmoid": lambda m: m.nn.Sigmoid(),
    "tanh": lambda m: m.nn.Tanh(),
    "two_nodes": Double.make,
}


def module_hook_run(m, name, scale):
    mod = MODULES[name](m)
    seen = []

    def hook(module, grad_input, grad_output):
        assert module is mod
        seen.append((shapes(grad_input), shapes(grad_output)))
        if scale:
            return tuple(None if g is None else g * scale for g in grad_input)

    handle = mod.register_backward_hook(hook)
    x = leaf(m, (4, 3), 9)
    w = m.from_numpy(data((4, 3), 10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = mod(x)
    (out * w).sum().backward()
    handle.remove()
    x2 = leaf(m, (4, 3), 9)
    mod(x2).sum().backward()  # removed: no call
    return seen, x.grad, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", sorted(MODULES))
@pytest.mark.parametrize("scale", [None, 2.0])
def test_register_backward_hook_as_torch(name, scale):
    seen_e, g_e, warn_e = module_hook_run(ember, name, scale)
    seen_t, g_t, warn_t = module_hook_run(torch, name, scale)
    assert seen_e == seen_t and len(seen_e) == 1
    close(g_e, g_t)
    assert warn_e == warn_t


@pytest.mark.parametrize("m", [ember, torch])
def test_linear_hook_sees_grad_output_and_warns(m):
    lin = m.nn.Linear(3, 2)
    seen = []
    lin.register_backward_hook(lambda mod, gin, gout: seen.append(shapes(gout)))
    with pytest.warns(FutureWarning, match="contains multiple autograd Nodes"):
        y = lin(leaf(m, (4, 3), 11))
    y.sum().backward()
    assert seen == [[(4, 2)]]


@pytest.mark.parametrize("m", [ember, torch])
def test_outputs_of_other_kinds_warn_as_torch(m):
    class Pair(m.nn.Module):
        def forward(self, x):
            return [x.exp(), x.sin()]

    class Nested(m.nn.Module):
        def forward(self, x):
            return (x.exp(), x.sin())

    p = Pair()
    p.register_backward_hook(lambda *a: None)
    with pytest.warns(FutureWarning, match="does not return a single Tensor"):
        p(leaf(m, (3,), 12))
    n = Nested()
    n.register_backward_hook(lambda *a: None)
    with pytest.warns(FutureWarning, match="generated by different autograd Nodes"):
        n(leaf(m, (3,), 13))


@pytest.mark.parametrize("m", [ember, torch])
def test_one_kind_of_backward_hook_per_module(m):
    a = m.nn.ReLU()
    a.register_backward_hook(lambda *x: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        a.register_full_backward_hook(lambda *x: None)
    b = m.nn.ReLU()
    b.register_full_backward_hook(lambda *x: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        b.register_backward_hook(lambda *x: None)


@pytest.mark.parametrize("m", [ember, torch])
def test_old_hook_with_full_pre_hook(m):
    mod = m.nn.Sigmoid()
    order = []
    mod.register_full_backward_pre_hook(lambda mod_, gout: order.append("pre"))
    mod.register_backward_hook(lambda mod_, gin, gout: order.append("old"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = mod(leaf(m, (3,), 14))
    y.sum().backward()
    assert order == ["pre", "old"]


def test_old_hook_survives_pickling():
    import pickle
    mod = ember.nn.ReLU()
    mod.register_backward_hook(print)
    back = pickle.loads(pickle.dumps(mod))
    assert back._is_full_backward_hook is False
    with pytest.raises(RuntimeError, match="Cannot use both"):
        back.register_full_backward_hook(print)


def _hook_chain_run(m):
    """Three hooks on one tensor and an output-gradient catcher, as captum's LRP chains them:
    an attribute set on the gradient in one hook is read in the next, and a kept gradient
    object sees what later hooks set on it."""
    x = leaf(m, (3,), 7)
    y = x * 2
    kept, seen = {}, []

    def catch(g):
        kept["g"] = g

    def tag(g):
        g.replace_out = g * 3
        return g.replace_out

    def read(g):
        seen.append(getattr(g, "replace_out", None) is None)
        g.second = True

    y.register_hook(catch)
    y.register_hook(lambda g: seen.append(g is kept["g"]))
    y.register_hook(tag)
    y.register_hook(read)
    y.sum().backward()
    return seen, hasattr(kept["g"], "replace_out"), x.grad


def test_hooks_of_one_tensor_share_the_gradient_object_as_torch():
    (es, ekept, eg), (ts, tkept, tg) = _hook_chain_run(ember), _hook_chain_run(torch)
    assert es == ts == [True, True] and ekept == tkept is True
    close(eg, tg)
