"""nn.Module full backward hooks and pre-hooks (python/ember/nn/modules/_backward_hooks.py)
against torch 2.13: the gradients each hook sees, replacing grad_input / grad_output, inputs
that need no gradient, several inputs and outputs, the order of hooks across nested modules,
handles, and bad return values."""
import numpy as np
import pytest
import torch

import ember


def same(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)


def data(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def linear(m, seed=0):
    lin = m.nn.Linear(3, 2)
    with m.no_grad():
        lin.weight.copy_(m.from_numpy(data((2, 3), seed)))
        lin.bias.copy_(m.from_numpy(data((2,), seed + 1)))
    return lin


def run(m, hook_factory, x_requires_grad=True, seed=0):
    lin = linear(m, seed)
    seen = []
    hook_factory(lin, seen)
    x = m.from_numpy(data((4, 3), seed + 2)).requires_grad_(x_requires_grad)
    w = m.from_numpy(data((4, 2), seed + 3))
    (lin(x) * w).sum().backward()
    return seen, x.grad, lin.weight.grad, lin.bias.grad


def both(hook_factory, **kw):
    got, want = run(ember, hook_factory, **kw), run(torch, hook_factory, **kw)
    assert len(got[0]) == len(want[0])
    for (gi_e, go_e), (gi_t, go_t) in zip(got[0], want[0]):
        assert len(gi_e) == len(gi_t) and len(go_e) == len(go_t)
        for a, b in zip(gi_e + go_e, gi_t + go_t):
            same(a, b)
    for a, b in zip(got[1:], want[1:]):
        same(a, b)


def test_hook_sees_torchs_gradients():
    both(lambda mod, seen: mod.register_full_backward_hook(
        lambda m, gin, gout: seen.append((gin, gout))))


def test_hook_replaces_grad_input():
    both(lambda mod, seen: mod.register_full_backward_hook(
        lambda m, gin, gout: (gin[0] * 3,)))


def test_pre_hook_replaces_grad_output_for_everything_below():
    def factory(mod, seen):
        mod.register_full_backward_pre_hook(lambda m, gout: (gout[0] * -2,))
        mod.register_full_backward_hook(lambda m, gin, gout: seen.append((gin, gout)))
    both(factory)


def test_input_without_gradient_gives_none_and_warns():
    with pytest.warns(UserWarning, match="no inputs require gradients") as record:
        both(lambda mod, seen: mod.register_full_backward_hook(
            lambda m, gin, gout: seen.append((gin, gout))), x_requires_grad=False)
    assert len(record) == 2  # one from each library


class Pair(object):
    """A module with two inputs (the second needs no gradient) and two outputs."""

    @staticmethod
    def make(m):
        class Net(m.nn.Module):
            def forward(self, a, b):
                return a * b, a + b
        return Net()


def test_several_inputs_and_outputs():
    def go(m):
        net = Pair.make(m)
        seen = []
        net.register_full_backward_hook(lambda mod, gin, gout: seen.append((gin, gout)))
        a = m.from_numpy(data((3,), 0)).requires_grad_(True)
        b = m.from_numpy(data((3,), 1))
        p, s = net(a, b)
        (p * 2 + s * 5).sum().backward()
        return seen, a.grad
    (seen_e, ga_e), (seen_t, ga_t) = go(ember), go(torch)
    same(ga_e, ga_t)
    assert len(seen_e) == len(seen_t) == 1
    for x, y in zip(seen_e[0][0] + seen_e[0][1], seen_t[0][0] + seen_t[0][1]):
        same(x, y)


def test_order_across_nested_modules_and_handles():
    def go(m):
        order = []
        inner = m.nn.Linear(2, 2)
        outer = m.nn.Sequential(inner, m.nn.Tanh())
        handles = [
            outer.register_full_backward_pre_hook(lambda mod, g: order.append("outer pre")),
            outer.register_full_backward_hook(lambda mod, gi, go: order.append("outer")),
            inner.register_full_backward_pre_hook(lambda mod, g: order.append("inner pre")),
            inner.register_full_backward_hook(lambda mod, gi, go: order.append("inner")),
            inner.register_full_backward_hook(lambda mod, gi, go: order.append("inner first"),
                                              prepend=True),
        ]
        x = m.ones(1, 2, requires_grad=True)
        outer(x).sum().backward()
        handles[1].remove()
        outer(x).sum().backward()
        return order
    assert go(ember) == go(torch)


def test_hook_returning_the_wrong_count_raises():
    for m in (ember, torch):
        lin = m.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
        out = lin(m.ones(1, 2, requires_grad=True)).sum()
        with pytest.raises(RuntimeError):
            out.backward()


def test_forward_hooks_still_run_beside_backward_hooks():
    lin = ember.nn.Linear(2, 2)
    calls = []
    lin.register_forward_hook(lambda mod, args, out: calls.append("fwd"))
    lin.register_full_backward_hook(lambda mod, gin, gout: calls.append("bwd"))
    lin(ember.ones(1, 2, requires_grad=True)).sum().backward()
    assert calls == ["fwd", "bwd"]
