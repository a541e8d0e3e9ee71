"""ember.fft's three C++ primitives (_C._fft_c2c, _fft_r2c, _fft_c2r: src/ops/fft.cpp on KISS
FFT), on complex values as a trailing dim of 2, against torch 2.13's own primitives
(torch._fft_c2c, _fft_r2c, _fft_c2r) through view_as_real: every length class (1, 2, odd,
primes 17 / 97 / 257 through Bluestein, powers of two), several dims, every normalization,
non-contiguous inputs, gradients against torch and by finite differences, bad inputs."""
import numpy as np
import pytest
import torch

import ember
from ember import _C
from helpers import LAYOUTS, check_grad, check_op, gradcheck_op

LENGTHS = [1, 2, 3, 5, 8, 12, 17, 30, 97, 128, 257]


def c2c(m, x, dims, norm, forward):
    if m is torch:
        return torch.view_as_real(torch._fft_c2c(torch.view_as_complex(x.contiguous()), dims,
                                                 norm, forward))
    return _C._fft_c2c(x, dims, norm, forward)


def r2c(m, x, dims, norm, onesided):
    if m is torch:
        return torch.view_as_real(torch._fft_r2c(x, dims, norm, onesided))
    return _C._fft_r2c(x, dims, norm, onesided)


def c2r(m, x, dims, norm, n):
    if m is torch:
        return torch._fft_c2r(torch.view_as_complex(x.contiguous()), dims, norm, n)
    return _C._fft_c2r(x, dims, norm, n)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("norm", [0, 1, 2])
def test_lengths_and_norms(n, norm):
    tol = dict(rtol=1e-4, atol=1e-4 * max(1, n) ** 0.5)
    for forward in (True, False):
        check_op(lambda m, x: c2c(m, x, [1], norm, forward), [(3, n, 2)], dtypes=["float32"], **tol)
        check_op(lambda m, x: c2c(m, x, [1], norm, forward), [(3, n, 2)], dtypes=["float64"],
                 rtol=1e-10, atol=1e-10)
    for onesided in (True, False):
        check_op(lambda m, x: r2c(m, x, [0], norm, onesided), [(n, 2)],
                 dtypes=["float32", "float64"], **tol)
    half = n // 2 + 1
    check_op(lambda m, x: c2r(m, x, [1], norm, n), [(2, half, 2)], dtypes=["float32", "float64"],
             **tol)


@pytest.mark.parametrize("dims", [[0, 1], [1, 0], [2, 0], [0, 1, 2]])
def test_several_dims(dims):
    shape = (4, 5, 6)
    for norm in (0, 1, 2):
        check_op(lambda m, x: c2c(m, x, dims, norm, True), [shape + (2,)],
                 dtypes=["float64"], rtol=1e-10, atol=1e-10)
        check_op(lambda m, x: r2c(m, x, dims, norm, True), [shape], dtypes=["float64"],
                 rtol=1e-10, atol=1e-10)
        out_shape = list(shape)
        out_shape[dims[-1]] = shape[dims[-1]] // 2 + 1
        check_op(lambda m, x: c2r(m, x, dims, norm, shape[dims[-1]]), [tuple(out_shape) + (2,)],
                 dtypes=["float64"], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_non_contiguous_inputs(layout):
    check_op(lambda m, x: r2c(m, x, [1], 0, True), [(3, 10)], dtypes=["float32"], layouts=[layout],
             rtol=1e-4, atol=1e-4)
    check_op(lambda m, x: c2c(m, x.unsqueeze(-1).expand(*x.shape, 2), [0], 2, False), [(6, 7)],
             dtypes=["float64"], layouts=[layout], rtol=1e-10, atol=1e-10)


def test_empty_batch_and_large_prime():
    x = ember.zeros(0, 8, 2)
    assert tuple(_C._fft_c2c(x, [1], 0, True).shape) == (0, 8, 2)
    assert tuple(_C._fft_r2c(ember.zeros(0, 8), [1], 0, True).shape) == (0, 5, 2)
    # 10007 is prime: Bluestein on a 2^15-point plan, O(n log n).
    rng = np.random.default_rng(0)
    a = rng.standard_normal(10007)
    got = _C._fft_r2c(ember.tensor(a), [0], 0, True).numpy()
    want = np.fft.rfft(a)
    np.testing.assert_allclose(got[:, 0] + 1j * got[:, 1], want, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("n", [1 << 14, 3 * (1 << 14), 2 * 16411, 100000])
def test_long_lengths(n):
    # The four-step split (2^14 = 128 x 128, 49152 = 192 x 256, 100000 = 250 x 400) and, for
    # 2 x 16411, Bluestein on the half-length transform of the real trick.
    rng = np.random.default_rng(n)
    a = rng.standard_normal((2, n))
    got = _C._fft_r2c(ember.tensor(a), [1], 0, True).numpy()
    np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], np.fft.rfft(a), rtol=1e-9,
                               atol=1e-8)
    z = rng.standard_normal((n, 2))
    got = _C._fft_c2c(ember.tensor(z), [0], 2, False).numpy()
    np.testing.assert_allclose(got[:, 0] + 1j * got[:, 1], np.fft.ifft(z[:, 0] + 1j * z[:, 1]),
                               rtol=1e-9, atol=1e-12)
    back = _C._fft_c2r(_C._fft_r2c(ember.tensor(a), [1], 0, True), [1], 2, n).numpy()
    np.testing.assert_allclose(back, a, atol=1e-12)


