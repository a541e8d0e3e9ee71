"""The activations and losses composed in Python (ember/nn/_activations.py, _losses.py) and
their modules, against torch: values and gradients on random inputs (float32 / float64,
batched / unbatched / 0-d, non-contiguous), the values and gradients torch defines at the
kinks and for large |x|, second derivatives, finite-difference gradchecks, module repr and
state_dict, legacy size_average/reduce, and bad arguments."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_grad, gradcheck_op, make_inputs

SHAPES = [(3, 4), (5,), ()]
DTYPES = ("float32", "float64")
LAYOUTS = ("contiguous", "transposed")

# (name, kwargs): F.<name>(x, **kwargs) in both libraries
ACTIVATIONS = [
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 3.0}), ("elu", {}),
    ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 2.0}), ("mish", {}),
    ("hardswish", {}), ("hardsigmoid", {}), ("logsigmoid", {}), ("softsign", {}),
    ("tanhshrink", {}), ("hardshrink", {}), ("hardshrink", {"lambd": 1.5}), ("softshrink", {}),
    ("softshrink", {"lambd": 1.0}), ("threshold", {"threshold": 0.3, "value": -2.0}),
]
IDS = [f"{n}-{'-'.join(f'{k}{v}' for k, v in kw.items())}" for n, kw in ACTIVATIONS]


def _f(name, **kw):
    return lambda m, x: getattr(m.nn.functional, name)(x, **kw)


# ---- activations: random inputs ------------------------------------------------------------------
@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_activation_matches_torch(name, kw, shape):
    check_grad(_f(name, **kw), [shape], DTYPES, LAYOUTS if len(shape) == 2 else ("contiguous",),
               low=-5.0, high=5.0)


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=IDS)
def test_activation_gradcheck(name, kw):
    gradcheck_op(_f(name, **kw), [(2, 3)], low=-4.0, high=4.0)


def _values_and_grads(name, values, dtype, **kw):
    """F.<name> on the exact values, in both libraries: (ember out, grad), (torch out, grad)."""
    arr = np.array(values, dtype=dtype)
    out = []
    for m, x in ((ember, ember.from_numpy(arr.copy())), (torch, torch.from_numpy(arr.copy()))):
        x.requires_grad_(True)
        y = getattr(m.nn.functional, name)(x, **kw)
        y.sum().backward()
        out.append((y.detach(), x.grad))
    return out


# The kinks and branch boundaries of each function, as torch's kernels define them.
KINKS = [-100.0, -20.5, -20.0, -3.0, -1.5, -1.0, -0.5, -1e-7, 0.0, 1e-7, 0.5, 1.0, 1.5, 3.0,
         20.0, 20.5, 100.0]


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_activation_kinks_and_large_values(name, kw, dtype):
    """Values and gradients at 0, +-lambd, +-3, the softplus threshold and +-100 (rtol 1e-5).
    atol is the smallest normal float: near exp(-100) torch's vectorized exp gives a slightly
    different denormal than a correctly rounded one. tanhshrink's x - tanh(x) cancels to
    ~1e-14 near 0, where ember's tanh and torch's differ in the last bit."""
    (ey, eg), (ty, tg) = _values_and_grads(name, KINKS + [kw.get("threshold", 0.3)], dtype, **kw)
    assert_same(ey, ty, rtol=1e-5, atol=1e-13 if name == "tanhshrink" else 1.2e-38)
    assert_same(eg, tg, rtol=1e-5, atol=1.2e-38)
    assert np.isfinite(ey.numpy()).all() and np.isfinite(eg.numpy()).all()


def test_softplus_family_does_not_overflow():
    for dtype in DTYPES:
        for name in ("softplus", "logsigmoid", "mish"):
            (ey, eg), (ty, tg) = _values_and_grads(name, [-1000.0, -100.0, 100.0, 1000.0], dtype)
            assert np.isfinite(ey.numpy()).all() and np.isfinite(eg.numpy()).all(), name
            assert_same(ey, ty, rtol=1e-5, atol=1.2e-38)
        y = ember.nn.functional.logsigmoid(ember.tensor([-100.0, 100.0], dtype=ember.float64))
        np.testing.assert_allclose(y.numpy(), [-100.0, -math.exp(-100.0)], rtol=1e-5)


@pytest.mark.parametrize("name", ["softplus", "elu", "selu", "celu", "mish", "logsigmoid",
                                  "softsign", "tanhshrink", "hardswish"])
def test_activation_second_derivative(name):
    """d/dx of the gradient (create_graph=True): composites get double backward for free."""
    arr = np.linspace(-4.0, 4.0, 11) + 0.05  # away from the kinks
    grads = []
    for m in (ember, torch):
        x = m.from_numpy(arr.copy()).requires_grad_(True)
        (g,) = m.autograd.grad(getattr(m.nn.functional, name)(x).sum(), [x], create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), [x])
        grads.append((g.detach(), gg))
    assert_same(grads[0][0], grads[1][0], rtol=1e-6, atol=1e-9)
    assert_same(grads[0][1], grads[1][1], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name,kw", [("elu", {}), ("elu", {"alpha": 0.3}), ("selu", {}),
                                     ("celu", {"alpha": 0.7}), ("mish", {}), ("hardswish", {}),
                                     ("hardsigmoid", {}),
                                     ("threshold", {"threshold": 0.1, "value": 5.0})])
def test_activation_inplace(name, kw):
    """inplace=True writes into the input and returns it; gradients flow through a non-leaf;
    a leaf that requires grad is refused, as in torch."""
    def fn(m, x):
        y = x * 1.0  # a non-leaf, so that the in-place op is allowed
        z = getattr(m.nn.functional, name)(y, inplace=True, **kw)
        assert z is y
        return z
    check_grad(fn, [(4, 5)], DTYPES, low=-4.0, high=4.0)
    leaf = ember.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        getattr(ember.nn.functional, name)(leaf, inplace=True, **kw)


def test_trailing_underscore_variants():
    F = ember.nn.functional
    for fn, tfn, args in [(F.elu_, torch.nn.functional.elu_, (0.5,)),
                          (F.selu_, torch.selu_, ()), (F.celu_, torch.celu_, (2.0,)),
                          (F.threshold_, torch.nn.functional.threshold_, (0.2, -1.0))]:
        (e,), (t,) = make_inputs([(3, 4)], "float32")
        assert fn(e, *args) is e
        tfn(t, *args)
        assert_same(e, t)


def test_threshold_keeps_integer_dtype():
    e = ember.tensor([1, 2, 3])
    t = torch.tensor([1, 2, 3])
    assert_same(ember.nn.functional.threshold(e, 1, 7), torch.nn.functional.threshold(t, 1, 7))
    assert_same(ember.nn.functional.softsign(e), torch.nn.functional.softsign(t))


@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((6,), 0),
                                       ((0, 4), 1)])
def test_glu(shape, dim):
    check_grad(lambda m, x: m.nn.functional.glu(x, dim), [shape], DTYPES, low=-3.0, high=3.0)
    check_grad(lambda m, x: m.nn.GLU(dim)(x), [shape], ("float32",))


def test_glu_gradcheck_and_transposed():
    gradcheck_op(lambda m, x: m.nn.functional.glu(x, 0), [(4, 3)])
    check_grad(lambda m, x: m.nn.functional.glu(x, 0), [(4, 6)], DTYPES, ("transposed",))


# ---- PReLU ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("num,shape", [(1, (4, 3)), (3, (4, 3)), (3, (2, 3, 5)), (3, (2, 3, 4, 4)),
                                       (1, (5,)), (1, ()), (4, (2, 4, 0))])
@pytest.mark.parametrize("dtype", DTYPES)
def test_prelu_module(num, shape, dtype):
    def build(m):
        mod = m.nn.PReLU(num, init=0.1)
        mod.weight.data.copy_(m.from_numpy(np.linspace(-0.5, 0.7, num)))  # distinct slopes
        return mod.double() if dtype == "float64" else mod
    e_mod, t_mod = build(ember), build(torch)
    check_grad(lambda m, x: (e_mod if m is ember else t_mod)(x), [shape], (dtype,),
               low=-3.0, high=3.0)
    assert_same(e_mod.weight.grad, t_mod.weight.grad, rtol=1e-4, atol=1e-5)


def test_prelu_init_state_dict_repr():
    e, t = ember.nn.PReLU(), torch.nn.PReLU()
    assert repr(e) == repr(t) == "PReLU(num_parameters=1)"
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight"]
    e3, t3 = ember.nn.PReLU(3, init=-0.5), torch.nn.PReLU(3, init=-0.5)
    assert_same(e3.weight.detach(), t3.weight.detach())
    assert e3.num_parameters == 3 and e3.init == -0.5
    t3.weight.data.uniform_()
    e3.load_state_dict({"weight": ember.from_numpy(t3.weight.detach().numpy().copy())})
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    assert_same(e3(ember.from_numpy(x)), t3(torch.from_numpy(x)))
    assert ember.nn.PReLU(2, dtype=ember.float64).weight.dtype == ember.float64


def test_prelu_gradcheck():
    w = ember.tensor([0.2, -0.3, 0.4], dtype=ember.float64, requires_grad=True)
    x = ember.randn(2, 3, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(ember.nn.functional.prelu, [x, w])


# ---- activation modules --------------------------------------------------------------------------
MODULES = [
    ("Softplus", (), {}), ("Softplus", (2.0, 10.0), {}), ("ELU", (), {}),
    ("ELU", (0.5,), {"inplace": True}), ("SELU", (), {}), ("SELU", (True,), {}),
    ("CELU", (), {}), ("CELU", (2.0,), {}), ("Mish", (), {}), ("Mish", (), {"inplace": True}),
    ("Hardswish", (), {}), ("Hardswish", (True,), {}), ("Hardsigmoid", (), {}),
    ("LogSigmoid", (), {}), ("Softsign", (), {}), ("Tanhshrink", (), {}), ("Hardshrink", (), {}),
    ("Hardshrink", (1.0,), {}), ("Softshrink", (), {}), ("Softshrink", (0.25,), {}),
    ("Threshold", (0.1, 20.0), {}), ("Threshold", (0.1, 20.0, True), {}), ("GLU", (), {}),
    ("GLU", (0,), {}), ("PReLU", (), {}), ("PReLU", (4,), {}),
]


@pytest.mark.parametrize("cls,args,kw", MODULES, ids=[f"{c}{a}{k}" for c, a, k in MODULES])
def test_activation_module(cls, args, kw):
    e_mod, t_mod = getattr(ember.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    inplace = kw.get("inplace") or (args and args[-1] is True)
    fwd = (lambda m, x: (e_mod if m is ember else t_mod)(x * 1.0)) if inplace else \
        (lambda m, x: (e_mod if m is ember else t_mod)(x))
    check_grad(fwd, [(2, 4, 6)], DTYPES if cls != "PReLU" else ("float32",), low=-4.0, high=4.0)


# ---- losses --------------------------------------------------------------------------------------
REDUCTIONS = ["none", "mean", "sum"]


def _sign(m, t):
    return m.where(t > 0, 1.0, -1.0).to(t.dtype)


# name -> (shapes, fn(m, reduction, *inputs), requires): one call of each loss in a library m;
# targets are derived from random inputs inside fn (labels in {1, -1}, probabilities, ...).
LOSSES = {
    "smooth_l1": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.smooth_l1_loss(
        x, t, reduction=r), None),
    "smooth_l1_beta": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.smooth_l1_loss(
        x, t, reduction=r, beta=0.5), None),
    "smooth_l1_beta0": ([(6,), (6,)], lambda m, r, x, t: m.nn.functional.smooth_l1_loss(
        x, t, reduction=r, beta=0.0), None),
    "huber": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.huber_loss(
        x, t, reduction=r), None),
    "huber_delta": ([(3, 2, 4), (3, 2, 4)], lambda m, r, x, t: m.nn.functional.huber_loss(
        x, t, reduction=r, delta=2.5), None),
    "huber_weight": ([(4, 5), (4, 5), (4, 5)], lambda m, r, x, t, w: m.nn.functional.huber_loss(
        x, t, reduction=r, weight=w.abs()), [True, True, False]),
    "kl_div": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.kl_div(
        m.nn.functional.log_softmax(x, 1), m.nn.functional.softmax(t, 1), reduction=r), None),
    "kl_div_log_target": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.kl_div(
        m.nn.functional.log_softmax(x, 1), m.nn.functional.log_softmax(t, 1), reduction=r,
        log_target=True), None),
    "soft_margin": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.soft_margin_loss(
        x, _sign(m, t), reduction=r), [True, False]),
    "margin_ranking": ([(6,), (6,), (6,)], lambda m, r, a, b, t:
                       m.nn.functional.margin_ranking_loss(a, b, _sign(m, t), 0.3, reduction=r),
                       [True, True, False]),
    "hinge_embedding": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.hinge_embedding_loss(
        x, _sign(m, t), margin=1.5, reduction=r), [True, False]),
    "cosine_embedding": ([(4, 5), (4, 5), (4,)], lambda m, r, a, b, t:
                         m.nn.functional.cosine_embedding_loss(a, b, _sign(m, t), 0.2,
                                                               reduction=r),
                         [True, True, False]),
    "cosine_embedding_1d": ([(5,), (5,), ()], lambda m, r, a, b, t:
                            m.nn.functional.cosine_embedding_loss(a, b, _sign(m, t), -0.5,
                                                                  reduction=r),
                            [True, True, False]),
    "poisson": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.poisson_nll_loss(
        x, t.abs() * 2, reduction=r), None),
    "poisson_full": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.poisson_nll_loss(
        x.abs() + 0.1, t.abs() * 2, log_input=False, full=True, reduction=r), None),
    "gaussian": ([(4, 5), (4, 5), (4, 5)], lambda m, r, x, t, v: m.nn.functional.gaussian_nll_loss(
        x, t, v.abs() + 0.1, reduction=r), None),
    "gaussian_full_small_var": ([(4, 5), (4, 5), (4, 5)], lambda m, r, x, t, v:
                                m.nn.functional.gaussian_nll_loss(x, t, v.abs() * 1e-6,
                                                                  full=True, eps=1e-6,
                                                                  reduction=r), None),
    "gaussian_var_no_last_dim": ([(4, 5), (4, 5), (4,)], lambda m, r, x, t, v:
                                 m.nn.functional.gaussian_nll_loss(x, t, v.abs() + 0.1,
                                                                   reduction=r), None),
    "gaussian_var_one_dim_1": ([(4, 5), (4, 5), (1, 5)], lambda m, r, x, t, v:
                               m.nn.functional.gaussian_nll_loss(x, t, v.abs() + 0.1,
                                                                 reduction=r), None),
    "gaussian_var_float": ([(4, 5), (4, 5)], lambda m, r, x, t: m.nn.functional.gaussian_nll_loss(
        x, t, 0.7, reduction=r), None),
}


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_matches_torch(name, reduction):
    shapes, fn, requires = LOSSES[name]
    check_grad(lambda m, *xs: fn(m, reduction, *xs), shapes, DTYPES, requires=requires)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
def test_loss_non_contiguous_inputs():
    for name in ("smooth_l1", "huber", "kl_div", "soft_margin", "hinge_embedding", "poisson",
                 "gaussian", "cosine_embedding"):
        shapes, fn, requires = LOSSES[name]
        check_grad(lambda m, *xs: fn(m, "mean", *xs), shapes, ("float32",), ("transposed",),
                   requires=requires)


@pytest.mark.parametrize("name", ["smooth_l1_beta", "huber_delta", "kl_div", "kl_div_log_target",
                                  "soft_margin", "hinge_embedding", "cosine_embedding",
                                  "poisson_full", "gaussian_var_no_last_dim"])
def test_loss_gradcheck(name):
    shapes, fn, requires = LOSSES[name]
    es, _ = make_inputs(shapes, "float64", seed=3)
    req = requires or [True] * len(es)
    es = [x.detach().requires_grad_(r) for x, r in zip(es, req)]
    grad_inputs = [x for x in es if x.requires_grad]
    fixed = [x for x in es if not x.requires_grad]

    def f(*ins):
        it, ft = iter(ins), iter(fixed)
        return fn(ember, "sum", *[next(it) if r else next(ft) for r in req])
    assert ember.autograd.gradcheck(f, grad_inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_kl_div_batchmean_and_mean_warning():
    (ex, et), (tx, tt) = make_inputs([(4, 5), (4, 5)], "float64")
    for log_target in (False, True):
        e = ember.nn.functional.kl_div(ex, et.abs(), reduction="batchmean", log_target=log_target)
        t = torch.nn.functional.kl_div(tx, tt.abs(), reduction="batchmean", log_target=log_target)
        assert_same(e, t)
    # 0-d input: 'batchmean' is the sum
    assert_same(ember.nn.functional.kl_div(ex[0, 0], et[0, 0].abs(), reduction="batchmean"),
                torch.nn.functional.kl_div(tx[0, 0], tt[0, 0].abs(), reduction="batchmean"))
    with pytest.warns(UserWarning, match="batchmean"):
        ember.nn.functional.kl_div(ex, et.abs())
    # target 0 contributes 0 (xlogy), not NaN
    zero = ember.nn.functional.kl_div(ex, ember.zeros(4, 5, dtype=ember.float64),
                                      reduction="sum")
    assert zero.item() == 0.0


LEGACY = [(None, False), (False, None), (False, False), (True, True), (True, None)]


@pytest.mark.parametrize("size_average,reduce", LEGACY)
def test_loss_legacy_size_average_reduce(size_average, reduce):
    (ex, et, ez), (tx, tt, tz) = make_inputs([(3, 4), (3, 4), (3, 4)], "float32")
    calls = [
        lambda m, x, t, z: m.nn.functional.smooth_l1_loss(x, t, size_average, reduce),
        lambda m, x, t, z: m.nn.functional.kl_div(x, t.abs(), size_average, reduce),
        lambda m, x, t, z: m.nn.functional.soft_margin_loss(x, t, size_average, reduce),
        lambda m, x, t, z: m.nn.functional.margin_ranking_loss(x, t, z, 0.1, size_average, reduce),
        lambda m, x, t, z: m.nn.functional.hinge_embedding_loss(x, t.sign(), 1.0, size_average,
                                                                reduce),
        lambda m, x, t, z: m.nn.functional.cosine_embedding_loss(x, t, z[:, 0].sign(), 0.0,
                                                                 size_average, reduce),
        lambda m, x, t, z: m.nn.functional.poisson_nll_loss(x, t.abs(), True, False,
                                                            size_average, 1e-8, reduce),
        lambda m, x, t, z: m.nn.SmoothL1Loss(size_average, reduce)(x, t),
        lambda m, x, t, z: m.nn.KLDivLoss(size_average, reduce)(x, t.abs()),
        lambda m, x, t, z: m.nn.MarginRankingLoss(0.0, size_average, reduce)(x, t, z),
        lambda m, x, t, z: m.nn.PoissonNLLLoss(True, False, size_average, 1e-8, reduce)(x, t),
    ]
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(call(ember, ex, et, ez), call(torch, tx, tt, tz), rtol=1e-5, atol=1e-6)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        ember.nn.functional.smooth_l1_loss(ex, et, size_average, reduce)


def test_losses_of_empty_inputs():
    for r in REDUCTIONS:
        for name in ("smooth_l1", "huber", "soft_margin", "poisson"):
            fn = LOSSES[name][1]
            e = fn(ember, r, ember.zeros(0, 3), ember.zeros(0, 3))
            t = fn(torch, r, torch.zeros(0, 3), torch.zeros(0, 3))
            assert_same(e, t)


def test_smooth_l1_and_huber_broadcast_warning():
    (ex, et), (tx, tt) = make_inputs([(3, 4), (4,)], "float32")
    for fn in ("smooth_l1_loss", "huber_loss"):
        with pytest.warns(UserWarning, match="target size"):
            e = getattr(ember.nn.functional, fn)(ex, et)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = getattr(torch.nn.functional, fn)(tx, tt)
        assert_same(e, t)


def test_soft_margin_loss_is_stable_for_large_margins():
    x = ember.tensor([100.0, -100.0, 200.0], requires_grad=True)
    y = ember.tensor([-1.0, 1.0, -1.0])
    loss = ember.nn.functional.soft_margin_loss(x, y, reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [100.0, 100.0, 200.0])
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -1.0, 1.0])


# ---- distances -----------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes,dim", [([(4, 5), (4, 5)], 1), ([(4, 5), (4, 5)], 0),
                                        ([(4, 5), (1, 5)], 1), ([(2, 3, 4), (3, 4)], -1),
                                        ([(5,), (5,)], 0), ([(0, 3), (0, 3)], 1)])
def test_cosine_similarity(shapes, dim):
    check_grad(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, dim), shapes, DTYPES)
    check_grad(lambda m, a, b: m.nn.CosineSimilarity(dim, 1e-6)(a, b), shapes, ("float32",))


def test_cosine_similarity_zero_vector_and_gradcheck():
    check_grad(lambda m, a, b: m.nn.functional.cosine_similarity(a * 0, b, eps=1e-3),
               [(3, 4), (3, 4)], DTYPES)
    gradcheck_op(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, 1), [(3, 4), (3, 4)])
    check_grad(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, 0), [(4, 3), (4, 3)],
               ("float32",), ("transposed",))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5, float("inf")])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shapes", [[(4, 5), (4, 5)], [(5,), (4, 5)], [(6,), (6,)]])
def test_pairwise_distance(p, keepdim, shapes):
    check_grad(lambda m, a, b: m.nn.functional.pairwise_distance(a, b, p, 1e-6, keepdim), shapes,
               DTYPES)
    check_grad(lambda m, a, b: m.nn.PairwiseDistance(p, 1e-4, keepdim)(a, b), shapes,
               ("float32",))


def test_pairwise_distance_0d_and_gradcheck():
    check_grad(lambda m, a, b: m.nn.functional.pairwise_distance(a, b), [(), ()], DTYPES)
    gradcheck_op(lambda m, a, b: m.nn.functional.pairwise_distance(a, b, 3.0), [(3, 4), (3, 4)])


# ---- loss modules --------------------------------------------------------------------------------
LOSS_MODULES = [
    ("SmoothL1Loss", {}, 2), ("SmoothL1Loss", {"beta": 0.4, "reduction": "sum"}, 2),
    ("HuberLoss", {}, 2), ("HuberLoss", {"delta": 2, "reduction": "none"}, 2),
    ("KLDivLoss", {"reduction": "batchmean"}, 2),
    ("KLDivLoss", {"reduction": "sum", "log_target": True}, 2),
    ("SoftMarginLoss", {}, 2), ("MarginRankingLoss", {"margin": 0.5}, 3),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "none"}, 2),
    ("CosineEmbeddingLoss", {"margin": 0.1}, 3), ("PoissonNLLLoss", {}, 2),
    ("PoissonNLLLoss", {"log_input": False, "full": True, "reduction": "sum"}, 2),
    ("GaussianNLLLoss", {}, 3), ("GaussianNLLLoss", {"full": True, "reduction": "none"}, 3),
]


def _loss_module_inputs(cls, m, xs):
    """Targets in each loss's domain, derived from random inputs."""
    if cls == "KLDivLoss":
        return m.nn.functional.log_softmax(xs[0], 1), m.nn.functional.log_softmax(xs[1], 1)
    if cls in ("SoftMarginLoss", "HingeEmbeddingLoss"):
        return xs[0], _sign(m, xs[1]).detach()
    if cls == "MarginRankingLoss":
        return xs[0], xs[1], _sign(m, xs[2]).detach()
    if cls == "CosineEmbeddingLoss":
        return xs[0], xs[1], _sign(m, xs[2][:, 0]).detach()
    if cls == "PoissonNLLLoss":
        return xs[0].abs() + 0.1, xs[1].abs() * 2
    if cls == "GaussianNLLLoss":
        return xs[0], xs[1], xs[2].abs() + 0.1
    return xs


