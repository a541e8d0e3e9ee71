"""Ops on bfloat16 and float16 tensors against torch 2.13: elementwise (unary, binary, with Python
scalars and 0-d tensors, comparisons, where/clamp), activations, reductions, indexing, views, cat,
matmul/linear, convolution, pooling, normalization, losses, and gradients. Each result must have
torch's dtype and lie within one unit in the last place of torch's (bit-equal where both round a
correctly rounded float32 result once, as for + - * / sqrt)."""
import numpy as np
import pytest
import torch

import ember

HALF = ["bfloat16", "float16"]


def ordered(u16):
    """uint16 half patterns -> integers in value order (so |a - b| counts ulps)."""
    u = u16.astype(np.int32)
    return np.where(u & 0x8000, 0x8000 - u, u)


def ulps(e, t):
    """The largest distance in ulps between an ember and a torch half tensor (NaN must match NaN)."""
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    a = np.asarray(e.contiguous().numpy()).view(np.uint16).ravel()
    b = t.detach().contiguous().view(torch.int16).numpy().view(np.uint16).ravel()
    na = np.isnan(e.float().numpy().ravel())
    nb = np.isnan(t.detach().float().numpy().ravel())
    assert np.array_equal(na, nb), "NaN positions differ"
    if a.size == 0 or na.all():
        return 0
    return int(np.abs(ordered(a[~na]) - ordered(b[~na])).max())


def pair(shape, name, seed=0, low=-3.0, high=3.0, requires_grad=False):
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, high, size=shape).astype(np.float32)
    t = torch.from_numpy(a.copy()).to(getattr(torch, name))
    e = ember.from_numpy(a.copy()).to(getattr(ember, name))
    if requires_grad:
        t.requires_grad_(True)
        e.requires_grad_(True)
    return e, t


def within_scale(e, t):
    """|e - t| <= one ulp at the scale of t's largest value (the dtype's eps times it)."""
    eps = torch.finfo(t.dtype).eps
    a, b = e.float().numpy(), t.detach().float().numpy()
    assert np.abs(a - b).max() <= eps * np.abs(b).max(), np.abs(a - b).max()


def close_grad(ge, gt, name, rtol=None):
    rtol = rtol or (2e-2 if name == "bfloat16" else 4e-3)
    assert str(ge.dtype).split(".")[-1] == str(gt.dtype).split(".")[-1]
    np.testing.assert_allclose(ge.float().numpy(), gt.float().numpy(), rtol=rtol, atol=rtol)


EXACT_UNARY = ["neg", "abs", "relu", "sqrt", "floor", "ceil", "trunc", "round", "square", "sign"]
CLOSE_UNARY = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "reciprocal", "rsqrt", "expm1",
               "log1p", "log2", "erf", "tan", "sinh", "cosh", "atan", "asinh", "exp2", "log10"]


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", EXACT_UNARY + CLOSE_UNARY)
def test_unary(name, op):
    e, t = pair((257, 7), name, low=0.05 if op in ("log", "sqrt", "rsqrt", "log2", "log10") else -3)
    re, rt = getattr(ember, op)(e), getattr(torch, op)(t)
    assert ulps(re, rt) <= (0 if op in EXACT_UNARY else 1), op
    # a strided view takes the strided path of the same conversion
    assert ulps(getattr(ember, op)(e.t()), getattr(torch, op)(t.t())) <= (0 if op in EXACT_UNARY else 1)


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "atan2", "pow",
                                "remainder", "floor_divide"])
def test_binary_broadcast(name, op):
    e1, t1 = pair((33, 17), name, 1, low=0.5 if op == "pow" else -3)
    e2, t2 = pair((17,), name, 2, low=0.5)
    exact = op in ("add", "sub", "mul", "div", "maximum", "minimum")
    assert ulps(getattr(ember, op)(e1, e2), getattr(torch, op)(t1, t2)) <= (0 if exact else 1)
    assert ulps(getattr(ember, op)(e2, e1), getattr(torch, op)(t2, t1)) <= (0 if exact else 1)


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("scalar", [0.1, 3, 2.0, -1.7e-3, 1e5])
def test_python_scalars_as_torch(name, scalar):
    """x * s, s * x, x / s read s as float32 (torch's opmath scalar); x + s and s - x round s
    to the half type first (Note [Half scalars])."""
    e, t = pair((1000,), name, 3)
    for f in (lambda x: x * scalar, lambda x: scalar * x, lambda x: x + scalar,
              lambda x: scalar - x, lambda x: x - scalar, lambda x: x / scalar):
        assert ulps(f(e), f(t)) == 0
    # a 0-d float32 tensor behaves like the number (torch reads a CPU scalar unrounded)
    assert ulps(e * ember.tensor(0.1), t * torch.tensor(0.1)) == 0
    x = e.clone()
    x.mul_(0.1)
    assert ulps(x, t * 0.1) == 0


