"""Losses (ember._C.cross_entropy, nll_loss, mse_loss, l1_loss, binary_cross_entropy,
binary_cross_entropy_with_logits): forward and gradients against torch.nn.functional,
finite-difference gradchecks, double backward, and bad-input errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from helpers import _leaf, assert_same, make_inputs, on_thread_counts, to_numpy

REDUCTIONS = ["mean", "sum", "none"]
DTYPES = ["float32", "float64"]
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]
NP = {"float32": np.float32, "float64": np.float64}


def F(m):
    """The functional namespace of a library: torch.nn.functional or ember._C."""
    return ember._C if m is ember else TF


def both(arr, requires_grad=False):
    """The same array as an ember and a torch tensor (leaves)."""
    e = ember.from_numpy(np.array(arr, copy=True))
    t = torch.from_numpy(np.array(arr, copy=True))
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def compare_loss(name, x_shape, target, dtype="float32", layout="contiguous", target_grad=False,
                 rtol=1e-5, atol=1e-6, grad_rtol=1e-5, grad_atol=1e-6, seed=0, low=-3.0, high=3.0,
                 torch_contiguous=False, **kwargs):
    """Runs loss `name` on the same input (of x_shape, dtype, layout) and `target` (a NumPy
    array) in both libraries; compares the loss and the gradients of the input (and of the
    target when target_grad), seeded with the same random outer gradient. NumPy arrays in
    kwargs become tensors in both libraries. torch_contiguous: torch gets a contiguous copy
    of the input (for torch ops that refuse non-contiguous inputs)."""
    es, ts = make_inputs([x_shape], dtype, layout, seed, low, high)
    xe, xt = _leaf(es[0], True), _leaf(ts[0].contiguous() if torch_contiguous else ts[0], True)
    te, tt = both(target, requires_grad=target_grad)
    ke = {k: ember.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    kt = {k: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns when mse/l1 broadcast
        lt = getattr(TF, name)(xt, tt, **kt)
    le = getattr(ember._C, name)(xe, te, **ke)
    assert_same(le, lt, rtol, atol)
    g = np.random.default_rng(seed + 7).uniform(-1, 1, tuple(lt.shape)).astype(NP[dtype])
    lt.backward(torch.from_numpy(g.copy()))
    le.backward(ember.from_numpy(g.copy()))
    assert xe.grad is not None, f"{name}: no gradient for the input"
    assert_same(xe.grad, xt.grad, grad_rtol, grad_atol)
    if target_grad:
        assert te.grad is not None, f"{name}: no gradient for the target"
        assert_same(te.grad, tt.grad, grad_rtol, grad_atol)
    return le


def class_targets(shape, classes, seed=0, ignore=None):
    """Random class indices of `shape`; every third one set to `ignore` when given."""
    rng = np.random.default_rng(seed + 3)
    t = rng.integers(0, classes, size=shape).astype(np.int64)
    if ignore is not None and t.size:
        t.reshape(-1)[::3] = ignore
    return t


def loss_shape(x_shape):
    return () if len(x_shape) == 1 else (x_shape[0],) + tuple(x_shape[2:])


def rand_weight(classes, dtype, seed=0):
    return np.random.default_rng(seed + 5).uniform(0.2, 2.0, classes).astype(NP[dtype])


def probs(shape, dtype, seed=0):
    """Random class probabilities along dim 1 (dim 0 of a 1-d shape)."""
    cdim = 0 if len(shape) == 1 else 1
    a = np.random.default_rng(seed + 11).uniform(0.0, 1.0, shape)
    return (a / a.sum(axis=cdim, keepdims=True)).astype(NP[dtype])


# ---- cross entropy and nll with class indices ---------------------------------------------

CLASS_SHAPES = [(5,), (6, 4), (3, 4, 2, 3), (2, 5, 7)]
CLASS_OPTIONS = {
    "plain": {},
    "weight": {"weight": True},
    "ignore": {"ignore_index": 1},
    "ignore_default": {"ignore": -100},
    "smoothing": {"label_smoothing": 0.1},
    "all": {"weight": True, "ignore_index": 2, "label_smoothing": 0.1},
}


def class_case(x_shape, dtype, option, seed=0):
    """(target array, kwargs) for one CLASS_OPTIONS entry."""
    opts = dict(CLASS_OPTIONS[option])
    classes = x_shape[0] if len(x_shape) == 1 else x_shape[1]
    ignore = opts.pop("ignore", None)
    if "ignore_index" in opts:
        ignore = opts["ignore_index"]
    elif ignore is not None:
        opts["ignore_index"] = ignore
    target = class_targets(loss_shape(x_shape), classes, seed, ignore)
    if len(x_shape) == 1 and ignore is not None:
        target = np.array(1 if ignore != 1 else 0, dtype=np.int64)
    if opts.pop("weight", False):
        opts["weight"] = rand_weight(classes, dtype, seed)
    return target, opts


@pytest.mark.parametrize("x_shape", CLASS_SHAPES, ids=str)
@pytest.mark.parametrize("option", sorted(CLASS_OPTIONS))
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_matches_torch(x_shape, option, reduction, dtype):
    target, kw = class_case(x_shape, dtype, option)
    compare_loss("cross_entropy", x_shape, target, dtype, reduction=reduction, **kw)


@pytest.mark.parametrize("x_shape", CLASS_SHAPES, ids=str)
@pytest.mark.parametrize("option", ["plain", "weight", "ignore", "ignore_default"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_nll_loss_matches_torch(x_shape, option, reduction, dtype):
    target, kw = class_case(x_shape, dtype, option)
    compare_loss("nll_loss", x_shape, target, dtype, reduction=reduction, **kw)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("x_shape", [(6, 4), (3, 4, 2, 3)], ids=str)
def test_class_losses_non_contiguous(layout, name, x_shape):
    target, kw = class_case(x_shape, "float32", "weight")
    # torch's nll_loss2d backward raises "grad_input must be contiguous" on such inputs
    torch_contiguous = name == "nll_loss" and len(x_shape) == 4
    for reduction in REDUCTIONS:
        compare_loss(name, x_shape, target, "float32", layout, reduction=reduction,
                     torch_contiguous=torch_contiguous, **kw)


@pytest.mark.parametrize("x_shape", [(700, 10), (3000, 5), (64, 100), (40, 1000), (3, 300, 4, 5),
                                     (2, 7, 40, 33), (1, 3, 5000)], ids=str)
@pytest.mark.parametrize("option", ["plain", "all"])
def test_cross_entropy_large(x_shape, option):
    """Every kernel path: tiles of positions for few classes ((N, C) and (N, C, d)), rows for
    many classes, strided positions for many classes with trailing dims, several blocks."""
    target, kw = class_case(x_shape, "float32", option)
    for reduction in ["mean", "none"]:
        compare_loss("cross_entropy", x_shape, target, "float32", reduction=reduction,
                     rtol=1e-4, atol=1e-5, **kw)


def test_cross_entropy_one_d_input_targets():
    for reduction in REDUCTIONS:
        for name in ["cross_entropy", "nll_loss"]:
            le = compare_loss(name, (5,), np.array(3), reduction=reduction)
            assert tuple(le.shape) == ()
            # a target of shape (1,) is accepted too (torch's backward refuses it: forward only)
            x = np.random.default_rng(0).standard_normal(5).astype(np.float32)
            le = getattr(ember._C, name)(ember.from_numpy(x), ember.from_numpy(np.array([3])), reduction=reduction)
            lt = getattr(TF, name)(torch.from_numpy(x), torch.from_numpy(np.array([3])), reduction=reduction)
            assert_same(le, lt)


def test_cross_entropy_uint8_targets():
    target = class_targets((6,), 4).astype(np.uint8)
    compare_loss("cross_entropy", (6, 4), target)
    compare_loss("nll_loss", (6, 4), target, reduction="none")


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_class_losses_empty_batch(name, reduction):
    for x_shape in [(0, 4), (0, 4, 3), (2, 4, 0)]:
        kw = {"label_smoothing": 0.1} if name == "cross_entropy" else {}
        le = compare_loss(name, x_shape, class_targets(loss_shape(x_shape), 4), reduction=reduction, **kw)
        if reduction == "mean":
            assert np.isnan(le.item())


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("weighted", [False, True])
def test_class_losses_all_ignored(name, weighted):
    target = np.full((4,), -100, dtype=np.int64)
    kw = {"weight": rand_weight(3, "float32")} if weighted else {}
    for reduction in REDUCTIONS:
        le = compare_loss(name, (4, 3), target, reduction=reduction, **kw)
        if reduction == "mean":
            assert np.isnan(le.item())
    if name == "cross_entropy":
        compare_loss(name, (4, 3), target, label_smoothing=0.2, **kw)


def test_cross_entropy_extreme_logits():
    """Stable for huge logits; -inf logits of other classes give exact zeros."""
    x = np.array([[1000.0, -1000.0, 0.0], [-1e4, 1e4, 3.0], [0.0, -np.inf, 1.0]], dtype=np.float32)
    t = np.array([0, 0, 2])
    for reduction in REDUCTIONS:
        xe, xt = both(x, True)
        le = ember._C.cross_entropy(xe, ember.from_numpy(t), reduction=reduction)
        lt = TF.cross_entropy(xt, torch.from_numpy(t), reduction=reduction)
        assert_same(le, lt)
        le.sum().backward()
        lt.sum().backward()
        assert_same(xe.grad, xt.grad)


def test_cross_entropy_deterministic_across_threads():
    rng = np.random.default_rng(0)
    x = ember.from_numpy(rng.standard_normal((20000, 10)).astype(np.float32))
    t = ember.from_numpy(rng.integers(0, 10, 20000))
    results = on_thread_counts(lambda: (ember._C.cross_entropy(x, t).item(),
                                        ember._C.mse_loss(x, x * 0.5).item()))
    assert results[0] == results[1]


def test_cross_entropy_grad_fn_and_no_grad():
    x = ember.randn(4, 3, requires_grad=True)
    t = ember.from_numpy(np.array([0, 1, 2, 1]))
    assert ember._C.cross_entropy(x, t).grad_fn is not None
    with ember.no_grad():
        assert ember._C.cross_entropy(x, t).grad_fn is None


# ---- cross entropy with class probabilities -------------------------------------------------

@pytest.mark.parametrize("x_shape", [(5,), (6, 4), (3, 4, 2, 3), (40, 300)], ids=str)
@pytest.mark.parametrize("option", ["plain", "weight", "smoothing", "all"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_probabilities(x_shape, option, reduction, dtype):
    classes = x_shape[0] if len(x_shape) == 1 else x_shape[1]
    kw = {}
    if option in ("weight", "all"):
        kw["weight"] = rand_weight(classes, dtype)
    if option in ("smoothing", "all"):
        kw["label_smoothing"] = 0.1
    compare_loss("cross_entropy", x_shape, probs(x_shape, dtype), dtype, target_grad=True,
                 reduction=reduction, rtol=1e-5, atol=1e-5, **kw)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cross_entropy_probabilities_non_contiguous(layout):
    compare_loss("cross_entropy", (6, 4), probs((6, 4), "float32"), "float32", layout,
                 target_grad=True, weight=rand_weight(4, "float32"))


def test_cross_entropy_probabilities_mixed_dtypes_and_empty():
    le = compare_loss("cross_entropy", (3, 4), probs((3, 4), "float64"), "float32", target_grad=True)
    assert le.dtype == ember.float64
    for reduction in REDUCTIONS:
        compare_loss("cross_entropy", (0, 4), np.zeros((0, 4), np.float32), target_grad=True,
                     reduction=reduction)


def test_cross_entropy_probabilities_weight_grad():
    x = np.random.default_rng(0).standard_normal((5, 3))
    y = probs((5, 3), "float64")
    w = rand_weight(3, "float64")
    xe, xt = both(x, True)
    we, wt = both(w, True)
    le = ember._C.cross_entropy(xe, ember.from_numpy(y), weight=we, label_smoothing=0.2)
    lt = TF.cross_entropy(xt, torch.from_numpy(y), weight=wt, label_smoothing=0.2)
    assert_same(le, lt)
    le.backward()
    lt.backward()
    assert_same(we.grad, wt.grad)
    assert_same(xe.grad, xt.grad)


# ---- mse and l1 --------------------------------------------------------------------------------

POINT_SHAPES = [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4)),
                ((3, 4), (4,)), ((3, 1), (1, 4)), ((4,), (2, 4)), ((0, 3), (0, 3)), ((0, 3), (3,))]


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("shapes", POINT_SHAPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_mse_l1_match_torch(name, shapes, reduction, dtype):
    x_shape, t_shape = shapes
    target = np.random.default_rng(1).uniform(-3, 3, t_shape).astype(NP[dtype])
    compare_loss(name, x_shape, target, dtype, target_grad=True, reduction=reduction)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mse_l1_non_contiguous(name, layout):
    target = np.random.default_rng(1).uniform(-3, 3, (5, 6)).astype(np.float32)
    for reduction in REDUCTIONS:
        compare_loss(name, (5, 6), target, "float32", layout, target_grad=True, reduction=reduction)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_mse_l1_large_and_mixed_dtypes(name):
    target = np.random.default_rng(1).uniform(-3, 3, (300, 400)).astype(np.float32)
    compare_loss(name, (300, 400), target, target_grad=True, rtol=1e-4)
    le = compare_loss(name, (3, 4), target[:3, :4].astype(np.float64), "float32", target_grad=True)
    assert le.dtype == ember.float64
    le = compare_loss(name, (3, 4), np.arange(12).reshape(3, 4), "float32")  # int target
    assert le.dtype == ember.float32


def test_l1_gradient_where_equal():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    compare_loss("l1_loss", (3,), np.array([1.0, 0.0, 3.0], np.float32), target_grad=True)
    xe = ember.from_numpy(x).requires_grad_(True)
    ember._C.l1_loss(xe, ember.from_numpy(x.copy()), reduction="sum").backward()
    assert xe.grad.tolist() == [0.0, 0.0, 0.0]


# ---- binary cross entropy ----------------------------------------------------------------------

def unit(shape, dtype, seed, low=0.02, high=0.98):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(NP[dtype])


BCE_SHAPES = [(), (7,), (4, 3), (2, 3, 4), (0, 3)]


@pytest.mark.parametrize("x_shape", BCE_SHAPES, ids=str)
@pytest.mark.parametrize("weighted", ["none", "full", "broadcast"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy_matches_torch(x_shape, weighted, reduction, dtype):
    kw = {}
    if weighted == "full":
        kw["weight"] = unit(x_shape, dtype, 5, 0.1, 2.0)
    elif weighted == "broadcast" and len(x_shape) >= 1:
        kw["weight"] = unit(x_shape[-1:], dtype, 5, 0.1, 2.0)
    compare_loss("binary_cross_entropy", x_shape, unit(x_shape, dtype, 2, 0.0, 1.0), dtype,
                 target_grad=True, reduction=reduction, low=0.02, high=0.98, **kw)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_binary_cross_entropy_non_contiguous(layout):
    compare_loss("binary_cross_entropy", (4, 5), unit((4, 5), "float32", 2), "float32", layout,
                 target_grad=True, low=0.02, high=0.98, weight=unit((5,), "float32", 3))


def test_binary_cross_entropy_at_zero_and_one():
    """log is clamped at -100 and the gradient's denominator at 1e-12, as in PyTorch."""
    x = np.array([0.0, 1.0, 0.5, 0.0, 1.0], dtype=np.float32)
    y = np.array([1.0, 0.0, 0.5, 0.0, 1.0], dtype=np.float32)
    for reduction in REDUCTIONS:
        xe, xt = both(x, True)
        ye, yt = both(y, True)
        le = ember._C.binary_cross_entropy(xe, ye, reduction=reduction)
        lt = TF.binary_cross_entropy(xt, yt, reduction=reduction)
        assert_same(le, lt)
        le.sum().backward()
        lt.sum().backward()
        assert_same(xe.grad, xt.grad)
        assert_same(ye.grad, yt.grad)