@pytest.mark.parametrize("cls,kw,n", LOSS_MODULES, ids=[f"{c}{k}" for c, k, _ in LOSS_MODULES])
def test_loss_module(cls, kw, n):
    e_mod, t_mod = getattr(ember.nn, cls)(**kw), getattr(torch.nn, cls)(**kw)
    assert repr(e_mod) == repr(t_mod)
    assert e_mod.reduction == t_mod.reduction
    for attr in ("beta", "delta", "log_target", "margin", "log_input", "full", "eps"):
        assert getattr(e_mod, attr, None) == getattr(t_mod, attr, None), attr

    def fn(m, *xs):
        return (e_mod if m is ember else t_mod)(*_loss_module_inputs(cls, m, xs))
    check_grad(fn, [(4, 5)] * n, DTYPES)


def test_distance_module_attributes():
    e, t = ember.nn.PairwiseDistance(3.0, 1e-5, True), torch.nn.PairwiseDistance(3.0, 1e-5, True)
    assert (e.norm, e.eps, e.keepdim) == (t.norm, t.eps, t.keepdim)
    e, t = ember.nn.CosineSimilarity(0, 1e-4), torch.nn.CosineSimilarity(0, 1e-4)
    assert (e.dim, e.eps) == (t.dim, t.eps) and repr(e) == repr(t)


