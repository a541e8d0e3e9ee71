"""ember.fft.fftfreq / rfftfreq / fftshift / ifftshift against torch 2.13: lengths 0..9, d,
dtypes, out=, requires_grad, shifts over chosen and repeated dims of any dtype, gradients,
errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import check_grad, check_op


def same(e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies(name):
    for n in range(10):
        for d in (1.0, 0.1, 3):
            same(getattr(ember.fft, name)(n, d), getattr(torch.fft, name)(n, d))
    same(getattr(ember.fft, name)(7, dtype=ember.float64),
         getattr(torch.fft, name)(7, dtype=torch.float64))
    e = getattr(ember.fft, name)(5, requires_grad=True)
    assert e.requires_grad and e.is_leaf
    out = ember.empty(3, dtype=ember.float64)
    assert getattr(ember.fft, name)(4 if name == "rfftfreq" else 3, out=out) is out
    with pytest.raises(RuntimeError, match=f"{name} requires a floating point or complex dtype"):
        getattr(ember.fft, name)(4, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        getattr(ember.fft, name)(-1)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name):
    for dim in (None, 0, 1, -1, (0, 1), (1, 0), (0, 0)):
        check_op(lambda m, x: getattr(m.fft, name)(x, dim=dim), [(5, 6)],
                 dtypes=["float32", "int64", "bool"], layouts=["contiguous", "transposed"])
    check_op(lambda m, x: getattr(m.fft, name)(x), [(7,)])
    check_op(lambda m, x: getattr(m.fft, name)(x), [()])
    check_op(lambda m, x: getattr(m.fft, name)(x), [(0, 3)])
    e = ember.view_as_complex(ember.arange(10.0).reshape(5, 2))
    t = torch.view_as_complex(torch.arange(10.0).reshape(5, 2))
    np.testing.assert_array_equal(getattr(ember.fft, name)(e).numpy(),
                                  getattr(torch.fft, name)(t).numpy())
    check_grad(lambda m, x: getattr(m.fft, name)(x, dim=(0, 1)), [(3, 4)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(ember.fft, name)(ember.zeros(3), dim=1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(torch.fft, name)(torch.zeros(3), dim=1)