@pytest.mark.parametrize("x_shape", BCE_SHAPES, ids=str)
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_bce_with_logits_matches_torch(x_shape, weights, reduction, dtype):
    kw = {}
    if weights in ("weight", "both"):
        kw["weight"] = unit(x_shape, dtype, 5, 0.1, 2.0)
    if weights in ("pos_weight", "both") and len(x_shape) >= 1:
        kw["pos_weight"] = unit(x_shape[-1:], dtype, 6, 0.1, 3.0)
    compare_loss("binary_cross_entropy_with_logits", x_shape, unit(x_shape, dtype, 2, 0.0, 1.0),
                 dtype, target_grad=True, reduction=reduction, low=-5, high=5, **kw)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bce_with_logits_non_contiguous(layout):
    compare_loss("binary_cross_entropy_with_logits", (4, 5), unit((4, 5), "float32", 2), "float32",
                 layout, target_grad=True, weight=unit((4, 1), "float32", 3),
                 pos_weight=unit((5,), "float32", 4, 0.5, 2))


def test_bce_with_logits_stable_and_mixed_dtypes():
    x = np.array([-1000.0, 1000.0, 0.0, -30.0, 30.0], dtype=np.float32)
    y = np.array([1.0, 0.0, 0.5, 0.0, 1.0], dtype=np.float32)
    for kw in ({}, {"pos_weight": np.array([2.0], np.float32)}):
        for reduction in REDUCTIONS:
            compare_loss("binary_cross_entropy_with_logits", (5,), y, target_grad=True,
                         reduction=reduction, **kw)
        xe, xt = both(x, True)
        ke = {k: ember.from_numpy(v) for k, v in kw.items()}
        kt = {k: torch.from_numpy(v) for k, v in kw.items()}
        le = ember._C.binary_cross_entropy_with_logits(xe, ember.from_numpy(y), reduction="none", **ke)
        lt = TF.binary_cross_entropy_with_logits(xt, torch.from_numpy(y), reduction="none", **kt)
        assert_same(le, lt)
        assert np.all(np.isfinite(to_numpy(le)))
        le.sum().backward()
        lt.sum().backward()
        assert_same(xe.grad, xt.grad)
    le = compare_loss("binary_cross_entropy_with_logits", (3,), y[:3].astype(np.float64), target_grad=True)
    assert le.dtype == ember.float64


