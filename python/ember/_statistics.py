"""Statistics over tensors (nansum, nanmean, median, nanmedian, quantile, nanquantile,
std_mean, var_mean, aminmax, diff, cov, corrcoef) and counting/searching (bincount, histc,
searchsorted, bucketize, unique, unique_consecutive). Each is a composition of ember's C++
ops (argsort + gather for order statistics, scatter_add for counts, broadcast comparisons
for searches), so gradients come from gather and the arithmetic ops. No element loops."""
import builtins
import warnings
from collections import namedtuple

from . import _C, _creation
from ._comparison import check_dims
from ._dtype import (float32, float64, int32, int64, bool as _bool, bfloat16, float16,
                     TORCH_TYPE_NAMES)

Tensor = _C.Tensor
_FLOATING = (float32, float64, bfloat16, float16)


def _result(name, fields=("values", "indices")):
    cls = namedtuple(name, fields)
    cls.__module__ = "ember.return_types"
    cls.__repr__ = lambda self: (f"ember.return_types.{name}(\n" + ",\n".join(
        f"{f}={v!r}" for f, v in zip(fields, self)) + ")")
    return cls


median_result = _result("median")
nanmedian_result = _result("nanmedian")
aminmax_result = _result("aminmax", ("min", "max"))
kthvalue_result = _result("kthvalue")
mode_result = _result("mode")


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")
    return x


def _wrap_dim(dim, n, fn):
    m = builtins.max(n, 1)
    if not -m <= dim < m:
        raise IndexError(f"{fn}(): Dimension out of range (expected to be in range of [{-m}, "
                         f"{m - 1}], but got {dim})")
    return dim % m


# ---- NaN-ignoring reductions --------------------------------------------------------------------
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum with NaNs counted as zero.

    >>> ember.nansum(ember.tensor([1.0, float('nan'), 3.0]))
    tensor(4.)
    """
    _check_tensor(input, "nansum")
    if dim is not None:
        check_dims("nansum", dim, input.dim())
    x = input if input.dtype not in _FLOATING else _C.where(_C.isnan(input), 0.0, input)
    if dtype is not None:
        x = x.to(dtype)
    return x.sum() if dim is None else x.sum(dim, keepdim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """mean over the non-NaN elements (NaN where there are none).

    >>> ember.nanmean(ember.tensor([1.0, float('nan'), 3.0]))
    tensor(2.)
    """
    _check_tensor(input, "nanmean")
    if dim is not None:
        check_dims("nanmean", dim, input.dim())
    if input.dtype not in _FLOATING and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                           f"{input.dtype}")
    x = input if dtype is None else input.to(dtype)
    count = _C.logical_not(_C.isnan(x)).to(x.dtype)
    count = count.sum() if dim is None else count.sum(dim, keepdim)
    return nansum(x, dim, keepdim) / count


# ---- order statistics ---------------------------------------------------------------------------
def _sorted_along(x, dim):
    """(values, indices) of x sorted ascending along dim, NaNs last; the values are gathered
    from x, so they carry x's gradient."""
    idx = _C.argsort(x.detach(), dim, stable=True)
    return x.gather(dim, idx), idx