# ---- bad input -----------------------------------------------------------------------------------
def test_activation_bad_input():
    F = ember.nn.functional
    x = ember.randn(2, 3)
    with pytest.raises(RuntimeError, match="glu.*Halving dimension must be even.*dimension 1 is "
                                           "size 3"):
        F.glu(x, 1)
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(ember.tensor(1.0))
    with pytest.raises(IndexError):
        F.glu(x, 2)
    with pytest.raises(RuntimeError, match="celu.*alpha cannot be 0"):
        F.celu(x, 0.0)
    with pytest.raises(RuntimeError, match="softshrink: lambda must be greater or equal to 0"):
        F.softshrink(x, -1.0)
    for name in ("softplus", "elu", "selu", "celu", "mish", "hardswish", "hardsigmoid",
                 "logsigmoid", "hardshrink", "softshrink", "glu"):
        kernel = "log_sigmoid" if name == "logsigmoid" else name  # torch's kernel name
        with pytest.raises(NotImplementedError, match=f"{kernel}: not implemented for dtype"):
            getattr(F, name)(ember.tensor([1, 2]))


def test_prelu_bad_input():
    F = ember.nn.functional
    with pytest.raises(RuntimeError, match="prelu: Mismatch of parameter numbers and input "
                                           "channel size. Found parameter numbers = 4 and "
                                           "channel size = 3"):
        F.prelu(ember.randn(2, 3), ember.ones(4))
    with pytest.raises(RuntimeError, match="channel size = 1"):
        F.prelu(ember.randn(3), ember.ones(3))
    with pytest.raises(RuntimeError, match="prelu: Type promoting not supported"):
        F.prelu(ember.randn(2, 3), ember.ones(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="prelu: Expected `weight` to be a scalar or 1D"):
        F.prelu(ember.randn(2, 3), ember.ones(3, 1))
    with pytest.raises(RuntimeError, match="prelu: Not allow zero-dim input tensor"):
        F.prelu(ember.tensor(1.0), ember.ones(3))
    with pytest.raises(RuntimeError, match="Mismatch"):
        ember.nn.PReLU(3)(ember.randn(2, 4))


def test_loss_bad_input():
    F = ember.nn.functional
    x, t = ember.randn(3, 4), ember.randn(3, 4)
    for fn in (lambda r: F.smooth_l1_loss(x, t, reduction=r), lambda r: F.huber_loss(x, t, r),
               lambda r: F.kl_div(x, t, reduction=r), lambda r: F.soft_margin_loss(x, t,
                                                                                  reduction=r),
               lambda r: F.margin_ranking_loss(x, x, t, reduction=r),
               lambda r: F.hinge_embedding_loss(x, t, reduction=r),
               lambda r: F.poisson_nll_loss(x, t, reduction=r)):
        with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
            fn("bad")
    with pytest.raises(ValueError, match="bad is not valid"):
        F.gaussian_nll_loss(x, t, t.abs(), reduction="bad")
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values"):
        F.smooth_l1_loss(x, t, beta=-1.0)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values"):
        F.huber_loss(x, t, delta=0.0)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        F.huber_loss(x, t, weight=ember.ones(4))
    with pytest.raises(TypeError, match="delta must be a float or int"):
        ember.nn.HuberLoss(delta="1")
    with pytest.raises(RuntimeError, match=r"margin_ranking_loss : All input tensors should have "
                                           r"same dimension.*target: ember.Size\(\[1, 4\]\)"):
        F.margin_ranking_loss(ember.randn(4), ember.randn(4), ember.ones(1, 4))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        F.cosine_embedding_loss(x, x, ember.ones(3, 1))
    with pytest.raises(RuntimeError, match=r"1D target tensor expects 2D input tensors, but "
                                           r"found inputs with sizes \[3, 4\] and \[4\]"):
        F.cosine_embedding_loss(x, ember.randn(4), ember.ones(3))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input tensors"):
        F.cosine_embedding_loss(x, x, ember.tensor(1.0))
    with pytest.raises(ValueError, match=r"var is of incorrect size: input \[3, 4\], var \[2\]"):
        F.gaussian_nll_loss(x, t, ember.ones(2))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, t, -ember.ones(3, 4))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, t, -1.0)
    with pytest.raises(TypeError, match="gaussian_nll_loss: var must be a Tensor or a float"):
        F.gaussian_nll_loss(x, t, 1)