# ---- finite differences and double backward ------------------------------------------------------

def gradcheck(fn, *arrays):
    xs = [ember.from_numpy(np.array(a, dtype=np.float64)).requires_grad_(True) for a in arrays]
    assert ember.autograd.gradcheck(fn, xs, eps=1e-6, atol=1e-5, rtol=1e-3)


GRADCHECKS = {
    "ce": lambda x, r: ember._C.cross_entropy(x, ember.from_numpy(np.array([0, 2, 1, 2])), reduction=r),
    "ce_all": lambda x, r: ember._C.cross_entropy(
        x, ember.from_numpy(np.array([0, 2, 1, 2])), weight=ember.tensor([0.5, 1.0, 2.0], dtype=ember.float64),
        ignore_index=1, label_smoothing=0.2, reduction=r),
    "ce_4d": lambda x, r: ember._C.cross_entropy(x.reshape(2, 3, 2, 1), ember.from_numpy(
        np.array([[[0], [2]], [[1], [1]]])), label_smoothing=0.1, reduction=r),
    "nll": lambda x, r: ember._C.nll_loss(x, ember.from_numpy(np.array([0, 2, 1, 2])),
                                          weight=ember.tensor([0.5, 1.0, 2.0], dtype=ember.float64), reduction=r),
    "ce_probs": lambda x, r: ember._C.cross_entropy(x, ember.from_numpy(probs((4, 3), "float64")), label_smoothing=0.1,
                                                    weight=ember.tensor([0.5, 1.0, 2.0], dtype=ember.float64), reduction=r),
    "mse": lambda x, r: ember._C.mse_loss(x, ember.ones(3, dtype=ember.float64) * 0.3, reduction=r),
    "l1": lambda x, r: ember._C.l1_loss(x, ember.ones(3, dtype=ember.float64) * 0.3, reduction=r),
    "bce": lambda x, r: ember._C.binary_cross_entropy(ember.sigmoid(x), ember.full((4, 3), 0.3, dtype=ember.float64),
                                                      weight=ember.ones(3, dtype=ember.float64) * 2, reduction=r),
    "bce_logits": lambda x, r: ember._C.binary_cross_entropy_with_logits(
        x, ember.full((4, 3), 0.3, dtype=ember.float64), weight=ember.ones(4, 1, dtype=ember.float64) * 0.5,
        pos_weight=ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64), reduction=r),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_losses_gradcheck(name, reduction):
    x = np.random.default_rng(0).uniform(-2, 2, (4, 3))
    gradcheck(lambda x: GRADCHECKS[name](x, reduction), x)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_pointwise_gradcheck_target(name):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.2, 0.8, (3, 4))
    y = rng.uniform(0.1, 0.9, (3, 4))
    gradcheck(lambda x, y: getattr(ember._C, name)(x, y), x, y)
    gradcheck(lambda x, y: ember._C.cross_entropy(x, y, label_smoothing=0.1), x, y)


