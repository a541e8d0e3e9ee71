"""ember.fft: torch.fft's 22 names. The transforms are three C++ ops with PyTorch's gradients
(_C._fft_c2c, _fft_r2c, _fft_c2r: src/ops/fft.cpp on KISS FFT), which take and return complex
values as a trailing dim of 2 (view_as_real's layout). This module only maps torch's arguments
onto them: the n / s and dim forms, norm, zero-padding and trimming, dtype promotion, hfft's
conjugates and out=; fftfreq / rfftfreq / fftshift / ifftshift compose arange and roll."""
import operator

from . import _C
from ._dtype import TORCH_TYPE_NAMES
from ._tensor import Tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

# norm -> (code of the forward transform, code of the inverse): 0 none, 1 1/sqrt(n), 2 1/n.
_NORMS = {None: (0, 2), "backward": (0, 2), "forward": (2, 0), "ortho": (1, 1)}


def _ember():
    import ember
    return ember


def _tname(dtype):
    return TORCH_TYPE_NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _norm(norm, forward):
    if norm is not None and not isinstance(norm, str) or norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return _NORMS[norm][0 if forward else 1]


def _int(v, fname, arg):
    if isinstance(v, bool) or not hasattr(type(v), "__index__"):
        raise TypeError(f"fft_{fname}(): argument '{arg}' must be int, not {type(v).__name__}")
    return operator.index(v)


def _int_list(v, fname, arg):
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    if not isinstance(v, (list, tuple)) and not hasattr(v, "__iter__"):
        raise TypeError(f"fft_{fname}(): argument '{arg}' must be tuple of ints, not "
                        f"{type(v).__name__}")
    return [_int(x, fname, arg) for x in v]


def _wrap(d, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d % ndim


def _check_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _input(x, fname):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    return x


def _promote(x, require_complex=False):
    """torch's promote_tensor_fft: integers and bool become the default float dtype."""
    E = _ember()
    if x.dtype in (E.float32, E.float64) or x.is_complex():
        pass
    elif x.dtype.is_floating_point:  # float16 / bfloat16
        raise RuntimeError(f"Unsupported dtype {_tname(x.dtype)}")
    else:
        x = x.to(E.get_default_dtype())
    if require_complex and not x.is_complex():
        x = x.to(E.complex128 if x.dtype == E.float64 else E.complex64)
    return x


def _ri(x):
    """A complex tensor as (..., 2) reals (a view); real tensors pass through."""
    return _ember().view_as_real(x) if x.is_complex() else x


def _complex(ri):
    return _ember().view_as_complex(ri)


def _conj_ri(ri):
    E = _ember()
    return ri * E.tensor([1.0, -1.0], dtype=ri.dtype)


def _resize(x, dims, sizes):
    """Zero-pads or trims x (real, or (..., 2) reals) to sizes[i] along dims[i]."""
    E = _ember()
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            shape = list(x.shape)
            shape[d] = n - have
            x = E.cat([x, E.zeros(shape, dtype=x.dtype)], d)
    return x


def _shape_and_dims(x, s, dim, fname):
    """torch's canonicalize_fft_shape_and_dim_args: (sizes, dims), both lists."""
    ndim = x.dim()
    if dim is not None:
        dims = [_wrap(d, ndim) for d in _int_list(dim, fname, "dim")]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = _int_list(s, fname, "s")
        if dim is not None:
            if len(s) != len(dims):
                raise RuntimeError("When given, dim and shape arguments must have the same length")
        else:
            if len(s) > ndim:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                                   f"{ndim} dimensions.")
            dims = list(range(ndim - len(s), ndim))
        sizes = [x.shape[d] if n == -1 else n for n, d in zip(s, dims)]
        for n in sizes:
            _check_points(n)
    else:
        if dim is None:
            dims = list(range(ndim))
        sizes = [x.shape[d] for d in dims]
    return sizes, dims


def _one(x, n, dim, fname):
    """The 1-D functions' (sizes, dims)."""
    d = _wrap(_int(dim, fname, "dim"), x.dim())
    if n is None:
        return [x.shape[d]], [d]
    n = _int(n, fname, "n")
    _check_points(n)
    return [n], [d]


def _out(result, out, fname, complex_out):
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if complex_out and not out.is_complex():
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_tname(out.dtype)}")
    if not complex_out and not out.dtype.is_floating_point:
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got "
                           f"{_tname(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(list(result.shape))
    return out.copy_(result)


