"""torch's top-level window functions (hann_window, hamming_window, blackman_window,
bartlett_window, kaiser_window) with their arguments and errors. `periodic=True` (the default)
is ember.signal.windows' sym=False: the same sample points, computed there."""
from numbers import Real as numbers_Real

from .signal import windows as _w


def _ember():
    import ember
    return ember


def _check(name, window_length, dtype, periodic, **numbers):
    """torch's argument types (periodic must be a bool, as torch's parser wants: an int there
    is a TypeError, not a truth value), dtype and length; returns the dtype."""
    E = _ember()
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if not isinstance(periodic, bool):
        raise TypeError(f"{name}(): argument 'periodic' (position 2) must be bool, not "
                        f"{type(periodic).__name__}")
    for pos, (arg, value) in enumerate(numbers.items(), 3):
        if not isinstance(value, numbers_Real):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be float, not "
                            f"{type(value).__name__}")
    dtype = E.get_default_dtype() if dtype is None else dtype
    if dtype not in (E.float32, E.float64):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    return dtype


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / (N - 1)), N = window_length (+ 1 when periodic).

    >>> ember.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    dtype = _check("hann_window", window_length, dtype, periodic)
    return _w.general_cosine(window_length, a=[0.5, 0.5], sym=not periodic, dtype=dtype,
                             requires_grad=requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1)), N = window_length (+ 1 when periodic).

    >>> ember.hamming_window(4)
    tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """
    dtype = _check("hamming_window", window_length, dtype, periodic, alpha=alpha,
                   beta=beta)
    return _w.general_cosine(window_length, a=[alpha, beta], sym=not periodic, dtype=dtype,
                             requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).

    >>> ember.blackman_window(5)[1:]
    tensor([0.2008, 0.8492, 0.8492, 0.2008])
    """
    dtype = _check("blackman_window", window_length, dtype, periodic)
    return _w.general_cosine(window_length, a=[0.42, 0.5, 0.08], sym=not periodic, dtype=dtype,
                             requires_grad=requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle 1 - |2n / (N - 1) - 1|.

    >>> ember.bartlett_window(5)
    tensor([0.0000, 0.4000, 0.8000, 0.8000, 0.4000])
    """
    dtype = _check("bartlett_window", window_length, dtype, periodic)
    return _w.bartlett(window_length, sym=not periodic, dtype=dtype, requires_grad=requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """i0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / i0(beta).

    >>> ember.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    dtype = _check("kaiser_window", window_length, dtype, periodic, beta=beta)
    return _w.kaiser(window_length, beta=abs(beta), sym=not periodic, dtype=dtype,
                     requires_grad=requires_grad)


FUNCTIONS = {"hann_window": hann_window, "hamming_window": hamming_window,
             "blackman_window": blackman_window, "bartlett_window": bartlett_window,
             "kaiser_window": kaiser_window}
