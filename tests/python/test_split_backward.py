"""split, split_with_sizes, chunk and unbind record one backward node for all their pieces
(torch's SplitBackward0, SplitWithSizesBackward0, UnbindBackward0; Note [One node for split
and unbind] in src/ops/views.cpp): gradients against torch when every piece, some pieces or
none are used, non-contiguous inputs, an in-place write to a piece, double backward, finite
differences, and the node names."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, gradcheck_op, to_numpy

SPLITS = {
    "split": lambda m, x: x.split(2, dim=1),
    "split_with_sizes": lambda m, x: x.split([1, 3, 1], dim=1),
    "chunk": lambda m, x: x.chunk(3, dim=-1),
    "unbind": lambda m, x: x.unbind(1),
}
NAMES = {"split": "SplitBackward0", "split_with_sizes": "SplitWithSizesBackward0",
         "chunk": "SplitBackward0", "unbind": "UnbindBackward0"}


def combine(pieces, which):
    """A scalar-free differentiable use of the pieces in `which` (different weights each)."""
    return sum((i + 1) * pieces[i].exp() for i in which).sum(0)


@pytest.mark.parametrize("op", list(SPLITS))
@pytest.mark.parametrize("which", [(0, 1, 2), (1,), (0, 2)])
def test_gradients_like_torch(op, which):
    check_grad(lambda m, x: combine(SPLITS[op](m, x), which).sum(-1), [(4, 5, 5)],
               layouts=LAYOUTS)


@pytest.mark.parametrize("op", list(SPLITS))
def test_one_node_named_as_torch(op):
    x = np.random.default_rng(0).standard_normal((3, 5, 5))
    e = SPLITS[op](ember, ember.from_numpy(x).requires_grad_(True))
    t = SPLITS[op](torch, torch.from_numpy(x).requires_grad_(True))
    assert e[0].grad_fn.name() == t[0].grad_fn.name() == NAMES[op]
    assert all(p.grad_fn == e[0].grad_fn for p in e)  # one node (torch's too)
    assert all(p.grad_fn is t[0].grad_fn for p in t)


@pytest.mark.parametrize("op", list(SPLITS))
def test_gradcheck(op):
    gradcheck_op(lambda m, x: combine(SPLITS[op](m, x), (0, 2)), [(2, 5, 5)])


def test_double_backward():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 6))
    res = []
    for m in (ember, torch):
        xt = m.from_numpy(x.copy()).requires_grad_(True)
        a, b, c = xt.split(2, dim=1)
        y = (a * a * b).sum() + c.pow(3).sum()
        g, = m.autograd.grad(y, xt, create_graph=True)
        (g * g).sum().backward()
        res.append((to_numpy(g.detach()), to_numpy(xt.grad)))
    for e, t in zip(*res):
        np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12)


def test_inplace_write_to_a_piece():
    """A piece written in place leaves the shared node (its history moves to the write);
    the input's gradient is what torch's composite would give. (torch refuses in-place on
    the outputs of a multi-view op; ember keeps allowing it, as slices do.)"""
    x = np.random.default_rng(2).standard_normal((3, 6))
    xe = ember.from_numpy(x.copy()).requires_grad_(True)
    h = xe * 1.0
    a, b, c = h.split(2, dim=1)
    b.mul_(3.0)
    (a.sum() + 2 * b.sum() + (c * c).sum()).backward()
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    ht = xt * 1.0
    ref = torch.cat([ht[:, :2], ht[:, 2:4] * 3.0, ht[:, 4:]], 1)
    (ref[:, :2].sum() + 2 * ref[:, 2:4].sum() + (ref[:, 4:] ** 2).sum()).backward()
    np.testing.assert_allclose(to_numpy(xe.grad), xt.grad.numpy(), rtol=1e-12)


def test_empty_and_size_zero_pieces():
    assert len(ember.zeros(3, 0, requires_grad=True).unbind(1)) == 0
    x = ember.ones(2, 4, requires_grad=True)
    p = x.split([0, 4, 0], dim=1)
    p[1].sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), np.ones((2, 4), np.float32))


def test_bad_input():
    with pytest.raises(ValueError, match="split"):
        ember.ones(2, 4, requires_grad=True).split([1, 2], dim=1)
    with pytest.raises(ValueError):
        ember.tensor(1.0, requires_grad=True).unbind(0)
