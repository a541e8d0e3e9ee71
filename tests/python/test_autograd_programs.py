"""The autograd issue's programs, run with only the import changed: they must end at
PyTorch's loss (within 1%) from the same starting values."""
import math

import numpy as np
import torch

import ember


def fit_cubic(torch, start):
    """PyTorch's 'tensors and autograd' example: a cubic fitted to sin(x)."""
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in start)
    learning_rate = 1e-6
    for t in range(2000):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    return loss.item(), [v.item() for v in (a, b, c, d)]


def fit_legendre(torch):
    """PyTorch's 'defining new autograd functions' example: P3 as a custom Function."""

    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
    learning_rate = 5e-6
    for t in range(2000):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    return loss.item(), [v.item() for v in (a, b, c, d)]


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
