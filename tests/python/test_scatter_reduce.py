"""torch.scatter_reduce, index_reduce and segment_reduce (src/ops/scatter_reduce.cpp) against
torch 2.13: every reduce with and without include_self, dtypes, dims, a src larger than the
index, gradients of self and src, in-place forms, empty indices, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

REDUCES = ["sum", "prod", "mean", "amax", "amin"]
warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")


def _pair(arr, requires_grad=False):
    e, t = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def _case(rng, dtype, self_shape, index_shape, src_shape, dim):
    if np.dtype(dtype).kind == "f":
        base = rng.uniform(-2, 2, self_shape).astype(dtype)
        src = rng.uniform(-2, 2, src_shape).astype(dtype)
    else:
        base = rng.integers(-5, 6, self_shape).astype(dtype)
        src = rng.integers(-5, 6, src_shape).astype(dtype)
    idx = rng.integers(0, self_shape[dim], index_shape).astype(np.int64)
    return base, idx, src


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_scatter_reduce_values(reduce, include_self, dtype):
    rng = np.random.default_rng(1)
    for self_shape, index_shape, src_shape, dim in [((5,), (7,), (7,), 0), ((3, 4), (5, 2), (6, 4), 0),
                                                     ((3, 4), (2, 6), (3, 6), 1), ((2, 3, 4), (2, 2, 3), (2, 3, 3), -2)]:
        base, idx, src = _case(rng, dtype, self_shape, index_shape, src_shape, dim)
        (eb, tb), (ei, ti), (es, ts) = _pair(base), _pair(idx), _pair(src)
        want = tb.scatter_reduce(dim, ti, ts, reduce, include_self=include_self)
        assert_same(eb.scatter_reduce(dim, ei, es, reduce, include_self=include_self), want)
        assert_same(ember.scatter_reduce(eb, dim, ei, es, reduce=reduce, include_self=include_self), want)
        eb2 = eb.clone()
        assert eb2.scatter_reduce_(dim, ei, es, reduce, include_self=include_self) is eb2
        assert_same(eb2, want)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_grad(reduce, include_self):
    rng = np.random.default_rng(2)
    base, idx, src = _case(rng, np.float64, (3, 4), (5, 3), (5, 3), 0)
    src[1, 1] = 0.0  # prod's single-zero path
    (eb, tb), (es, ts) = _pair(base, True), _pair(src, True)
    ei, ti = _pair(idx)
    g = rng.uniform(-1, 1, (3, 4))
    tb.scatter_reduce(0, ti, ts, reduce, include_self=include_self).backward(torch.from_numpy(g))
    eb.scatter_reduce(0, ei, es, reduce, include_self=include_self).backward(ember.from_numpy(g))
    assert_same(eb.grad, tb.grad, 1e-10, 1e-10)
    assert_same(es.grad, ts.grad, 1e-10, 1e-10)
    # a src larger than the index (torch's backward refuses it): the corner gets the same
    # gradient, the rest zeros
    big = np.zeros((6, 4))
    big[:5, :3] = src
    eb2, es2 = _pair(base, True)[0], _pair(big, True)[0]
    eb2.scatter_reduce(0, ei, es2, reduce, include_self=include_self).backward(ember.from_numpy(g))
    want = np.zeros((6, 4))
    want[:5, :3] = ts.grad.numpy()
    np.testing.assert_allclose(es2.grad.numpy(), want, atol=1e-10)


def test_scatter_reduce_empty_and_nan():
    e = ember.zeros(3).scatter_reduce(0, ember.zeros(0, dtype=ember.int64), ember.zeros(0), "amax")
    assert e.tolist() == [0.0, 0.0, 0.0]
    src = [1.0, float("nan"), 2.0]
    for reduce in ("amax", "amin"):
        t = torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor(src), reduce)
        e = ember.zeros(2).scatter_reduce(0, ember.tensor([0, 0, 1]), ember.tensor(src), reduce)
        assert_same(e, t)


def test_scatter_reduce_errors():
    x, i, s = ember.zeros(3), ember.tensor([0, 1]), ember.ones(2)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got foo"):
        x.scatter_reduce(0, i, s, "foo")
    with pytest.raises(RuntimeError, match="dtype"):
        x.scatter_reduce(0, i, ember.ones(2, dtype=ember.float64), "sum")
    with pytest.raises(IndexError):
        x.scatter_reduce(0, ember.tensor([0, 3]), s, "sum")
    y = ember.arange(3.0)
    with pytest.raises(IndexError):  # nothing written on a bad index
        y.scatter_reduce_(0, ember.tensor([0, 5]), s, "sum")
    assert y.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    rng = np.random.default_rng(3)
    base = rng.uniform(-2, 2, (4, 3))
    src = rng.uniform(-2, 2, (4, 5))
    idx = np.array([0, 2, 0, 1, 0])
    (eb, tb), (es, ts) = _pair(base, True), _pair(src, True)
    ei, ti = _pair(idx)
    want = tb.index_reduce(1, ti, ts, reduce, include_self=include_self)
    got = eb.index_reduce(1, ei, es, reduce, include_self=include_self)
    assert_same(got, want, 1e-10, 1e-10)
    g = rng.uniform(-1, 1, (4, 3))
    want.backward(torch.from_numpy(g))
    got.backward(ember.from_numpy(g))
    assert_same(eb.grad, tb.grad, 1e-10, 1e-10)
    assert_same(es.grad, ts.grad, 1e-10, 1e-10)
    e2, t2 = _pair(base)
    t2.index_reduce_(1, ti, ts.detach(), reduce, include_self=include_self)
    assert e2.index_reduce_(1, ei, es.detach(), reduce, include_self=include_self) is e2
    assert_same(e2, t2, 1e-10, 1e-10)


def test_index_reduce_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin"):
        x.index_reduce(0, ember.tensor([0]), ember.ones(1, 4), "sum")
    with pytest.raises(RuntimeError, match="source tensor shape must match self tensor shape"):
        x.index_reduce(0, ember.tensor([0, 0]), ember.ones(2, 3), "prod")
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_reduce(0, ember.tensor([[0, 0]]), ember.ones(2, 4), "prod")
    with pytest.raises(RuntimeError, match="Number of indices"):
        x.index_reduce(0, ember.tensor([0, 0, 1]), ember.ones(2, 4), "prod")
    with pytest.raises(IndexError):
        x.index_reduce(0, ember.tensor([0, 5]), ember.ones(2, 4), "prod")


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce(reduce):
    rng = np.random.default_rng(4)
    data = rng.uniform(-2, 2, (6, 3))
    lengths = np.array([2, 0, 3, 1])
    (ed, td), (el, tl) = _pair(data, True), _pair(lengths)
    for initial in (None, 0.5):
        want = torch.segment_reduce(td, reduce, lengths=tl, initial=initial)
        got = ember.segment_reduce(ed, reduce, lengths=el, initial=initial)
        assert_same(got, want, 1e-10, 1e-10)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    eo, to = _pair(offsets)
    assert_same(ember.segment_reduce(ed, reduce, offsets=eo), torch.segment_reduce(td, reduce, offsets=to),
                1e-10, 1e-10)
    g = rng.uniform(-1, 1, (4, 3))
    torch.segment_reduce(td, reduce, lengths=tl, initial=1.0).backward(torch.from_numpy(g))
    ember.segment_reduce(ed, reduce, lengths=el, initial=1.0).backward(ember.from_numpy(g))
    assert_same(ed.grad, td.grad, 1e-10, 1e-10)
    # 2-d lengths along axis 1: one set of segments per row
    data2 = rng.uniform(-2, 2, (3, 5)).astype(np.float32)
    lengths2 = np.array([[2, 3], [0, 5], [4, 1]])
    (e2, t2), (el2, tl2) = _pair(data2), _pair(lengths2)
    assert_same(ember.segment_reduce(e2, reduce, lengths=el2, axis=1),
                torch.segment_reduce(t2, reduce, lengths=tl2, axis=1))


def test_segment_reduce_errors():
    d = ember.ones(5, 3)
    with pytest.raises(RuntimeError, match="sum to data.size"):
        ember.segment_reduce(d, "sum", lengths=ember.tensor([2, 2]))
    with pytest.raises(RuntimeError, match="reduce argument must be"):
        ember.segment_reduce(d, "foo", lengths=ember.tensor([2, 3]))
    with pytest.raises(RuntimeError, match="axis to be the last dimension of lengths"):
        ember.segment_reduce(d, "sum", lengths=ember.tensor([2, 3]), axis=1)
    with pytest.raises(RuntimeError, match="negative"):
        ember.segment_reduce(d, "sum", lengths=ember.tensor([6, -1]))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        ember.segment_reduce(ember.tensor([1, 2, 3]), "sum", lengths=ember.tensor([1, 2]))


def test_private_segment_reduce_is_the_public_one():
    # torch._segment_reduce is torch.segment_reduce (PyG's segment() calls the private name)
    assert torch._segment_reduce is torch.segment_reduce
    assert ember._segment_reduce is ember.segment_reduce
    d = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    for reduce in ("sum", "mean", "max", "min"):
        assert_same(ember._segment_reduce(ember.tensor(d), reduce, offsets=ember.tensor([0, 2, 2, 5])),
                    torch._segment_reduce(torch.tensor(d), reduce, offsets=torch.tensor([0, 2, 2, 5])))