def test_distance_bad_input():
    F = ember.nn.functional
    with pytest.raises(RuntimeError, match="cosine_similarity: expected common dtype to be "
                                           "floating point"):
        F.cosine_similarity(ember.tensor([1, 2]), ember.tensor([1, 2]), 0)
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\)"):
        F.cosine_similarity(ember.randn(2, 3), ember.randn(2, 4))
    with pytest.raises(IndexError):
        F.cosine_similarity(ember.randn(3), ember.randn(3), 1)
    with pytest.raises(RuntimeError, match=r"pairwise_distance: The size of tensor a \(3\)"):
        F.pairwise_distance(ember.randn(2, 3), ember.randn(2, 4))


# ---- a program -----------------------------------------------------------------------------------
def test_training_steps_match_torch():
    """A small net using the new layers and losses, 3 SGD steps in both libraries (torch's
    parameters copied into ember): the same losses and parameters."""
    def build(m):
        return m.nn.Sequential(m.nn.Linear(6, 8), m.nn.PReLU(8), m.nn.Linear(8, 8), m.nn.Mish(),
                               m.nn.Linear(8, 8), m.nn.GLU(), m.nn.Softplus(), m.nn.Linear(4, 3))
    t_net, e_net = build(torch), build(ember)
    e_net.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                           for k, v in t_net.state_dict().items()})
    (ex, ey), (tx, ty) = make_inputs([(10, 6), (10, 3)], "float32", seed=4)
    losses = []
    for m, net, x, y in ((ember, e_net, ex, ey), (torch, t_net, tx, ty)):
        opt = m.optim.SGD(net.parameters(), lr=0.1)
        crit = [m.nn.HuberLoss(delta=0.5), m.nn.SmoothL1Loss(beta=0.3),
                m.nn.GaussianNLLLoss()]
        run = []
        for step in range(3):
            opt.zero_grad()
            out = net(x)
            loss = crit[0](out, y) + crit[1](out, y) + crit[2](out, y, m.ones(10, 3) * 0.5)
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    for (k, e), (_, t) in zip(e_net.state_dict().items(), t_net.state_dict().items()):
        assert_same(e, t, rtol=1e-4, atol=1e-6)


