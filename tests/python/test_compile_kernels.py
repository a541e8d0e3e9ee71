"""Note [Kernel replay] (docs/compile.md): a flat recording runs its elementwise calls, fills,
full reductions and matrix products as bare kernel calls on planned buffers. The replay must
give eager's bits, write in place where eager does (bumping versions), never overwrite a
tensor the caller holds, and fall back to the op where the plan does not hold."""
import numpy as np
import pytest

import ember
from test_autograd_graph import _square
from test_compile_backward import _bits, _graph, _mlp, _twins, _x

F = ember.nn.functional


def _sgd(params, lr):
    with ember.no_grad():
        for p in params:
            p -= lr * p.grad
        for p in params:
            p.grad.zero_()


def _linreg(x, y, w0, b0, epochs=5):
    w = w0.clone().requires_grad_(True)
    b = b0.clone().requires_grad_(True)
    for _ in range(epochs):
        loss = ((x.mm(w) + b - y) ** 2).mean()
        loss.backward()
        _sgd((w, b), 0.1)
    return loss, w, b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_regression_runs_as_kernels_bit_identical(dtype):
    x, y = _x(100, 1, seed=1, dtype=dtype), _x(100, 1, seed=2, dtype=dtype)
    w0, b0 = _x(1, 1, seed=3, dtype=dtype), _x(1, seed=4, dtype=dtype)
    c = ember.compile(_linreg)
    want = _linreg(x, y, w0, b0)
    for _ in range(4):  # capture, first replay (learns the kernels), kernel replays
        got = c(x, y, w0, b0)
        _bits(got, want)
        _bits(got[1].grad, want[1].grad)
        _bits(got[2].grad, want[2].grad)
    g = _graph(c)
    assert g.flat
    names = g.op_names()
    # the matrix products, the SGD's mul/sub_ and zero_ (fill_) run as kernels
    assert g.num_kernel_steps() >= names.count("mm") + names.count("sub_") + names.count("fill_")
    assert g.num_kernel_steps() + g.num_constant_steps() > len(names) // 2, g.describe()


@pytest.mark.parametrize("opt_name,kw", [
    ("SGD", {}), ("SGD", {"momentum": 0.9, "nesterov": True}), ("Adam", {}),
    ("Adam", {"amsgrad": True}), ("AdamW", {}), ("RMSprop", {"momentum": 0.5}), ("Adagrad", {})])
def test_mlp_step_every_optimizer_kernel_replay(opt_name, kw):
    c = _twins(_mlp(opt_name, **kw), steps=6)  # results, parameters and .grad bit for bit
    g = _graph(c)
    assert g.flat and g.num_kernel_steps() >= g.op_names().count("addmm") + g.op_names().count("mm")


def _elementwise(x, y):
    a = x * 2.5 - y              # scalar, broadcast binary
    b = (2.0 - a) / (1.0 + y)    # reflected scalars
    c = a ** 2 + b ** 0.5 * 0 + a ** -1 + b ** 3  # pow as a unary kernel, and the general pow
    d = c.abs().exp().neg()
    e = ember.maximum(d, x)
    return (e.sum(), e.mean(), e)


@pytest.mark.parametrize("shape_x,shape_y", [((5, 7), (7,)), ((3, 4), (3, 4)), ((6, 1), (1, 5)),
                                             ((), ()), ((4, 3), ())])
def test_elementwise_and_broadcast_bit_identical(shape_x, shape_y):
    c = ember.compile(_elementwise)
    for seed in range(3):
        x, y = _x(*shape_x, seed=seed).abs() + 0.5, _x(*shape_y, seed=seed + 10).abs() + 0.5
        _bits(c(x, y), _elementwise(x, y))
    assert _graph(c).flat


def test_non_contiguous_inputs():
    f = lambda x, y: (x * y + x).sin().sum()  # noqa: E731
    c = ember.compile(f)
    for seed in range(3):
        x = _x(6, 5, seed=seed).t()
        y = _x(5, 6, seed=seed + 1)[:, ::1]
        _bits(c(x, y), f(x, y))
        xs = _x(5, 12, seed=seed)[:, ::2]  # strided: another recording
        ys = _x(5, 6, seed=seed)
        _bits(c(xs, ys), f(xs, ys))
    assert ember.compile.explain(c).graph_count == 2