# ---------------------------------------------------------------- complex-to-complex


def _c2c_nd(x, sizes, dims, norm, forward, fname, out):
    x = _promote(x)
    code = _norm(norm, forward)
    if x.is_complex():
        ri = _resize(_ri(x), dims, sizes)
        res = _C._fft_c2c(ri, dims, code, forward) if dims else ri.clone()
    else:
        xr = _resize(x, dims, sizes)
        if dims:
            res = _C._fft_r2c(xr, dims, code, False)
            if not forward:  # the inverse of a real signal is the conjugate of its forward
                res = _conj_ri(res)
        else:
            res = _ember().stack([xr, _ember().zeros_like(xr)], -1)
    return _out(_complex(res), out, fname, True)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D discrete Fourier transform along dim (zero-padded or trimmed to n points).

    >>> ember.fft.fft(ember.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    _input(input, "fft")
    return _c2c_nd(input, *_one(input, n, dim, "fft"), norm, True, "fft", out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D inverse discrete Fourier transform along dim.

    >>> ember.fft.ifft(ember.tensor([10.0, -2.0, -2.0, -2.0])).real
    tensor([1., 3., 3., 3.])
    """
    _input(input, "ifft")
    return _c2c_nd(input, *_one(input, n, dim, "ifft"), norm, False, "ifft", out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-d discrete Fourier transform over dim (all dims by default).

    >>> ember.fft.fftn(ember.ones(2, 2, 2)).real
    tensor([[[8., 0.],
             [0., 0.]],
    <BLANKLINE>
            [[0., 0.],
             [0., 0.]]])
    """
    _input(input, "fftn")
    return _c2c_nd(input, *_shape_and_dims(input, s, dim, "fftn"), norm, True, "fftn", out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-d inverse discrete Fourier transform over dim (all dims by default).

    >>> ember.fft.ifftn(ember.tensor([[[8.0, 0.0], [0.0, 0.0]]])).real
    tensor([[[2., 2.],
             [2., 2.]]])
    """
    _input(input, "ifftn")
    return _c2c_nd(input, *_shape_and_dims(input, s, dim, "ifftn"), norm, False, "ifftn", out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """fftn over the last two dims.

    >>> ember.fft.fft2(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[10.+0.j, -2.+0.j],
            [-4.+0.j,  0.+0.j]])
    """
    _input(input, "fft2")
    return _c2c_nd(input, *_shape_and_dims(input, s, dim, "fft2"), norm, True, "fft2", out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ifftn over the last two dims.

    >>> ember.fft.ifft2(ember.tensor([[4.0, 0.0], [0.0, 0.0]])).real
    tensor([[1., 1.],
            [1., 1.]])
    """
    _input(input, "ifft2")
    return _c2c_nd(input, *_shape_and_dims(input, s, dim, "ifft2"), norm, False, "ifft2", out)


# ---------------------------------------------------------------- real input, onesided output


def _real_input(x, fname, check_name):
    x = _promote(x)
    if x.is_complex():
        raise RuntimeError(f"{check_name} expects a real input tensor, but got {_tname(x.dtype)}")
    return x


def _r2c_nd(x, sizes, dims, norm, fname, out):
    """rfftn (forward) on real x."""
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")
    res = _C._fft_r2c(_resize(x, dims, sizes), dims, _norm(norm, True), True)
    return _out(_complex(res), out, fname, True)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D transform of a real signal: its first n // 2 + 1 frequencies.

    >>> ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    x = _real_input(_input(input, "rfft"), "rfft", "rfft")
    return _r2c_nd(x, *_one(x, n, dim, "rfft"), norm, "rfft", out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-d transform of a real signal, onesided along the last of dim.

    >>> ember.fft.rfftn(ember.ones(2, 2, 4)).shape
    ember.Size([2, 2, 3])
    """
    x = _real_input(_input(input, "rfftn"), "rfftn", "rfftn")
    return _r2c_nd(x, *_shape_and_dims(x, s, dim, "rfftn"), norm, "rfftn", out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """rfftn over the last two dims.

    >>> ember.fft.rfft2(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[10.+0.j, -2.+0.j],
            [-4.+0.j,  0.+0.j]])
    """
    x = _real_input(_input(input, "rfft2"), "rfft2", "rfftn")
    return _r2c_nd(x, *_shape_and_dims(x, s, dim, "rfft2"), norm, "rfftn", out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse transform of a real signal, onesided (the inverse of hfft).

    >>> ember.fft.ihfft(ember.tensor([4.0, 0.0, 0.0, 0.0]))
    tensor([1.-0.j, 1.-0.j, 1.-0.j])
    """
    x = _real_input(_input(input, "ihfft"), "ihfft", "ihfft")
    sizes, dims = _one(x, n, dim, "ihfft")
    res = _C._fft_r2c(_resize(x, dims, sizes), dims, _norm(norm, False), True)
    return _out(_complex(_conj_ri(res)), out, "ihfft", True)


def _ihfft_nd(input, s, dim, norm, out, fname):
    x = _promote(_input(input, fname))
    if x.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {_tname(x.dtype)}")
    sizes, dims = _shape_and_dims(x, s, dim, fname)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    code = _norm(norm, False)
    res = _conj_ri(_C._fft_r2c(_resize(x, dims, sizes), dims[-1:], code, True))
    if len(dims) > 1:
        res = _C._fft_c2c(res, dims[:-1], code, False)
    return _out(_complex(res), out, fname, True)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-d inverse transform of a real signal, onesided along the last of dim.

    >>> ember.fft.ihfftn(ember.ones(2, 2, 4)).shape
    ember.Size([2, 2, 3])
    """
    return _ihfft_nd(input, s, dim, norm, out, "ihfftn")


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ihfftn over the last two dims.

    >>> ember.fft.ihfft2(ember.ones(2, 4)).real
    tensor([[1., 0., 0.],
            [0., 0., 0.]])
    """
    return _ihfft_nd(input, s, dim, norm, out, "ihfft2")


# ---------------------------------------------------------------- onesided input, real output


def _c2r_args(x, s, dim, fname, nd_name=None, one=None):
    """torch's canonicalize_fft_c2r_shape_and_dim_args: (input sizes, dims, output length)."""
    if one is not None:  # the 1-D functions: (n, dim)
        n, d = one
        dims = [_wrap(_int(d, fname, "dim"), x.dim())]
        sizes = [x.shape[dims[0]]]
        last = None if n is None else _int(n, fname, "n")
    else:
        sizes, dims = _shape_and_dims(x, s, dim, fname)
        if not dims:
            raise RuntimeError(f"{nd_name} must transform at least one axis")
        last = None if s is None or _int_list(s, fname, "s")[-1] == -1 else sizes[-1]
    if last is None:
        last = 2 * (x.shape[dims[-1]] - 1)
    _check_points(last)
    sizes[-1] = last // 2 + 1
    return sizes, dims, last


def _c2r_nd(input, sizes, dims, last, norm, fname, conj):
    x = _promote(input, require_complex=True)
    ri = _resize(_ri(x), dims, sizes)
    if conj:  # hfft: the forward transform of a Hermitian signal
        code = _norm(norm, True)
        if len(dims) > 1:
            ri = _C._fft_c2c(ri, dims[:-1], code, True)
        return _C._fft_c2r(_conj_ri(ri), dims[-1:], code, last)
    return _C._fft_c2r(ri, dims, _norm(norm, False), last)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of rfft: n real points (default 2 * (input.size(dim) - 1)).

    >>> ember.fft.irfft(ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0])))
    tensor([1., 2., 3., 4.])
    """
    x = _input(input, "irfft")
    sizes, dims, last = _c2r_args(x, None, None, "irfft", one=(n, dim))
    return _out(_c2r_nd(x, sizes, dims, last, norm, "irfft", False), out, "irfft", False)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of rfftn.

    >>> x = ember.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> ember.fft.irfftn(ember.fft.rfftn(x), x.shape)
    tensor([[[1., 2.],
             [3., 4.]]])
    """
    x = _input(input, "irfftn")
    sizes, dims, last = _c2r_args(x, s, dim, "irfftn", "irfftn")
    return _out(_c2r_nd(x, sizes, dims, last, norm, "irfftn", False), out, "irfftn", False)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """irfftn over the last two dims.

    >>> ember.fft.irfft2(ember.tensor([[4.0, 0.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    x = _input(input, "irfft2")
    sizes, dims, last = _c2r_args(x, s, dim, "irfft2", "irfftn")
    return _out(_c2r_nd(x, sizes, dims, last, norm, "irfft2", False), out, "irfftn", False)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a Hermitian-symmetric signal given by its first half: n real points.

    >>> ember.fft.hfft(ember.tensor([1.0, 2.0, 3.0]))
    tensor([ 8., -2.,  0., -2.])
    """
    x = _input(input, "hfft")
    sizes, dims, last = _c2r_args(x, None, None, "hfft", one=(n, dim))
    return _out(_c2r_nd(x, sizes, dims, last, norm, "hfft", True), out, "hfft", False)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-d transform of a Hermitian-symmetric signal given by its onesided half.

    >>> ember.fft.hfftn(ember.tensor([[[8.0, 0.0]]])).shape
    ember.Size([1, 1, 2])
    """
    x = _input(input, "hfftn")
    sizes, dims, last = _c2r_args(x, s, dim, "hfftn", "hfftn")
    return _out(_c2r_nd(x, sizes, dims, last, norm, "hfftn", True), out, "hfftn", False)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """hfftn over the last two dims.

    >>> ember.fft.hfft2(ember.tensor([[4.0, 0.0], [0.0, 0.0]]))
    tensor([[4., 4.],
            [4., 4.]])
    """
    x = _input(input, "hfft2")
    sizes, dims, last = _c2r_args(x, s, dim, "hfft2", "hfftn")
    return _out(_c2r_nd(x, sizes, dims, last, norm, "hfft2", True), out, "hfftn", False)


# ---------------------------------------------------------------- frequencies and shifts


def _freq_dtype(dtype, fname):
    E = _ember()
    dtype = E.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    return dtype


def _freq(k, n, d, dtype, out, requires_grad, fname):
    E = _ember()
    scale = 1.0 / (n * d) if n * d else float("inf")  # n == 0: an empty result anyway
    res = k.to(dtype if dtype.is_floating_point else E.get_default_dtype()) * scale
    res = res.to(dtype)
    if out is not None:
        res = _out(res, out, fname, dtype.is_complex)
    return res.requires_grad_(requires_grad) if requires_grad else res


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform: [0, 1, ..., (n-1)//2, -(n//2), ..., -1]
    / (d * n).

    >>> ember.fft.fftfreq(4), ember.fft.fftfreq(5, d=0.5)
    (tensor([ 0.0000,  0.2500, -0.5000, -0.2500]), tensor([ 0.0000,  0.4000,  0.8000, -0.8000, -0.4000]))
    """
    E = _ember()
    n = _int(n, "fftfreq", "n")
    dtype = _freq_dtype(dtype, "fftfreq")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = E.cat([E.arange((n + 1) // 2), E.arange(-(n // 2), 0)])
    return _freq(k, n, d, dtype, out, requires_grad, "fftfreq")


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's n-point output: [0, 1, ..., n // 2] / (d * n).

    >>> ember.fft.rfftfreq(4)
    tensor([0.0000, 0.2500, 0.5000])
    """
    E = _ember()
    n = _int(n, "rfftfreq", "n")
    dtype = _freq_dtype(dtype, "rfftfreq")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _freq(E.arange(n // 2 + 1), n, d, dtype, out, requires_grad, "rfftfreq")


def _shift(input, dim, fname, inverse):
    _input(input, fname)
    dims = list(range(input.dim())) if dim is None else [
        _wrap(d, input.dim()) for d in _int_list(dim, fname, "dim")]
    if not dims:  # a 0-d input (or dim=()): torch's roll refuses empty shifts
        raise RuntimeError(f"{fname}: `shifts` required: the input has no dims to shift")
    shifts = [(input.shape[d] + inverse) // 2 for d in dims]
    return _ember().roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Moves the zero frequency to the middle: roll by size // 2 along dim (all dims).

    >>> ember.fft.fftshift(ember.fft.fftfreq(5))
    tensor([-0.4000, -0.2000,  0.0000,  0.2000,  0.4000])
    """
    return _shift(input, dim, "fftshift", 0)


def ifftshift(input, dim=None):
    """The inverse of fftshift: roll by (size + 1) // 2 along dim (all dims).

    >>> ember.fft.ifftshift(ember.tensor([-2.0, -1.0, 0.0, 1.0, 2.0]))
    tensor([ 0.,  1.,  2., -2., -1.])
    """
    return _shift(input, dim, "ifftshift", 1)

