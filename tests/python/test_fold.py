"""nn.Fold / nn.Unfold and F.fold / F.unfold (im2col / col2im) against torch 2.13: forward
and gradients on random inputs (kernel, dilation, padding, stride; unbatched; empty batch),
repr, and torch's errors."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F
from helpers import assert_same, errors_of_both

GEOMS = [dict(kernel_size=2), dict(kernel_size=(3, 2), dilation=(2, 1), padding=(1, 2),
                                   stride=(2, 3)),
         dict(kernel_size=3, padding=1), dict(kernel_size=(1, 4), stride=2),
         dict(kernel_size=7, dilation=1)]


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


@pytest.mark.parametrize("geom", GEOMS)
@pytest.mark.parametrize("shape", [(2, 3, 7, 7), (3, 7, 8), (0, 2, 7, 7)])
def test_unfold_forward_and_gradient(geom, shape):
    e, t = _pair(shape)
    ye, yt = F.unfold(e, **geom), torch.nn.functional.unfold(t, **geom)
    assert_same(ye, yt.detach())
    if yt.numel() == 0:
        return
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    assert_same(e.grad, t.grad, 1e-10, 1e-12)


@pytest.mark.parametrize("geom", GEOMS)
@pytest.mark.parametrize("batch", [2, None])
def test_fold_forward_and_gradient(geom, batch):
    out = (7, 7)
    blocks = torch.nn.functional.unfold(torch.zeros(1, 1, *out), **geom).shape
    shape = (3 * blocks[1], blocks[2]) if batch is None else (batch, 3 * blocks[1], blocks[2])
    e, t = _pair(shape)
    ye, yt = F.fold(e, out, **geom), torch.nn.functional.fold(t, out, **geom)
    assert_same(ye, yt.detach(), 1e-10, 1e-12)
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    assert_same(e.grad, t.grad, 1e-10, 1e-12)


def test_modules_and_float32():
    a = np.random.default_rng(3).standard_normal((2, 4, 6, 5)).astype(np.float32)
    u, tu = nn.Unfold(3, padding=1), torch.nn.Unfold(3, padding=1)
    f, tf = nn.Fold((6, 5), 3, padding=1), torch.nn.Fold((6, 5), 3, padding=1)
    assert (repr(u), repr(f)) == (repr(tu), repr(tf))
    assert list(u.state_dict()) == list(f.state_dict()) == []
    assert_same(f(u(ember.tensor(a))), tf(tu(torch.tensor(a))), 1e-5, 1e-5)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.unfold(m.ones(1, 1, 3, 3), 4),
    lambda m: m.nn.functional.unfold(m.ones(1, 1, 3, 3), 0),
    lambda m: m.nn.functional.unfold(m.ones(1, 1, 3, 3), 2, stride=0),
    lambda m: m.nn.functional.unfold(m.ones(1, 1, 3, 3), 2, padding=-1),
    lambda m: m.nn.functional.fold(m.ones(1, 5, 4), (3, 3), 2),
    lambda m: m.nn.functional.fold(m.ones(1, 4, 5), (3, 3), 2),
    lambda m: m.nn.functional.fold(m.ones(4), (3, 3), 2),
])
def test_errors_match_torch(call):
    e, t = errors_of_both(call)
    assert e == t.split("\n")[0]