def double_backward(m, name, x, y, kwargs):
    xs = m.tensor(x, requires_grad=True)
    ys = m.tensor(y) if y.dtype.kind == "i" else m.tensor(y, requires_grad=True)
    inp = m.log_softmax(xs, 0 if xs.dim() == 1 else 1) if name == "nll_loss" else xs
    loss = getattr(F(m), name)(inp, ys, **kwargs(m)).sum()
    (gx,) = (torch.autograd.grad if m is torch else ember.autograd.grad)(loss, [xs], create_graph=True)
    (gx * gx).sum().backward()
    return gx, xs.grad, ys.grad if ys.requires_grad else None


@pytest.mark.parametrize("name,y,kwargs", [
    ("cross_entropy", np.array([0, 2, 1, 2]), lambda m: {"label_smoothing": 0.2, "ignore_index": 1,
                                                         "weight": m.tensor([0.5, 1.0, 2.0], dtype=m.float64)}),
    ("cross_entropy", np.array([0, 2, 1, 2]), lambda m: {"reduction": "none"}),
    ("cross_entropy", np.full((4, 3), 1 / 3), lambda m: {"label_smoothing": 0.1}),
    ("nll_loss", np.array([0, 2, 1, 2]), lambda m: {"reduction": "sum"}),
    ("mse_loss", np.linspace(0, 1, 12).reshape(4, 3), lambda m: {}),
    ("l1_loss", np.linspace(0, 1, 12).reshape(4, 3), lambda m: {"reduction": "sum"}),
    ("binary_cross_entropy_with_logits", np.linspace(0, 1, 12).reshape(4, 3),
     lambda m: {"pos_weight": m.tensor([1.0, 2.0, 3.0], dtype=m.float64)}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_double_backward_matches_torch(name, y, kwargs):
    x = np.random.default_rng(0).uniform(-2, 2, (4, 3))
    for e, t in zip(double_backward(ember, name, x, y, kwargs), double_backward(torch, name, x, y, kwargs)):
        if t is not None and t._is_zerotensor():  # torch's symbolic zero (l1's second derivative)
            t = torch.zeros(t.shape, dtype=t.dtype)
        if t is None:
            assert e is None or not np.any(to_numpy(e))
        else:
            assert_same(e, t, 1e-6, 1e-9)


def test_bce_double_backward_matches_torch():
    x = np.random.default_rng(0).uniform(0.1, 0.9, (4, 3))
    y = np.linspace(0, 1, 12).reshape(4, 3)
    res = [double_backward(m, "binary_cross_entropy", x, y, lambda m: {}) for m in (ember, torch)]
    for e, t in zip(*res):
        assert_same(e, t, 1e-6, 1e-9)


# ---- bad input ------------------------------------------------------------------------------------

def raises_like_torch(call, exc, match=None):
    """call(m) raises `exc` in ember (naming the op) and raises in torch too."""
    with pytest.raises(Exception):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(torch)
    with pytest.raises(exc, match=match):
        call(ember)


def T(m, arr, **kw):
    return m.tensor(np.asarray(arr), **kw) if m is torch else m.from_numpy(np.array(arr))


X34 = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_class_target_out_of_range(name):
    for bad in (7, 4, -3):
        raises_like_torch(lambda m: getattr(F(m), name)(T(m, X34), T(m, [0, bad, 1])), IndexError,
                          rf"{name}: target {bad} is out of bounds for 4 classes")
    # out of range is reported even with label smoothing, weights and 'none'
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, [0, 9, 1]), reduction="none",
                                                   label_smoothing=0.1), IndexError, "9")
    raises_like_torch(lambda m: getattr(F(m), name)(T(m, X34[0]), T(m, 4)), IndexError, "4 classes")


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_class_target_shape_errors(name):
    fn = lambda m, x, t: getattr(F(m), name)(T(m, x), T(m, t))
    raises_like_torch(lambda m: fn(m, X34, [0, 1]), ValueError, rf"{name}: .*batch size \(3\)")
    raises_like_torch(lambda m: fn(m, X34, np.zeros((3, 2), np.int64)), RuntimeError, rf"{name}: expected target of shape \(3,\)")
    raises_like_torch(lambda m: fn(m, np.zeros((2, 4, 3), np.float32), np.zeros((2, 4), np.int64)),
                      RuntimeError, r"expected target of shape \(2, 3\)")
    raises_like_torch(lambda m: fn(m, X34[0], [1, 2]), ValueError, rf"{name}: .*\(C\)")
    raises_like_torch(lambda m: fn(m, np.float32(1.0), 0), ValueError, rf"{name}: .*0-d input")