def test_c2r_ignores_imaginary_ends_and_extra_frequencies():
    x = torch.randn(2, 7, 2, dtype=torch.float64)
    want = torch._fft_c2r(torch.view_as_complex(x[:, :5].contiguous()), [1], 2, 8)
    got = _C._fft_c2r(ember.tensor(x.numpy()), [1], 2, 8)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [1, 4, 5, 17])
def test_gradients_against_torch(n):
    for norm in (0, 1, 2):
        check_grad(lambda m, x: c2c(m, x, [0], norm, True), [(n, 3, 2)])
        check_grad(lambda m, x: c2c(m, x, [0, 1], norm, False), [(n, 3, 2)])
        for onesided in (True, False):
            check_grad(lambda m, x: r2c(m, x, [1], norm, onesided), [(2, n)])
        check_grad(lambda m, x: r2c(m, x, [1, 0], norm, True), [(3, n)])
        check_grad(lambda m, x: c2r(m, x, [1], norm, n), [(2, n // 2 + 1, 2)])
        check_grad(lambda m, x: c2r(m, x, [0, 1], norm, n), [(3, n // 2 + 1, 2)])


def test_gradcheck_finite_differences():
    gradcheck_op(lambda m, x: _C._fft_c2c(x, [0, 1], 1, True), [(3, 4, 2)])
    gradcheck_op(lambda m, x: _C._fft_r2c(x, [1], 0, True), [(2, 7)])
    gradcheck_op(lambda m, x: _C._fft_r2c(x, [0, 1], 2, False), [(3, 6)])
    gradcheck_op(lambda m, x: _C._fft_c2r(x, [1], 2, 6), [(2, 4, 2)])
    gradcheck_op(lambda m, x: _C._fft_c2r(x, [0, 1], 1, 5), [(3, 3, 2)])


def test_double_backward():
    x = ember.randn(5, 2, dtype=ember.float64, requires_grad=True)
    y = _C._fft_c2c(x, [0], 1, True)
    (g,) = ember.autograd.grad((y * y).sum(), x, create_graph=True)
    g.sum().backward()
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ty = torch.view_as_real(torch._fft_c2c(torch.view_as_complex(tx), [0], 1, True))
    (tg,) = torch.autograd.grad((ty * ty).sum(), tx, create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_bad_inputs():
    x = ember.randn(4, 2)
    with pytest.raises(RuntimeError, match="fft_c2c: expected complex values as a trailing dim"):
        _C._fft_c2c(ember.randn(4, 3), [0], 0, True)
    with pytest.raises(RuntimeError, match="expected a float32 or float64 tensor, got int64"):
        _C._fft_r2c(ember.arange(4), [0], 0, True)
    with pytest.raises(IndexError):
        _C._fft_c2c(x, [1], 0, True)
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        _C._fft_r2c(ember.randn(3, 3), [0, -2], 0, True)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        _C._fft_c2r(x, [0], 0, 0)
    with pytest.raises(RuntimeError, match="fft_c2r: 10 output points need 6 input frequencies"):
        _C._fft_c2r(x, [0], 0, 10)
    with pytest.raises(ValueError, match="invalid normalization code 3"):
        _C._fft_c2c(x, [0], 3, True)
    with pytest.raises(RuntimeError, match="expected at least one dim"):
        _C._fft_c2c(x, [], 0, True)
    before = x.clone()
    _C._fft_c2c(x, [0], 2, False)
    assert ember.equal(x, before)