@pytest.mark.parametrize("name", HALF)
def test_mixed_dtypes_promote(name):
    e, t = pair((5, 4), name)
    f = ember.ones(4) * 0.3
    assert ulps((e + f).to(getattr(ember, name)), (t + torch.ones(4) * 0.3).to(getattr(torch, name))) == 0
    assert (e + f).dtype is ember.float32
    other = "float16" if name == "bfloat16" else "bfloat16"
    assert (e + ember.ones(4, dtype=getattr(ember, other))).dtype is ember.float32
    assert (e + ember.ones(4, dtype=ember.int64)).dtype is getattr(ember, name)
    x = ember.zeros(4)
    x += e[0]
    assert x.dtype is ember.float32


@pytest.mark.parametrize("name", HALF)
def test_comparisons_where_clamp(name):
    e1, t1 = pair((50,), name, 4)
    e2, t2 = pair((50,), name, 5)
    for op in ("lt", "le", "gt", "ge", "eq", "ne"):
        assert getattr(ember, op)(e1, e2).tolist() == getattr(torch, op)(t1, t2).tolist()
    assert (e1 > 0.5).tolist() == (t1 > 0.5).tolist()
    assert ulps(ember.where(e1 > 0, e1, e2), torch.where(t1 > 0, t1, t2)) == 0
    assert ulps(ember.clamp(e1, -1.1, 0.7), torch.clamp(t1, -1.1, 0.7)) == 0
    assert ember.isnan(e1 / 0 * 0).tolist() == torch.isnan(t1 / 0 * 0).tolist()
    assert ember.isinf(e1 / 0).tolist() == torch.isinf(t1 / 0).tolist()
    assert ember.isfinite(e1).all().item()


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("act", ["gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh",
                                 "mish", "logsigmoid", "relu6", "hardswish"])
def test_activations(name, act):
    e, t = pair((64, 9), name, 6)
    re, rt = getattr(ember.nn.functional, act)(e), getattr(torch.nn.functional, act)(t)
    assert ulps(re, rt) <= 2, act


@pytest.mark.parametrize("name", HALF)
def test_reductions(name):
    e, t = pair((40, 300), name, 7)
    for op in ("sum", "mean", "amax", "amin", "prod", "var", "std", "logsumexp"):
        for dims in ((1,), (0,), (0, 1)):
            if op == "prod":
                if len(dims) > 1:
                    continue
                re, rt = ember.prod(e / 2.5, dims[0]), torch.prod(t / 2.5, dims[0])
            else:
                re, rt = getattr(ember, op)(e, dims), getattr(torch, op)(t, dims)
            # torch's prod multiplies in the half type (a rounding per factor); ember's in
            # float32 (one rounding), so they drift apart by a few ulps over 40 factors
            assert ulps(re, rt) <= (8 if op == "prod" else 1), (op, dims)
    assert ulps(ember.sum(e), torch.sum(t)) <= 1
    assert ember.argmax(e, 1).tolist() == torch.argmax(t, 1).tolist()
    v, i = ember.max(e, 0)
    vt, it = torch.max(t, 0)
    assert ulps(v, vt) == 0 and i.tolist() == it.tolist()
    assert ulps(ember.softmax(e, 1), torch.softmax(t, 1)) <= 1
    assert ulps(ember.log_softmax(e, 0), torch.log_softmax(t, 0)) <= 1
    assert ember.sum(e, dtype=ember.float32).dtype is ember.float32