def test_class_target_dtype_errors():
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, [0.0, 1.0, 2.0])), RuntimeError,
                      r"cross_entropy: expected a target of class indices \(int64 or uint8\), but got float")
    raises_like_torch(lambda m: F(m).nll_loss(T(m, X34), T(m, np.array([0, 1, 2], np.int32))), RuntimeError,
                      "nll_loss: .*got int32")
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, np.zeros((3, 4), np.int64))), RuntimeError,
                      "cross_entropy: expected a floating target for class probabilities")
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, np.zeros((3, 5), np.float32))), RuntimeError,
                      "cross_entropy: expected a target of class indices")
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, np.zeros((3, 4), np.int64)), T(m, [0, 1, 2])), TypeError,
                      "cross_entropy: expected a floating point input")
    raises_like_torch(lambda m: F(m).nll_loss(T(m, np.zeros((3, 4), np.int64)), T(m, [0, 1, 2])), TypeError,
                      "nll_loss: expected a floating point input")


def test_class_weight_errors():
    t = [0, 1, 2]
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, t), weight=T(m, np.ones(5, np.float32))),
                      RuntimeError, r"cross_entropy: weight should have one value per class \(4\)")
    raises_like_torch(lambda m: F(m).nll_loss(T(m, X34), T(m, t), weight=T(m, np.ones((1, 4), np.float32))),
                      RuntimeError, "nll_loss: weight should have one value per class")
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, t), weight=T(m, np.ones(4))), RuntimeError,
                      "cross_entropy: expected weight of dtype float32")
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, t), weight=m.ones(4, requires_grad=True)),
                      RuntimeError, "cross_entropy: .*not differentiable with respect to 'weight'")
    raises_like_torch(lambda m: F(m).cross_entropy(T(m, X34), T(m, X34), weight=T(m, np.ones(3, np.float32))),
                      RuntimeError, "cross_entropy: weight should have one value per class")


