"""Window functions against torch 2.13: torch.hann_window / hamming_window / blackman_window /
bartlett_window / kaiser_window (periodic and symmetric, lengths 0..9 and 64, dtypes,
requires_grad) and the eleven torch.signal.windows functions with their keyword arguments;
torch's errors for bad lengths, dtypes and parameters."""
import numpy as np
import pytest
import torch

import ember

TOP = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
SIGNAL = {"bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {"tau": 2.5},
          "gaussian": {"std": 0.7}, "general_cosine": {"a": [0.46, 0.23, 0.31]},
          "general_hamming": {"alpha": 0.6}, "hamming": {}, "hann": {}, "kaiser": {"beta": 4.0},
          "nuttall": {}}


def same(e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", TOP)
def test_top_level_windows(name):
    for n in list(range(10)) + [64]:
        for periodic in (True, False):
            same(getattr(ember, name)(n, periodic), getattr(torch, name)(n, periodic))
        same(getattr(ember, name)(n, dtype=ember.float64), getattr(torch, name)(n, dtype=torch.float64))
    w = getattr(ember, name)(5, requires_grad=True)
    assert w.requires_grad
    with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, got "
                                           "window_length=-1"):
        getattr(ember, name)(-1)
    with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes"):
        getattr(ember, name)(4, dtype=ember.int64)
    with pytest.raises(TypeError, match="must be int, not float"):
        getattr(ember, name)(4.5)


def test_window_parameters():
    for args in ((7, True, 0.5), (7, False, 0.5, 0.3), (8, True, 0.6, 0.6)):
        same(ember.hamming_window(*args), torch.hamming_window(*args))
    for args in ((7, True, 5.0), (8, False, 0.0), (6, True, 30.0), (6, False, -3.0)):
        same(ember.kaiser_window(*args), torch.kaiser_window(*args))


@pytest.mark.parametrize("name", sorted(SIGNAL))
def test_signal_windows(name):
    kw = SIGNAL[name]
    for M in list(range(8)) + [33]:
        for sym in (True, False):
            same(getattr(ember.signal.windows, name)(M, sym=sym, **kw),
                 getattr(torch.signal.windows, name)(M, sym=sym, **kw))
    same(getattr(ember.signal.windows, name)(9, dtype=ember.float64, **kw),
         getattr(torch.signal.windows, name)(9, dtype=torch.float64, **kw))
    for bad in (dict(M=-1), dict(M=4, dtype=ember.int64)):
        tbad = dict(bad, dtype=torch.int64) if "dtype" in bad else bad
        with pytest.raises(ValueError) as te:
            getattr(torch.signal.windows, name)(**tbad, **kw)
        with pytest.raises(ValueError) as ee:
            getattr(ember.signal.windows, name)(**bad, **kw)
        assert str(ee.value).split(",")[0].split(" got")[0] == str(te.value).split(",")[0].split(" got")[0]


def test_signal_window_parameters_and_errors():
    W, T = ember.signal.windows, torch.signal.windows
    same(W.exponential(7, center=1.5, sym=False), T.exponential(7, center=1.5, sym=False))
    for fn, kw, msg in ((W.exponential, dict(tau=0), "Tau must be positive"),
                        (W.exponential, dict(center=1.0), "Center must be None"),
                        (W.gaussian, dict(std=-1), "Standard deviation must be positive"),
                        (W.kaiser, dict(beta=-1), "beta must be non-negative"),
                        (W.general_cosine, dict(a=[]), "Coefficients cannot be empty")):
        with pytest.raises(ValueError, match=msg):
            fn(5, **kw)
    with pytest.raises(TypeError, match="Coefficients must be a list/tuple"):
        W.general_cosine(5, a=3)


@pytest.mark.parametrize("call", ["hamming_window(5, 1)", "kaiser_window(5, 2**31, 4)",
                                  "hann_window(5, None)", "hamming_window(5, True, 'a')",
                                  "kaiser_window(5, True, [1.0])"])
def test_window_argument_types_as_torch(call):
    # an int `periodic` is torch's TypeError, not a truth value (the misuse sweep's
    # hamming_window(2**31, 2**31, 4) used to build an 8 GB window)
    with pytest.raises(TypeError):
        eval("torch." + call)
    with pytest.raises(TypeError, match=call.split("(")[0]):
        eval("ember." + call)


def test_window_numbers_accepted_as_torch():
    # ints and bools are floats for alpha/beta, as torch's parser takes them
    same(ember.hamming_window(5, True, 1, 2), torch.hamming_window(5, True, 1, 2))
    same(ember.kaiser_window(5, True, True), torch.kaiser_window(5, True, True))


def test_kaiser_large_beta_is_finite():
    # torch overflows I0 past beta ~ 90 (float32) and returns NaN; ember's ratio stays finite,
    # and equals torch's where torch's is finite
    same(ember.kaiser_window(9, False, 80.0), torch.kaiser_window(9, False, 80.0))
    for dtype in (ember.float32, ember.float64):
        w = ember.kaiser_window(9, False, 1000.0, dtype=dtype)
        assert ember.isfinite(w).all() and w[4].item() == 1.0 and w[0].item() == 0.0
    w = ember.signal.windows.kaiser(7, beta=900.0, dtype=ember.float64)
    assert ember.isfinite(w).all() and w.max().item() == 1.0


def test_windows_long_and_views_of_the_c_op():
    # one pass from the index: long windows agree with torch's in float64 (the rotation that
    # computes the cosines stays within a few ulp far from the start)
    for name in TOP:
        for periodic in (True, False):
            e = getattr(ember, name)(100003, periodic, dtype=ember.float64)
            t = getattr(torch, name)(100003, periodic, dtype=torch.float64)
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
    for name, kw in sorted(SIGNAL.items()):
        e = getattr(ember.signal.windows, name)(4097, sym=False, dtype=ember.float64, **kw)
        t = getattr(torch.signal.windows, name)(4097, sym=False, dtype=torch.float64, **kw)
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


def test_window_op_checks_its_arguments():
    K = ember._C._WindowKind
    with pytest.raises(ValueError, match="window: length must be non-negative"):
        ember._C._window(K.Sine, -1, 1.0, [], ember.float32)
    with pytest.raises(ValueError, match="window: expects float32 or float64"):
        ember._C._window(K.Sine, 3, 1.0, [], ember.int64)
    with pytest.raises(ValueError, match="denom must be positive"):
        ember._C._window(K.CosineSum, 3, 0.0, [1.0], ember.float32)
    with pytest.raises(ValueError, match="expected 1 parameters"):
        ember._C._window(K.Kaiser, 3, 2.0, [], ember.float32)
    with pytest.raises(ValueError, match="beta must be non-negative"):
        ember._C._window(K.Kaiser, 3, 2.0, [-1.0], ember.float32)
