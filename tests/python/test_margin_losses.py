"""multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, the triplet losses,
pdist and their modules against torch 2.13: values and gradients for every reduction,
weights, p, swap, a float64 gradcheck, and torch's errors."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from helpers import to_numpy

REDUCTIONS = ["none", "mean", "sum"]


def _pair(shape, seed, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()


def _ints(a):
    a = np.asarray(a, dtype=np.int64)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _check(fe, ft, inputs, tol=1e-10):
    eo, to = fe(*[e for e, _ in inputs]), ft(*[t for _, t in inputs])
    np.testing.assert_allclose(to_numpy(eo), to_numpy(to), rtol=tol, atol=tol)
    g = np.random.default_rng(9).standard_normal(tuple(to.shape))
    eo.backward(ember.from_numpy(g.copy()).to(eo.dtype))
    to.backward(torch.from_numpy(g.copy()).to(to.dtype))
    for e, t in inputs:
        if t.requires_grad:
            np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), rtol=tol, atol=tol)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(reduction, p):
    x = _pair((5, 4), 0)
    y = _ints([0, 3, 1, 1, 2])
    w = _ints([1, 2, 3, 4])
    w = (w[0].double(), w[1].double())
    _check(lambda a, b: F.multi_margin_loss(a, b, p=p, margin=0.7, reduction=reduction),
           lambda a, b: torch.nn.functional.multi_margin_loss(a, b, p=p, margin=0.7,
                                                              reduction=reduction), [x, y])
    x = _pair((5, 4), 1)
    _check(lambda a, b, c: F.multi_margin_loss(a, b, p=p, weight=c, reduction=reduction),
           lambda a, b, c: torch.nn.functional.multi_margin_loss(a, b, p=p, weight=c,
                                                                 reduction=reduction), [x, y, w])
    x1 = _pair((4,), 2)
    _check(lambda a, b: F.multi_margin_loss(a, b, reduction=reduction),
           lambda a, b: torch.nn.functional.multi_margin_loss(a, b, reduction=reduction),
           [x1, _ints(2)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction):
    x = _pair((3, 5), 3)
    y = _ints([[3, 0, -1, 1, 4], [1, 2, 3, 4, 0], [-1, 2, 2, 2, 2]])  # all, duplicates-free, none
    _check(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
           lambda a, b: torch.nn.functional.multilabel_margin_loss(a, b, reduction=reduction),
           [x, y])
    y2 = _ints([[2, 2, 0, -1, 3]] * 3)  # a repeated target counts twice, as torch
    x = _pair((3, 5), 4)
    _check(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
           lambda a, b: torch.nn.functional.multilabel_margin_loss(a, b, reduction=reduction),
           [x, y2])
    x1 = _pair((4,), 5)
    _check(lambda a, b: ember.nn.MultiLabelMarginLoss(reduction=reduction)(a, b),
           lambda a, b: torch.nn.MultiLabelMarginLoss(reduction=reduction)(a, b),
           [x1, _ints([3, 1, -1, 0])])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_loss(reduction):
    x = _pair((4, 6), 6)
    yv = (np.random.default_rng(7).random((4, 6)) < 0.5).astype(np.float64)
    y = (ember.from_numpy(yv.copy()), torch.from_numpy(yv.copy()))
    w = _pair((6,), 8)
    w = (w[0].detach(), w[1].detach())
    _check(lambda a, b, c: ember.nn.MultiLabelSoftMarginLoss(weight=c, reduction=reduction)(a, b),
           lambda a, b, c: torch.nn.MultiLabelSoftMarginLoss(weight=c, reduction=reduction)(a, b),
           [x, y, w])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss(reduction, swap):
    a, p, n = _pair((6, 5), 10), _pair((6, 5), 11), _pair((6, 5), 12)
    _check(lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=1.5, p=3, swap=swap,
                                                 reduction=reduction),
           lambda x, y, z: torch.nn.functional.triplet_margin_loss(
               x, y, z, margin=1.5, p=3, swap=swap, reduction=reduction), [a, p, n])
    a, p, n = _pair((5,), 13), _pair((5,), 14), _pair((5,), 15)
    red = REDUCTIONS.index(reduction)
    _check(lambda x, y, z: ember.triplet_margin_loss(x, y, z, 1.0, 2, 1e-6, swap, red),
           lambda x, y, z: torch.triplet_margin_loss(x, y, z, 1.0, 2, 1e-6, swap, red),
           [a, p, n])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance_loss(reduction):
    a, p, n = _pair((4, 3), 16), _pair((4, 3), 17), _pair((4, 3), 18)

    def cos(m):
        return lambda x, y: 1 - m.nn.functional.cosine_similarity(x, y)
    _check(lambda x, y, z: ember.nn.TripletMarginWithDistanceLoss(
               distance_function=cos(ember), margin=0.5, swap=True, reduction=reduction)(x, y, z),
           lambda x, y, z: torch.nn.TripletMarginWithDistanceLoss(
               distance_function=cos(torch), margin=0.5, swap=True, reduction=reduction)(x, y, z),
           [a, p, n])
    _check(lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, reduction=reduction),
           lambda x, y, z: torch.nn.functional.triplet_margin_with_distance_loss(
               x, y, z, reduction=reduction), [a, p, n])


@pytest.mark.parametrize("p", [0, 1, 2, 3, float("inf")])
def test_pdist(p):
    x = _pair((5, 3), 19)
    _check(lambda a: F.pdist(a, p), lambda a: torch.nn.functional.pdist(a, p), [x])
    v = np.random.default_rng(1).standard_normal((4, 3))
    v[2] = v[0]  # equal rows: distance 0, gradient 0 (as torch)
    x = (ember.from_numpy(v.copy()).requires_grad_(), torch.from_numpy(v.copy()).requires_grad_())
    _check(lambda a: ember.pdist(a, p), lambda a: torch.pdist(a, p), [x])
    assert tuple(F.pdist(ember.zeros(1, 3)).shape) == (0,)


def test_margin_losses_gradcheck_float64():
    x = _pair((3, 4), 20)[0]
    y = ember.tensor([1, 0, 3])
    ym = ember.tensor([[1, 2, -1, 0], [0, -1, 0, 0], [3, 2, 1, 0]])
    gc = ember.autograd.gradcheck
    assert gc(lambda a: F.multi_margin_loss(a, y, p=2, margin=0.9), (x,), eps=1e-6, atol=1e-6)
    assert gc(lambda a: F.multilabel_margin_loss(a, ym), (x,), eps=1e-6, atol=1e-6)
    a, p, n = (_pair((3, 4), s)[0] for s in (21, 22, 23))
    assert gc(lambda u, v, w: F.triplet_margin_loss(u, v, w, swap=True), (a, p, n), eps=1e-6,
              atol=1e-6)
    assert gc(lambda u: F.pdist(u), (a,), eps=1e-6, atol=1e-6)


def test_margin_losses_bad_inputs():
    x = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match="multi_margin_loss: target out of range"):
        F.multi_margin_loss(x, ember.tensor([0, 1, 5]))
    with pytest.raises(RuntimeError, match=r"multi_margin_loss: target tensor should be 1-D"):
        F.multi_margin_loss(x, ember.tensor([0, 1]))
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(x, ember.tensor([0, 1, 2]), p=3)
    with pytest.raises(RuntimeError, match=r"inconsistent weight size, expected 4"):
        F.multi_margin_loss(x, ember.tensor([0, 1, 2]), weight=ember.ones(3))
    with pytest.raises(RuntimeError, match=r"Expected non-empty vector or matrix"):
        F.multi_margin_loss(ember.zeros(2, 3, 4), ember.tensor([1]))
    with pytest.raises(RuntimeError, match=r"multilabel_margin_loss: argument #2 'target' is out"):
        F.multilabel_margin_loss(x, ember.tensor([[0, 1, -1, 5]] * 3))
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[3, 3\]"):
        F.multilabel_margin_loss(x, ember.tensor([[0, 1, -1]] * 3))
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        F.multilabel_margin_loss(x, ember.zeros(3, 4))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_loss(x, x, ember.zeros(3))
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_loss(x, x, x, margin=0)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.triplet_margin_with_distance_loss(x, x, x, reduction="avg")
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        F.pdist(ember.zeros(3))
    with pytest.raises(RuntimeError, match="non-negative p"):
        F.pdist(x, -1)
    with pytest.raises(RuntimeError, match="floating-point"):
        F.pdist(ember.zeros(3, 4, dtype=ember.int64))
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        ember.nn.MultiMarginLoss(p=3)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_loss_module(reduction):
    a, p, n = _pair((6, 5), 20), _pair((6, 5), 21), _pair((6, 5), 22)
    _check(lambda x, y, z: ember.nn.TripletMarginLoss(margin=0.5, p=1.5, swap=True,
                                                      reduction=reduction)(x, y, z),
           lambda x, y, z: torch.nn.TripletMarginLoss(margin=0.5, p=1.5, swap=True,
                                                      reduction=reduction)(x, y, z), [a, p, n])
    assert repr(ember.nn.TripletMarginLoss(margin=0.5)) == repr(torch.nn.TripletMarginLoss(margin=0.5))
    # broadcasting a single anchor against a batch, and a non-contiguous positive
    a, p, n = _pair((1, 5), 23), _pair((5, 6), 24), _pair((6, 5), 25)
    _check(lambda x, y, z: ember.nn.TripletMarginLoss(reduction=reduction)(x, y.t(), z),
           lambda x, y, z: torch.nn.TripletMarginLoss(reduction=reduction)(x, y.t(), z), [a, p, n])
    x = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    y, z = ember.randn(4, 3, dtype=ember.float64), ember.randn(4, 3, dtype=ember.float64)
    assert ember.autograd.gradcheck(lambda v: ember.nn.TripletMarginLoss(margin=2.0)(v, y, z), [x])
    for lib in (torch, ember):
        with pytest.raises(RuntimeError):
            lib.nn.TripletMarginLoss()(lib.ones(4, 3), lib.ones(4, 3), lib.ones(5, 2))
        with pytest.raises((ValueError, RuntimeError)):
            lib.nn.TripletMarginLoss(margin=-1.0)(lib.ones(4, 3), lib.ones(4, 3), lib.ones(4, 3))