def test_label_smoothing_and_reduction_errors():
    t = [0, 1, 2]
    for target in (T(ember, t), T(ember, np.abs(X34))):
        with pytest.raises(RuntimeError, match="cross_entropy: label_smoothing must be between 0.0 and 1.0, but got 1.5"):
            ember._C.cross_entropy(T(ember, X34), target, label_smoothing=1.5)
    for name, args in [("cross_entropy", (X34, t)), ("nll_loss", (X34, t)), ("mse_loss", (X34, X34)),
                       ("l1_loss", (X34, X34)), ("binary_cross_entropy", (np.abs(X34) / 3, np.abs(X34) / 3)),
                       ("binary_cross_entropy_with_logits", (X34, X34))]:
        raises_like_torch(lambda m: getattr(F(m), name)(*[T(m, a) for a in args], reduction="avg"),
                          ValueError, f"{name}: 'avg' is not a valid value for reduction")


def test_pointwise_shape_and_dtype_errors():
    raises_like_torch(lambda m: F(m).mse_loss(T(m, X34), T(m, np.zeros(5, np.float32))), ValueError, "mse_loss")
    raises_like_torch(lambda m: F(m).l1_loss(T(m, X34), T(m, np.zeros((2, 4), np.float32))), ValueError, "l1_loss")
    raises_like_torch(lambda m: F(m).mse_loss(T(m, np.arange(4)), T(m, np.arange(4))), TypeError,
                      "mse_loss: expected floating point input and target, but got int64 and int64")
    x = np.full((3,), 0.5, np.float32)
    raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, np.ones((3, 1), np.float32))),
                      ValueError, r"binary_cross_entropy: expected a target of the input's shape \(3,\)")
    raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, np.ones(3, np.int64))), RuntimeError,
                      "binary_cross_entropy: expected a target of dtype float32")
    raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, np.ones(3))), RuntimeError,
                      "binary_cross_entropy: expected a target of dtype float32")
    raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, x), weight=T(m, np.ones(2, np.float32))),
                      ValueError, "binary_cross_entropy")
    raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, x), weight=T(m, np.ones((2, 3), np.float32))),
                      RuntimeError, r"binary_cross_entropy: weight of shape \(2, 3\) cannot be broadcast")
    raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, x), weight=m.ones(3, requires_grad=True)),
                      RuntimeError, "not differentiable with respect to 'weight'")
    raises_like_torch(lambda m: F(m).binary_cross_entropy_with_logits(T(m, x), T(m, np.ones(3, np.int64))),
                      RuntimeError, "binary_cross_entropy_with_logits: expected a floating point target")
    raises_like_torch(lambda m: F(m).binary_cross_entropy_with_logits(T(m, x), T(m, x[:2])), ValueError,
                      "binary_cross_entropy_with_logits: expected a target of the input's shape")
    raises_like_torch(lambda m: F(m).binary_cross_entropy_with_logits(
        T(m, x), T(m, x), pos_weight=T(m, np.ones((2, 3), np.float32))), RuntimeError, "pos_weight of shape")
    raises_like_torch(lambda m: F(m).binary_cross_entropy_with_logits(
        T(m, x), T(m, x), pos_weight=m.ones(3, requires_grad=True)), RuntimeError, "'pos_weight'")