@pytest.mark.parametrize("name", HALF)
def test_large_sum_mean_softmax(name):
    """Whole-tensor sum/mean widen block by block; softmax along the last dim row blocks."""
    e, t = pair((300, 1001), name, 43, 0.0, 1.0)
    assert ulps(e.sum(), t.sum()) <= 1 and ulps(e.mean(), t.mean()) <= 1
    assert ulps(e.sum(dtype=ember.float32).to(e.dtype), t.sum(dtype=torch.float32).to(t.dtype)) <= 1
    assert ulps(ember.softmax(e, -1), torch.softmax(t, -1)) <= 1
    assert ulps(ember.log_softmax(e, 1), torch.log_softmax(t, 1)) <= 1
    assert ulps(ember.softmax(e[:, ::2], 1), torch.softmax(t[:, ::2], 1)) <= 1


@pytest.mark.parametrize("name", HALF)
def test_indexing_views_cat(name):
    e, t = pair((6, 5, 4), name, 8)
    idx = [0, 2, 5]
    assert ulps(e[idx], t[idx]) == 0
    assert ulps(e[:, 1:4:2].permute(2, 0, 1), t[:, 1:4:2].permute(2, 0, 1)) == 0
    assert ulps(e[e > 0], t[t > 0]) == 0
    assert ulps(ember.cat([e, e * 2], 1), torch.cat([t, t * 2], 1)) == 0
    assert ulps(ember.stack([e[0], e[1]]), torch.stack([t[0], t[1]])) == 0
    assert ulps(e.reshape(30, 4).t().contiguous(), t.reshape(30, 4).t().contiguous()) == 0
    i = ember.tensor([[0, 1], [2, 3]])
    assert ulps(ember.gather(e[0], 1, i), torch.gather(t[0], 1, torch.tensor([[0, 1], [2, 3]]))) == 0
    x, y = e.clone(), t.clone()
    x[1:3] = 0.3
    y[1:3] = 0.3
    assert ulps(x, y) == 0
    x.masked_fill_(x > 1, -2.5)
    y.masked_fill_(y > 1, -2.5)
    assert ulps(x, y) == 0
    x.index_put_((ember.tensor([0, 0, 1]),), ember.ones(3, 5, 4, dtype=x.dtype), accumulate=True)
    y.index_put_((torch.tensor([0, 0, 1]),), torch.ones(3, 5, 4, dtype=y.dtype), accumulate=True)
    assert ulps(x, y) == 0


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("shape", [((64, 48), (48, 32)), ((3, 20, 16), (3, 16, 8)), ((16,), (16, 5)),
                                   ((7, 16), (16,)), ((16,), (16,))])
def test_matmul(name, shape):
    e1, t1 = pair(shape[0], name, 9)
    e2, t2 = pair(shape[1], name, 10)
    assert ulps(ember.matmul(e1, e2), torch.matmul(t1, t2)) <= 1
    if len(shape[0]) == 2 and len(shape[1]) == 2:
        assert ulps(e1 @ e2.t().contiguous().t(), t1 @ t2) <= 1  # a transposed operand


def product_close(e, t, exact, bound=None):
    """A product e (ember) within one ulp of torch's t, or no farther from `exact` (the float64
    product, rounded once to the dtype here) than torch's is: two float32 sums in different
    orders differ by several ulps of a near-cancelling small result (float16 on AMX tiles,
    Note [AMX float16 gemm], against torch's kernel: 7 ulps where torch is 7 from the rounded
    value and ember 1). Or, given `bound` (fp32_sum_bound), within the error bound of any
    float32-accumulating product plus the final rounding: which of two summation orders lands
    closer is luck (on AVX2, no AMX: ember 7 ulps of a near-cancelling float16 result, torch 3)."""
    if ulps(e, t) <= 1:
        return True
    r = torch.from_numpy(np.ascontiguousarray(exact)).to(t.dtype)
    if ulps(e, r) <= max(1, ulps(ember.from_numpy(t.detach().float().numpy()).to(e.dtype), r)):
        return True
    if bound is None:
        return False
    got = e.float().numpy().astype(np.float64)
    half_ulp = np.abs(got) * (2.0 ** -11 if "float16" in str(e.dtype) else 2.0 ** -8)
    return bool(np.all(np.abs(got - exact) <= bound + half_ulp))