# ---- hardtanh, relu6 and leaky_relu_ (clamps) ------------------------------------------------
CLAMPS = [("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("relu6", {})]


@pytest.mark.parametrize("name,kw", CLAMPS)
@pytest.mark.parametrize("shape", SHAPES + [(0, 3)])
def test_clamp_activations(name, kw, shape):
    check_grad(_f(name, **kw), [shape], DTYPES, LAYOUTS if len(shape) == 2 else ("contiguous",),
               low=-8.0, high=8.0)


@pytest.mark.parametrize("name,kw", CLAMPS)
def test_clamp_activations_gradcheck_inplace_and_errors(name, kw):
    gradcheck_op(_f(name, **kw), [(3, 4)], low=-8.0, high=8.0)

    def inplace(m, x):
        y = x * 1.0
        z = getattr(m.nn.functional, name)(y, inplace=True, **kw)
        assert z is y
        return z
    check_grad(inplace, [(3, 4)], DTYPES, low=-8.0, high=8.0)
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="in-place|leaf"):
            getattr(m.nn.functional, name)(m.ones(3, requires_grad=True), inplace=True, **kw)
        with pytest.raises(TypeError):
            getattr(m.nn.functional, name)([1.0, 2.0], **kw)
    # integer inputs keep their dtype, as torch's clamp
    assert_same(getattr(ember.nn.functional, name)(ember.tensor([-9, 3, 9]), **kw),
                getattr(torch.nn.functional, name)(torch.tensor([-9, 3, 9]), **kw))


def test_hardtanh_min_above_max_is_refused():
    for m in (torch, ember):
        with pytest.raises((ValueError, RuntimeError)):
            m.nn.functional.hardtanh(m.ones(3), min_val=2.0, max_val=1.0)


@pytest.mark.parametrize("slope", [0.01, 0.2])
def test_leaky_relu_(slope):
    def fn(m, x):
        y = x * 1.0
        z = m.nn.functional.leaky_relu_(y, slope)
        assert z is y
        return z
    check_grad(fn, [(3, 4)], DTYPES, LAYOUTS, low=-3.0, high=3.0)
    check_grad(fn, [()], DTYPES, low=-3.0, high=3.0)
    gradcheck_op(fn, [(3, 4)])
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="in-place|leaf"):
            m.nn.functional.leaky_relu_(m.ones(3, requires_grad=True), slope)
        with pytest.raises((TypeError, AttributeError)):
            m.nn.functional.leaky_relu_([1.0], slope)