def test_binary_cross_entropy_range_errors():
    for bad in (1.5, -0.1, float("nan")):
        x = np.array([0.5, bad, 0.2], np.float32)
        raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, x), T(m, np.full(3, 0.5, np.float32))),
                          RuntimeError, "binary_cross_entropy: all elements of input should be between 0 and 1")
        raises_like_torch(lambda m: F(m).binary_cross_entropy(T(m, np.full(3, 0.5, np.float32)), T(m, x)),
                          RuntimeError, "binary_cross_entropy: all elements of target should be between 0 and 1")


def test_errors_leave_inputs_untouched():
    x = ember.from_numpy(X34.copy()).requires_grad_(True)
    with pytest.raises(IndexError):
        ember._C.cross_entropy(x, ember.from_numpy(np.array([0, 9, 1])))
    assert x.grad is None and np.array_equal(x.detach().numpy(), X34)


def test_class_losses_strided_targets():
    """Targets may be views (sliced, transposed) like any other tensor."""
    base = class_targets((4, 6), 3)
    for name in ["cross_entropy", "nll_loss"]:
        te, tt = both(base)
        xe, xt = both(np.random.default_rng(0).standard_normal((6, 3, 2)).astype(np.float32), True)
        le = getattr(ember._C, name)(xe, te[:2].t(), reduction="none")  # target (6, 2), strided
        lt = getattr(TF, name)(xt, tt[:2].t(), reduction="none")
        assert_same(le, lt)
        le.sum().backward()
        lt.sum().backward()
        assert_same(xe.grad, xt.grad)


