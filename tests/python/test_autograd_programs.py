"""The autograd issue's programs (PyTorch's tutorials), each written once as a function of the
module (ember or torch): they must end at PyTorch's loss (within 1%) from the same starting
values."""
import math

import numpy as np
import torch

import ember
from _legendre_function import legendre_p3


def _descend(torch, predict, params, y, learning_rate, steps=2000):
    """The tutorials' training loop: the summed squared error of predict() against y,
    backward, and a hand-written SGD step on params under no_grad. Returns the last loss and
    the parameters' values."""
    for t in range(steps):
        loss = (predict() - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= learning_rate * p.grad
                p.grad = None
    return loss.item(), [v.item() for v in params]


def fit_cubic(torch, start):
    """PyTorch's 'tensors and autograd' example: a cubic fitted to sin(x)."""
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in start)
    return _descend(torch, lambda: a + b * x + c * x ** 2 + d * x ** 3, (a, b, c, d), y, 1e-6)


def fit_legendre(torch):
    """PyTorch's 'defining new autograd functions' example: P3 as a custom Function."""
    P3 = legendre_p3(torch).apply
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
    return _descend(torch, lambda: a + b * P3(c + d * x), (a, b, c, d), y, 5e-6)


def test_cubic_fit_reaches_torch_loss():
    start = [float(v) for v in np.random.default_rng(0).standard_normal(4)]
    t_loss, t_params = fit_cubic(torch, start)
    e_loss, e_params = fit_cubic(ember, start)
    assert abs(e_loss - t_loss) <= 0.01 * t_loss, (e_loss, t_loss)
    np.testing.assert_allclose(e_params, t_params, rtol=1e-2, atol=1e-3)


def test_legendre_custom_function_reaches_torch_loss():
    t_loss, t_params = fit_legendre(torch)
    e_loss, e_params = fit_legendre(ember)
    assert abs(e_loss - t_loss) <= 0.01 * t_loss, (e_loss, t_loss)
    np.testing.assert_allclose(e_params, t_params, rtol=1e-2, atol=1e-3)
