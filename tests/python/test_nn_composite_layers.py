"""Composite nn layers and functions (written in Python as compositions of existing ops, like
torch's CompositeImplicitAutograd ones), against torch 2.13: rrelu,
gumbel_softmax, hardtanh_, bilinear (+ nn.Bilinear), linear_cross_entropy (+ the loss module
and its options), Softmax2d, CrossMapLRN2d, AdaptiveLogSoftmaxWithLoss, SyncBatchNorm
(one process), Container, NLLLoss2d, nn.grad, nn.attention, nn.factory_kwargs,
constant_pad_nd, embedding_renorm_, Tensor.prelu / hardshrink."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from helpers import to_numpy


def _pair(shape, seed, dtype=np.float64, low=-2, high=2):
    a = np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
    return ember.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()


def _close(e, t, tol=1e-10):
    np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=tol, atol=tol)


# ---- rrelu, gumbel_softmax, hardtanh_ ----------------------------------------------------------
def test_rrelu_eval_matches_torch_and_training_slopes_in_range():
    e, t = _pair((4, 5), 0)
    _close(F.rrelu(e, 0.1, 0.3), torch.nn.functional.rrelu(t, 0.1, 0.3))
    F.rrelu(e, 0.1, 0.3).sum().backward()
    torch.nn.functional.rrelu(t, 0.1, 0.3).sum().backward()
    _close(e.grad, t.grad)
    ember.manual_seed(0)
    x = ember.randn(1000, dtype=ember.float64).requires_grad_()
    y = ember.nn.RReLU(0.1, 0.3)(x)
    y.sum().backward()
    neg = (x < 0)
    slope = (y / x)[neg]
    assert bool((slope >= 0.1).all()) and bool((slope <= 0.3).all())
    assert float(slope.std()) > 0.01  # random per element
    _close(x.grad[neg], slope)
    assert bool((y[~neg] == x[~neg]).all())
    ember.manual_seed(3)
    a = F.rrelu(x.detach(), training=True)
    ember.manual_seed(3)
    b = F.rrelu(x.detach(), training=True)
    assert bool((a == b).all())  # reproducible under a seed


def test_rrelu_inplace_and_errors():
    e, t = _pair((6,), 1)
    e, t = e.detach(), t.detach()
    assert ember.rrelu_(e) is e
    torch.rrelu_(t)
    _close(e, t)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        F.rrelu(ember.zeros(3), 0.5, 0.1, training=True)
    with pytest.raises(RuntimeError, match="rrelu: not implemented for dtype"):
        F.rrelu(ember.zeros(3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        F.rrelu(ember.zeros(3).requires_grad_(), inplace=True)


def test_gumbel_softmax_soft_and_hard():
    ember.manual_seed(0)
    logits = ember.randn(8, 5, dtype=ember.float64).requires_grad_()
    y = F.gumbel_softmax(logits, tau=0.5)
    _close(y.sum(-1), np.ones(8))
    h = F.gumbel_softmax(logits, tau=0.5, hard=True, dim=1)
    assert bool(((h == 0) | (h == 1)).all()) and bool((h.sum(1) == 1).all())
    (h * ember.arange(5, dtype=ember.float64)).sum().backward()  # straight-through: soft gradient
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0
    ember.manual_seed(1)
    a = F.gumbel_softmax(logits.detach())
    ember.manual_seed(1)
    b = F.gumbel_softmax(logits.detach())
    assert bool((a == b).all())
    with pytest.warns(UserWarning, match="eps"):
        F.gumbel_softmax(logits.detach(), eps=1e-3)


def test_hardtanh_inplace():
    e, t = _pair((3, 4), 2)
    e, t = e.detach(), t.detach()
    assert F.hardtanh_(e, -0.5, 0.7) is e
    torch.nn.functional.hardtanh_(t, -0.5, 0.7)
    _close(e, t)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh_(e, 1.0, 0.0)


# ---- bilinear and linear_cross_entropy -----------------------------------------------------------
def test_bilinear_matches_torch():
    (e1, t1), (e2, t2) = _pair((2, 3, 4), 3), _pair((2, 3, 5), 4)
    (ew, tw), (eb, tb) = _pair((6, 4, 5), 5), _pair((6,), 6)
    eo, to = F.bilinear(e1, e2, ew, eb), torch.nn.functional.bilinear(t1, t2, tw, tb)
    _close(eo, to)
    g = np.random.default_rng(7).standard_normal(tuple(to.shape))
    eo.backward(ember.from_numpy(g.copy()))
    to.backward(torch.from_numpy(g.copy()))
    for a, b in [(e1, t1), (e2, t2), (ew, tw), (eb, tb)]:
        _close(a.grad, b.grad)
    _close(ember.bilinear(e1[0, 0], e2[0, 0], ew, None), torch.bilinear(t1[0, 0], t2[0, 0], tw))
    m = ember.nn.Bilinear(4, 5, 6)
    assert tuple(m.weight.shape) == (6, 4, 5) and float(m.weight.abs().max()) <= 0.5
    assert tuple(m(ember.zeros(7, 4), ember.zeros(7, 5)).shape) == (7, 6)
    assert ember.autograd.gradcheck(lambda a, b, w: F.bilinear(a, b, w),
                                    (e1[0], e2[0], ew), eps=1e-6, atol=1e-6)
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input1 size does not match"):
        F.bilinear(ember.zeros(2, 3), ember.zeros(2, 5), ember.zeros(6, 4, 5))
    with pytest.raises(RuntimeError, match="input batch dimensions do not match"):
        F.bilinear(ember.zeros(2, 4), ember.zeros(3, 5), ember.zeros(6, 4, 5))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_linear_cross_entropy(reduction):
    (ex, tx), (ew, tw), (eb, tb) = _pair((5, 4), 8), _pair((7, 4), 9), _pair((7,), 10)
    y = np.array([0, 6, 3, -100, 2])
    eo = F.linear_cross_entropy(ex, ew, ember.from_numpy(y), linear_bias=eb, reduction=reduction,
                                label_smoothing=0.1)
    to = torch.nn.functional.linear_cross_entropy(tx, tw, torch.from_numpy(y), linear_bias=tb,
                                                  reduction=reduction, label_smoothing=0.1)
    _close(eo, to)
    eo.sum().backward()
    to.sum().backward()
    for a, b in [(ex, tx), (ew, tw), (eb, tb)]:
        _close(a.grad, b.grad)
    # K-dimensional loss through the module (weights copied from torch's module)
    torch.manual_seed(0)
    tm = torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, dtype=torch.float64,
                                         reduction=reduction)
    em = ember.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True,
                                         dtype=ember.float64, reduction=reduction)
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                        for k, v in tm.state_dict().items()})
    yk = np.array([[0, 2], [1, 1], [2, 0], [0, 0], [1, 2]])
    _close(em(ex.detach(), ember.from_numpy(yk)), tm(tx.detach(), torch.from_numpy(yk)))
    opts = ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    _close(F.linear_cross_entropy(ex, ew, ember.from_numpy(y), options=opts, reduction=reduction),
           torch.nn.functional.linear_cross_entropy(tx, tw, torch.from_numpy(y),
                                                    reduction=reduction))


def test_linear_cross_entropy_errors_and_options():
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2"):
        F.linear_cross_entropy(ember.zeros(2, 3, 4), ember.zeros(5, 4), ember.zeros(2, 3))
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last"):
        F.linear_cross_entropy(ember.zeros(2, 3), ember.zeros(5, 4), ember.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified"):
        F.linear_cross_entropy(ember.zeros(2, 4), ember.zeros(5, 4), ember.zeros(2, 5),
                               ignore_index=1)
    for bad in [dict(acc_policy="fast"), dict(chunking_method="rows"),
                dict(batch_chunk_size=0), dict(acc_dtype=ember.int64)]:
        with pytest.raises(ValueError):
            ember.nn.LinearCrossEntropyOptions(**bad)
    with pytest.raises(RuntimeError, match="expected weight shape"):
        ember.nn.LinearCrossEntropyLoss(4, 3, weight=ember.ones(4))


# ---- small modules -----------------------------------------------------------------------------
def test_softmax2d_nllloss2d_container():
    e, t = _pair((2, 3, 4, 5), 11)
    _close(ember.nn.Softmax2d()(e), torch.nn.Softmax2d()(t))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D"):
        ember.nn.Softmax2d()(ember.zeros(3, 4))
    y = np.random.default_rng(0).integers(0, 3, (2, 4, 5))
    with pytest.warns(UserWarning, match="NLLLoss2d has been deprecated"):
        m = ember.nn.NLLLoss2d()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(m(e.log_softmax(1), ember.from_numpy(y)),
               torch.nn.NLLLoss2d()(t.log_softmax(1), torch.from_numpy(y)))
    with pytest.warns(FutureWarning, match="Container` is deprecated"):
        c = ember.nn.Container(a=ember.nn.Linear(2, 3), b=ember.nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["a", "b"]


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_cross_map_lrn2d(size):
    e, t = _pair((2, 7, 3, 2), 12)
    em = ember.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)
    tm = torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)
    eo, to = em(e), tm(t)
    _close(eo, to)
    if size == 1:
        return  # torch's own backward fails for size 1 (its padded buffer is too short)
    g = np.random.default_rng(13).standard_normal(tuple(to.shape))
    eo.backward(ember.from_numpy(g.copy()))
    to.backward(torch.from_numpy(g.copy()))
    _close(e.grad, t.grad)
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D"):
        em(ember.zeros(2, 3, 4))


def test_adaptive_log_softmax_with_loss():
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True,
                                             dtype=torch.float64)
    em = ember.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True,
                                             dtype=ember.float64)
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                        for k, v in tm.state_dict().items()})
    e, t = _pair((6, 8), 14)
    y = np.array([0, 4, 9, 2, 7, 5])
    eo, to = em(e, ember.from_numpy(y)), tm(t, torch.from_numpy(y))
    _close(eo.output, to.output)
    _close(eo.loss, to.loss)
    eo.loss.backward()
    to.loss.backward()
    _close(e.grad, t.grad)
    for (n, p), (_, q) in zip(em.named_parameters(), tm.named_parameters()):
        _close(p.grad, q.grad)
    _close(em.log_prob(e.detach()), tm.log_prob(t.detach()))
    assert em.predict(e.detach()).tolist() == tm.predict(t.detach()).tolist()
    one = em(e.detach()[0], ember.tensor(4))
    _close(one.output, tm(t.detach()[0], torch.tensor(4)).output)
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        em(e.detach(), ember.tensor([0, 1, 2, 3, 4, 10]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        ember.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])


def test_sync_batchnorm_single_process_and_convert():
    tm = torch.nn.SyncBatchNorm(3, momentum=0.2, dtype=torch.float64)
    em = ember.nn.SyncBatchNorm(3, momentum=0.2, dtype=ember.float64)
    e, t = _pair((4, 3, 2, 2, 2), 15)  # any (N, C, *) shape
    _close(em(e), tm(t))
    _close(em.running_mean, tm.running_mean)
    _close(em.running_var, tm.running_var)
    em(e).sum().backward()
    tm(t).sum().backward()
    _close(e.grad, t.grad)
    em.eval(), tm.eval()
    _close(em(e.detach()), tm(t.detach()))
    with pytest.raises(ValueError, match="expected at least 2D input"):
        em(ember.zeros(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        ember.nn.SyncBatchNorm(0)(ember.zeros(2, 0))
    net = ember.nn.Sequential(ember.nn.Conv2d(1, 2, 1), ember.nn.BatchNorm2d(2),
                              ember.nn.Sequential(ember.nn.BatchNorm1d(2)),
                              ember.nn.InstanceNorm2d(2))
    w = net[1].weight
    conv = ember.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(conv[1]) is ember.nn.SyncBatchNorm and conv[1].weight is w
    assert type(conv[2][0]) is ember.nn.SyncBatchNorm
    assert type(conv[3]) is ember.nn.InstanceNorm2d


# ---- nn.grad, nn.attention, factory_kwargs, aten forms, Tensor methods -------------------------
def _check_nn_grad_conv(dim, x_shape, w_shape, seeds, *args, **kw):
    """nn.grad.conv{dim}d_input and _weight (the gradients of conv{dim}d(x, w, *args, **kw) for a
    random grad_output) equal torch's."""
    (ex, tx), (ew, tw) = _pair(x_shape, seeds[0]), _pair(w_shape, seeds[1])
    conv_kw = dict(zip(("stride", "padding", "dilation", "groups"), args), **kw)  # after bias
    to = getattr(torch.nn.functional, f"conv{dim}d")(tx, tw, **conv_kw)
    g = torch.randn(to.shape, dtype=torch.float64)
    eg = ember.from_numpy(g.numpy().copy())

    def grads(lib, x, w, go):
        def fn(kind):
            return getattr(lib.nn.grad, f"conv{dim}d_{kind}")
        return fn("input")(x.shape, w, go, *args, **kw), fn("weight")(x, w.shape, go, *args, **kw)
    for e, t in zip(grads(ember, ex, ew, eg), grads(torch, tx, tw, g)):
        _close(e, t)