def fp32_sum_bound(a, b):
    """|a| @ |b| times n 2^-24: the worst error of a float32 dot product of n terms (a, b float64)."""
    return a.shape[-1] * 2.0 ** -24 * (np.abs(a) @ np.abs(b))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_large_matmul_and_linear(name, layout):
    """Products big enough for oneDNN's bfloat16 kernel (Note [bfloat16 matmul on oneDNN]),
    with either operand transposed, and linear's bias riding in beta."""
    a, ta = pair((160, 96) if layout[0] == "n" else (96, 160), name, 30)
    b, tb = pair((96, 72) if layout[1] == "n" else (72, 96), name, 31)
    if layout[0] == "t":
        a, ta = a.t(), ta.t()
    if layout[1] == "t":
        b, tb = b.t(), tb.t()
    d = lambda x: x.detach().double().numpy()  # noqa: E731
    assert product_close(a @ b, ta @ tb, d(ta) @ d(tb), fp32_sum_bound(d(ta), d(tb)))
    bias, tbias = pair((72,), name, 32)
    assert product_close(ember.nn.functional.linear(a, b.t(), bias),
                         torch.nn.functional.linear(ta, tb.t(), tbias), d(ta) @ d(tb) + d(tbias),
                         fp32_sum_bound(d(ta), d(tb)) + np.abs(d(tbias)) * 2.0 ** -24)
    assert product_close(ember.addmm(bias, a, b, beta=0.5, alpha=2.0),
                         torch.addmm(tbias, ta, tb, beta=0.5, alpha=2.0), 0.5 * d(tbias) + 2 * (d(ta) @ d(tb)),
                         2 * fp32_sum_bound(d(ta), d(tb)) + np.abs(d(tbias)) * 2.0 ** -24)
    x, tx = pair((4, 160, 96) if layout[0] == "n" else (4, 96, 160), name, 33)
    if layout[0] == "t":
        x, tx = x.transpose(1, 2), tx.transpose(1, 2)
    assert product_close(x @ b, tx @ tb, d(tx) @ d(tb), fp32_sum_bound(d(tx), d(tb)))


@pytest.mark.parametrize("name", HALF)
def test_linear_conv_pool_norm(name):
    F, TF = ember.nn.functional, torch.nn.functional
    x, tx = pair((4, 3, 10, 10), name, 11)
    w, tw = pair((5, 3, 3, 3), name, 12, -0.5, 0.5)
    b, tb = pair((5,), name, 13)
    # torch rounds the convolution, then again after adding the bias; ember rounds once
    assert ulps(F.conv2d(x, w, b, padding=1), TF.conv2d(tx, tw, tb, padding=1)) <= 2
    assert ulps(F.max_pool2d(x, 2), TF.max_pool2d(tx, 2)) == 0
    assert ulps(F.avg_pool2d(x, 2), TF.avg_pool2d(tx, 2)) <= 1
    assert ulps(F.adaptive_avg_pool2d(x, 1), TF.adaptive_avg_pool2d(tx, 1)) <= 1
    lw, tlw = pair((10,), name, 14)
    assert ulps(F.layer_norm(x, (10,), lw, lw), TF.layer_norm(tx, (10,), tlw, tlw)) <= 1
    bw, tbw = pair((3,), name, 15, 0.5, 1.5)
    rm, trm = ember.zeros(3, dtype=x.dtype), torch.zeros(3, dtype=tx.dtype)
    rv, trv = ember.ones(3, dtype=x.dtype), torch.ones(3, dtype=tx.dtype)
    # torch's half batch_norm loses bits near zero (x - mean); ember's is float32 throughout:
    # equal to one ulp of the output's scale
    within_scale(F.batch_norm(x, rm, rv, bw, bw, True), TF.batch_norm(tx, trm, trv, tbw, tbw, True))
    assert ulps(rm, trm) <= 1 and ulps(rv, trv) <= 1
    a, ta = pair((8, 32), name, 16)
    lw2, tlw2 = pair((16, 32), name, 17, -0.3, 0.3)
    lb, tlb = pair((16,), name, 18)
    assert ulps(F.linear(a, lw2, lb), TF.linear(ta, tlw2, tlb)) <= 1
    emb, temb = pair((10, 4), name, 19)
    assert ulps(F.embedding(ember.tensor([1, 3, 3]), emb), TF.embedding(torch.tensor([1, 3, 3]), temb)) == 0
    d = F.dropout(a, 0.5, True)
    assert d.dtype is a.dtype and set(np.unique(d.float().numpy() / np.where(a.float().numpy() == 0, 1, a.float().numpy()))) <= {0.0, 2.0}


