"""Accumulation into an existing .grad (Note [Gradient into .grad]): a matmul's backward
adds its gradient straight into the leaf's .grad buffer when nothing can tell the
difference. Each test runs the same program in ember and torch and compares every .grad;
the profiler shows whether the in-place path ran (no mm and no add_ in the backward)."""
import numpy as np
import pytest
import torch

import ember
from ember.profiler import profile

RNG = np.random.default_rng(7)
X, W, V = (RNG.standard_normal(s) for s in [(6, 5), (5, 4), (4, 3)])


def leaves(m, dtype="float64"):
    dt = getattr(m, dtype)
    return [m.tensor(a, dtype=dt, requires_grad=True) for a in (X, W, V)]


def same(e, t, rtol=1e-12):
    assert e is not None and t is not None
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=rtol, atol=1e-12)


def ops_run(step):
    """Op names the profiler saw while `step` ran."""
    with profile() as p:
        step()
    return {r.name for r in p.key_averages() if not r.backward}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("product", ["mm", "matmul", "linear", "nn.Linear"])
def test_steps_with_zeroed_grads_match_torch(product, dtype):
    """The tutorial's loop: backward, update, grad.zero_(); three steps."""
    def program(m):
        x, w, v = leaves(m, dtype)
        lin = m.nn.Linear(5, 4).to(getattr(m, dtype))
        with m.no_grad():
            lin.weight.copy_(m.tensor(W.T, dtype=getattr(m, dtype)))
            lin.bias.copy_(m.tensor(V[:, 0], dtype=getattr(m, dtype)))
        fwd = {"mm": lambda: x.mm(w).relu().mm(v),
               "matmul": lambda: (x @ w).relu() @ v,
               "linear": lambda: m.nn.functional.linear(m.nn.functional.linear(x, w.t()).relu(), v.t()),
               "nn.Linear": lambda: lin(x).relu() @ v}[product]
        params = [x, w, v] + list(lin.parameters())
        for _ in range(3):
            fwd().pow(2).sum().backward()
            with m.no_grad():
                for p in params:
                    if p.grad is not None:
                        p -= 1e-3 * p.grad
                        last = [q.grad.clone() if q.grad is not None else None for q in params]
                        p.grad.zero_()
        return last
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for e, t in zip(program(ember), program(torch)):
        if t is None:
            assert e is None
        else:
            same(e, t, rtol)


def test_accumulates_over_backwards_in_place():
    x, w, v = leaves(ember)
    xt, wt, vt = leaves(torch)
    for m, (a, b, c) in ((ember, (x, w, v)), (torch, (xt, wt, vt))):
        (a @ b @ c).sum().backward()
    ptr = w.grad.data_ptr()
    ops = ops_run(lambda: (x @ w @ v).sum().backward())
    assert "add_" not in ops  # added by the gemm, not by AccumulateGrad
    (xt @ wt @ vt).sum().backward()
    assert w.grad.data_ptr() == ptr
    for e, t in ((x, xt), (w, wt), (v, vt)):
        same(e.grad, t.grad)


def test_held_grad_sees_the_sum_as_in_torch():
    """Someone holds .grad: the in-place path stands aside, AccumulateGrad adds in place."""
    for m in (ember, torch):
        x, w, v = leaves(m)
        (x @ w).sum().backward()
        held = w.grad
        (x @ w).sum().backward()
        assert held is w.grad or np.array_equal(held.numpy(), w.grad.numpy())
    x, w, _ = leaves(ember)
    (x @ w).sum().backward()
    held = w.grad
    assert "add_" in ops_run(lambda: (x @ w).sum().backward())
    same(held, torch.tensor(X.T @ np.ones((6, 4)) * 2))


def test_leaf_used_twice():
    """Two gradients flow into w: neither backward may write into .grad alone."""
    def program(m):
        x, w, v = leaves(m)
        for _ in range(2):
            ((x @ w) + (x @ w).relu()).sum().backward()
        return x.grad, w.grad
    for e, t in zip(program(ember), program(torch)):
        same(e, t)


def test_hooks_see_the_new_gradient_alone():
    def program(m):
        x, w, v = leaves(m)
        seen, after = [], []
        (x @ w).sum().backward()
        w.register_hook(lambda g: seen.append(g.clone()))
        w.register_post_accumulate_grad_hook(lambda p: after.append(p.grad.clone()))
        (x @ w).sum().backward()
        return seen[0], after[0], w.grad
    for e, t in zip(program(ember), program(torch)):
        same(e, t)


def test_post_accumulate_hook_runs_once_with_the_sum():
    def program(m):
        x, w, v = leaves(m)
        after = []
        (x @ w).sum().backward()
        w.register_post_accumulate_grad_hook(lambda p: after.append(p.grad.clone()))
        (x @ w).sum().backward()
        return after
    e, t = program(ember), program(torch)
    assert len(e) == len(t) == 1
    same(e[0], t[0])


def test_grad_aliasing_an_operand_is_not_written_during_the_product():
    """w.grad and x share memory (through NumPy): the gemm must not write into it while
    reading x, so the gradient is computed first and added after, as in torch."""
    def program(m):
        a = np.arange(20.0).reshape(4, 5) / 10
        w = m.tensor(W[:, :4].T.copy(), requires_grad=True)  # (4, 5)
        x = m.from_numpy(a.T)                                # (5, 4), a view of a
        w.grad = m.from_numpy(a)                             # (4, 5), the same memory
        (x @ w).pow(2).sum().backward()
        return w.grad, x
    for e, t in zip(program(ember), program(torch)):
        same(e, t)


def test_autograd_grad_and_inputs_leave_grad_alone():
    x, w, v = leaves(ember)
    (x @ w).sum().backward()
    before = w.grad.clone()
    (gw,) = ember.autograd.grad((x @ w).sum(), [w])
    same(w.grad, torch.tensor(before.numpy()))
    (x @ w).sum().backward(inputs=[x])
    same(w.grad, torch.tensor(before.numpy()))
    same(gw, torch.tensor(before.numpy()))


@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True")
def test_create_graph_keeps_the_graph_of_the_sum():
    def program(m):
        x, w, v = leaves(m)
        (x @ w).pow(2).sum().backward(create_graph=True)
        (x @ w).pow(2).sum().backward(create_graph=True)
        gx = w.grad.sum()
        return m.autograd.grad(gx, [x])[0], w.grad.detach()
    for e, t in zip(program(ember), program(torch)):
        same(e, t)


@pytest.mark.filterwarnings("ignore:grad and param do not obey the gradient layout contract")
def test_other_shapes_and_dtypes_fall_back():
    """A grad of another dtype, a non-contiguous grad, a 1-d product: same sums as torch."""
    def program(m):
        x, w, v = leaves(m)
        (x @ w).sum().backward()
        w.grad = w.grad.t().contiguous().t()            # non-contiguous
        (x @ w).sum().backward()
        u = m.tensor(W[:, 0], requires_grad=True)
        (x @ u).sum().backward()
        (x @ u).sum().backward()                         # mv: not a 2-d product
        return w.grad, u.grad
    for e, t in zip(program(ember), program(torch)):
        same(e, t)