def test_nn_grad_conv_gradients():
    _check_nn_grad_conv(2, (2, 4, 7, 6), (6, 2, 3, 2), (16, 17), 2, 1, 1, 2)
    _check_nn_grad_conv(1, (2, 3, 9), (4, 3, 3), (18, 19), dilation=2)
    _check_nn_grad_conv(3, (1, 2, 4, 5, 3), (3, 2, 2, 2, 2), (24, 25), padding=1)
    with pytest.raises(RuntimeError, match="conv2d_input: grad_output of shape"):
        ember.nn.grad.conv2d_input((2, 4, 7, 6), ember.zeros(6, 4, 3, 3), ember.zeros(1, 6, 1, 1))


def test_nn_attention_factory_kwargs_assert_int_or_pair():
    from ember.backends import cuda
    from ember.nn.attention import SDPBackend, sdpa_kernel
    assert int(SDPBackend.FLASH_ATTENTION) == int(torch.nn.attention.SDPBackend.FLASH_ATTENTION)
    assert (SDPBackend is cuda.SDPBackend) == (torch.nn.attention.SDPBackend
                                               is torch.backends.cuda.SDPBackend)
    with sdpa_kernel([SDPBackend.MATH]):
        assert cuda.math_sdp_enabled() and not cuda.flash_sdp_enabled()
    assert cuda.flash_sdp_enabled()
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass
    assert ember.nn.factory_kwargs({"dtype": ember.float64, "factory_kwargs": {"device": "cpu"}}) \
        == {"dtype": ember.float64, "device": "cpu"}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        ember.nn.factory_kwargs({"bias": True})
    with pytest.raises(TypeError, match="specified twice"):
        ember.nn.factory_kwargs({"dtype": 1, "factory_kwargs": {"dtype": 2}})
    F.assert_int_or_pair(3, "kernel", "{} bad")
    F.assert_int_or_pair((3, 4), "kernel", "{} bad")
    with pytest.raises(AssertionError, match="kernel bad"):
        F.assert_int_or_pair((1, 2, 3), "kernel", "{} bad")
    assert ember.nn.common_types._size_2_t is not None


