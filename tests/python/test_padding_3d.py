"""ZeroPad3d, ConstantPad3d, ReflectionPad3d, ReplicationPad3d, CircularPad3d against torch
2.13: forward and gradients on batched and unbatched 5-d/4-d inputs, repr, bad inputs."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
from helpers import assert_same

BUILD = [("ZeroPad3d", (1,)), ("ZeroPad3d", ((1, 0, 2, 1, 0, 2),)),
         ("ConstantPad3d", ((0, 1, 1, 2, 2, 0), 3.5)), ("ConstantPad3d", (2, -1.0)),
         ("ReflectionPad3d", ((1, 2, 0, 1, 2, 1),)), ("ReflectionPad3d", (1,)),
         ("ReplicationPad3d", ((2, 0, 1, 3, 0, 1),)), ("CircularPad3d", ((1, 1, 0, 2, 1, 0),))]


@pytest.mark.parametrize("name,args", BUILD)
@pytest.mark.parametrize("shape", [(2, 3, 3, 4, 5), (3, 3, 4, 5)])
def test_pad3d_modules_match_torch(name, args, shape):
    m, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(m) == repr(tm)
    a = np.random.default_rng(0).standard_normal(shape)
    e, t = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ye, yt = m(e), tm(t)
    assert_same(ye, yt.detach())
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    assert_same(e.grad, t.grad)


def test_pad3d_bad_inputs():
    with pytest.raises(ValueError, match="expected 4D or 5D input \\(got 3D input\\)"):
        nn.CircularPad3d(1)(ember.ones(2, 3, 4))
    with pytest.raises(ValueError, match="expected 4D or 5D input \\(got 3D input\\)"):
        torch.nn.CircularPad3d(1)(torch.ones(2, 3, 4))
    with pytest.raises(ValueError, match="padding must be an int or a 6-tuple"):
        nn.ZeroPad3d((1, 2))
