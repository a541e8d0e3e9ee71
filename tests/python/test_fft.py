"""ember.fft's transforms (fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2, rfftn,
irfftn, hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn) against torch 2.13: real and complex inputs of
odd, prime, power-of-two and 1-point lengths, n / s padding and trimming, dims, every norm,
dtypes (integers promoted, float64 -> complex128), non-contiguous inputs, out=, gradients
against torch and by finite differences, and torch's errors."""
import numpy as np
import pytest
import torch

import ember

NORMS = [None, "backward", "ortho", "forward"]
C2C = ["fft", "ifft"]
C2C_ND = ["fft2", "ifft2", "fftn", "ifftn"]
R2C = ["rfft", "ihfft"]
R2C_ND = ["rfft2", "rfftn", "ihfft2", "ihfftn"]
C2R = ["irfft", "hfft"]
C2R_ND = ["irfft2", "irfftn", "hfft2", "hfftn"]


def pair(shape, kind="float32", seed=0):
    """The same random values as (ember, torch) tensors; kind "complex64"/"complex128" are built
    from (re, im) pairs."""
    rng = np.random.default_rng(seed)
    if kind.startswith("complex"):
        real = "float32" if kind == "complex64" else "float64"
        a = rng.standard_normal(tuple(shape) + (2,)).astype(real)
        return (ember.view_as_complex(ember.tensor(a)), torch.view_as_complex(torch.tensor(a)))
    if kind in ("int64", "bool"):
        a = rng.integers(0, 5, size=shape).astype(kind)
    else:
        a = rng.standard_normal(shape).astype(kind)
    return ember.tensor(a), torch.tensor(a)


def same(e, t, rtol=1e-4, atol=1e-4):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    en = e.detach().numpy()
    tn = t.detach().resolve_conj().numpy()
    np.testing.assert_allclose(en, tn, rtol=rtol, atol=atol)


def both(name, e_args, t_args, **kw):
    return getattr(ember.fft, name)(*e_args, **kw), getattr(torch.fft, name)(*t_args, **kw)


