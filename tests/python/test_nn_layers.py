"""Every ember.nn layer and loss against torch.nn: the same module built in both (torch's
parameters copied into ember), the same inputs -> the same outputs, the same gradients
of inputs and parameters, the same parameters after optimizer steps, the same running
statistics; plus train/eval behaviour and bad arguments."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import nn
from helpers import assert_same, assert_same_param_grads, build_pair, make_inputs, random_array

RTOL, ATOL = 1e-4, 1e-5  # sums of products (conv, linear, norms, losses) round differently


def _leaves(xs):
    """Float inputs become leaves that require grad (int inputs stay as they are)."""
    return [x.detach().clone().requires_grad_(True) if x.is_floating_point() else x for x in xs]


def run_pair(build, shapes, dtype="float32", train=True, ints=None, rtol=RTOL, atol=ATOL,
             seed=0, grad=True, low=-2.0, high=2.0):
    """Forward and backward of build(lib)(*inputs) in both libraries. `ints` maps an input
    position to (low, high) for int64 inputs (class indices, embedding ids)."""
    e_mod, t_mod = build_pair(build, dtype, train)
    es, ts = make_inputs(shapes, dtype, seed=seed, low=low, high=high)
    rng = np.random.default_rng(seed + 7)
    for i, (lo, hi) in (ints or {}).items():
        arr = rng.integers(lo, hi, size=shapes[i]).astype(np.int64)
        es[i], ts[i] = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    es, ts = _leaves(es), _leaves(ts)
    t_out = t_mod(*ts)
    e_out = e_mod(*es)
    assert_same(e_out, t_out, rtol, atol)
    if not grad:
        return e_mod, t_mod
    t_first = t_out[0] if isinstance(t_out, tuple) else t_out
    e_first = e_out[0] if isinstance(e_out, tuple) else e_out
    g = random_array(tuple(t_first.shape), dtype, rng)
    g = np.asarray(g)  # a 0-d array for a 0-d output (a loss)
    t_first.backward(torch.from_numpy(g.copy()))
    e_first.backward(ember.from_numpy(g.copy()))
    for e, t in zip(es, ts):
        if t.requires_grad:
            assert_same(e.grad, t.grad, rtol, atol)
    assert_same_param_grads(e_mod, t_mod, rtol, atol)
    return e_mod, t_mod


def step_pair(build, shape, opt, steps=3, dtype="float32", ints=None, **opt_kw):
    """`steps` optimizer steps on sum(out * seed) in both; then parameters and buffers must match.
    torch's generator is seeded so the initial weights, and the rounding that steps amplify,
    do not depend on which tests ran before."""
    torch.manual_seed(0)
    e_mod, t_mod = build_pair(build, dtype)
    es, ts = make_inputs([shape], dtype)
    if ints:
        arr = np.random.default_rng(3).integers(*ints, size=shape).astype(np.int64)
        es, ts = [ember.from_numpy(arr.copy())], [torch.from_numpy(arr.copy())]
    e_opt = getattr(ember.optim, opt)(e_mod.parameters(), **opt_kw)
    t_opt = getattr(torch.optim, opt)(t_mod.parameters(), **opt_kw)
    seed = None
    for _ in range(steps):
        t_out = t_mod(ts[0])
        if seed is None:
            seed = random_array(tuple(t_out.shape), dtype, np.random.default_rng(5))
        e_out = e_mod(es[0])
        for lib, out, o in ((torch, t_out, t_opt), (ember, e_out, e_opt)):
            o.zero_grad()
            (out * lib.from_numpy(seed.copy())).sum().backward()
            o.step()
    for (k, e), (k2, t) in zip(e_mod.state_dict().items(), t_mod.state_dict().items()):
        assert k == k2
        assert_same(e, t, RTOL, ATOL)


# ---- linear, identity, flatten ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 3, 4), (0, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(shape, bias, dtype):
    run_pair(lambda m: m.nn.Linear(4, 3, bias=bias), [shape], dtype)


@pytest.mark.parametrize("opt,kw", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.01}),
                                    ("AdamW", {"lr": 0.01}), ("RMSprop", {"lr": 0.01}),
                                    ("Adagrad", {"lr": 0.1})])
def test_linear_optimizer_steps(opt, kw):
    step_pair(lambda m: m.nn.Sequential(m.nn.Linear(6, 5), m.nn.Tanh(), m.nn.Linear(5, 2)),
              (7, 6), opt, **kw)


def test_identity_and_flatten():
    run_pair(lambda m: m.nn.Identity(3, unused=True), [(2, 3)])
    for args in [(), (0, -1), (1, 2), (-3, -2)]:
        run_pair(lambda m: m.nn.Flatten(*args), [(2, 3, 4, 5)])
    run_pair(lambda m: m.nn.Unflatten(1, (2, 3)), [(4, 6, 2)])
    run_pair(lambda m: m.nn.Unflatten(-1, [-1, 2]), [(4, 6)])
    for mod in (ember, torch):
        with pytest.raises(TypeError, match="unflattened_size must be a tuple of ints"):
            mod.nn.Unflatten(1, 3)
        with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
            mod.nn.Unflatten(1, (2, 1.5))


# ---- activations -------------------------------------------------------------------------
ACTIVATIONS = [
    lambda m: m.nn.ReLU(), lambda m: m.nn.LeakyReLU(), lambda m: m.nn.LeakyReLU(0.3),
    lambda m: m.nn.GELU(), lambda m: m.nn.GELU(approximate="tanh"), lambda m: m.nn.Tanh(),
    lambda m: m.nn.Sigmoid(), lambda m: m.nn.Softmax(dim=1), lambda m: m.nn.Softmax(-1),
    lambda m: m.nn.LogSoftmax(dim=0), lambda m: m.nn.LogSoftmax(2), lambda m: m.nn.SiLU(),
    lambda m: m.nn.ReLU6(), lambda m: m.nn.Hardtanh(-0.5, 1.5), lambda m: m.nn.Softmin(1),
]


@pytest.mark.parametrize("build", ACTIVATIONS, ids=lambda b: None)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activations(build, dtype):
    # torch's AVX2 vector path of tanh-GELU's backward gives -0 below x ~ -5 where its scalar
    # path (and ember's) gives g * -1.06e-6 (float64: g * -0.76e-6): a float32 cancellation
    # that sits near atol, so that activation's float32 bar is 1e-5 absolute.
    tanh_gelu = "tanh" in repr(build(torch)) and dtype == "float32"
    run_pair(build, [(3, 4, 5)], dtype, rtol=1e-5, atol=1e-5 if tanh_gelu else 1e-6, low=-7, high=7)


@pytest.mark.parametrize("cls,args", [("ReLU", ()), ("LeakyReLU", (0.2,)), ("SiLU", ()),
                                      ("ReLU6", ()), ("Hardtanh", (-1.0, 1.0))])
def test_inplace_activations(cls, args):
    """inplace=True writes into its (non-leaf) input, and the gradient is still right."""
    def build(m):
        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.act = getattr(m.nn, cls)(*args, inplace=True)

            def forward(self, x):
                h = x * 3
                out = self.act(h)
                assert out is h
                return out * 2
        return Net()
    run_pair(build, [(4, 5)], rtol=1e-5, atol=1e-6)
    assert "inplace=True" in repr(getattr(nn, cls)(*args, inplace=True))
    for mod in (ember, torch):  # writing into a leaf that requires grad is refused
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(mod.nn, cls)(*args, inplace=True)(mod.ones(3, requires_grad=True))


def test_softmax_implicit_dim_warns_like_torch():
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            e = nn.Softmax()(ember.ones(*shape))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = torch.nn.Softmax()(torch.ones(*shape))
        assert_same(e, t)


# ---- convolution and pooling -------------------------------------------------------------
CONVS = [
    dict(args=(3, 4, 3)),
    dict(args=(3, 4, (3, 2)), stride=2, padding=1, bias=False),
    dict(args=(4, 6, 3), groups=2, dilation=2, padding=(2, 1)),
    dict(args=(3, 4, 3), padding="same"),
    dict(args=(3, 4, 3), padding="valid", stride=(1, 2)),
    dict(args=(3, 4, 3), padding=1, padding_mode="reflect"),
    dict(args=(3, 4, 3), padding=(2, 1), padding_mode="replicate"),
    dict(args=(3, 4, 3), padding=2, padding_mode="circular", stride=2),
]


@pytest.mark.parametrize("kw", CONVS, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv2d(kw, dtype):
    kw = dict(kw)
    args = kw.pop("args")
    cin = args[0]
    run_pair(lambda m: m.nn.Conv2d(*args, **kw), [(2, cin, 7, 6)], dtype)
    run_pair(lambda m: m.nn.Conv2d(*args, **kw), [(cin, 5, 6)], dtype)  # unbatched


def test_conv2d_optimizer_steps():
    step_pair(lambda m: m.nn.Sequential(m.nn.Conv2d(2, 3, 3, padding=1), m.nn.ReLU(),
                                        m.nn.Conv2d(3, 2, 2, stride=2)),
              (2, 2, 6, 6), "Adam", lr=0.01)


@pytest.mark.parametrize("mod", [ember, torch])
def test_conv2d_bad_arguments(mod):
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        mod.nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        mod.nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        mod.nn.Conv2d(4, 4, 3, groups=0)
    with pytest.raises(ValueError, match="Invalid padding string"):
        mod.nn.Conv2d(4, 4, 3, padding="full")
    with pytest.raises(ValueError, match="not supported for strided convolutions"):
        mod.nn.Conv2d(4, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        mod.nn.Conv2d(4, 4, 3, padding_mode="mirror")
    with pytest.raises((ValueError, RuntimeError), match="channels"):
        mod.nn.Conv2d(4, 4, 3)(mod.ones(1, 3, 5, 5))  # wrong channel count


POOLS = [
    lambda m: m.nn.MaxPool2d(2), lambda m: m.nn.MaxPool2d(3, stride=2, padding=1),
    lambda m: m.nn.MaxPool2d((2, 3), dilation=(1, 2), ceil_mode=True),
    lambda m: m.nn.MaxPool2d(2, return_indices=True),
    lambda m: m.nn.AvgPool2d(2), lambda m: m.nn.AvgPool2d(3, stride=1, padding=1),
    lambda m: m.nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda m: m.nn.AvgPool2d(2, divisor_override=3),
    lambda m: m.nn.AdaptiveAvgPool2d(1), lambda m: m.nn.AdaptiveAvgPool2d((3, 2)),
    lambda m: m.nn.AdaptiveAvgPool2d((None, 4)),
]


@pytest.mark.parametrize("build", POOLS)
@pytest.mark.parametrize("shape", [(2, 3, 7, 8), (3, 6, 5)])
def test_pools(build, shape):
    run_pair(build, [shape], rtol=1e-5, atol=1e-6)


# ---- dropout -----------------------------------------------------------------------------
def test_dropout_eval_is_identity_and_train_scales():
    x = ember.randn(200, 100, requires_grad=True)
    d = nn.Dropout(0.3)
    assert d.eval()(x) is x
    y = d.train()(x)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y.detach().numpy()[kept], x.detach().numpy()[kept] / 0.7,
                               rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.7, rtol=1e-6)
    assert not nn.Dropout(1.0)(x).detach().numpy().any()
    np.testing.assert_array_equal(nn.Dropout(0.0)(x).detach().numpy(), x.detach().numpy())
    h = x * 1
    assert nn.Dropout(0.5, inplace=True)(h) is h
    for mod in (ember, torch):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            mod.nn.Dropout(1.5)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            mod.nn.functional.dropout(mod.ones(2), -0.1)
    assert repr(nn.Dropout(0.2, inplace=True)) == "Dropout(p=0.2, inplace=True)"


# ---- batch norm --------------------------------------------------------------------------
BNS = [
    ("BatchNorm1d", (8, 3), {}), ("BatchNorm1d", (6, 3, 5), {}),
    ("BatchNorm2d", (4, 3, 5, 6), {}), ("BatchNorm2d", (4, 3, 2, 2), {"momentum": None}),
    ("BatchNorm2d", (4, 3, 5, 6), {"affine": False}),
    ("BatchNorm2d", (4, 3, 5, 6), {"track_running_stats": False}),
    ("BatchNorm1d", (8, 3), {"eps": 1e-3, "momentum": 0.5, "bias": False}),
]


@pytest.mark.parametrize("cls,shape,kw", BNS, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batchnorm_train_eval_and_running_stats(cls, shape, kw, dtype):
    def build(m):
        bn = getattr(m.nn, cls)(shape[1], **kw)
        if bn.affine and m is torch:  # copied into ember by build_pair
            with torch.no_grad():
                bn.weight.copy_(torch.linspace(0.5, 1.5, shape[1]))
        return bn
    e, t = run_pair(build, [shape], dtype, train=True)
    for seed in range(1, 4):  # more training steps: running stats must follow torch's
        es, ts = make_inputs([shape], dtype, seed=seed)
        assert_same(e(es[0]), t(ts[0]), RTOL, ATOL)
    for (k, ev), (k2, tv) in zip(e.state_dict().items(), t.state_dict().items()):
        assert k == k2
        assert_same(ev, tv, RTOL, ATOL)
    if t.track_running_stats:
        assert e.num_batches_tracked.item() == t.num_batches_tracked.item() == 4
    e.eval()
    t.eval()
    es, ts = make_inputs([shape], dtype, seed=9)
    assert_same(e(es[0]), t(ts[0]), RTOL, ATOL)
    run_pair(build, [shape], dtype, train=False)


def test_batchnorm_optimizer_steps():
    step_pair(lambda m: m.nn.Sequential(m.nn.Conv2d(2, 3, 3), m.nn.BatchNorm2d(3), m.nn.ReLU(),
                                        m.nn.Flatten(), m.nn.Linear(12, 4), m.nn.BatchNorm1d(4)),
              (5, 2, 4, 4), "SGD", steps=4, lr=0.1, momentum=0.9)


@pytest.mark.parametrize("mod", [ember, torch])
def test_batchnorm_bad_inputs(mod):
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        mod.nn.BatchNorm1d(3)(mod.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        mod.nn.BatchNorm2d(3)(mod.ones(2, 3, 4))
    bn = mod.nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(mod.ones(1, 3))
    assert bn.num_batches_tracked.item() == (0 if mod is ember else 1)  # ember checks first
    bn.eval()(mod.ones(1, 3))  # fine in eval mode
    with pytest.raises((ValueError, RuntimeError)):
        mod.nn.BatchNorm1d(3)(mod.ones(4, 5))  # wrong channel count


# ---- layer norm and embedding --------------------------------------------------------------
@pytest.mark.parametrize("kw,shape", [({"normalized_shape": 5}, (3, 5)),
                                      ({"normalized_shape": (4, 5)}, (2, 3, 4, 5)),
                                      ({"normalized_shape": [5], "elementwise_affine": False}, (2, 5)),
                                      ({"normalized_shape": 5, "bias": False, "eps": 1e-3}, (4, 5))],
                         ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layernorm(kw, shape, dtype):
    def build(m):
        ln = m.nn.LayerNorm(**kw)
        if ln.weight is not None and m is torch:  # copied into ember by build_pair
            with torch.no_grad():
                ln.weight.copy_(torch.linspace(0.5, 1.5, ln.weight.numel()).reshape(ln.weight.shape))
        return ln
    run_pair(build, [shape], dtype)
    if kw.get("elementwise_affine", True):
        step_pair(build, shape, "Adam", lr=0.05)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"sparse": True}],
                         ids=str)
def test_embedding(kw):
    build = lambda m: m.nn.Embedding(10, 4, **kw)  # noqa: E731
    e, t = run_pair(build, [(3, 5)], ints={0: (0, 10)})
    if "padding_idx" in kw:
        assert not e.weight.grad.numpy()[kw["padding_idx"]].any()
    step_pair(build, (3, 5), "SGD", ints=(0, 10), lr=0.5)


def test_embedding_max_norm_and_from_pretrained():
    build = lambda m: m.nn.Embedding(10, 4, max_norm=1.0)  # noqa: E731
    e, t = run_pair(build, [(6,)], ints={0: (0, 10)})
    assert_same(e.weight, t.weight)  # the renormed rows, written in place
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    e = nn.Embedding.from_pretrained(ember.from_numpy(w.copy()))
    t = torch.nn.Embedding.from_pretrained(torch.from_numpy(w.copy()))
    assert not e.weight.requires_grad and repr(e) == repr(t)
    idx = np.array([[0, 3], [2, 2]])
    assert_same(e(ember.from_numpy(idx)), t(torch.from_numpy(idx)))
    assert nn.Embedding.from_pretrained(ember.ones(2, 2), freeze=False).weight.requires_grad
    for mod in (ember, torch):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            mod.nn.Embedding(3, 2, padding_idx=3)
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            mod.nn.Embedding(3, 2, padding_idx=-4)
        with pytest.raises((IndexError, RuntimeError)):
            mod.nn.Embedding(3, 2)(mod.tensor([3]))


# ---- losses ------------------------------------------------------------------------------
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("cls", ["MSELoss", "L1Loss"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_regression_losses(cls, reduction, dtype):
    run_pair(lambda m: getattr(m.nn, cls)(reduction=reduction), [(4, 5), (4, 5)], dtype)
    run_pair(lambda m: getattr(m.nn, cls)(reduction=reduction), [(), ()], dtype)


def _weight(m, n):
    return m.from_numpy(np.linspace(0.5, 2.0, n).astype(np.float32))


CE_CASES = [
    ({}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"reduction": "sum"}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"reduction": "none"}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"weight": True}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"ignore_index": 1}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"ignore_index": 2, "weight": True, "reduction": "none"}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"label_smoothing": 0.1}, [(6, 4), (6,)], {1: (0, 4)}),
    ({"label_smoothing": 0.2, "weight": True}, [(6, 4), (6,)], {1: (0, 4)}),
    ({}, [(2, 4, 3, 5), (2, 3, 5)], {1: (0, 4)}),
    ({"reduction": "none", "weight": True}, [(2, 4, 3), (2, 3)], {1: (0, 4)}),
    ({}, [(4,), ()], {1: (0, 4)}),
    ({}, [(6, 4), (6, 4)], {}),  # class probabilities
    ({"label_smoothing": 0.3, "reduction": "sum"}, [(6, 4), (6, 4)], {}),
]


@pytest.mark.parametrize("kw,shapes,ints", CE_CASES, ids=str)
def test_cross_entropy_loss(kw, shapes, ints):
    kw = dict(kw)
    weighted = kw.pop("weight", False)
    classes = shapes[0][0] if len(shapes[0]) == 1 else shapes[0][1]

    def build(m):
        return m.nn.CrossEntropyLoss(weight=_weight(m, classes) if weighted else None, **kw)
    run_pair(build, shapes, ints=ints)


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"weight": True},
                                {"ignore_index": 0}, {"weight": True, "ignore_index": 3}], ids=str)
def test_nll_loss(kw):
    kw = dict(kw)
    w = kw.pop("weight", False)

    def build(m):
        inner = m.nn.NLLLoss(weight=_weight(m, 4) if w else None, **kw)

        class LogSoftmaxThenNLL(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = inner

            def forward(self, x, t):
                return self.loss(m.log_softmax(x, 1), t)
        return LogSoftmaxThenNLL()
    run_pair(build, [(6, 4), (6,)], ints={1: (0, 4)})
    run_pair(build, [(2, 4, 3), (2, 3)], ints={1: (0, 4)})


def _check_bce(build, x, y):
    """build(lib), a loss of logits x and probabilities y, in both libraries: the loss and the
    gradient of x (of its sum). Returns the (ember, torch) modules."""
    e, t = build_pair(build)
    ex, tx = ember.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    el, tl = e(ex, ember.from_numpy(y.copy())), t(tx, torch.from_numpy(y.copy()))
    assert_same(el, tl, RTOL, ATOL)
    el.sum().backward()
    tl.sum().backward()
    assert_same(ex.grad, tx.grad, RTOL, ATOL)
    return e, t


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_loss(reduction, weighted):
    def build(m):
        w = m.from_numpy(np.linspace(0.5, 1.5, 5).astype(np.float32)) if weighted else None

        class SigmoidThenBCE(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = m.nn.BCELoss(weight=w, reduction=reduction)

            def forward(self, x, t):
                return self.loss(m.sigmoid(x), t)
        return SigmoidThenBCE()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    _check_bce(build, x, rng.random((4, 5)).astype(np.float32))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight,pos_weight", [(False, False), (True, False), (False, True),
                                               (True, True)])
def test_bce_with_logits_loss(reduction, weight, pos_weight):
    def build(m):
        w = m.from_numpy(np.linspace(0.5, 1.5, 5).astype(np.float32)) if weight else None
        pw = m.from_numpy(np.linspace(2.0, 0.5, 5).astype(np.float32)) if pos_weight else None
        return m.nn.BCEWithLogitsLoss(weight=w, reduction=reduction, pos_weight=pw)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((4, 5)) * 4).astype(np.float32)
    e, t = _check_bce(build, x, rng.random((4, 5)).astype(np.float32))
    assert list(e.state_dict()) == list(t.state_dict())


def test_loss_legacy_arguments_and_errors():
    for mod in (ember, torch):
        with pytest.warns(UserWarning, match="reduction='sum'"):
            loss = mod.nn.MSELoss(size_average=False)
        assert loss.reduction == "sum"
        with pytest.warns(UserWarning, match="reduction='none'"):
            assert mod.nn.L1Loss(reduce=False).reduction == "none"
        with pytest.raises(ValueError, match="must be the same as input size"):
            mod.nn.BCEWithLogitsLoss()(mod.ones(3), mod.ones(3, 1))
        with pytest.raises(ValueError, match="different to the input size"):
            mod.nn.BCELoss()(mod.ones(3) * 0.5, mod.ones(3, 1))
        with pytest.raises((ValueError, RuntimeError)):
            mod.nn.MSELoss(reduction="avg")(mod.ones(3), mod.ones(3))
        with pytest.raises((IndexError, RuntimeError)):
            mod.nn.CrossEntropyLoss()(mod.ones(2, 3), mod.tensor([0, 3]))
    with pytest.warns(UserWarning, match="target size"):
        nn.MSELoss()(ember.ones(3, 1), ember.ones(3))


# ---- functional extras -----------------------------------------------------------------------
def test_functional_extras_match_torch():
    F, TF = nn.functional, torch.nn.functional
    idx = np.array([[0, 2], [3, 1]])
    assert_same(F.one_hot(ember.from_numpy(idx)), TF.one_hot(torch.from_numpy(idx)))
    assert_same(F.one_hot(ember.from_numpy(idx), 6), TF.one_hot(torch.from_numpy(idx), 6))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(ember.from_numpy(idx), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(ember.tensor([-1]))
    es, ts = make_inputs([(3, 4), (5, 4), (5,)], "float32")
    assert_same(F.linear(*es), TF.linear(*ts), RTOL, ATOL)
    assert_same(F.normalize(es[0]), TF.normalize(ts[0]), RTOL, ATOL)
    assert_same(F.normalize(es[0], p=1, dim=0), TF.normalize(ts[0], p=1, dim=0), RTOL, ATOL)
    assert_same(F.softmax(es[0], dim=0, dtype=ember.float64),
                TF.softmax(ts[0], dim=0, dtype=torch.float64))
    assert_same(F.log_softmax(es[0], 1), TF.log_softmax(ts[0], 1))
    assert_same(F.relu(es[0]), TF.relu(ts[0]))
    w = np.array([[1.0, 2.0, 0.5, 1.0]] * 3, dtype=np.float32)
    assert_same(F.mse_loss(es[0], es[0] * 0, weight=ember.from_numpy(w)),
                TF.mse_loss(ts[0], ts[0] * 0, weight=torch.from_numpy(w)), RTOL, ATOL)
    assert_same(F.l1_loss(es[0], es[0] * 0, weight=ember.from_numpy(w), reduction="sum"),
                TF.l1_loss(ts[0], ts[0] * 0, weight=torch.from_numpy(w), reduction="sum"),
                RTOL, ATOL)
    assert_same(F.gelu(es[0], approximate="tanh"), TF.gelu(ts[0], approximate="tanh"))
    assert_same(F.max_pool2d(es[0][None, None], 2), TF.max_pool2d(ts[0][None, None], 2))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    e_mean, e_var = ember.zeros(3), ember.ones(3)
    t_mean, t_var = torch.zeros(3), torch.ones(3)
    assert_same(F.batch_norm(ember.from_numpy(x), e_mean, e_var, training=True),
                TF.batch_norm(torch.from_numpy(x), t_mean, t_var, training=True), RTOL, ATOL)
    assert_same(e_var, t_var, RTOL, ATOL)
    assert_same(F.layer_norm(ember.from_numpy(x), 3), TF.layer_norm(torch.from_numpy(x), (3,)),
                RTOL, ATOL)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(ember.ones(1, 3), None, None, training=True)