def test_constant_pad_nd_embedding_renorm_tensor_methods():
    e, t = _pair((2, 3, 4), 20)
    _close(ember.constant_pad_nd(e, [1, 2, -1, 1], 0.5), torch.constant_pad_nd(t, [1, 2, -1, 1], 0.5))
    we, wt = _pair((6, 3), 21)
    we, wt = we.detach(), wt.detach()
    idx = np.array([1, 4, 4, 0])
    ember.embedding_renorm_(we, ember.from_numpy(idx), 1.0, 2.0)
    torch.embedding_renorm_(wt, torch.from_numpy(idx), 1.0, 2.0)
    _close(we, wt, 1e-7)
    with pytest.raises(RuntimeError, match="embedding_renorm_: expected a 2-d weight"):
        ember.embedding_renorm_(ember.zeros(3), ember.tensor([0]), 1.0, 2.0)
    (ex, tx), (ew, tw) = _pair((2, 3, 4), 22), _pair((3,), 23)
    _close(ex.prelu(ew), tx.prelu(tw))
    _close(ex.hardshrink(0.7), tx.hardshrink(0.7))
    _close(ex.hardshrink(), tx.hardshrink())


def test_grouped_mm_matches_torch():
    i32 = ember.int32
    rng = np.random.default_rng(30)

    def both(*shapes):
        arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        return ([ember.from_numpy(a.copy()).requires_grad_() for a in arrs],
                [torch.from_numpy(a.copy()).requires_grad_() for a in arrs])
    cases = [((8, 8), (2, 8, 4), [3, 8]), ((4, 8), (8, 4), [4, 8]), ((2, 4, 8), (8, 8), [4, 8]),
             ((2, 4, 8), (2, 8, 4), None)]
    for sa, sb, offs in cases:
        (ea, eb), (ta, tb) = both(sa, sb)
        eo = F.grouped_mm(ea, eb, offs=None if offs is None else ember.tensor(offs, dtype=i32))
        to = torch.nn.functional.grouped_mm(
            ta, tb, offs=None if offs is None else torch.tensor(offs, dtype=torch.int32))
        _close(eo, to, 1e-5)
        eo.sum().backward()
        assert tuple(ea.grad.shape) == sa and tuple(eb.grad.shape) == sb
    (ea, eb), _ = both((8, 8), (2, 8, 4))
    with pytest.raises(RuntimeError, match="Offsets have to be int32"):
        F.grouped_mm(ea, eb, offs=ember.tensor([3, 8]))
    with pytest.raises(RuntimeError, match="Have to provide offsets"):
        F.grouped_mm(ea, eb)
    with pytest.raises(RuntimeError, match="matrix batch sizes have to match"):
        F.grouped_mm(ember.zeros(2, 4, 8), ember.zeros(3, 8, 4))
    with pytest.raises(RuntimeError, match="Expected mat_a to be Float32"):
        F.grouped_mm(ea.double(), eb, offs=ember.tensor([3, 8], dtype=i32))
    with pytest.raises(RuntimeError, match="Bias not supported yet"):
        F.grouped_mm(ea, eb, offs=ember.tensor([3, 8], dtype=i32), bias=ember.zeros(2, 4))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_bag_aten_matches_torch(dtype):
    w = np.random.default_rng(31).standard_normal((6, 3)).astype(dtype)
    idx = [1, 2, 4, 5, 4, 3, 2, 0]
    cases = [([0, 2, 2, 5], False, None), ([0, 2, 2, 5, 8], True, None), ([0, 2, 2, 5], False, 2)]
    for off, ilo, pad in cases:
        for mode in (0, 1, 2):
            ew = ember.from_numpy(w.copy()).requires_grad_()
            tw = torch.from_numpy(w.copy()).requires_grad_()
            e = ember.embedding_bag(ew, ember.tensor(idx), ember.tensor(off), False, mode, False,
                                    None, ilo, pad)
            t = torch.embedding_bag(tw, torch.tensor(idx), torch.tensor(off), False, mode, False,
                                    None, ilo, pad)
            for a, b in zip(e, t):
                assert tuple(a.shape) == tuple(b.shape)
                _close(a, b, 1e-6)
            e[0].sum().backward()
            t[0].sum().backward()
            _close(ew.grad, tw.grad, 1e-6)
    with ember.no_grad(), torch.no_grad():  # sum mode's bag_size: one zero per offset
        e = ember.embedding_bag(ember.from_numpy(w), ember.tensor(idx), ember.tensor([0, 2, 8]),
                                False, 0, False, None, True)
        t = torch.embedding_bag(torch.from_numpy(w), torch.tensor(idx), torch.tensor([0, 2, 8]),
                                False, 0, False, None, True)
        assert [tuple(a.shape) for a in e] == [tuple(b.shape) for b in t]
    with pytest.raises(RuntimeError, match="`mode` must be sum, mean, or max"):
        ember.embedding_bag(ember.zeros(3, 2), ember.tensor([0]), ember.tensor([0]), False, 3)
    with pytest.raises(TypeError, match="argument 'offsets' must be Tensor"):
        ember.embedding_bag(ember.zeros(3, 2), ember.tensor([0]), [0])


