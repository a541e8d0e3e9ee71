"""torch.masked_scatter, torch.put and torch.unravel_index (ember/_scatter_writes.py) against
torch 2.13: values with broadcast masks, accumulate, negative indices, in-place forms, gradients
of input and source, and torch's errors (nothing written on a bad call)."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same


def _pair(arr, grad=False):
    e, t = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    return (e.requires_grad_(), t.requires_grad_()) if grad else (e, t)


def _check_write(name, x, index, src, rng, *args):
    """torch.<name>(input, index, source, *args) (index: masked_scatter's mask, put's indices)
    against torch: the value, the gradients of input and source for a random grad_output, and
    the in-place Tensor.<name>_ (which returns its input). Returns the (ember, torch) pairs of
    index and of source (detached)."""
    (ex, tx), (ei, ti), (es, ts) = _pair(x, True), _pair(index), _pair(src, True)
    want, got = getattr(torch, name)(tx, ti, ts, *args), getattr(ember, name)(ex, ei, es, *args)
    assert_same(got, want)
    g = rng.normal(size=x.shape)
    want.backward(torch.from_numpy(g))
    got.backward(ember.from_numpy(g))
    assert_same(ex.grad, tx.grad)
    assert_same(es.grad, ts.grad)
    e2, t2 = _pair(x)
    es, ts = es.detach(), ts.detach()
    assert getattr(e2, name + "_")(ei, es, *args) is e2
    assert_same(e2, getattr(t2, name + "_")(ti, ts, *args))
    return (ei, ti), (es, ts)


def test_masked_scatter_values_and_grad():
    rng = np.random.default_rng(0)
    x, src = rng.normal(size=(3, 4)), rng.normal(size=(15,))
    mask = rng.random((4,)) < 0.5
    _, (es, ts) = _check_write("masked_scatter", x, mask, src, rng)
    # the input broadcasts against the mask in the function form
    e3, t3 = _pair(rng.normal(size=(4,)))
    m3 = rng.random((2, 4)) < 0.5
    assert_same(ember.masked_scatter(e3, ember.from_numpy(m3), es),
                torch.masked_scatter(t3, torch.from_numpy(m3), ts))


def test_masked_scatter_errors():
    x = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="boolean"):
        x.masked_scatter(ember.ones(3), ember.ones(6))
    with pytest.raises(RuntimeError, match="same dtypes"):
        x.masked_scatter(ember.ones(3, dtype=ember.bool), ember.ones(6, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="source"):
        x.masked_scatter_(ember.ones(3, dtype=ember.bool), ember.ones(2))
    assert x.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("accumulate", [False, True])
def test_put(accumulate):
    rng = np.random.default_rng(1)
    x, src = rng.normal(size=(3, 4)), rng.normal(size=(2, 3))
    idx = np.array([[0, -1, 5], [5, 11, -12]]) if accumulate else np.array([[0, -1, 5], [6, 2, -9]])
    (ei, ti), (es, ts) = _check_write("put", x, idx, src, rng, accumulate)
    e3, t3 = _pair(x.T)  # a non-contiguous target
    assert_same(e3.put_(ei, es, accumulate), t3.put_(ti, ts, accumulate))


def test_put_errors():
    x = ember.zeros(2, 2)
    with pytest.raises(IndexError):
        x.put_(ember.tensor([0, 4]), ember.tensor([5.0, 6.0]))
    with pytest.raises(RuntimeError, match="same number of elements"):
        x.put_(ember.tensor([0, 1]), ember.tensor([5.0]))
    assert x.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_unravel_index():
    for idx, shape in (([4, -1, 0, 5], (3, 2)), ([[7, 3], [0, 23]], (2, 3, 4)), (3, 5), (-7, (3, 2))):
        e = ember.unravel_index(ember.tensor(idx), shape)
        t = torch.unravel_index(torch.tensor(idx), shape)
        assert_same(e, t)
    with pytest.raises(TypeError, match="integer dtype"):
        ember.unravel_index(ember.tensor([1.0]), (3, 2))
    with pytest.raises(ValueError, match="negative"):
        ember.unravel_index(ember.tensor([1]), (3, -2))
    with pytest.raises(TypeError):
        ember.unravel_index(ember.tensor([1]), (3, 2.0))