@pytest.mark.parametrize("name", HALF)
def test_losses(name):
    F, TF = ember.nn.functional, torch.nn.functional
    x, tx = pair((16, 10), name, 20)
    y, ty = pair((16, 10), name, 21)
    target = np.random.default_rng(0).integers(0, 10, 16)
    et, tt = ember.from_numpy(target.copy()), torch.from_numpy(target.copy())
    assert ulps(F.cross_entropy(x, et), TF.cross_entropy(tx, tt)) <= 1
    assert ulps(F.nll_loss(F.log_softmax(x, 1), et), TF.nll_loss(TF.log_softmax(tx, 1), tt)) <= 1
    assert ulps(F.mse_loss(x, y), TF.mse_loss(tx, ty)) <= 1
    assert ulps(F.l1_loss(x, y), TF.l1_loss(tx, ty)) <= 1
    p, tp = pair((16,), name, 22, 0.05, 0.95)
    q, tq = pair((16,), name, 23, 0.0, 1.0)
    assert ulps(F.binary_cross_entropy(p, q), TF.binary_cross_entropy(tp, tq)) <= 1
    assert ulps(F.binary_cross_entropy_with_logits(x, y.sigmoid()),
                TF.binary_cross_entropy_with_logits(tx, ty.sigmoid())) <= 1
    assert ulps(F.smooth_l1_loss(x, y), TF.smooth_l1_loss(tx, ty)) <= 2


@pytest.mark.parametrize("name", HALF)
def test_gradients_against_torch(name):
    F, TF = ember.nn.functional, torch.nn.functional
    x, tx = pair((8, 12), name, 24, requires_grad=True)
    w, tw = pair((6, 12), name, 25, -0.5, 0.5, requires_grad=True)
    b, tb = pair((6,), name, 26, requires_grad=True)
    target = np.random.default_rng(1).integers(0, 6, 8)
    h = F.gelu(F.linear(x, w, b))
    th = TF.gelu(TF.linear(tx, tw, tb))
    loss = F.cross_entropy(F.layer_norm(h, (6,)) * 2 + h.exp() / 4, ember.from_numpy(target.copy()))
    tloss = TF.cross_entropy(TF.layer_norm(th, (6,)) * 2 + th.exp() / 4, torch.from_numpy(target.copy()))
    loss.backward()
    tloss.backward()
    assert loss.dtype is getattr(ember, name)
    for ge, gt in ((x.grad, tx.grad), (w.grad, tw.grad), (b.grad, tb.grad)):
        close_grad(ge, gt, name, rtol=6e-2 if name == "bfloat16" else 1e-2)


@pytest.mark.parametrize("name", HALF)
def test_conv_and_pool_gradients(name):
    F, TF = ember.nn.functional, torch.nn.functional
    x, tx = pair((2, 3, 8, 8), name, 27, requires_grad=True)
    w, tw = pair((4, 3, 3, 3), name, 28, -0.5, 0.5, requires_grad=True)
    F.max_pool2d(F.relu(F.conv2d(x, w)), 2).sum().backward()
    TF.max_pool2d(TF.relu(TF.conv2d(tx, tw)), 2).sum().backward()
    close_grad(x.grad, tx.grad, name)
    close_grad(w.grad, tw.grad, name, rtol=3e-2)


def same_values(e, t):
    """Equal values and zero signs, NaN where the other has NaN (a NaN's own bits follow each
    library's cast convention, docs/half.md)."""
    a, b = e.detach().float().numpy(), t.detach().float().numpy()
    assert np.array_equal(a, b, equal_nan=True)
    fin = ~np.isnan(a)
    assert np.array_equal(np.signbit(a[fin]), np.signbit(b[fin]))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("k,s,p,d,ceil", [(2, 2, 0, 1, False), (3, 3, 1, 1, True), (2, 3, 0, 1, False),
                                          (2, 2, 0, 2, False), (3, 2, 1, 1, False), (2, 1, 0, 1, False)])
