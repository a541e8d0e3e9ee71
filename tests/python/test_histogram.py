"""torch.histogram and torch.histogramdd (src/ops/histogram.cpp) against torch 2.13: bin counts
and edges for counts, ranges and edge tensors, weights, density, points on edges and outside,
NaN, empty inputs, out=, float64, and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same


def _pair(arr):
    return ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_counts_and_range(dtype):
    rng = np.random.default_rng(0)
    e, t = _pair(rng.normal(size=(7, 9)).astype(dtype))
    for kw in (dict(bins=10), dict(bins=4, range=(-1.0, 1.0)), dict(bins=3, density=True),
               dict(bins=5, range=(0.0, 2.0), density=True)):
        assert_same(tuple(ember.histogram(e, **kw)), tuple(torch.histogram(t, **kw)), 1e-5, 1e-6)
    w = rng.uniform(0, 1, (7, 9)).astype(dtype)
    ew, tw = _pair(w)
    assert_same(tuple(e.histogram(6, weight=ew)), tuple(t.histogram(6, weight=tw)), 1e-5, 1e-6)


def test_histogram_edges_ties_outside_nan_empty():
    x = np.array([0.0, 1.0, 2.0, 2.0, 2.5, 3.0, 4.0, -1.0, np.nan], np.float32)
    e, t = _pair(x)
    for edges in ([1.0, 2.0, 2.0, 3.0], [0.0, 0.5, 4.0], [1.0, 2.0]):
        eb, tb = _pair(np.array(edges, np.float32))
        assert_same(tuple(ember.histogram(e, eb)), tuple(torch.histogram(t, tb)))
        assert_same(tuple(ember.histogram(e, eb, density=True)), tuple(torch.histogram(t, tb, density=True)))
    assert_same(tuple(ember.histogram(e, 3, range=(0.0, 2.0))), tuple(torch.histogram(t, 3, range=(0.0, 2.0))))
    for arr in (np.zeros(0, np.float32), np.array([2.0, 2.0], np.float32)):  # empty; one value
        e, t = _pair(arr)
        assert_same(tuple(ember.histogram(e, 4)), tuple(torch.histogram(t, 4)))


def test_histogram_out_and_named_result():
    h, b = ember.empty(3), ember.empty(4)
    r = ember.histogram(ember.tensor([0.0, 1.0, 2.0]), 3, out=(h, b))
    assert r.hist is h and r.bin_edges is b and h.tolist() == [1.0, 1.0, 1.0]


def test_histogramdd():
    rng = np.random.default_rng(1)
    e, t = _pair(rng.normal(size=(20, 3)).astype(np.float32))
    for kw in (dict(bins=[3, 4, 2]), dict(bins=2, range=[0.0, 1.0, -1.0, 1.0, -2.0, 2.0]),
               dict(bins=[2, 3, 4], density=True)):
        te = torch.histogramdd(t, **kw)
        ee = ember.histogramdd(e, **kw)
        assert_same(ee.hist, te.hist, 1e-5, 1e-6)
        assert_same(tuple(ee.bin_edges), tuple(te.bin_edges), 1e-5, 1e-6)
    edges = [np.array([-1.0, 0.0, 1.0], np.float32), np.array([-2.0, 2.0], np.float32),
             np.array([0.0, 0.5, 1.0, 3.0], np.float32)]
    ee = ember.histogramdd(e, [ember.from_numpy(x) for x in edges])
    te = torch.histogramdd(t, [torch.from_numpy(x) for x in edges])
    assert_same(ee.hist, te.hist)
    w = rng.uniform(size=(4, 5)).astype(np.float32)
    pts = rng.normal(size=(4, 5, 2)).astype(np.float32)
    (ep, tp), (ew, tw) = _pair(pts), _pair(w)
    assert_same(ember.histogramdd(ep, [3, 3], weight=ew).hist, torch.histogramdd(tp, [3, 3], weight=tw).hist,
                1e-5, 1e-6)


def test_histogram_errors():
    x = ember.randn(5)
    with pytest.raises(NotImplementedError, match="histogram"):
        ember.histogram(ember.arange(4), 3)
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        ember.histogram(x, 3, range=(2.0, 1.0))
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        ember.histogram(x, 0)
    with pytest.raises(RuntimeError, match="is not finite"):
        ember.histogram(ember.tensor([1.0, float("nan")]), 3)
    with pytest.raises(RuntimeError, match="weight"):
        ember.histogram(x, 3, weight=ember.ones(3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.histogramdd(x, 2)
    with pytest.raises(RuntimeError, match="size of bins must be equal"):
        ember.histogramdd(ember.randn(5, 2), [2, 2, 2])
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.histogram(x, ember.tensor([0.0, 1.0], dtype=ember.float64))