def _inplace(x, y):
    x.mul_(2.0)
    x.add_(y, alpha=0.5)
    x.sub_(y)
    x.pow_(2)
    x.exp_()
    y.fill_(3.0)
    return x * y


def test_inplace_ops_write_inputs_and_bump_versions():
    c = ember.compile(_inplace)
    for seed in range(4):
        x1, y1 = _x(4, 5, seed=seed), _x(4, 5, seed=seed + 1)
        x2, y2 = x1.clone(), y1.clone()
        v0 = x2._version
        _bits(c(x2, y2), _inplace(x1, y1))
        _bits((x2, y2), (x1, y1))
        assert x2._version >= v0 + 5
    assert _graph(c).num_kernel_steps() >= 6


def test_inplace_with_an_aliased_operand_runs_the_op():
    def f(x):
        x.add_(x)  # the operand is the output: the op copies it first
        x.mul_(x[0])
        return x + 1
    c = ember.compile(f)
    for seed in range(3):
        a, b = _x(3, 4, seed=seed), _x(3, 4, seed=seed)
        _bits(c(a), f(b))
        _bits(a, b)


def test_held_results_are_never_overwritten():
    f = lambda x: (x * 2 + 1, (x * 3).sum())  # noqa: E731
    c = ember.compile(f)
    x = _x(8)
    held = [c(x) for _ in range(4)]
    kept = [(a.clone(), s.clone()) for a, s in held]
    for k in range(4):  # later calls on new values must not write into earlier results
        c(_x(8, seed=k + 5))
    for (a, s), (a0, s0) in zip(held, kept):
        _bits((a, s), (a0, s0))
    # results of distinct calls are distinct tensors even when nobody held the last one
    r1 = c(x)[0]
    r2 = c(x)[0]
    assert r1.data_ptr() != r2.data_ptr()


def test_results_reuse_buffers_when_dropped():
    f = lambda x: (x * 2 + 1).exp()  # noqa: E731
    c = ember.compile(f)
    x = _x(64)
    for _ in range(3):
        c(x)
    ptrs = {c(x).data_ptr() for _ in range(5)}  # each result dropped before the next call
    assert len(ptrs) <= 2
    _bits(c(x), f(x))


def test_a_held_intermediate_through_grad_is_not_overwritten():
    def step(w, x):
        loss = (x.mm(w) * 2).sum()
        loss.backward()
        return loss
    x = _x(4, 3)
    w1 = _x(3, 2, seed=1).requires_grad_(True)
    w2 = _x(3, 2, seed=1).requires_grad_(True)
    c = ember.compile(step)
    grads = []
    for _ in range(4):
        _bits(c(w2, x), step(w1, x))
        _bits(w2.grad, w1.grad)
        grads.append((w2.grad, w2.grad.clone()))
        w1.grad = None
        w2.grad = None
    for g, g0 in grads:
        _bits(g, g0)


def test_guard_miss_records_again_and_never_replays_a_wrong_shape():
    f = lambda x, y: (x.mm(y) + 1).relu().sum()  # noqa: E731
    c = ember.compile(f)
    for n in (3, 3, 5, 5, 3):
        x, y = _x(n, 4, seed=n), _x(4, 2, seed=n + 1)
        _bits(c(x, y), f(x, y))
    assert ember.compile.explain(c).graph_count == 2


def test_custom_function_breaks_the_recording():
    Square = _square(ember)

    def f(x):
        y = Square.apply(x * 1.0).sum()
        y.backward()
        return y
    c = ember.compile(f)
    for _ in range(3):
        x1, x2 = _x(5).requires_grad_(True), _x(5).requires_grad_(True)
        y = c(x2)
        _bits(y, f(x1))
        assert y.grad_fn is not None
        _bits(x2.grad, x1.grad)
    reasons = ember.compile.explain(c).break_reasons
    assert reasons and "autograd.Function Square" in reasons[0].reason
    # without an input requiring grad, no node is made: the recording stands
    c2 = ember.compile(lambda x: Square.apply(x) + 1)
    for _ in range(3):
        _bits(c2(_x(4)), Square.apply(_x(4)) + 1)
    assert ember.compile.explain(c2).graph_count == 1


@pytest.mark.parametrize("shape_x,shape_b", [((50,), (1,)), ((4, 5), ()), ((100, 1), (1,)),
                                             ((3, 4), (1, 1)), ((1,), (1,))])
