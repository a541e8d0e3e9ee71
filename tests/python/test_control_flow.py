"""torch.cond and torch.while_loop run eagerly (ember/_control_flow.py), compared with torch
2.13's results, gradients through the taken branch, and torch's errors."""
import pytest
import torch

import ember
from helpers import assert_same


def test_cond():
    for pred in (True, False):
        for mod in (torch, ember):
            x = mod.tensor([1.0, 2.0], requires_grad=True)
            out = mod.cond(mod.tensor(pred), lambda v: (v * 3).sin(), lambda v: v.cos(), (x,))
            out.sum().backward()
            if mod is torch:
                want, want_grad = out, x.grad
            else:
                assert_same(out, want)
                assert_same(x.grad, want_grad)
    assert ember.cond(False, lambda: 1, lambda: 2) == 2
    with pytest.raises(RuntimeError, match="single-element tensor"):
        ember.cond(ember.tensor([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(RuntimeError, match="bool or tensor"):
        ember.cond("yes", lambda: 1, lambda: 2)
    with pytest.raises(RuntimeError, match="callable"):
        ember.cond(True, 1, lambda: 2)
    with pytest.raises(RuntimeError, match="tensor leaves"):
        ember.cond(True, lambda a: a, lambda a: a, (3,))


def test_while_loop():
    want = torch.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (torch.tensor(0), torch.ones(2)))
    got = ember.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (ember.tensor(0), ember.ones(2)))
    assert_same(got, want)
    x = ember.ones(2)
    out = ember.while_loop(lambda v: v.sum() > 100, lambda v: (v,), (x,))
    assert out[0] is not x and out[0].tolist() == [1.0, 1.0]  # no iteration: a copy, as torch
    with pytest.raises(RuntimeError, match="boolean scalar tensor"):
        ember.while_loop(lambda v: v, lambda v: (v,), (ember.ones(2),))
    with pytest.raises(RuntimeError, match="same number of elements"):
        ember.while_loop(lambda v: v.sum() < 5, lambda v: (v + 1, v), (ember.ones(2),))
    with pytest.raises(RuntimeError, match="tuple or list"):
        ember.while_loop(lambda v: v.sum() < 5, lambda v: (v + 1,), ember.ones(2))