@pytest.mark.parametrize("x_shape,target", [((5,), np.array(2)), ((2, 3, 2, 2), np.array([[[0, 2], [1, 1]], [[2, 0], [-100, 1]]]))],
                         ids=["1d", "4d"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_double_backward_shapes(x_shape, target, reduction):
    x = np.random.default_rng(0).uniform(-2, 2, x_shape)
    kw = lambda m: {"label_smoothing": 0.1, "reduction": reduction}
    for name in ["cross_entropy", "nll_loss"]:
        kws = kw if name == "cross_entropy" else (lambda m: {"reduction": reduction})
        for e, t in zip(double_backward(ember, name, x, target, kws), double_backward(torch, name, x, target, kws)):
            if t is None:
                continue
            assert_same(e, t, 1e-6, 1e-9)


def test_cross_entropy_probabilities_double_backward_none():
    x = np.random.default_rng(0).uniform(-2, 2, (4, 3))
    y = probs((4, 3), "float64")
    kw = lambda m: {"reduction": "none", "weight": m.tensor([0.5, 1.0, 2.0], dtype=m.float64)}
    for e, t in zip(double_backward(ember, "cross_entropy", x, y, kw), double_backward(torch, "cross_entropy", x, y, kw)):
        assert_same(e, t, 1e-6, 1e-9)