def test_max_pool_on_half_values(name, k, s, p, d, ceil):
    """max_pool2d runs on the 16-bit values (the maximum is an input): the values, NaN, -inf,
    ties (first wins) and indices as torch's; windows that share no element also scatter the
    gradient in the half dtype (exact, as torch's); overlapping ones sum in float32 and round
    once (within one ulp of torch, which rounds each sum)."""
    F, TF = ember.nn.functional, torch.nn.functional
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    x[0, 0, 0, 0], x[0, 1, 2, 2], x[1, 2, 4, 4] = np.nan, -np.inf, np.inf
    x[1, 0, :2, :2] = 0.5  # a tie
    e = ember.from_numpy(x).to(getattr(ember, name)).requires_grad_(True)
    t = torch.from_numpy(x).to(getattr(torch, name)).requires_grad_(True)
    eo, ei = F.max_pool2d(e, k, s, p, d, ceil_mode=ceil, return_indices=True)
    to, ti = TF.max_pool2d(t, k, s, p, d, ceil_mode=ceil, return_indices=True)
    same_values(eo, to)
    assert np.array_equal(ei.numpy(), ti.numpy())
    g = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    eo.backward(ember.from_numpy(g).to(eo.dtype))
    to.backward(torch.from_numpy(g).to(to.dtype))
    if s >= (k - 1) * d + 1:
        same_values(e.grad, t.grad)
    else:
        close_grad(e.grad, t.grad, name)
    # A strided (channels-sliced) input and a 3-d input without batch take the same kernel.
    same_values(F.max_pool2d(e[:, ::2], k, s, p, d, ceil_mode=ceil),
                TF.max_pool2d(t[:, ::2], k, s, p, d, ceil_mode=ceil))
    same_values(F.max_pool2d(e[0], k, s, p, d, ceil_mode=ceil), TF.max_pool2d(t[0], k, s, p, d, ceil_mode=ceil))


@pytest.mark.parametrize("name", ["float32", "float64"] + HALF)
def test_relu_backward_follows_torchs_threshold_rule(name):
    """+0 where the output is <= 0 (even for an inf or NaN gradient), else the gradient: a NaN
    output passes its gradient on, as torch's threshold_backward (the half dtypes on their bits)."""
    vals = [np.nan, -np.nan, -1.0, 2.0, 0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-40, 3e-8, -3e-8]
    grads = [5.0, 5.0, np.inf, np.nan, np.nan, -np.inf, np.nan, np.inf, -2.0, 7.0, 3.0, 1.0]
    e = ember.tensor(vals, dtype=getattr(ember, name)).requires_grad_(True)
    t = torch.tensor(vals, dtype=getattr(torch, name)).requires_grad_(True)
    ember.relu(e).backward(ember.tensor(grads, dtype=e.dtype))
    torch.relu(t).backward(torch.tensor(grads, dtype=t.dtype))
    same_values(e.grad, t.grad)
    # A strided output and gradient (the kernel's general loop).
    x, tx = pair((40, 6), name, 8, requires_grad=True) if name in HALF else (None, None)
    if x is not None:
        g, tg = pair((6, 40), name, 9)
        ember.relu(x).backward(g.t())
        torch.relu(tx).backward(tg.t())
        same_values(x.grad, tx.grad)


@pytest.mark.parametrize("name", HALF)
def test_relu_on_every_bit_pattern(name):
    """ReLU works on the 16-bit patterns: for all 65536 of them, the float32 path's value rounded
    (NaN as ember's casts write it), and torch's value (NaN-aware: torch writes NaN as 0x7FC0;
    and torch keeps -0 where ember's ReLU, in every dtype, gives +0: docs/half.md)."""
    bits = np.arange(65536, dtype=np.uint16)
    if name == "float16":
        x = ember.from_numpy(bits.view(np.float16).copy())
        got, want = ember.relu(x).numpy().view(np.uint16), ember.relu(x.float()).half().numpy().view(np.uint16)
        tx = torch.from_numpy(bits.view(np.float16).copy())
    else:
        x = ember.from_numpy((bits.astype(np.uint32) << 16).view(np.float32).copy()).bfloat16()
        got = ember.relu(x).float().numpy().view(np.uint32) >> 16
        want = ember.relu(x.float()).bfloat16().float().numpy().view(np.uint32) >> 16
        tx = torch.from_numpy((bits.astype(np.uint32) << 16).view(np.float32).copy()).bfloat16()
    assert np.array_equal(got, want)
    for e, t in ((ember.relu(x), torch.relu(tx)), (ember.relu(x[::3]), torch.relu(tx[::3]))):  # strided
        assert np.array_equal(e.float().numpy(), t.float().numpy(), equal_nan=True)


def test_a_bfloat16_training_step_learns():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(4, 16), ember.nn.ReLU(), ember.nn.Linear(16, 1)).bfloat16()
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    x = ember.randn(64, 4, dtype=ember.bfloat16)
    y = x.sum(1, keepdim=True)
    first = None
    for _ in range(60):
        opt.zero_grad()
        loss = ember.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < first / 4
    assert all(p.dtype is ember.bfloat16 for p in model.parameters())


