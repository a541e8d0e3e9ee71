"""ember.masked (torch.masked's reductions and normalizations with a mask) against torch 2.13:
values with broadcast masks, rows with nothing kept, no mask, dims and keepdim, gradients to the
kept elements, and the errors."""
import numpy as np
import pytest
import torch
import torch.masked  # noqa: F401

import ember
import ember.masked
from helpers import assert_same

REDUCTIONS = ["sum", "mean", "amax", "amin", "prod", "std", "var", "logsumexp", "norm"]
ALONG_DIM = ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(3, 4))
    mask = rng.random((3, 4)) < 0.6
    mask[2] = False  # a row with nothing kept
    return x, mask


@pytest.mark.parametrize("name", REDUCTIONS)
def test_masked_reductions(name):
    x, mask = _data()
    for dim, keepdim in ((1, False), (0, True), ((0, 1), False), (None, False)):
        if name == "norm":
            kw = dict(dim=dim, keepdim=keepdim)
            args = (2.0,)
        else:
            kw, args = dict(dim=dim, keepdim=keepdim), ()
        if dim is None and name in ("norm",):
            continue
        for m in (mask, None):
            want = getattr(torch.masked, name)(torch.from_numpy(x), *args, **kw,
                                               mask=None if m is None else torch.from_numpy(m))
            got = getattr(ember.masked, name)(ember.from_numpy(x), *args, **kw,
                                              mask=None if m is None else ember.from_numpy(m))
            assert_same(got, want)


@pytest.mark.parametrize("name", ALONG_DIM + ["normalize"])
def test_masked_along_dim(name):
    x, mask = _data(1)
    args = (2.0, 1) if name == "normalize" else (1,)
    want = getattr(torch.masked, name)(torch.from_numpy(x), *args, mask=torch.from_numpy(mask[0]))
    got = getattr(ember.masked, name)(ember.from_numpy(x), *args, mask=ember.from_numpy(mask[0]))
    assert_same(got, want)
    want = getattr(torch.masked, name)(torch.from_numpy(x), *args, mask=torch.from_numpy(mask))
    got = getattr(ember.masked, name)(ember.from_numpy(x), *args, mask=ember.from_numpy(mask))
    assert_same(got, want)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "softmax", "var"])
def test_masked_grad(name):
    x, mask = _data(2)
    mask[2, 0] = True
    tx, ex = torch.from_numpy(x).requires_grad_(), ember.from_numpy(x).requires_grad_()
    getattr(torch.masked, name)(tx, 1, mask=torch.from_numpy(mask)).nan_to_num().sum().backward()
    getattr(ember.masked, name)(ex, 1, mask=ember.from_numpy(mask)).nan_to_num().sum().backward()
    assert_same(ex.grad, tx.grad)


def test_masked_errors():
    with pytest.raises((TypeError, ValueError)):
        ember.masked.sum(ember.ones(2, 3), 1, mask=ember.ones(2, 3))
    with pytest.raises(ValueError):
        ember.masked.sum(ember.ones(2, 3), 1, mask=ember.ones(4, dtype=ember.bool))
    with pytest.raises(TypeError):
        ember.masked.sum([1.0, 2.0])
