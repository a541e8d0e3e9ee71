"""autograd.graph's saved-tensor hooks against torch 2.13: which tensors are packed and unpacked
(C++ ops and Python Functions), gradients through packed values (also double backward),
save_on_cpu, disable_saved_tensors_hooks, and errors."""
import pytest
import torch

import ember


def _square(m):
    class Square(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g
    return Square


def _run(m, hooks_for):
    packed, unpacked = [], []

    def pack(x):
        packed.append(tuple(x.shape))
        return x * 1  # a copy: backward must use what unpack returns

    def unpack(p):
        unpacked.append(tuple(p.shape))
        return p
    a = m.full((3,), 2.0, requires_grad=True)
    b = m.full((2, 3), 3.0, requires_grad=True)
    with hooks_for(m)(pack, unpack):
        y = (_square(m).apply(a * b).sin() * b).sum()
    y.backward()
    return sorted(packed), sorted(unpacked), a.grad.tolist(), b.grad.tolist()


def test_hooks_see_the_same_saved_tensors_as_torch():
    hooks = lambda m: m.autograd.graph.saved_tensors_hooks  # noqa: E731
    want, got = _run(torch, hooks), _run(ember, hooks)
    assert got[:2] == want[:2] and len(got[0]) == 6
    for w, g in zip(want[2:], got[2:]):
        assert torch.allclose(torch.tensor(g), torch.tensor(w))


def test_unpack_result_is_what_backward_uses():
    for m in (torch, ember):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda x: x * 0 + 10, lambda p: p):
            y = (a * a).sum()  # both saved copies of a become 10
        y.backward()
        assert a.grad.tolist() == [20.0, 20.0]


def test_double_backward_through_packed_tensors():
    rows = []
    for m in (torch, ember):
        a = m.tensor([0.5, -1.5], requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda x: x.clone(), lambda p: p):
            (g,) = m.autograd.grad((a ** 3).sin().sum(), a, create_graph=True)
        (h,) = m.autograd.grad(g.sum(), a)
        rows.append([round(v, 5) for v in g.tolist() + h.tolist()])
    assert rows[0] == rows[1]


def test_save_on_cpu_and_nesting():
    rows = []
    for m in (torch, ember):
        a = m.tensor([0.5, 1.5], requires_grad=True)
        seen = []
        with m.autograd.graph.save_on_cpu(pin_memory=False):
            with m.autograd.graph.saved_tensors_hooks(lambda x: seen.append(1) or x, lambda p: p):
                y = a.exp()       # innermost hooks win
            z = (y * a).sum()     # save_on_cpu again
        z.backward()
        rows.append((len(seen), [round(v, 5) for v in a.grad.tolist()]))
    assert rows[0] == rows[1]


def test_disable_and_errors_as_torch():
    for m in (torch, ember):
        with m.autograd.graph.disable_saved_tensors_hooks("hooks are off here"):
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with m.autograd.graph.saved_tensors_hooks(lambda x: x, lambda p: p):
                    pass
        with m.autograd.graph.saved_tensors_hooks(lambda x: x, lambda p: p):
            pass  # enabled again after the block
        a = m.tensor([1.0, 2.0], requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda x: x, lambda p: 3):
            y = (a * a).sum()
        with pytest.raises(TypeError, match="unpack_hook"):
            y.backward()
    x = ember.tensor([1.0], requires_grad=True)
    (x * x).sum().backward()  # no hooks left behind
    assert x.grad.tolist() == [2.0]


def test_node_type_and_multi_grad_hook_as_torch():
    rows = []
    for m in (torch, ember):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0], requires_grad=True)
        c = m.tensor([5.0], requires_grad=True)
        assert isinstance((a * 2).grad_fn, m.autograd.graph.Node)
        seen_all, seen_any = [], []
        h1 = m.autograd.graph.register_multi_grad_hook(
            (a, b, c), lambda gs: seen_all.append([None if g is None else g.tolist() for g in gs]))
        h2 = m.autograd.graph.register_multi_grad_hook(
            (a, b), lambda g: seen_any.append(g.tolist()), mode="any")
        ((a * b).sum() * 2).backward()
        (b * 3).sum().backward()
        h1.remove()
        h2.remove()
        (a * b * c).sum().backward()
        rows.append((seen_all, len(seen_any)))
        with pytest.raises(ValueError, match="Expects mode to be one of"):
            m.autograd.graph.register_multi_grad_hook((a,), print, mode="some")
    assert rows[0] == rows[1]
    assert rows[1][0] == [[[6.0, 6.0], [6.0], None], [None, [3.0], None]]