@pytest.mark.parametrize("name", HALF)
def test_sort_topk_scans(name):
    e, t = pair((7, 50), name, 40)
    v, i = ember.sort(e, 1)
    tv, ti = torch.sort(t, dim=1, stable=True)
    assert ulps(v, tv) == 0 and i.tolist() == ti.tolist()
    v, i = ember.topk(e, 5, 1)
    tv, ti = torch.topk(t, 5, 1)
    assert ulps(v, tv) == 0
    assert ember.argsort(e, 0, descending=True).tolist() == torch.argsort(t, dim=0, descending=True, stable=True).tolist()
    assert ulps(ember.cumsum(e, 1), torch.cumsum(t, 1)) <= 1
    assert ulps(ember.cumprod(e[:, :8] / 2, 1), torch.cumprod(t[:, :8] / 2, 1)) <= 2
    x, tx = pair((4, 6), name, 41, requires_grad=True)
    ember.cumprod(x, 1).sum().backward()
    torch.cumprod(tx, 1).sum().backward()
    close_grad(x.grad, tx.grad, name, rtol=5e-2)


@pytest.mark.parametrize("name", HALF)
def test_python_composites(name):
    e, t = pair((40,), name, 42)
    assert ulps(ember.histc(e, 10), torch.histc(t, 10)) == 0
    assert ulps(ember.median(e), torch.median(t)) == 0
    v, i = ember.kthvalue(e, 3)
    tv, ti = torch.kthvalue(t, 3)
    assert ulps(v, tv) == 0 and i.item() == ti.item()
    v, i = ember.cummax(e, 0)
    tv, ti = torch.cummax(t, 0)
    assert ulps(v, tv) == 0


def test_ops_not_taught_refuse_by_name():
    x = ember.ones(3, dtype=ember.bfloat16)
    for m in (ember, torch):  # torch's words
        with pytest.raises(RuntimeError, match="linalg.inv: Low precision dtypes not supported. Got BFloat16"):
            m.linalg.inv(m.eye(2, dtype=m.bfloat16))
    with pytest.raises(RuntimeError, match="bincount"):
        ember.bincount(x)


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", ["exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "rsqrt",
                                "reciprocal", "erf", "expm1", "log1p", "log2"])
def test_simd_unary_widens_in_registers(name, op):
    """Half unary ops with a SIMD kernel widen each vector in registers: the same bits as the
    float32 op rounded once, contiguous or strided, at every tail length, edge values included
    (NaN, ±inf, huge arguments, negatives for log/sqrt)."""
    dt = getattr(ember, name)
    rng = np.random.default_rng(5)
    base = np.concatenate([rng.standard_normal(200) * 3, [np.nan, np.inf, -np.inf, 0.0, -0.0,
                                                            1e4, -1e4, 60000.0, 100.0, -100.0]])
    for n in (1, 15, 17, 33, 210):
        e = ember.tensor(base[:n].astype(np.float32)).to(dt)
        for x in (e, ember.stack([e, e], 1)[:, 0]):  # contiguous, then a stride-2 view
            got = getattr(ember, op)(x)
            want = getattr(ember, op)(x.float()).to(dt)
            np.testing.assert_array_equal(got.float().numpy(), want.float().numpy(), err_msg=op)


def half_from_bits(bits, name):
    """ember and torch tensors holding the uint16 patterns `bits` as `name` (float32: uint32)."""
    if name == "float32":
        return ember.from_numpy(bits.view(np.float32).copy()), torch.from_numpy(bits.view(np.float32).copy())
    e = ember.from_numpy(bits.view(ember.zeros(1, dtype=getattr(ember, name)).numpy().dtype))
    t = torch.from_numpy(bits.view(np.int16).copy()).view(getattr(torch, name))
    return e, t


@pytest.mark.parametrize("name", HALF + ["float32"])
@pytest.mark.parametrize("shape", [(3, 5, 28, 28), (2, 3, 14, 14), (1, 2, 7, 9), (1, 1, 4, 1101),
                                   (2, 1, 2, 2), (1, 1, 31, 47), (2, 2, 3, 6)])
