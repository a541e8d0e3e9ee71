"""torch.stft / torch.istft (and the Tensor methods) against torch 2.13: 1-D and batched
signals, hop / win_length / window (padded to n_fft), center with each pad_mode, normalized,
onesided and two-sided, complex input, align_to_window, return_complex=False, istft's length
and round trip, gradients, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:A window was not provided", "ignore:The length of signal is shorter")


def pair(shape, complex_=False, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(tuple(shape) + ((2,) if complex_ else ()))
    e, t = ember.tensor(a), torch.tensor(a)
    return (ember.view_as_complex(e), torch.view_as_complex(t)) if complex_ else (e, t)


def same(e, t, tol=1e-9):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    np.testing.assert_allclose(e.detach().numpy(), t.detach().resolve_conj().numpy(), rtol=tol,
                               atol=tol)


CASES = [dict(n_fft=16), dict(n_fft=16, hop_length=5), dict(n_fft=15, win_length=9),
         dict(n_fft=16, center=False), dict(n_fft=16, pad_mode="constant"),
         dict(n_fft=16, pad_mode="replicate"), dict(n_fft=16, pad_mode="circular"),
         dict(n_fft=16, normalized=True), dict(n_fft=16, onesided=False),
         dict(n_fft=16, win_length=8, center=False, align_to_window=True),
         dict(n_fft=1, hop_length=1)]


@pytest.mark.parametrize("kw", CASES, ids=[str(i) for i in range(len(CASES))])
def test_stft_against_torch(kw):
    for shape in ((100,), (3, 64)):
        e, t = pair(shape)
        for window in (None, "hann"):
            win = kw.get("win_length", kw["n_fft"])
            we = None if window is None else ember.hann_window(win, dtype=ember.float64)
            wt = None if window is None else torch.hann_window(win, dtype=torch.float64)
            same(ember.stft(e, window=we, return_complex=True, **kw),
                 torch.stft(t, window=wt, return_complex=True, **kw))
    same(e.stft(return_complex=True, **kw), t.stft(return_complex=True, **kw))


def test_stft_complex_input_and_real_output():
    e, t = pair((80,), complex_=True)
    same(ember.stft(e, 16, return_complex=True), torch.stft(t, 16, return_complex=True))
    e, t = pair((2, 80))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(ember.stft(e, 16, return_complex=False), torch.stft(t, 16, return_complex=False))


@pytest.mark.parametrize("kw", [dict(n_fft=16), dict(n_fft=16, hop_length=3, win_length=12),
                                dict(n_fft=16, center=False), dict(n_fft=16, normalized=True),
                                dict(n_fft=16, onesided=False), dict(n_fft=16, length=90),
                                dict(n_fft=16, length=130)])
def test_istft_against_torch(kw):
    win = kw.get("win_length", kw["n_fft"])
    # hann's zero ends leave nothing to divide by without center's padding: hamming there
    kind = "hann_window" if kw.get("center", True) else "hamming_window"
    we = getattr(ember, kind)(win, dtype=ember.float64)
    wt = getattr(torch, kind)(win, dtype=torch.float64)
    stft_kw = {k: v for k, v in kw.items() if k in ("n_fft", "hop_length", "win_length", "center",
                                                 "normalized", "onesided")}
    xe, xt = pair((2, 100))
    se = ember.stft(xe, window=we, return_complex=True, **stft_kw)
    st = torch.stft(xt, window=wt, return_complex=True, **stft_kw)
    same(ember.istft(se, window=we, **kw), torch.istft(st, window=wt, **kw))
    same(se.istft(window=we, **kw), st.istft(window=wt, **kw))
    if "length" not in kw:  # the round trip, over the samples the frames cover
        y = ember.istft(se, window=we, **kw).numpy()
        np.testing.assert_allclose(y, xe.numpy()[:, :y.shape[1]], atol=1e-9)


def test_istft_return_complex():
    e, t = pair((16, 20), complex_=True)
    w = dict(window=ember.hann_window(16, dtype=ember.float64))
    tw = dict(window=torch.hann_window(16, dtype=torch.float64))
    same(ember.istft(e, 16, onesided=False, return_complex=True, **w),
         torch.istft(t, 16, onesided=False, return_complex=True, **tw))


def test_gradients_against_torch():
    xe, xt = pair((2, 50))
    xe.requires_grad_(True)
    xt.requires_grad_(True)
    we, wt = ember.hann_window(16, dtype=ember.float64), torch.hann_window(16, dtype=torch.float64)
    we.requires_grad_(True)
    wt.requires_grad_(True)
    se = ember.stft(xe, 16, window=we, return_complex=True)
    st = torch.stft(xt, 16, window=wt, return_complex=True)
    ye = ember.istft(se * 0.5, 16, window=we.detach(), length=50)
    yt = torch.istft(st * 0.5, 16, window=wt.detach(), length=50)
    le = ember.view_as_real(se).pow(2).sum() + (ye * ye).sum()
    lt = torch.view_as_real(st).pow(2).sum() + (yt * yt).sum()
    ge = ember.autograd.grad(le, [xe, we])
    gt = torch.autograd.grad(lt, [xt, wt])
    for a, b in zip(ge, gt):
        same(a, b, tol=1e-8)


def test_errors():
    e, t = pair((2, 100))
    cases = [
        (lambda m, x: m.stft(x, 16), "stft requires the return_complex parameter"),
        (lambda m, x: m.stft(x, 200, return_complex=True, center=False), "expected 0 < n_fft"),
        (lambda m, x: m.stft(x, 16, hop_length=0, return_complex=True), "expected hop_length > 0"),
        (lambda m, x: m.stft(x, 16, win_length=20, return_complex=True),
         "expected 0 < win_length <= n_fft"),
        (lambda m, x: m.stft(x, 16, window=m.ones(5, dtype=x.dtype), return_complex=True),
         "expected a 1D window tensor of size equal to win_length=16"),
        (lambda m, x: m.stft(x.reshape(2, 2, 50), 16, return_complex=True),
         "expected a 1D or 2D tensor"),
        (lambda m, x: m.stft(x, 16, align_to_window=True, return_complex=True),
         "align_to_window should only be set when center = false"),
        (lambda m, x: m.istft(x, 16), "istft requires a complex-valued input tensor"),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn(torch, t)
        with pytest.raises(RuntimeError, match=msg):
            fn(ember, e)
    se, st = pair((2, 9, 26), complex_=True)
    for kw, hann, msg in ((dict(n_fft=32), False, r"to match n_fft / 2 \+ 1 when onesided=True"),
                          (dict(n_fft=16, center=False), True, "window overlap add min"),
                          (dict(n_fft=16, return_complex=True), False,
                           "Cannot have onesided output")):
        with pytest.raises(RuntimeError, match=msg):
            torch.istft(st, window=torch.hann_window(16, dtype=torch.float64) if hann else None,
                        **kw)
        with pytest.raises(RuntimeError, match=msg):
            ember.istft(se, window=ember.hann_window(16, dtype=ember.float64) if hann else None,
                        **kw)
    with pytest.raises(RuntimeError, match="input tensor cannot be empty"):
        ember.istft(se[:, :, :0], 16)