def test_gumbel_softmax_against_torch_on_the_same_noise():
    """The noise is random in both libraries; given ember's sample, the Gumbel noise it used is
    tau log(y) - logits (up to a per-row constant), and torch's softmax((logits + g) / tau)
    on that noise, and its gradient, must be ember's."""
    rng = np.random.default_rng(7)
    l = rng.standard_normal((6, 5))
    for tau, dim in ((0.5, -1), (2.0, 0)):
        ember.manual_seed(3)
        el = ember.from_numpy(l.copy()).requires_grad_()
        y = F.gumbel_softmax(el, tau=tau, dim=dim)
        g = tau * np.log(y.detach().numpy()) - l  # the noise, up to a constant along dim
        tl = torch.from_numpy(l.copy()).requires_grad_()
        ty = torch.softmax((tl + torch.from_numpy(g)) / tau, dim)
        _close(y, ty.detach().numpy())
        w = rng.standard_normal(l.shape)
        (y * ember.from_numpy(w.copy())).sum().backward()
        (ty * torch.from_numpy(w.copy())).sum().backward()
        _close(el.grad, tl.grad.numpy())
    # hard=True: one-hot forward, the soft sample's gradient (straight-through), as torch
    ember.manual_seed(4)
    el = ember.from_numpy(l.copy()).requires_grad_()
    h = F.gumbel_softmax(el, tau=1.0, hard=True)
    ember.manual_seed(4)
    soft = F.gumbel_softmax(ember.from_numpy(l.copy()), tau=1.0)
    assert bool((h.argmax(-1) == soft.argmax(-1)).all())
    for lib, x in ((torch, torch.ones(2, 3)), (ember, ember.ones(2, 3))):
        with pytest.raises(IndexError):
            lib.nn.functional.gumbel_softmax(x, dim=5)
        with pytest.raises((TypeError, AttributeError)):
            lib.nn.functional.gumbel_softmax([1.0, 2.0])