def test_max_pool_2x2_on_bit_patterns(name, shape):
    """MaxPool2d(2) on 16-bit floats compares bit patterns as keys (Note [Max pool 2x2 on bits]):
    random patterns with NaNs of both signs and any payload (several in one window), ±0 ties,
    ±inf and repeated values give torch's indices, and the output is the input's own bits at
    those indices (a NaN keeps its payload); contiguous rows with a longer row stride, and the
    backward, too. Wide rows (1101 columns) cross the kernel's 512-output runs. float32 takes
    the same kernel's float compare (on its own 32-bit patterns)."""
    rng = np.random.default_rng(sum(shape))
    if name == "float32":
        u, inf = np.uint32, 0x7F800000
        pool = np.array([0, 1 << 31, inf, inf | 1 << 31, inf + 1, inf | 0x80000001, 0x7FFFFFFF,
                         0xFFFFFFFF, 0x3F800000, 0xBF800000, 0x00000001], dtype=u)
    else:
        u, inf = np.uint16, 0x7C00 if name == "float16" else 0x7F80
        pool = np.array([0, 0x8000, inf, inf | 0x8000, inf + 1, inf | 0x8001, 0x7FFF, 0xFFFF,
                         0x3C00, 0xBC00, 0x3F80, 0xBF80], dtype=u)
    bits = rng.integers(0, np.iinfo(u).max, size=shape, dtype=u, endpoint=True)
    special = rng.random(shape) < 0.3
    bits[special] = rng.choice(pool, size=int(special.sum()))
    F, TF = ember.nn.functional, torch.nn.functional
    for cut in (0, 2):  # cut > 0: rows of a wider tensor (row stride W + cut)
        wide = np.concatenate([bits, bits[..., :cut]], axis=-1) if cut else bits
        e, t = half_from_bits(np.ascontiguousarray(wide), name)
        e, t = e[..., :shape[-1]], t[..., :shape[-1]]
        eo, ei = F.max_pool2d(e, 2, return_indices=True)
        to, ti = TF.max_pool2d(t, 2, return_indices=True)
        assert np.array_equal(ei.numpy(), ti.numpy())
        out = np.asarray(eo.numpy()).view(u).reshape(eo.shape[0] * eo.shape[1], -1)
        planes = bits.reshape(shape[0] * shape[1], -1)
        want = np.take_along_axis(planes, ti.numpy().reshape(len(planes), -1), axis=1)
        assert np.array_equal(out, want)
        assert np.array_equal(eo.float().isnan().numpy(), to.float().isnan().numpy())
    # The backward on bits too: gradients with ±0, ±inf and NaNs (-0 lands as +0, as 0 + g).
    gbits = rng.integers(0, np.iinfo(u).max, size=tuple(to.shape), dtype=u, endpoint=True)
    gbits[gbits % 5 == 0] = rng.choice(pool, size=int((gbits % 5 == 0).sum()))
    eg, tg = half_from_bits(gbits, name)
    e.requires_grad_(True)
    t.requires_grad_(True)
    F.max_pool2d(e, 2).backward(eg)
    TF.max_pool2d(t, 2).backward(tg)
    same_values(e.grad, t.grad)


@pytest.mark.parametrize("name", HALF)
def test_relu_on_bit_patterns(name):
    """relu of 16-bit floats on their bits in SIMD runs (and a strided view, element by element):
    every pattern, torch's value where it is a number (but -0 -> +0, as ember's float32 relu), NaN as ember's cast writes it
    (bfloat16 0xFFFF; float16 quieted, sign and payload kept)."""
    bits = np.arange(1 << 16, dtype=np.uint16)
    e, t = half_from_bits(bits, name)
    inf = 0x7C00 if name == "float16" else 0x7F80
    nan = (bits & 0x7FFF) > inf
    want = np.where(bits.view(np.int16) > 0, bits, 0).astype(np.uint16)
    want[nan] = 0xFFFF if name == "bfloat16" else bits[nan] | 0x0200
    for view in (slice(None), slice(None, None, 3)):
        got = np.asarray(ember.relu(e[view]).numpy()).view(np.uint16)
        assert np.array_equal(got, want[view])
        ref = torch.relu(t[view]).view(torch.int16).numpy().view(np.uint16)
        # ember's relu(-0) is +0 in every dtype (float32 too), torch's -0: compared apart
        num = ~nan[view] & (bits[view] != 0x8000)
        assert np.array_equal(got[num], ref[num])
