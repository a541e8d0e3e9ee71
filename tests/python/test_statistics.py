"""Statistics, counting and searching (python/ember/_statistics.py): nansum, nanmean,
median, nanmedian, quantile/nanquantile (every interpolation), std_mean, var_mean, aminmax,
diff, cov, corrcoef, bincount, histc, searchsorted, bucketize, unique, unique_consecutive;
forward and gradients against PyTorch, gradchecks, 0-d/empty and bad inputs."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op, gradcheck_op

NUM = ["int32", "int64", "float32", "float64"]
FLOAT = ["float32", "float64"]
INTERP = ["linear", "lower", "higher", "midpoint", "nearest"]


def _nans(m, x):
    """x with NaN in a few places (one whole row of the last rows stays finite)."""
    return m.where((x > 1.5) & (m.arange(x.shape[-1]) % 2 == 0), x * float("nan"), x)


def _q(m, dtype, values):
    return m.tensor(values, dtype=getattr(m, dtype))


FORWARD = {
    "nansum": (lambda m, x: m.nansum(_nans(m, x)), [(3, 5)], FLOAT),
    "nansum_dim": (lambda m, x: _nans(m, x).nansum((0, 1), keepdim=True), [(3, 5)], FLOAT),
    "nansum_int": (lambda m, x: m.nansum(x, 1), [(3, 5)], ["int64"]),
    "nanmean": (lambda m, x: m.nanmean(_nans(m, x), 1), [(3, 5)], FLOAT),
    "median": (lambda m, x: m.median(x), [(3, 5)], NUM),
    "median_dim": (lambda m, x: tuple(m.median(x, 1)), [(3, 6)], FLOAT),
    "median_keepdim": (lambda m, x: tuple(x.median(0, keepdim=True)), [(5, 3)], FLOAT),
    "median_nan": (lambda m, x: tuple(m.median(_nans(m, x), 1)), [(3, 6)], FLOAT),
    "nanmedian": (lambda m, x: tuple(m.nanmedian(_nans(m, x), -1)), [(3, 6)], FLOAT),
    "nanmedian_all": (lambda m, x: m.nanmedian(_nans(m, x)), [(3, 6)], FLOAT),
    "quantile": (lambda m, x: m.quantile(x, 0.3), [(3, 5)], FLOAT),
    "quantile_dim": (lambda m, x: m.quantile(x, _q(m, "float64", [0.0, 0.25, 1.0]), 1, True),
                     [(3, 5)], ["float64"]),
    "quantile_nan": (lambda m, x: m.quantile(_nans(m, x), 0.5, 1), [(3, 6)], FLOAT),
    "nanquantile": (lambda m, x: m.nanquantile(_nans(m, x), 0.7, 1), [(3, 6)], FLOAT),
    "std_mean": (lambda m, x: m.std_mean(x, 1), [(3, 5)], FLOAT),
    "std_mean_all": (lambda m, x: m.std_mean(x, unbiased=False), [(3, 5)], FLOAT),
    "var_mean": (lambda m, x: m.var_mean(x, (0, 1), correction=0, keepdim=True), [(3, 5)], FLOAT),
    "aminmax": (lambda m, x: tuple(m.aminmax(x)), [(3, 5)], NUM),
    "aminmax_dim": (lambda m, x: tuple(x.aminmax(dim=0, keepdim=True)), [(3, 5)], NUM),
    "diff": (lambda m, x: m.diff(x), [(3, 5)], NUM + ["bool"]),
    "diff_n": (lambda m, x: x.diff(2, 0), [(4, 5)], NUM),
    "diff_append": (lambda m, x, y: m.diff(x, dim=1, prepend=y, append=y), [(3, 5), (3, 2)], NUM),
    "cov": (lambda m, x: m.cov(x), [(3, 6)], NUM),
    "cov_1d": (lambda m, x: m.cov(x, correction=0), [(6,)], FLOAT),
    "cov_aweights": (lambda m, x, w: m.cov(x, aweights=w.abs()), [(3, 6), (6,)], FLOAT),
    "corrcoef": (lambda m, x: m.corrcoef(x), [(3, 6)], FLOAT),
    "bincount": (lambda m, x: m.bincount(x.abs()), [(20,)], ["int64", "int32"]),
    "bincount_weights": (lambda m, x, w: m.bincount(x.abs(), w, minlength=12), [(9,), (9,)],
                         ["int64"]),
    "histc": (lambda m, x: m.histc(x, 7), [(4, 9)], FLOAT),
    "histc_range": (lambda m, x: x.histc(4, -1, 1), [(40,)], FLOAT),
    "searchsorted": (lambda m, b, v: m.searchsorted(b.sort().values, v), [(6,), (3, 4)], NUM),
    "searchsorted_right": (lambda m, b, v: m.searchsorted(b.sort(-1).values, v, right=True),
                           [(3, 6), (3, 4)], FLOAT),
    "searchsorted_sorter": (lambda m, b, v: m.searchsorted(b, v, sorter=b.argsort(), side="right"),
                            [(6,), (5,)], FLOAT),
    "bucketize": (lambda m, v, b: m.bucketize(v, b.sort().values, out_int32=True), [(3, 4), (5,)],
                  NUM),
    "unique": (lambda m, x: m.unique(x), [(4, 5)], ["int64", "int32", "bool"]),
    "kthvalue": (lambda m, x: tuple(m.kthvalue(x, 2)), [(3, 6)], FLOAT),
    "kthvalue_dim": (lambda m, x: tuple(x.kthvalue(4, 0, keepdim=True)), [(5, 3)], FLOAT),
    "msort": (lambda m, x: m.msort(x), [(5, 3)], FLOAT),
    "unique_all": (lambda m, x: m.unique(x, return_inverse=True, return_counts=True), [(4, 5)],
                   ["int64", "float32"]),
    "unique_consecutive": (lambda m, x: m.unique_consecutive((x / 2).round(), return_inverse=True,
                                                             return_counts=True), [(12,)], FLOAT),
    "unique_dim0": (lambda m, x: m.unique((x / 2).round(), dim=0, return_inverse=True,
                                          return_counts=True), [(6, 3)], FLOAT),
    "unique_dim_last": (lambda m, x: x.unique(dim=-1, return_counts=True), [(3, 2, 5)],
                        ["int64", "bool"]),
    "unique_consecutive_dim": (lambda m, x: m.unique_consecutive((x / 4).round(), dim=1,
                                                                 return_inverse=True,
                                                                 return_counts=True), [(2, 7)], FLOAT),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    fn, shapes, dtypes = FORWARD[name]
    # An expanded input has equal rows: median along dim 0 ties (any index is right; torch's
    # values there are wrong in 2.13, zeros).
    ties = name in ("median_keepdim", "kthvalue_dim", "msort")
    layouts = [lt for lt in LAYOUTS if lt != "expanded"] if ties else LAYOUTS
    check_op(fn, shapes, dtypes=dtypes, layouts=layouts, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("interpolation", INTERP)
def test_quantile_interpolations(interpolation):
    for fn in (lambda m, x: m.quantile(x, _q(m, "float32", [0.1, 0.5, 0.9]), 0,
                                       interpolation=interpolation),
               lambda m, x: m.nanquantile(_nans(m, x), 0.35, 1, keepdim=True,
                                          interpolation=interpolation)):
        check_op(fn, [(4, 7)], dtypes=["float32"], layouts=LAYOUTS)


GRADS = {
    "nansum": (lambda m, x: m.nansum(x, 1), [(3, 5)]),
    "nanmean": (lambda m, x: m.nanmean(x, 0), [(3, 5)]),
    "median": (lambda m, x: m.median(x), [(3, 5)]),
    "median_dim": (lambda m, x: m.median(x, 1).values, [(3, 6)]),
    "nanmedian": (lambda m, x: m.nanmedian(x, 0).values, [(5, 3)]),
    "quantile": (lambda m, x: m.quantile(x, 0.3, 1), [(3, 5)]),
    "quantile_midpoint": (lambda m, x: m.quantile(x, 0.5, 0, interpolation="midpoint"), [(4, 3)]),
    "std_mean": (lambda m, x: m.std_mean(x, 1), [(3, 5)]),
    "var_mean": (lambda m, x: m.var_mean(x), [(3, 5)]),
    "aminmax": (lambda m, x: tuple(m.aminmax(x, dim=1)), [(3, 5)]),
    "diff": (lambda m, x: m.diff(x, 2), [(3, 5)]),
    "cov": (lambda m, x: m.cov(x), [(3, 6)]),
    "corrcoef": (lambda m, x: m.corrcoef(x), [(3, 6)]),
    "kthvalue": (lambda m, x: m.kthvalue(x, 3, 1).values, [(3, 6)]),
    "msort": (lambda m, x: m.msort(x), [(5, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_matches_torch(name):
    fn, shapes = GRADS[name]
    check_grad(fn, shapes, layouts=["contiguous", "transposed", "sliced"])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, shapes = GRADS[name]
    gradcheck_op(fn, shapes)


def test_0d_and_empty():
    for fn in (lambda m, x: m.nansum(x), lambda m, x: m.median(x), lambda m, x: m.quantile(x, 0.5),
               lambda m, x: tuple(m.aminmax(x)), lambda m, x: m.unique(x)):
        check_op(fn, [()], dtypes=FLOAT)
    for fn in (lambda m, x: m.nansum(x), lambda m, x: m.nanmean(x), lambda m, x: m.unique(x),
               lambda m, x: m.diff(x), lambda m, x: m.histc(x, 3),
               lambda m, x: m.bincount(x.long())):
        check_op(fn, [(0,)], dtypes=["float32"])


def test_bad_inputs():
    x = ember.ones(3, 4)
    with pytest.raises(RuntimeError, match="quantile.*range"):
        ember.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match="quantile.*float"):
        ember.quantile(ember.ones(3, dtype=ember.int64), 0.5)
    with pytest.raises(ValueError, match="interpolation"):
        ember.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="quantile.*non-empty"):
        ember.quantile(ember.ones(0), 0.5)
    with pytest.raises(IndexError, match="median"):
        ember.median(x, 5)
    with pytest.raises(IndexError, match="nansum.*99"):
        ember.nansum(x, 99)
    with pytest.raises(RuntimeError, match="bincount"):
        ember.bincount(ember.tensor([-1, 2]))
    with pytest.raises(RuntimeError, match="bincount"):
        ember.bincount(x)
    with pytest.raises(NotImplementedError, match="histogram"):
        ember.histc(ember.ones(3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="histc"):
        ember.histc(x, 4, 2, 1)
    with pytest.raises(RuntimeError, match=r"searchsorted.*\(3, 4\).*\(5, 6\)"):
        ember.searchsorted(x, ember.ones(5, 6))
    with pytest.raises(RuntimeError, match="bucketize"):
        ember.bucketize(x, x)
    with pytest.raises(RuntimeError, match="cov"):
        ember.cov(ember.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="kthvalue.*k=5"):
        ember.kthvalue(x, 5)
    with pytest.raises(RuntimeError, match="diff"):
        ember.diff(ember.tensor(1.0))
    for op in (ember.unique, ember.unique_consecutive):  # the dim forms, with torch's errors
        with pytest.raises(IndexError, match="Dimension out of range"):
            op(x, dim=2)
        with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dim"):
            op(ember.tensor(1.0), dim=0)
        with pytest.raises(RuntimeError, match="0 sized dimensions, and they aren't selected"):
            op(ember.ones(3, 0), dim=0)
        assert op(ember.ones(0, 3), dim=0).shape == (0, 3)
    for call in (lambda m: m.quantile(m.ones(3, 4), 1.5), lambda m: m.bincount(m.tensor([-1])),
                 lambda m: m.bucketize(m.ones(3, 4), m.ones(3, 4)),
                 lambda m: m.histc(m.ones(3), 4, 2, 1)):
        with pytest.raises(RuntimeError):
            call(torch)
