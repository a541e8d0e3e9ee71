"""torch.signal.windows' window functions, with its arguments, checks and errors (scipy's
definitions). Each is a vectorized composition: linspace for the sample points, then cos, exp,
abs or i0; nothing loops over elements. M is the window length; sym=False gives the periodic
window (the first M points of the symmetric window of length M + 1), as used for spectra."""
import math
from collections.abc import Iterable


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


def _done(w, requires_grad):
    return w.requires_grad_(True) if requires_grad else w


def _trivial(M, dtype, requires_grad, one=True):
    """The windows of length 0 (empty) and, when `one`, 1 (a single 1)."""
    E = _ember()
    if M == 0:
        return _done(E.empty((0,), dtype=dtype), requires_grad)
    if M == 1 and one:
        return _done(E.ones((1,), dtype=dtype), requires_grad)
    return None


def _points(start, step, M, dtype):
    """start, start + step, ..., start + (M - 1) step (torch's linspace form)."""
    return _ember().linspace(start, start + (M - 1) * step, M, dtype=dtype)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau)."""
    dtype = _dtype(dtype)
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _points(-center / tau, 1.0 / tau, M, dtype)
    return _done(_ember().exp(-k.abs()), requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M) (the sine window)."""
    dtype = _dtype(dtype)
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return _done(_ember().sin(_points(0.5 * step, step, M, dtype)), requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """exp(-((n - (M - 1)/2) / std)^2 / 2)."""
    dtype = _dtype(dtype)
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, requires_grad)
    c = 1.0 / (std * math.sqrt(2))
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    k = _points(start * c, c, M, dtype)
    return _done(_ember().exp(-(k * k)), requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """i0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / i0(beta)."""
    E = _ember()
    dtype = _dtype(dtype)
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    t = _trivial(M, dtype, requires_grad)
    if t is not None:
        return t
    b = E.tensor(float(beta), dtype=dtype)
    step = 2.0 * float(beta) / (M if not sym else M - 1)
    end = min(float(b), -float(b) + (M - 1) * step)
    k = E.linspace(-float(b), end, M, dtype=dtype)
    return _done(E.i0(E.sqrt((b * b - k * k).clamp(min=0))) / E.i0(b), requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1))."""
    E = _ember()
    dtype = _dtype(dtype)
    _checks("general_cosine", M, dtype, layout)
    t = _trivial(M, dtype, requires_grad)
    if t is not None:
        return t
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / (M if not sym else M - 1)
    k = _points(0.0, step, M, dtype)
    coef = E.tensor([(-1) ** i * float(w) for i, w in enumerate(a)], dtype=dtype)
    i = E.arange(coef.shape[0], dtype=dtype)
    w = (coef.unsqueeze(-1) * E.cos(i.unsqueeze(-1) * k)).sum(0)
    return _done(w, requires_grad)


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
    t = _trivial(M, dtype, requires_grad)
    if t is not None:
        return t
    k = _points(-1.0, 2.0 / (M if not sym else M - 1), M, dtype)
    return _done(1 - k.abs(), requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_cosine with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
