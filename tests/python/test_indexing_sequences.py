"""Any Python sequence is an index list, as in PyTorch: x[range(3)], x[[0, 1], range(2)],
x_[range(n), y] = v (pytorch/examples mnist_forward_forward), NumPy integer arrays and
scalars, and PyTorch's rule for when a non-tuple sequence is a tuple of indices."""
import collections
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

BASE = np.arange(60.0).reshape(3, 4, 5)

GET = [
    "range(2)", "range(0)", "range(2, 0, -1)", "(range(2), [1, 3])", "([0, 2], range(2))",
    "[[0, 1], range(2)]", "[range(2), range(2)]", "(range(2),)", "(slice(None), range(1, 4, 2))",
    "(Ellipsis, range(3))", "(None, range(2), 1)", "[0, slice(None)]", "[[0, 1], [1, 2]]",
    "np.int64(2)", "np.array([2, 0])", "[np.int64(1), np.int64(0)]", "(np.array([0, 1]), 1)",
    "collections.deque([2, 1])", "[(0, 1)]", "((0, 1),)", "[[True, False, True]]",
    "(range(3), [[0], [1]])", "[0, 1]", "(0, 1)", "range(-3, 0)",
]


def _both(expr):
    idx = eval(expr)
    # torch reads the same object; a deque would be consumed by neither, but copy to be safe
    return idx, eval(expr)


@pytest.mark.parametrize("expr", GET)
def test_getitem_matches_torch(expr):
    ei, ti = _both(expr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(BASE.copy())[ti]
        e = ember.from_numpy(BASE.copy())[ei]
    assert_same(e, t)


@pytest.mark.parametrize("expr", ["range(2)", "(range(3), [1, 0, 3])", "[[0, 2], range(2)]",
                                  "(slice(None), range(1, 3))", "np.array([1, 1])"])
def test_setitem_matches_torch(expr):
    ei, ti = _both(expr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(BASE.copy())
        e = ember.from_numpy(BASE.copy())
        t[ti] = -1.0
        e[ei] = -1.0
        assert_same(e, t)
        t[ti] = t[ti] * 3
        e[ei] = e[ei] * 3
    assert_same(e, t)


def test_forward_forward_overlay():
    # the mnist_forward_forward line: x_[range(x.shape[0]), y] = x.max()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 10)).astype(np.float32)
    y = rng.integers(0, 10, 6)
    t, e = torch.from_numpy(x.copy()), ember.from_numpy(x.copy())
    t[range(t.shape[0]), torch.from_numpy(y)] = t.max()
    e[range(e.shape[0]), ember.from_numpy(y)] = e.max()
    assert_same(e, t)


def test_gradient_through_sequence_index():
    x = BASE[0].astype(np.float64)
    t = torch.tensor(x, requires_grad=True)
    e = ember.tensor(x, requires_grad=True)
    (t[range(3), [0, 2, 2]] * torch.arange(3.0, dtype=torch.float64)).sum().backward()
    (e[range(3), [0, 2, 2]] * ember.arange(3.0, dtype=ember.float64)).sum().backward()
    assert_same(e.grad, t.grad)


def test_list_read_as_tuple_warns_like_torch():
    e = ember.zeros(3, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
        e[[0, slice(None)]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e[range(2)]  # an index list: no warning
        e[[0, 1]]


@pytest.mark.parametrize("expr", ["range(5)", "(range(3), range(6))", "[[0, 1], [0, 1, 2]]",
                                  "range(3, 4)"])
def test_out_of_range_raises_index_error(expr):
    ei, ti = _both(expr)
    with pytest.raises(IndexError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.zeros(3, 4)[ti]
    with pytest.raises(IndexError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.zeros(3, 4)[ei]
    assert "index" in str(info.value)


def test_ragged_and_bad_elements():
    for bad in ([[0, 1], [2]], [range(2), [1]]):
        with pytest.raises((ValueError, IndexError)):
            ember.zeros(3, 4)[bad, 0]
    with pytest.raises(IndexError, match="valid indices"):
        ember.zeros(3)["ab"]
    with pytest.raises(IndexError), pytest.warns(UserWarning):  # torch reads "ab" as a tuple
        torch.zeros(3)["ab"]
