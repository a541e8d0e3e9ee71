"""Layer ops of torch.nn.functional (linear, gelu, leaky_relu, dropout, batch_norm, layer_norm,
embedding) through ember._C: forward and backward against PyTorch, float64 finite-difference
gradchecks, double backward (create_graph), and bad inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from helpers import LAYOUTS, check_grad, check_op, gradcheck_op, make_inputs, on_thread_counts, to_numpy

FLOATS = ["float32", "float64"]


def F(m):
    """The functional namespace of either library."""
    return TF if m is torch else ember._C


def check_double_grad(fn, shapes, seed=0, rtol=1e-6, atol=1e-8):
    """Second derivatives in float64 vs torch: the gradient of <grad(fn)(x), r> for random r."""
    es, ts = make_inputs(shapes, "float64", seed=seed, low=-2.0, high=2.0)
    es = [x.detach().requires_grad_(True) for x in es]
    ts = [x.detach().clone().requires_grad_(True) for x in ts]

    def rand(m, shape, s):
        return m.from_numpy(np.random.default_rng(s).uniform(-1, 1, tuple(shape)))

    grads = {}
    for m, xs in ((torch, ts), (ember, es)):
        y = fn(m, *xs)
        gs = m.autograd.grad([y], xs, [rand(m, y.shape, seed)], create_graph=True)
        total = sum((g * rand(m, g.shape, seed + 11 + i)).sum() for i, g in enumerate(gs))
        grads[m] = m.autograd.grad([total], xs, allow_unused=True)
    for i, (e, t) in enumerate(zip(grads[ember], grads[torch])):
        if t is None:
            assert e is None or not np.any(to_numpy(e)), f"input {i}"
            continue
        assert e is not None, f"input {i}: ember gave no second derivative"
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=rtol, atol=atol, err_msg=f"input {i}")


# ---------------------------------------------------------------- linear

LINEAR_CASES = [
    [(3, 4), (5, 4), (5,)],
    [(3, 4), (5, 4)],
    [(2, 3, 4), (5, 4), (5,)],          # 3-d: leading dims fold into the rows
    [(2, 2, 3, 4), (6, 4), (6,)],       # 4-d
    [(4,), (5, 4), (5,)],               # 1-d input
    [(1, 10), (7, 10), (7,)],           # nn.Linear on one sample
    [(3, 4), (4,)],                     # 1-d weight: a dot product per row
    [(3, 4), (4,), ()],                 # refused, as in PyTorch (addmm needs a matrix)
    [(2, 3, 4), (4,), ()],
    [(3, 4), (5, 4), (1,)],             # bias broadcast from one element
    [(3, 4), (5, 4), ()],
    [(3, 4), (5, 4), (3, 5)],           # a bias per output element
    [(2, 3, 4), (5, 4), (3, 5)],
]


@pytest.mark.parametrize("shapes", LINEAR_CASES, ids=str)
def test_linear_forward(shapes):
    check_op(lambda m, *a: F(m).linear(*a), shapes, dtypes=FLOATS, layouts=LAYOUTS, rtol=1e-5, atol=1e-5)


def test_linear_integer_dtypes():
    check_op(lambda m, *a: F(m).linear(*a), [(3, 4), (5, 4), (5,)], dtypes=["int64", "int32"])
    check_op(lambda m, *a: F(m).linear(*a), [(2, 3, 4), (5, 4)], dtypes=["int64"])


@pytest.mark.parametrize("shapes", [s for s in LINEAR_CASES if s != [(3, 4), (4,), ()]], ids=str)
def test_linear_grad(shapes):
    check_grad(lambda m, *a: F(m).linear(*a), shapes, layouts=LAYOUTS, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shapes", [[(0, 4), (5, 4), (5,)], [(2, 0, 4), (5, 4), (5,)],
                                    [(3, 0), (5, 0), (5,)], [(3, 4), (0, 4), (0,)]], ids=str)
def test_linear_empty(shapes):
    check_op(lambda m, *a: F(m).linear(*a), shapes, dtypes=FLOATS)
    check_grad(lambda m, *a: F(m).linear(*a), shapes)


@pytest.mark.parametrize("requires", [[True, False, False], [False, True, False],
                                      [False, False, True], [False, True, True]])
def test_linear_grad_of_some_inputs(requires):
    check_grad(lambda m, *a: F(m).linear(*a), [(2, 3, 4), (5, 4), (5,)], requires=requires)


@pytest.mark.parametrize("shapes", [[(3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4), (5,)],
                                    [(2, 3, 4), (5, 4)], [(2, 3, 4), (4,), ()]], ids=str)
def test_linear_gradcheck(shapes):
    gradcheck_op(lambda m, *a: F(m).linear(*a), shapes)


def test_linear_double_backward():
    check_double_grad(lambda m, *a: F(m).linear(*a).pow(2), [(2, 3, 4), (5, 4), (5,)])


def test_linear_output_is_fresh_and_writable():
    x, w, b = ember.ones(2, 3, 4), ember.ones(5, 4), ember.zeros(5)
    y = ember._C.linear(x, w, b)
    assert tuple(y.shape) == (2, 3, 5) and y.is_contiguous()
    y.add_(1.0)  # the output owns its storage: no input changes
    assert to_numpy(x).sum() == 24 and to_numpy(b).sum() == 0


def test_linear_in_place_change_of_saved_input_raises():
    x = ember.ones(3, 4)
    w = ember.ones(5, 4, requires_grad=True)
    y = ember._C.linear(x, w)
    x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("args,exc,match", [
    (((3, 4), (5, 3)), ValueError, r"linear: .*\(3, 4\).*\(5, 3\)"),
    (((3, 4), (2, 5, 4)), ValueError, r"linear: .*weight of shape \(2, 5, 4\)"),
    (((), (5, 4)), ValueError, r"linear: .*at least 1-d"),
    (((3, 4), (5, 4), (4,)), ValueError, r"linear: bias of shape \(4,\)"),
    (((3, 4), (4,), ()), ValueError, r"linear: .*2-d weight"),
    (((3, 4), (5, 4), (2, 3, 5)), ValueError, r"linear: bias of shape \(2, 3, 5\)"),
])
def test_linear_bad_shapes(args, exc, match):
    ts = [ember.ones(*s) for s in args]
    with pytest.raises(exc, match=match):
        ember._C.linear(*ts)


def test_linear_bad_dtypes():
    with pytest.raises(TypeError, match="linear: .*float32 and float64"):
        ember._C.linear(ember.ones(3, 4), ember.ones(5, 4, dtype=ember.float64))
    with pytest.raises(TypeError, match="linear: .*bias"):
        ember._C.linear(ember.ones(3, 4), ember.ones(5, 4), ember.ones(5, dtype=ember.float64))
    with pytest.raises(TypeError):
        ember._C.linear(ember.ones(3, 4, dtype=ember.bool), ember.ones(5, 4, dtype=ember.bool))


# ---------------------------------------------------------------- gelu, leaky_relu

ACT_SHAPES = [(3, 4), (2, 3, 4, 5), (), (0, 3), (7,)]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("shape", ACT_SHAPES, ids=str)
def test_gelu(approximate, shape):
    fn = lambda m, x: F(m).gelu(x, approximate=approximate)  # noqa: E731
    check_op(fn, [shape], dtypes=FLOATS, layouts=LAYOUTS, low=-6, high=6)
    check_grad(fn, [shape], layouts=LAYOUTS, rtol=1e-5, atol=1e-6, low=-6, high=6)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradcheck_and_double_backward(approximate):
    fn = lambda m, x: F(m).gelu(x, approximate=approximate)  # noqa: E731
    gradcheck_op(fn, [(3, 5)])
    check_double_grad(fn, [(3, 5)])


def test_gelu_default_is_erf():
    check_op(lambda m, x: F(m).gelu(x), [(4, 5)], dtypes=FLOATS)


@pytest.mark.parametrize("slope", [0.01, 0.2, -0.5, 2, 0])
@pytest.mark.parametrize("shape", ACT_SHAPES, ids=str)
def test_leaky_relu(slope, shape):
    fn = lambda m, x: F(m).leaky_relu(x, slope)  # noqa: E731
    check_op(fn, [shape], dtypes=FLOATS, layouts=LAYOUTS)
    check_grad(fn, [shape], layouts=LAYOUTS, rtol=1e-5, atol=1e-6)


def test_leaky_relu_default_and_zero():
    check_op(lambda m, x: F(m).leaky_relu(x), [(4, 5)], dtypes=FLOATS)
    # the gradient at exactly 0 takes the negative slope (x > 0 picks the identity)
    for m in (torch, ember):
        z = m.tensor([0.0, -1.0, 1.0], requires_grad=True)
        F(m).leaky_relu(z, 0.1).sum().backward()
        np.testing.assert_allclose(to_numpy(z.grad), [0.1, 0.1, 1.0], rtol=1e-6)


def test_leaky_relu_gradcheck_and_double_backward():
    fn = lambda m, x: F(m).leaky_relu(x, 0.3).pow(2)  # noqa: E731
    gradcheck_op(fn, [(3, 5)])
    check_double_grad(fn, [(3, 5)])


@pytest.mark.parametrize("op", ["gelu", "leaky_relu"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_activation_integer_input(op, dtype):
    x = ember.ones(3, dtype=getattr(ember, dtype))
    with pytest.raises(TypeError, match=op + r": .*" + dtype):
        getattr(ember._C, op)(x)


def test_gelu_bad_approximate():
    with pytest.raises(ValueError, match="gelu: approximate"):
        ember._C.gelu(ember.ones(3), approximate="foo")


# ---------------------------------------------------------------- dropout

@pytest.mark.parametrize("dtype", FLOATS)
def test_dropout_statistics_and_scale(dtype):
    ember.manual_seed(0)
    x = ember.from_numpy(np.random.default_rng(0).uniform(1, 2, (200, 300)).astype(dtype))
    for p in (0.1, 0.5, 0.8):
        y = to_numpy(ember._C.dropout(x, p))
        kept = y != 0
        assert abs(kept.mean() - (1 - p)) < 0.01, (p, kept.mean())
        np.testing.assert_allclose(y[kept], to_numpy(x)[kept] / (1 - p), rtol=1e-6)


def test_dropout_gradient_is_mask_times_scale():
    ember.manual_seed(3)
    x = ember.randn(50, 40, requires_grad=True)
    y = ember._C.dropout(x, 0.3)
    g = ember.randn(50, 40)
    y.backward(g)
    mask = (to_numpy(y) != 0).astype(np.float32)
    np.testing.assert_allclose(to_numpy(x.grad), to_numpy(g) * mask / 0.7, rtol=1e-6)
    # non-contiguous input, 3-d
    x = ember.randn(4, 5, 6).permute(2, 0, 1).detach().requires_grad_(True)
    y = ember._C.dropout(x, 0.5)
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), (to_numpy(y) != 0) * 2.0, rtol=1e-6)


def test_dropout_reproducible_with_manual_seed():
    x = ember.ones(100, 10)
    ember.manual_seed(42)
    a = to_numpy(ember._C.dropout(x, 0.5))
    b = to_numpy(ember._C.dropout(x, 0.5))
    ember.manual_seed(42)
    c = to_numpy(ember._C.dropout(x, 0.5))
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def _same_tensor(a, b):
    """a and b view the same memory (ember returns the input itself, as torch does)."""
    before = to_numpy(b)
    a.add_(1.0)
    shared = np.array_equal(to_numpy(b), before + 1)
    a.sub_(1.0)
    return shared


def test_dropout_identity_cases():
    x = ember.randn(3, 4)
    assert _same_tensor(ember._C.dropout(x, 0.0), x)
    assert _same_tensor(ember._C.dropout(x, 0.5, training=False), x)
    assert _same_tensor(ember._C.dropout(x, 1.0, False), x)
    x.requires_grad_(True)
    z = ember._C.dropout(x, 1.0)
    np.testing.assert_array_equal(to_numpy(z), np.zeros((3, 4)))
    z.sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), np.zeros((3, 4)))
    i = ember.ones(3, dtype=ember.int64)
    assert ember._C.dropout(i, 0.5, training=False).tolist() == [1, 1, 1]
    assert ember._C.dropout(i, 0.0).tolist() == [1, 1, 1]
    assert ember._C.dropout(i, 1.0).dtype == ember.int64
    e = ember._C.dropout(ember.ones(0, 3), 0.5)
    assert tuple(e.shape) == (0, 3)
    s = ember._C.dropout(ember.tensor(2.0), 0.5)
    assert s.shape == () and float(s) in (0.0, 4.0)


def test_dropout_matches_torch_on_identity_cases():
    for kw in [dict(p=0.0), dict(p=0.5, training=False), dict(p=1.0)]:
        check_op(lambda m, x: F(m).dropout(x, **kw), [(3, 4)], dtypes=FLOATS, layouts=LAYOUTS)


@pytest.mark.parametrize("p", [-0.1, 1.5, float("nan")])
def test_dropout_bad_probability(p):
    with pytest.raises(ValueError, match="dropout: .*between 0 and 1"):
        ember._C.dropout(ember.ones(3), p)
    with pytest.raises(ValueError, match="dropout"):
        ember._C.dropout(ember.ones(3), p, training=False)


def test_dropout_integer_input_in_training():
    with pytest.raises(TypeError, match="dropout: .*int64"):
        ember._C.dropout(ember.ones(3, dtype=ember.int64), 0.5)


# ---------------------------------------------------------------- batch_norm

BN_SHAPES = [(4, 3), (5, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 3), (3, 2, 1), (2, 1, 3, 3)]


def _stats(m, x, seed=0):
    """running_mean, running_var (positive) for x's channel count, in x's dtype."""
    rng = np.random.default_rng(seed + 100)
    c = x.shape[1]
    rm = m.from_numpy(rng.uniform(-1, 1, c)).to(x.dtype)
    rv = m.from_numpy(rng.uniform(0.5, 2, c)).to(x.dtype)
    return rm, rv


def _bn(training, affine=True, momentum=0.1, eps=1e-5):
    def fn(m, x, *wb):
        rm, rv = _stats(m, x)
        w, b = wb if affine else (None, None)
        return F(m).batch_norm(x, rm, rv, w, b, training=training, momentum=momentum, eps=eps)
    return fn


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
def test_batch_norm(training, shape):
    c = shape[1]
    check_op(_bn(training), [shape, (c,), (c,)], dtypes=FLOATS, layouts=LAYOUTS, rtol=1e-4, atol=1e-5)
    check_grad(_bn(training), [shape, (c,), (c,)], layouts=LAYOUTS, rtol=1e-4, atol=1e-4)
    check_grad(_bn(training, affine=False), [shape], layouts=["contiguous", "transposed"],
               rtol=1e-4, atol=1e-4)


def test_batch_norm_no_running_stats_and_params():
    fn = lambda m, x, w: F(m).batch_norm(x, None, None, w, None, training=True, eps=1e-3)  # noqa: E731
    check_grad(fn, [(6, 3, 5), (3,)])
    fn = lambda m, x, b: F(m).batch_norm(x, None, None, None, b, True)  # noqa: E731
    check_grad(fn, [(6, 3), (3,)])


@pytest.mark.parametrize("requires", [[True, False, False], [False, True, False],
                                      [False, False, True], [False, True, True]])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grad_of_some_inputs(requires, training):
    check_grad(_bn(training), [(4, 3, 5), (3,), (3,)], requires=requires, atol=1e-4)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_updates_running_stats(training, dtype):
    es, ts = make_inputs([(6, 3, 4)], dtype)
    out = {}
    for m, x in ((torch, ts[0]), (ember, es[0])):
        rm, rv = _stats(m, x)
        v0 = rm._version
        F(m).batch_norm(x, rm, rv, training=training, momentum=0.3)
        out[m] = (to_numpy(rm), to_numpy(rv))
        if m is ember:
            assert (rm._version > v0) == training
    for e, t in zip(out[ember], out[torch]):
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-6)


def test_batch_norm_large_deterministic_and_accurate():
    """More positions than one block (Note [Deterministic norm sums]); the same on 1 and 2 threads."""
    rng = np.random.default_rng(1)
    arr = (rng.standard_normal((64, 3, 32, 32)) * 3 + 100).astype(np.float32)
    gout = rng.standard_normal(arr.shape).astype(np.float32)
    xt = torch.from_numpy(arr).requires_grad_(True)
    yt = TF.batch_norm(xt, None, None, training=True)
    yt.backward(torch.from_numpy(gout))

    def run():
        x = ember.from_numpy(arr).requires_grad_(True)
        w = ember.ones(3, requires_grad=True)
        y = ember._C.batch_norm(x, None, None, w, None, True)
        y.backward(ember.from_numpy(gout))
        return to_numpy(y), to_numpy(x.grad), to_numpy(w.grad)
    results = on_thread_counts(run)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(results[0][0], to_numpy(yt), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(results[0][1], to_numpy(xt.grad), rtol=1e-3, atol=1e-3)


def test_batch_norm_large_2d_input():
    check_grad(_bn(True), [(3000, 40), (40,), (40,)], dtypes=["float64"], atol=1e-8)


def test_batch_norm_empty_batch():
    for training in (True, False):
        check_op(_bn(training), [(0, 3), (3,), (3,)], dtypes=FLOATS)
    rm, rv = ember.zeros(3), ember.ones(3)
    ember._C.batch_norm(ember.ones(0, 3, 2), rm, rv, training=True)
    np.testing.assert_array_equal(to_numpy(rm), np.zeros(3))
    np.testing.assert_array_equal(to_numpy(rv), np.ones(3))


def test_batch_norm_weight_any_shape_with_c_elements():
    fn = lambda m, x, w, b: F(m).batch_norm(x, None, None, w, b, True)  # noqa: E731
    check_op(fn, [(4, 3), (3, 1), (1, 3)], dtypes=FLOATS)
    # torch's own backward refuses these shapes; ember returns gradients shaped like them
    x, w, b = (ember.randn(*s, requires_grad=True) for s in [(4, 3), (3, 1), (1, 3)])
    ember._C.batch_norm(x, None, None, w, b, True).sum().backward()
    assert tuple(w.grad.shape) == (3, 1) and tuple(b.grad.shape) == (1, 3)
    xt = torch.from_numpy(to_numpy(x)).requires_grad_(True)
    TF.batch_norm(xt, None, None, training=True).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), to_numpy(xt.grad), atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck(training):
    gradcheck_op(_bn(training), [(4, 3, 2), (3,), (3,)])
    gradcheck_op(_bn(training, affine=False), [(5, 2)])


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_double_backward(training):
    check_double_grad(_bn(training), [(4, 3, 2), (3,), (3,)], atol=1e-7)


def test_batch_norm_eval_in_place_change_of_running_stats_raises():
    x = ember.randn(4, 3, requires_grad=True)
    rm, rv = ember.zeros(3), ember.ones(3)
    y = ember._C.batch_norm(x, rm, rv, training=False)
    rm.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_batch_norm_bad_inputs():
    bn = ember._C.batch_norm
    x = ember.randn(2, 3)
    with pytest.raises(ValueError, match=r"batch_norm: Expected more than 1 value per channel when training.*\(1, 3\)"):
        bn(ember.randn(1, 3), ember.zeros(3), ember.ones(3), training=True)
    with pytest.raises(ValueError, match=r"batch_norm: .*\(1, 3, 1\)"):
        bn(ember.randn(1, 3, 1), None, None, training=True)
    assert tuple(bn(ember.randn(1, 3), ember.zeros(3), ember.ones(3)).shape) == (1, 3)
    with pytest.raises(ValueError, match=r"batch_norm: expected running_mean of shape \(3,\).*\(4,\)"):
        bn(x, ember.zeros(4), ember.ones(4), training=True)
    with pytest.raises(ValueError, match=r"batch_norm: expected weight with 3 elements.*\(4,\)"):
        bn(x, ember.zeros(3), ember.ones(3), ember.ones(4))
    with pytest.raises(ValueError, match=r"batch_norm: expected bias with 3 elements"):
        bn(x, ember.zeros(3), ember.ones(3), None, ember.ones(2))
    with pytest.raises(ValueError, match="batch_norm: running_mean and running_var must either both"):
        bn(x, ember.zeros(3), None, training=True)
    with pytest.raises(ValueError, match="batch_norm: .*evaluation mode"):
        bn(x, None, None, training=False)
    with pytest.raises(ValueError, match=r"batch_norm: .*\(3,\)"):
        bn(ember.randn(3), ember.zeros(3), ember.ones(3), training=True)
    with pytest.raises(TypeError, match="batch_norm: .*int64"):
        bn(ember.ones(2, 3, dtype=ember.int64), ember.zeros(3), ember.ones(3))
    with pytest.raises(TypeError, match="batch_norm: .*running_var.*float64"):
        bn(x, ember.zeros(3), ember.ones(3, dtype=ember.float64), training=True)
    with pytest.raises(TypeError, match="batch_norm: .*weight.*float64"):
        bn(x, ember.zeros(3), ember.ones(3), ember.ones(3, dtype=ember.float64))
    # nothing was changed by the failed calls
    rm, rv = ember.zeros(3), ember.ones(3)
    with pytest.raises(ValueError):
        bn(x, rm, rv, ember.ones(4), training=True)
    np.testing.assert_array_equal(to_numpy(rm), np.zeros(3))


# ---------------------------------------------------------------- layer_norm

LN_CASES = [((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((2, 3, 4, 5), (5,)), ((3, 4), (3, 4)),
            ((2, 3, 4, 5), (3, 4, 5)), ((5, 2), (2,)), ((0, 4), (4,)), ((3, 0), (0,))]


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape,ns", LN_CASES, ids=str)
def test_layer_norm(shape, ns, affine):
    if affine:
        fn = lambda m, x, w, b: F(m).layer_norm(x, ns, w, b)  # noqa: E731
        shapes = [shape, ns, ns]
    else:
        fn = lambda m, x: F(m).layer_norm(x, ns, eps=1e-3)  # noqa: E731
        shapes = [shape]
    check_op(fn, shapes, dtypes=FLOATS, layouts=LAYOUTS, rtol=1e-4, atol=1e-5)
    check_grad(fn, shapes, layouts=LAYOUTS, rtol=1e-4, atol=1e-4)


def test_layer_norm_weight_or_bias_only():
    check_grad(lambda m, x, w: F(m).layer_norm(x, (4,), w), [(3, 4), (4,)])
    check_grad(lambda m, x, b: F(m).layer_norm(x, (4,), None, b), [(3, 4), (4,)])


@pytest.mark.parametrize("requires", [[True, False, False], [False, True, False],
                                      [False, False, True], [False, True, True]])
def test_layer_norm_grad_of_some_inputs(requires):
    check_grad(lambda m, x, w, b: F(m).layer_norm(x, (5,), w, b), [(2, 3, 5), (5,), (5,)],
               requires=requires)


def test_layer_norm_large_deterministic():
    """Rows split into partial blocks for grad_weight (Note [Deterministic norm sums])."""
    rng = np.random.default_rng(2)
    arr = rng.standard_normal((600, 300)).astype(np.float32)
    gout = rng.standard_normal(arr.shape).astype(np.float32)

    def run():
        x = ember.from_numpy(arr).requires_grad_(True)
        w = ember.ones(300, requires_grad=True)
        b = ember.zeros(300, requires_grad=True)
        ember._C.layer_norm(x, (300,), w, b).backward(ember.from_numpy(gout))
        return [to_numpy(t.grad) for t in (x, w, b)]
    results = on_thread_counts(run)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    check_grad(lambda m, x, w, b: F(m).layer_norm(x, (300,), w, b), [(600, 300), (300,), (300,)],
               dtypes=["float64"], atol=1e-8)


def test_layer_norm_gradcheck_and_double_backward():
    fn = lambda m, x, w, b: F(m).layer_norm(x, (3, 4), w, b)  # noqa: E731
    gradcheck_op(fn, [(2, 3, 4), (3, 4), (3, 4)])
    gradcheck_op(lambda m, x: F(m).layer_norm(x, (4,)), [(3, 4)])
    check_double_grad(fn, [(2, 3, 4), (3, 4), (3, 4)], atol=1e-7)


def test_layer_norm_accepts_sizes():
    x = ember.randn(2, 3, 4)
    y = ember._C.layer_norm(x, x.shape[1:])
    assert tuple(y.shape) == (2, 3, 4)
    ember._C.layer_norm(x, [4])


def test_layer_norm_bad_inputs():
    ln = ember._C.layer_norm
    x = ember.randn(3, 4)
    with pytest.raises(ValueError, match=r"layer_norm: given normalized_shape=\(5,\).*\(3, 4\)"):
        ln(x, (5,))
    with pytest.raises(ValueError, match=r"layer_norm: given normalized_shape=\(2, 3, 4\)"):
        ln(x, (2, 3, 4))
    with pytest.raises(ValueError, match="layer_norm: .*at least one dim"):
        ln(x, ())
    with pytest.raises(ValueError, match=r"layer_norm: expected weight of shape \(4,\).*\(5,\)"):
        ln(x, (4,), ember.ones(5))
    with pytest.raises(ValueError, match=r"layer_norm: expected bias of shape \(4,\).*\(3,\)"):
        ln(x, (4,), ember.ones(4), ember.ones(3))
    with pytest.raises(ValueError, match=r"layer_norm: expected weight of shape \(4,\).*\(1, 4\)"):
        ln(x, (4,), ember.ones(1, 4))
    with pytest.raises(TypeError, match="layer_norm: .*int64"):
        ln(ember.ones(3, 4, dtype=ember.int64), (4,))
    with pytest.raises(TypeError, match="layer_norm: .*weight.*float64"):
        ln(x, (4,), ember.ones(4, dtype=ember.float64))
    with pytest.raises(TypeError):
        ln(x, 4)


# ---------------------------------------------------------------- embedding

def _emb(idx, padding_idx=None, dtype=np.int64):
    arr = np.asarray(idx, dtype=dtype)

    def fn(m, w):
        return F(m).embedding(m.from_numpy(arr.copy()), w, padding_idx=padding_idx)
    return fn


EMB_INDICES = [[1, 3, 3, 0], [[1, 2, 9], [9, 9, 0]], 4, np.zeros((2, 0)), [[[0, 1], [1, 0]]]]


@pytest.mark.parametrize("idx", EMB_INDICES, ids=lambda i: str(np.shape(i)))
@pytest.mark.parametrize("padding_idx", [None, 0, 9, -1, -10])
@pytest.mark.parametrize("itype", [np.int64, np.int32])
def test_embedding(idx, padding_idx, itype):
    fn = _emb(idx, padding_idx, itype)
    check_op(fn, [(10, 4)], dtypes=FLOATS, layouts=LAYOUTS)
    check_grad(fn, [(10, 4)], layouts=LAYOUTS, rtol=1e-5, atol=1e-6)


def test_embedding_non_float_weight_forward():
    check_op(_emb([[1, 2], [0, 1]]), [(3, 5)], dtypes=["int64", "int32", "bool", "uint8"],
             layouts=LAYOUTS)


def test_embedding_large_and_deterministic():
    rng = np.random.default_rng(5)
    idx = rng.integers(0, 50, size=(400, 30))
    check_grad(_emb(idx), [(50, 300)], dtypes=["float64"], atol=1e-8)
    check_grad(_emb(idx, padding_idx=7), [(50, 300)], dtypes=["float32"], rtol=1e-5, atol=1e-4)


def test_embedding_gradcheck_and_double_backward():
    # (padding rows get no gradient by design, so finite differences run without one)
    gradcheck_op(_emb([[1, 2, 2], [0, 3, 1]]), [(5, 3)])
    fn = _emb([[1, 2, 2], [0, 3, 1]], padding_idx=2)
    check_double_grad(lambda m, w: fn(m, w).pow(2), [(5, 3)])


def test_embedding_bad_inputs():
    emb = ember._C.embedding
    w = ember.randn(5, 3)
    with pytest.raises(IndexError, match="embedding: index 5 is out of range for num_embeddings 5"):
        emb(ember.tensor([0, 5]), w)
    with pytest.raises(IndexError, match="embedding: index -1 is out of range for num_embeddings 5"):
        emb(ember.tensor([[0, 1], [-1, 2]]), w)
    with pytest.raises(IndexError, match="embedding: index 7 "):
        emb(ember.tensor([7], dtype=ember.int32), w)
    with pytest.raises(TypeError, match="embedding: .*int64 or int32.*float32"):
        emb(ember.tensor([0.0, 1.0]), w)
    with pytest.raises(TypeError, match="embedding: .*uint8"):
        emb(ember.tensor([0, 1], dtype=ember.uint8), w)
    with pytest.raises(ValueError, match=r"embedding: expected a 2-d weight.*\(5, 3, 2\)"):
        emb(ember.tensor([0, 1]), ember.randn(5, 3, 2))
    with pytest.raises(ValueError, match=r"embedding: expected a 2-d weight.*\(5,\)"):
        emb(ember.tensor([0, 1]), ember.randn(5))
    for pad in (5, -6):
        with pytest.raises(ValueError, match="embedding: padding_idx must be within num_embeddings"):
            emb(ember.tensor([0, 1]), w, padding_idx=pad)