def _median(fn, input, dim, keepdim, ignore_nan):
    _check_tensor(input, fn)
    if dim is None:
        if input.numel() == 0:
            return _creation.full([], float("nan"), dtype=input.dtype) if input.dtype in _FLOATING else \
                _raise(fn, "median() input tensor cannot be empty")
        flat = input.reshape(-1)
        return _median(fn, flat, 0, False, ignore_nan).values
    d = _wrap_dim(dim, input.dim(), fn)
    x = input if input.dim() else input.reshape(1)
    if x.shape[d] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    values, idx = _sorted_along(x, d)
    n = x.shape[d]
    if x.dtype in _FLOATING:
        valid = _C.logical_not(_C.isnan(x.detach())).long().sum(d, True)
        if ignore_nan:   # the lower median of the non-NaN values (NaN if all are NaN)
            k = _C.clamp((valid - 1) // 2, min=0)
        else:            # any NaN: the (first) NaN, which sorts right after the numbers
            k = _C.where(valid < n, valid, _creation.full([], (n - 1) // 2, dtype=int64))
    else:
        k = _creation.full([1 if i == d else s for i, s in enumerate(x.shape)], (n - 1) // 2,
                           dtype=int64)
    v, i = values.gather(d, k), idx.gather(d, k)
    if not keepdim or input.dim() == 0:
        v, i = v.squeeze(d), i.squeeze(d)
    return (nanmedian_result if ignore_nan else median_result)(v, i)


def _raise(fn, msg):
    raise RuntimeError(f"{fn}(): {msg}")


def median(input, dim=None, keepdim=False):
    """The lower median (values, indices) along dim; of all elements when dim is None.

    >>> ember.median(ember.tensor([3.0, 1.0, 2.0, 4.0]))
    tensor(2.)
    """
    return _median("median", input, dim, keepdim, False)


def nanmedian(input, dim=None, keepdim=False):
    """nanmedian(input, dim=None, keepdim=False) -> Tensor or (values, indices)

    median ignoring NaNs (the lower of the two middle values, as median).

    >>> ember.nanmedian(ember.tensor([1.0, float('nan'), 3.0, 2.0]))
    tensor(2.)
    """
    return _median("nanmedian", input, dim, keepdim, True)


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along dim (values, indices).

    >>> ember.kthvalue(ember.tensor([3.0, 1.0, 2.0]), 2)
    ember.return_types.kthvalue(
    values=tensor(2.),
    indices=tensor(2))
    """
    _check_tensor(input, "kthvalue")
    d = _wrap_dim(dim, input.dim(), "kthvalue")
    x = input if input.dim() else input.reshape(1)
    n = x.shape[d]
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k={k} out of range for dimension {d} "
                           f"(size {n})")
    values, idx = _sorted_along(x, d)
    v, i = values.narrow(d, k - 1, 1), idx.narrow(d, k - 1, 1)
    if not keepdim or input.dim() == 0:
        v, i = v.squeeze(d), i.squeeze(d)
    return kthvalue_result(v, i)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones) and the index
    of its last occurrence, as torch: runs of the stably sorted rows, counted by scatter_add.

    >>> ember.mode(ember.tensor([1, 2, 2, 3]))
    ember.return_types.mode(
    values=tensor(2),
    indices=tensor(2))
    """
    _check_tensor(input, "mode")
    d = _wrap_dim(dim, input.dim(), "mode")
    x = input if input.dim() else input.reshape(1)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    order = _C.argsort(x.detach(), d, stable=True).movedim(d, -1)
    ranked = x.detach().movedim(d, -1).gather(-1, order)
    first = _creation.ones(list(ranked.shape[:-1]) + [1], dtype=_bool)
    starts = _C.cat([first, _C.ne(ranked.narrow(-1, 1, n - 1), ranked.narrow(-1, 0, n - 1))], -1)
    run = _C.cumsum(starts.long(), -1) - 1
    counts = _creation.zeros(list(run.shape), dtype=int64).scatter_add(-1, run, _creation.ones(
        list(run.shape), dtype=int64))
    best = counts.argmax(-1, keepdim=True)       # the first (smallest) most frequent run
    position = _creation.arange(n, dtype=int64)
    last = _C.where(_C.eq(run, best), position, -1).amax(-1, keepdim=True)
    index = order.gather(-1, last).movedim(-1, d)
    values = x.gather(d, index)
    if not keepdim or input.dim() == 0:
        values, index = values.squeeze(d), index.squeeze(d)
    return mode_result(values, index)


def msort(input):
    """input sorted along dim 0.

    >>> ember.msort(ember.tensor([[3, 1], [1, 2]]))
    tensor([[1, 1],
            [3, 2]])
    """
    _check_tensor(input, "msort")
    return _sorted_along(input, 0)[0] if input.dim() else input.clone()


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(fn, input, q, dim, keepdim, interpolation, ignore_nan):
    _check_tensor(input, fn)
    if input.dtype not in _FLOATING:
        raise RuntimeError(f"{fn}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or "
                         f"nearest. Got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        qt = _creation.full([], float(q), dtype=input.dtype)
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor, got shape {tuple(q.shape)}")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
        qt = q.detach()
    if qt.numel() and (builtins.bool((qt < 0).any()) or builtins.bool((qt > 1).any())):
        raise RuntimeError(f"{fn}() q values must be in the range [0, 1]")
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.dim(), fn)
        x = input if input.dim() else input.reshape(1)
    values, _ = _sorted_along(x, d)
    values = values.movedim(d, -1) if hasattr(values, "movedim") else values.transpose(d, -1)
    n = values.shape[-1]
    valid = _C.logical_not(_C.isnan(values.detach())).to(input.dtype).sum(-1, True)  # (..., 1)
    qv = qt.reshape(-1)                                                       # (Q,)
    if ignore_nan:
        rank = qv * _C.clamp(valid - 1, min=0)                                # (..., Q)
    else:   # a NaN anywhere: the answer is NaN (rank n - 1 reads the last, NaN, value)
        rank = _C.where(valid < n, _creation.full([], float(n - 1), dtype=input.dtype), qv * (n - 1))
    rank = rank.expand(*(list(values.shape[:-1]) + [qv.numel()]))
    if interpolation == "lower":
        rank = _C.floor(rank)
    elif interpolation == "higher":
        rank = _C.ceil(rank)
    elif interpolation == "nearest":
        rank = _C.round(rank)
    lo = _C.floor(rank).long()
    hi = _C.clamp(_C.ceil(rank).long(), max=n - 1)
    below, above = values.gather(-1, lo), values.gather(-1, hi)
    if interpolation == "midpoint":
        out = below + (above - below) * 0.5
    elif interpolation == "linear":
        out = _C.lerp(below, above, (rank - lo.to(input.dtype)).detach())
    else:
        out = below
    if ignore_nan:  # rows that are all NaN give NaN
        out = _C.where(valid == 0, _creation.full([], float("nan"), dtype=input.dtype), out)
    out = out.movedim(-1, 0)                                                  # (Q, ...)
    if keepdim:
        if dim is None:
            out = out.reshape([out.shape[0]] + [1] * input.dim())
        else:
            out = out.unsqueeze(d + 1) if input.dim() else out
    return out.squeeze(0) if scalar_q or q.dim() == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None) -> Tensor

    The q-th quantiles of input (q a float or a 1-D tensor in [0, 1]), interpolated between
    the sorted values as `interpolation` says.

    >>> ember.quantile(ember.tensor([1.0, 2.0, 3.0, 4.0]), ember.tensor([0.25, 0.5]))
    tensor([1.7500, 2.5000])
    """
    result = _quantile("quantile", input, q, dim, keepdim, interpolation, False)
    return _out(result, out, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None) -> Tensor

    quantile ignoring NaNs (a slice of only NaNs gives NaN).

    >>> ember.nanquantile(ember.tensor([1.0, float('nan'), 3.0]), 0.5)
    tensor(2.)
    """
    result = _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)
    return _out(result, out, "nanquantile")


def _out(result, out, fn):
    if out is None:
        return result
    from ._comparison import _into
    return _into(result, out, fn)


# ---- moments and extremes -----------------------------------------------------------------------
def _moment_args(dim, unbiased, correction):
    if isinstance(dim, builtins.bool):  # std_mean(input, unbiased)
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> (Tensor, Tensor)

    The standard deviation (Bessel-corrected by default) and the mean, in one call.

    >>> ember.std_mean(ember.tensor([1.0, 2.0, 3.0]))
    (tensor(1.), tensor(2.))
    """
    _check_tensor(input, "std_mean")
    dim, correction = _moment_args(dim, unbiased, correction)
    if dim is not None:
        check_dims("std_mean", dim, input.dim())
    return (_C.std(input, dim, correction=correction, keepdim=keepdim),
            _C.mean(input, dim, keepdim) if dim is not None else _C.mean(input))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> (Tensor, Tensor)

    The variance (Bessel-corrected by default) and the mean, in one call.

    >>> ember.var_mean(ember.tensor([1.0, 2.0, 3.0]))
    (tensor(1.), tensor(2.))
    """
    _check_tensor(input, "var_mean")
    dim, correction = _moment_args(dim, unbiased, correction)
    if dim is not None:
        check_dims("var_mean", dim, input.dim())
    return (_C.var(input, dim, correction=correction, keepdim=keepdim),
            _C.mean(input, dim, keepdim) if dim is not None else _C.mean(input))


def aminmax(input, *, dim=None, keepdim=False):
    """aminmax(input, *, dim=None, keepdim=False) -> (Tensor min, Tensor max)

    The minimum and the maximum of input (over `dim`, or over all elements), in one call.

    >>> ember.aminmax(ember.tensor([[1, 5], [3, 2]]), dim=1)
    ember.return_types.aminmax(
    min=tensor([1, 2]),
    max=tensor([5, 3]))
    """
    _check_tensor(input, "aminmax")
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is None:
        lo, hi = _C.amin(input, list(range(input.dim()))), _C.amax(input, list(range(input.dim())))
        if keepdim:
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
        return aminmax_result(lo, hi)
    return aminmax_result(_C.amin(input, dim, keepdim), _C.amax(input, dim, keepdim))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim, after prepending/appending.

    >>> ember.diff(ember.tensor([1, 3, 6, 10]))
    tensor([2, 3, 4])
    """
    _check_tensor(input, "diff")
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim(), "diff")
    parts = [t for t in (prepend, input, append) if t is not None]
    parts = [t if isinstance(t, Tensor) else _creation.full([1 if i == d else s for i, s in
                                                       enumerate(input.shape)], t, dtype=input.dtype)
             for t in parts]
    x = _C.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):  # n is the order (a handful of ops), not a loop over elements
        m = x.shape[d]
        if m == 0:
            break
        a, b = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = _C.logical_xor(a, b) if x.dtype == _bool else a - b
    return x


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) of a 2-d input whose columns are observations.

    >>> ember.cov(ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]))
    tensor([[1.0000, 2.5000],
            [2.5000, 6.3333]])
    """
    _check_tensor(input, "cov")
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input "
                           f"with {input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if x.dtype not in _FLOATING:
        x = x.to(float32)
    obs = x.shape[1]
    w = None
    if fweights is not None:
        _check_tensor(fweights, "cov", "fweights")
        integral = not (fweights.dtype.is_floating_point or fweights.dtype.is_complex
                        or fweights.dtype == _bool)
        if not integral or fweights.dim() > 1 \
                or fweights.numel() != obs:
            raise RuntimeError(f"cov(): expected fweights to be an integer 1-d tensor with {obs} "
                               f"elements, got dtype {fweights.dtype} and shape "
                               f"{tuple(fweights.shape)}")
        if builtins.bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        _check_tensor(aweights, "cov", "aweights")
        if aweights.dtype not in _FLOATING or aweights.dim() > 1 or aweights.numel() != obs:
            raise RuntimeError(f"cov(): expected aweights to be a floating point 1-d tensor with "
                               f"{obs} elements, got dtype {aweights.dtype} and shape "
                               f"{tuple(aweights.shape)}")
        if builtins.bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        norm = obs - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if builtins.float(norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than "
                      "the number of observations.", UserWarning, stacklevel=2)
        norm = 0.0 if not isinstance(norm, Tensor) else _creation.zeros([], dtype=x.dtype)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = _C.mm(xm, xw.t()) / norm
    return c.squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows, clipped to [-1, 1].

    >>> ember.corrcoef(ember.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = _C.sqrt(_C.diagonal(c, 0, 0, 1))
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return _C.clamp(c, -1, 1)


# ---- counting and searching ---------------------------------------------------------------------
def bincount(input, weights=None, minlength=0):
    """How many times each non-negative int occurs (or the sum of its weights).

    >>> ember.bincount(ember.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    """
    _check_tensor(input, "bincount")
    if input.dim() != 1 or (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs (got shape "
                           f"{tuple(input.shape)}, dtype {input.dtype})")
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
    x = input.long()
    if x.numel() and builtins.bool((x < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None:
        _check_tensor(weights, "bincount", "weights")
    if weights is not None and (weights.dim() != 1 or weights.numel() != x.numel()):
        raise RuntimeError(f"bincount: weights should be 1-d and have the same length as input "
                           f"(got shapes {tuple(weights.shape)} and {tuple(input.shape)})")
    size = builtins.max(builtins.int(x.max().item()) + 1 if x.numel() else 0, minlength)
    if weights is None:
        return _creation.zeros([size], dtype=int64).scatter_add(0, x, _creation.ones([x.numel()], dtype=int64))
    dt = weights.dtype if weights.dtype in _FLOATING else float64
    dt = float64 if dt == float64 else float32
    return _creation.zeros([size], dtype=dt).scatter_add(0, x, weights.to(dt))


def histc(input, bins=100, min=0, max=0, *, out=None):
    """Counts in `bins` equal-width bins over [min, max] (the data's range when min == max);
    values outside are ignored, max itself falls in the last bin.

    >>> ember.histc(ember.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    _check_tensor(input, "histc")
    if input.dtype not in _FLOATING:
        name = TORCH_TYPE_NAMES[input.dtype.name]
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{name}\'')
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = builtins.float(min), builtins.float(max)
    x = input.detach().reshape(-1)
    if lo == hi and x.numel():
        lo, hi = builtins.float(x.min().item()), builtins.float(x.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"histc(): max must be larger than min (got min={min}, max={max})")
    if not (builtins.abs(lo) < float("inf") and builtins.abs(hi) < float("inf")):
        raise RuntimeError(f"histc(): range of [{lo}, {hi}] is not finite")
    inside = (x >= lo) & (x <= hi)
    x = _C.masked_select(x, inside)
    pos = _C.clamp(((x - lo) * (bins / (hi - lo))).long(), 0, bins - 1)
    counts = _creation.zeros([bins], dtype=input.dtype).scatter_add(0, pos, _creation.ones([x.numel()],
                                                                              dtype=input.dtype))
    return _out(counts, out, "histc")


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    """For each value, the index where it would be inserted to keep the innermost dim of
    sorted_sequence sorted (left: before equal values; right: after).

    >>> ember.searchsorted(ember.tensor([1, 3, 5, 7]), ember.tensor([3, 6]))
    tensor([1, 3])
    """
    _check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites, got side "
                               "of left while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = seq.gather(-1, sorter)
    scalar = not isinstance(input, Tensor)
    values = _creation.full([], input, dtype=seq.dtype) if scalar else input
    if seq.dim() > 1:
        if values.dim() != seq.dim() or tuple(values.shape[:-1]) != tuple(seq.shape[:-1]):
            raise RuntimeError(f"searchsorted(): boundaries tensor should be 1 dimension or the first "
                               f"N-1 dimensions of boundaries tensor and input value tensor must "
                               f"match, but we got boundaries tensor {tuple(seq.shape)} and input "
                               f"value tensor {tuple(values.shape)}")
        b = seq.detach().unsqueeze(-2)             # (..., 1, n)
    else:
        if seq.dim() == 0:
            raise RuntimeError("searchsorted(): boundaries tensor should be 1 dimension or the first "
                               "N-1 dimensions of boundaries tensor and input value tensor must "
                               "match, but we got boundaries tensor [] and input value tensor "
                               f"{list(values.shape)}")
        b = seq.detach()
    v = values.detach().unsqueeze(-1)
    below = (b <= v) if right else (b < v)
    result = below.long().sum(-1).to(int32 if out_int32 else int64)
    return _out(result, out, "searchsorted")


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """bucketize(input, boundaries, *, out_int32=False, right=False, out=None) -> Tensor

    For each element, the index of the bucket of the sorted 1-D `boundaries` it falls in
    (`right=True`: boundaries[i-1] <= x < boundaries[i]).

    >>> ember.bucketize(ember.tensor([1, 5, 9]), ember.tensor([2, 4, 6, 8]))
    tensor([0, 2, 4])
    """
    _check_tensor(boundaries, "bucketize", "boundaries")
    if boundaries.dim() != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def _unique_parts(starts, values, order, return_inverse, return_counts, inverse_shape):
    """unique's results from `starts` (bool, n: True where a run of equal items begins in sorted
    order) and `values` (the first item of each run): values, then the inverse (each input
    item's run, through the sort `order` when there is one) and the counts when asked."""
    n = starts.numel()
    parts = [values]
    if return_inverse:
        if n == 0:
            parts.append(_creation.zeros(inverse_shape, dtype=int64))
        else:
            group = _C.cumsum(starts.long(), 0) - 1
            inverse = group if order is None else _creation.zeros([n], dtype=int64).scatter(0, order, group)
            parts.append(inverse.reshape(inverse_shape))
    if return_counts:
        if n == 0:
            parts.append(_creation.zeros([0], dtype=int64))
        else:
            begin = _C.nonzero(starts).reshape(-1)
            parts.append(_C.cat([begin[1:], _creation.full([1], n, dtype=int64)], 0) - begin)
    return parts[0] if len(parts) == 1 else tuple(parts)


def _run_starts(sorted_items):
    """True where a run of equal items begins (items along dim 0; rows compare whole)."""
    n = sorted_items.shape[0]
    if n == 0:
        return _creation.zeros([0], dtype=_bool)
    differs = _C.ne(sorted_items[1:], sorted_items[:-1])
    if differs.dim() > 1:
        differs = differs.any(1)
    return _C.cat([_creation.ones([1], dtype=_bool), differs], 0)


def _slices(input, dim, op):
    """input with `dim` moved first, and its slices flattened to rows (n, rest), with torch's
    errors for a 0-d input, a dim out of range and an empty dimension other than `dim`."""
    if input.dim() == 0:
        raise IndexError(f"{op}: Dimension specified as {dim} but tensor has no dimensions")
    if not -input.dim() <= dim < input.dim():
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    d = dim % input.dim()
    if any(size == 0 for i, size in enumerate(input.shape) if i != d):
        raise RuntimeError(f"{op}: There are 0 sized dimensions, and they aren't selected, so "
                           "unique cannot be applied")
    moved = input.detach().movedim(d, 0)
    rest = 1
    for size in moved.shape[1:]:
        rest *= size
    return d, moved, moved.reshape(moved.shape[0], rest)


def _lexsort_rows(rows):
    """The stable order that sorts the rows lexicographically (a stable sort per column, the
    last column first)."""
    order = _C.arange(0, rows.shape[0], 1, int64)
    for col in range(rows.shape[1] - 1, -1, -1):
        order = order.gather(0, _C.argsort(rows[:, col].gather(0, order), 0, stable=True))
    return order


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values in ascending order (ember always sorts, which torch allows for
    sorted=False), with optional inverse indices and counts; with `dim`, the distinct slices
    along dim, in lexicographic order.

    >>> ember.unique(ember.tensor([2, 1, 2, 3]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 2, 1]))
    >>> ember.unique(ember.tensor([[1, 2], [0, 9], [1, 2]]), dim=0)
    tensor([[0, 9],
            [1, 2]])
    """
    _check_tensor(input, "unique")
    if dim is not None:
        d, moved, rows = _slices(input, dim, "unique")
        order = _lexsort_rows(rows)
        starts = _run_starts(rows[order])
        values = moved[order[starts]].movedim(0, d)
        return _unique_parts(starts, values, order, return_inverse, return_counts,
                             [moved.shape[0]])
    flat = input.detach().reshape(-1)
    order = _C.argsort(flat, 0, stable=True)
    sorted_values = flat.gather(0, order)
    starts = _run_starts(sorted_values)
    return _unique_parts(starts, _C.masked_select(sorted_values, starts), order, return_inverse,
                         return_counts, list(input.shape))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses runs of equal consecutive values (of the flattened input; with `dim`, of the
    slices along dim).

    >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 2, 1]))
    tensor([1, 2, 1])
    """
    _check_tensor(input, "unique_consecutive")
    if dim is not None:
        d, moved, rows = _slices(input, dim, "unique_consecutive")
        starts = _run_starts(rows)
        return _unique_parts(starts, moved[starts].movedim(0, d), None, return_inverse,
                             return_counts, [moved.shape[0]])
    flat = input.detach().reshape(-1)
    starts = _run_starts(flat)
    return _unique_parts(starts, _C.masked_select(flat, starts), None, return_inverse,
                         return_counts, list(input.shape))


FUNCTIONS = {
    "nansum": nansum, "nanmean": nanmean, "median": median, "nanmedian": nanmedian,
    "quantile": quantile, "nanquantile": nanquantile, "std_mean": std_mean, "var_mean": var_mean,
    "aminmax": aminmax, "diff": diff, "cov": cov, "corrcoef": corrcoef, "bincount": bincount,
    "histc": histc, "searchsorted": searchsorted, "bucketize": bucketize, "unique": unique,
    "unique_consecutive": unique_consecutive, "kthvalue": kthvalue, "msort": msort,
    "mode": mode,
}
METHODS = {n: f for n, f in FUNCTIONS.items() if n not in ("std_mean", "var_mean",
                                                           "searchsorted")}
