"""Cumulative extrema and log-sum-exp along a dim (cummax, cummin, logcumsumexp) as a
parallel prefix scan (Hillis-Steele): ceil(log2 n) whole-tensor steps, each combining every
element with the one 2**k places before it. No loop over elements; the values carry the
input's gradient (cummax/cummin gather it, logcumsumexp is made of logaddexp)."""
from collections import namedtuple

from . import _C, _creation
from ._comparison import check_dims
from ._dtype import float32, float64, int64, bfloat16, float16, TORCH_TYPE_NAMES

Tensor = _C.Tensor
_FLOATING = (float32, float64, bfloat16, float16)


def _result(name):
    cls = namedtuple(name, ("values", "indices"))
    cls.__module__ = "ember.return_types"
    cls.__repr__ = lambda self: (f"ember.return_types.{name}(\nvalues={self.values!r},\n"
                                 f"indices={self.indices!r})")
    return cls


cummax_result = _result("cummax")
cummin_result = _result("cummin")


def _check(fn, input, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{fn}(): argument 'dim' must be int, not {type(dim).__name__}")
    check_dims(fn, dim, input.dim())
    return dim % max(input.dim(), 1)


def _shifted(x, k, fill):
    """x moved k places later along the last dim, the first k places filled with `fill`."""
    n = x.shape[-1]
    head = fill.expand(*(list(x.shape[:-1]) + [k])) if isinstance(fill, Tensor) else fill
    return _C.cat([head, x.narrow(-1, 0, n - k)], -1)


def _cum_extreme(fn, result, input, dim, later_wins):
    """(values, indices) of the running max/min: NaN wins over numbers and, among equals or
    NaNs, the later element wins (torch's cummax/cummin)."""
    d = _check(fn, input, dim)
    x = input.detach() if input.dim() else input.detach().reshape(1)
    x = x.movedim(d, -1)
    n = x.shape[-1]
    idx = _creation.arange(n, dtype=int64).expand(*x.shape)
    v, i = x, idx
    k = 1
    while k < n:  # ceil(log2(n)) steps over the whole tensor
        pv = _shifted(v, k, v.narrow(-1, 0, 1))
        pi = _shifted(i, k, i.narrow(-1, 0, 1))
        keep_earlier = later_wins(v, pv)  # True: the earlier (shifted) candidate stays
        keep_earlier = _C.logical_and(keep_earlier, _C.ge(idx, k))
        v, i = _C.where(keep_earlier, pv, v), _C.where(keep_earlier, pi, i)
        k *= 2
    i = i.movedim(-1, d)
    if input.dim() == 0:
        i = i.reshape([])
    values = input.gather(d, i) if input.dim() else input.clone()
    return result(values, i.contiguous())


def _earlier_beats(greater):
    def beats(v, pv):
        """The earlier candidate pv stays when it is strictly better than v (NaN is best)."""
        better = greater(pv, v)
        if v.dtype in _FLOATING:
            better = _C.logical_and(_C.logical_or(better, _C.isnan(pv)), _C.logical_not(_C.isnan(v)))
        return better
    return beats


def cummax(input, dim):
    """cummax(input, dim) -> (Tensor values, Tensor indices)

    The running maximum along `dim` and the index where each was reached (the last one on ties,
    as torch).

    >>> ember.cummax(ember.tensor([1, 3, 2, 5]), dim=0)
    ember.return_types.cummax(
    values=tensor([1, 3, 3, 5]),
    indices=tensor([0, 1, 1, 3]))
    """
    return _cum_extreme("cummax", cummax_result, input, dim, _earlier_beats(_C.gt))


def cummin(input, dim):
    """cummin(input, dim) -> (Tensor values, Tensor indices)

    The running minimum along `dim` and the index where each was reached (the last one on ties,
    as torch).

    >>> ember.cummin(ember.tensor([4, 2, 3, 1]), dim=0)
    ember.return_types.cummin(
    values=tensor([4, 2, 2, 1]),
    indices=tensor([0, 1, 1, 3]))
    """
    return _cum_extreme("cummin", cummin_result, input, dim, _earlier_beats(_C.lt))


def logcumsumexp(input, dim, *, out=None):
    """log(cumsum(exp(input))) without overflow: a prefix scan of logaddexp.

    >>> ember.logcumsumexp(ember.tensor([0.0, 0.0, 0.0]), dim=0)
    tensor([0.0000, 0.6931, 1.0986])
    """
    d = _check("logcumsumexp", input, dim)
    if input.dtype not in _FLOATING:
        name = TORCH_TYPE_NAMES[input.dtype.name]
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{name}\'')
    from ._pointwise import logaddexp
    x = (input if input.dim() else input.reshape(1)).movedim(d, -1)
    n = x.shape[-1]
    ninf = _creation.full([], float("-inf"), dtype=x.dtype)
    k = 1
    while k < n:  # ceil(log2(n)) steps over the whole tensor
        x = logaddexp(x, _shifted(x, k, ninf))
        k *= 2
    result = x.movedim(-1, d)
    result = result.reshape([]) if input.dim() == 0 else result
    if out is not None:
        from ._comparison import _into
        return _into(result, out, "logcumsumexp")
    return result


FUNCTIONS = {"cummax": cummax, "cummin": cummin, "logcumsumexp": logcumsumexp}
METHODS = dict(FUNCTIONS)
