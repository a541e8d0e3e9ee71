"""torch.signal.windows' window functions, with its arguments, checks and errors (scipy's
definitions). Each is one call of the C++ op `window` (include/ember/window.h), which computes
every sample from its index in one pass: no temporaries, no math here. M is the window length;
sym=False gives the periodic window (the first M points of the symmetric window of length
M + 1), as used for spectra."""
from collections.abc import Iterable

from ... import _C

_K = _C._WindowKind


def _ember():
    import ember
    return ember


def _checks(name, M, dtype, layout):
    E = _ember()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout).split(".")[-1] != "strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (E.float32, E.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _dtype(dtype):
    return _ember().get_default_dtype() if dtype is None else dtype


def _window(kind, M, denom, params, dtype, requires_grad, one=True):
    """The window; of length 1 (when `one`) a single 1, as torch."""
    if M == 1 and one:
        w = _C.ones([1], dtype)
    else:
        w = _C._window(kind, M, float(denom), [float(p) for p in params], dtype)
    return w.requires_grad_(True) if requires_grad else w


def _denom(M, sym):
    """N - 1 for the symmetric window, N for the periodic one."""
    return M - 1 if sym else M


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau)."""
    dtype = _dtype(dtype)
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    return _window(_K.Exponential, M, 1.0, [center, tau], dtype, requires_grad, one=False)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M) (the sine window)."""
    dtype = _dtype(dtype)
    _checks("cosine", M, dtype, layout)
    return _window(_K.Sine, M, M + 1 if not sym and M > 1 else M, [], dtype, requires_grad,
                   one=False)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """exp(-((n - (M - 1)/2) / std)^2 / 2)."""
    dtype = _dtype(dtype)
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    denom = M if not sym and M > 1 else max(M - 1, 0)
    return _window(_K.Gaussian, M, denom, [std], dtype, requires_grad, one=False)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """i0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / i0(beta)."""
    dtype = _dtype(dtype)
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _window(_K.Kaiser, M, _denom(M, sym), [beta], dtype, requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1))."""
    dtype = _dtype(dtype)
    _checks("general_cosine", M, dtype, layout)
    if M > 1:  # torch checks the coefficients only when it uses them
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        if not a:
            raise ValueError("Coefficients cannot be empty")
    return _window(_K.CosineSum, M, _denom(M, sym), a if M > 1 else [1.0], dtype, requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    dtype = _dtype(dtype)
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangle 1 - |2n / (M - 1) - 1|."""
    dtype = _dtype(dtype)
    _checks("bartlett", M, dtype, layout)
    return _window(_K.Bartlett, M, _denom(M, sym), [], dtype, requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_cosine with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