@pytest.mark.parametrize("name", C2C + R2C + C2R)
@pytest.mark.parametrize("n_in", [1, 2, 5, 8, 17])
def test_one_dim_lengths_and_norms(name, n_in):
    kinds = ["float32", "complex64"] if name in C2C else (
        ["float32", "float64"] if name in R2C else ["complex64", "complex128"])
    for kind in kinds:
        e, t = pair((3, n_in), kind)
        tol = 1e-4 if kind in ("float32", "complex64") else 1e-10
        for norm in NORMS:
            for n in (None, 1, 7, 16):
                if name in C2R and n is None and n_in == 1:
                    continue  # 2 * (1 - 1) = 0 points: an error, tested below
                same(*both(name, (e,), (t,), n=n, norm=norm), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", C2C_ND + R2C_ND + C2R_ND)
def test_multi_dim_s_and_dim(name):
    kind = "complex128" if name in C2C_ND + C2R_ND else "float64"
    e, t = pair((4, 5, 6), kind)
    nd = name.endswith("n")
    cases = [dict(), dict(s=(3, 8)), dict(dim=(0, 2)), dict(s=(7, -1), dim=(2, 0)),
             dict(dim=(-1, -2))]
    if nd:
        cases += [dict(dim=(1,)), dict(s=(2, 3, 4)), dict(dim=(0, 1, 2), s=(5, 5, 5))]
    for kw in cases:
        for norm in NORMS:
            same(*both(name, (e,), (t,), norm=norm, **kw), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ["fft", "rfft", "fftn", "ifft2", "ihfft"])
def test_integer_and_bool_inputs_promote(name):
    for kind in ("int64", "bool"):
        e, t = pair((4, 6), kind)
        same(*both(name, (e,), (t,)))
    e, t = pair((3, 5), "float64")
    same(*both(name, (e,), (t,)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft", "irfft", "rfft2", "hfftn", "ifftn"])
def test_non_contiguous_inputs(name):
    kind = "complex64" if name in ("irfft", "hfftn") else "float32"
    e, t = pair((6, 10), kind)
    same(*both(name, (e.t(),), (t.t(),)))
    same(*both(name, (e[::2, 1:],), (t[::2, 1:],)))
    e, t = pair((1, 5), kind)
    same(*both(name, (e.expand(3, 5),), (t.expand(3, 5),)))


def test_zero_dim_and_empty_inputs():
    e, t = pair((), "float32")
    same(*both("fftn", (e,), (t,)))
    same(*both("fftn", (e.reshape(1, 1),), (t.reshape(1, 1),), dim=()))
    # An empty batch: torch's MKL build raises ("Inconsistent configuration parameters");
    # ember returns the empty result (NumPy does too).
    e = ember.zeros(0, 4)
    assert tuple(ember.fft.rfft(e).shape) == (0, 3) and ember.fft.rfft(e).dtype == ember.complex64
    assert tuple(ember.fft.fft(e, dim=0, n=2).shape) == (2, 4)


@pytest.mark.parametrize("name", C2C + C2C_ND[2:] + R2C + C2R + C2R_ND[2:])
def test_gradients_against_torch(name):
    kind = "complex128" if name in C2R + C2R_ND else "float64"
    for n_in in (4, 5):
        e, t = pair((3, n_in), kind, seed=n_in)
        e.requires_grad_(True)
        t.requires_grad_(True)
        for norm in NORMS:
            kw = dict(n=6) if name in C2C + R2C + C2R else dict(s=(2, 6))
            ye, yt = both(name, (e,), (t,), norm=norm, **kw)
            w = np.random.default_rng(1).standard_normal(tuple(yt.shape) + (
                (2,) if yt.is_complex() else ()))
            loss_e = (ember.view_as_real(ye) if ye.is_complex() else ye) * ember.tensor(w)
            loss_t = (torch.view_as_real(yt.resolve_conj()) if yt.is_complex() else yt) * torch.tensor(w)
            (ge,) = ember.autograd.grad(loss_e.sum(), e)
            (gt,) = torch.autograd.grad(loss_t.sum(), t)
            same(ge, gt, rtol=1e-9, atol=1e-9)


def test_gradcheck_finite_differences():
    def through(fn):  # a real function of real inputs, for gradcheck
        def g(x):
            y = fn(x)
            return ember.view_as_real(y) if y.is_complex() else y
        return g
    x = ember.randn(3, 5, dtype=ember.float64, requires_grad=True)
    z = ember.randn(3, 4, 2, dtype=ember.float64, requires_grad=True)
    for fn in (lambda x: ember.fft.fft(x, n=7, norm="ortho"), lambda x: ember.fft.rfftn(x),
               lambda x: ember.fft.ihfft(x, n=4), lambda x: ember.fft.ifft2(x, s=(2, 6))):
        assert ember.autograd.gradcheck(through(fn), [x], eps=1e-6, atol=1e-5, rtol=1e-3)
    for fn in (lambda z: ember.fft.irfft(ember.view_as_complex(z), n=7),
               lambda z: ember.fft.hfft2(ember.view_as_complex(z), norm="forward"),
               lambda z: ember.fft.fftn(ember.view_as_complex(z), s=(4, 3))):
        assert ember.autograd.gradcheck(through(fn), [z], eps=1e-6, atol=1e-5, rtol=1e-3)


def test_roundtrips():
    e, _ = pair((4, 9), "float64")
    np.testing.assert_allclose(ember.fft.irfft(ember.fft.rfft(e), n=9).numpy(), e.numpy(),
                               atol=1e-12)
    np.testing.assert_allclose(ember.fft.hfft(ember.fft.ihfft(e), n=9).numpy(), e.numpy(),
                               atol=1e-12)
    np.testing.assert_allclose(ember.fft.ifftn(ember.fft.fftn(e)).real.numpy(), e.numpy(),
                               atol=1e-12)


def test_out():
    e, t = pair((4, 6), "float32")
    out_e, out_t = ember.empty(4, 6, dtype=ember.complex64), torch.empty(4, 6, dtype=torch.complex64)
    r = ember.fft.fft(e, out=out_e)
    torch.fft.fft(t, out=out_t)
    assert r is out_e
    same(out_e, out_t)
    out_e, out_t = ember.empty(4, 10), torch.empty(4, 10)
    ec, tc = pair((4, 6), "complex64")
    ember.fft.irfft(ec, out=out_e)
    torch.fft.irfft(tc, out=out_t)
    same(out_e, out_t)
    with pytest.raises(RuntimeError, match="fft expects a complex output tensor, but got Float"):
        ember.fft.fft(e, out=ember.empty(4, 6))
    with pytest.raises(RuntimeError, match="irfft expects a floating point output tensor"):
        ember.fft.irfft(ec, out=ember.empty(4, 10, dtype=ember.complex64))


def test_errors_match_torch():
    e, t = pair((4, 6), "float32")
    ec, tc = pair((4, 6), "complex64")
    bad = [
        ("fft", (e,), (t,), dict(n=0), RuntimeError, r"Invalid number of data points \(0\)"),
        ("fft", (e,), (t,), dict(dim=2), IndexError, r"Dimension out of range"),
        ("fft", (e,), (t,), dict(norm="bad"), RuntimeError, 'Invalid normalization mode: "bad"'),
        ("rfft", (ec,), (tc,), dict(), RuntimeError, "rfft expects a real input tensor, but got "
                                                     "ComplexFloat"),
        ("ihfft", (ec,), (tc,), dict(), RuntimeError, "ihfft expects a real input tensor"),
        ("irfft", (ec[:, :1],), (tc[:, :1],), dict(), RuntimeError, "Invalid number of data"),
        ("fft2", (e,), (t,), dict(s=(2,), dim=(0, 1)), RuntimeError,
         "dim and shape arguments must have the same length"),
        ("fftn", (e,), (t,), dict(dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
        ("fftn", (e,), (t,), dict(s=(2, 3, 4)), RuntimeError, "Got shape with 3 values"),
        ("rfftn", (e,), (t,), dict(dim=()), RuntimeError, "rfftn must transform at least one"),
        ("irfftn", (ec,), (tc,), dict(dim=()), RuntimeError, "irfftn must transform at least"),
        ("fft", (e,), (t,), dict(n=2.5), TypeError, "argument 'n' must be int, not float"),
        ("fft", (e.sum(),), (t.sum(),), dict(), IndexError, "tensor has no dimensions"),
        ("ihfft2", (ec,), (tc,), dict(), RuntimeError, "Only supports floating-point dtypes"),
    ]
    for name, ea, ta, kw, exc, msg in bad:
        with pytest.raises(exc, match=msg):
            getattr(torch.fft, name)(*ta, **kw)
        with pytest.raises(exc, match=msg):
            getattr(ember.fft, name)(*ea, **kw)
    with pytest.raises(TypeError, match="must be Tensor, not str"):
        ember.fft.fft("a")