def test_one_element_operands_join_fused_chains(shape_x, shape_b):
    f = lambda x, b: (((x + b) * b - b) / (b - x)).exp().sum()  # noqa: E731
    c = ember.compile(f)
    for seed in range(3):
        x, b = _x(*shape_x, seed=seed), _x(*shape_b, seed=seed + 7)
        _bits(c(x, b), f(x, b))
    if len(shape_x) and ember.tensor(0).new_zeros(shape_x).numel() > 1:
        assert any(n.startswith("fused[add,mul,sub,sub,div,exp") for n in _graph(c).op_names())


def test_constant_steps_run_once_and_never_escape():
    # the mean backward's seed (full, reshape, expand, div) is the same at every replay
    x, y = _x(100, 1, seed=1), _x(100, 1, seed=2)
    w0, b0 = _x(1, 1, seed=3), _x(1, seed=4)
    c = ember.compile(_linreg)
    for _ in range(4):
        _bits(c(x, y, w0, b0), _linreg(x, y, w0, b0))
    g = _graph(c)
    assert g.num_constant_steps() >= 4 * 5, g.describe()

    # a value that would be a constant but is stored as .grad (set_grad) is made at each call:
    # changing the .grad the caller got must not change the next call
    def f(x):
        loss = (x * 2).sum()
        loss.backward()
        return loss
    c2 = ember.compile(f)
    for _ in range(4):
        x1, x2 = _x(6).requires_grad_(True), _x(6).requires_grad_(True)
        _bits(c2(x2), f(x1))
        _bits(x2.grad, x1.grad)
        x2.grad.add_(100.0)
        x1.grad.add_(100.0)
    # a returned constant is made at each call too
    c3 = ember.compile(lambda x: (ember.ones(3) * 2, x + 1))
    a = c3(_x(3))[0]
    for _ in range(3):
        b = c3(_x(3))[0]
        a.add_(1.0)
        _bits(b, ember.ones(3) * 2)


def test_repeated_views_are_made_once_unless_someone_can_tell():
    x, y = _x(100, 1, seed=1), _x(100, 1, seed=2)
    w0, b0 = _x(1, 1, seed=3), _x(1, seed=4)
    c = ember.compile(_linreg)
    for _ in range(3):
        _bits(c(x, y, w0, b0), _linreg(x, y, w0, b0))
    assert _graph(c).op_names().count("t") == 1  # x.t() of each epoch's mm backward

    def g(a, b):  # returned views stay distinct objects; a written view is not shared
        u, v = a.t(), a.t()
        z = b.t()
        z.mul_(2.0)
        return u, v, (b.t() + 1).sum(), z
    cg = ember.compile(g)
    for seed in range(3):
        a1, b1 = _x(3, 4, seed=seed), _x(2, 5, seed=seed)
        a2, b2 = a1.clone(), b1.clone()
        got, want = cg(a2, b2), g(a1, b1)
        _bits(got, want)
        assert got[0] is not got[1]
        _bits(b2, b1)


def test_sin_and_cos_of_one_input_share_a_kernel_call():
    """Note [Fused sincos]: a chain taking sin and cos of one float32 value computes both in
    one simd_sincos call: eager's bits, for in-range, huge (the exact reduction), special and
    tail elements alike; float64 and a sin/cos of different inputs keep separate calls."""
    rng = np.random.default_rng(8)
    vals = np.concatenate([rng.standard_normal(3000), rng.uniform(-4e4, 4e4, 3000),
                           rng.standard_normal(300) * 1e30,
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 39000.0, -39000.004, 1e-45]])
    rng.shuffle(vals)
    f = lambda x, y: (x.sin() ** 2 + x.cos() ** 2).sum()  # noqa: E731
    g = lambda x, y: (x.cos() * y.sin(), x.sin() - y.cos(), x.cos() + x.sin())  # noqa: E731
    for dtype in ["float32", "float64"]:
        # (float64: without NaN, whose sum's sign bit the fused float64 sum does not keep)
        v = vals if dtype == "float32" else vals[~np.isnan(vals)]
        for n in [v.size, 1, 7, 1025]:
            x = ember.from_numpy(v[:n].astype(dtype))
            y = ember.from_numpy(v[::-1][:n].astype(dtype).copy())
            for fn in (f, g):
                c = ember.compile(fn)
                for _ in range(3):
                    _bits(c(x, y), fn(x, y))
