"""Reductions and softmax against PyTorch: dtypes, layouts, dims, keepdim, 0-d and empty
tensors, NaN, long rows (the blocked kernels), bad inputs, and thread determinism."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op, on_thread_counts

# PyTorch (the oracle) warns when var/std divide by n - correction <= 0; ember does not.
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")

ALL_DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64"]
NUMERIC = ["uint8", "int32", "int64", "float32", "float64"]
FLOATS = ["float32", "float64"]
DIMS = [None, 0, -1, 1, (0, 2), (-1, 0), (0, 1, 2), ()]


def dim_kwargs(dim, keepdim):
    return {"dim": dim, "keepdim": keepdim}


def from_np(arr):
    return ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def run_both(fn, *arrays, **kw):
    es, ts = zip(*(from_np(a) for a in arrays))
    assert_same(fn(ember, *es), fn(torch, *ts), **kw)


# ---- sum / mean / prod ------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum(layout, dim, keepdim):
    kw = dim_kwargs(dim, keepdim)
    check_op(lambda m, x: x.sum(**kw), [(3, 4, 5)], ALL_DTYPES, [layout])


@pytest.mark.parametrize("shape", [(600, 2, 16), (50, 8, 64), (7, 3, 1000), (3, 70, 16), (5, 200, 4)])
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "prod", "var", "logsumexp"])
def test_reductions_over_a_middle_dim_of_few_rows(shape, op):
    """Few reduced rows of narrow contiguous rows (GAT's mean over heads): the outer driver
    touches only the accumulators it uses; results as torch's, the same on 1 and 2 threads."""
    a = np.random.default_rng(3).standard_normal(shape).astype(np.float32) * 0.5
    e, t = from_np(a)
    assert_same(getattr(e, op)(1), getattr(t, op)(1), rtol=2e-5, atol=1e-5)
    one, two = on_thread_counts(lambda: getattr(e, op)(1).numpy().tobytes())
    assert one == two


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_mean(layout, dim, keepdim):
    kw = dim_kwargs(dim, keepdim)
    # integer inputs raise in both (mean needs a floating dtype)
    check_op(lambda m, x: x.mean(**kw), [(3, 4, 5)], ["int64", "float32", "float64"], [layout])


def test_sum_mean_function_forms():
    check_op(lambda m, x: m.sum(x, 1), [(3, 4)], NUMERIC)
    check_op(lambda m, x: m.sum(x, (0, 1), True), [(3, 4)], NUMERIC)
    check_op(lambda m, x: m.mean(x, -1, keepdim=True), [(3, 4)], FLOATS)
    check_op(lambda m, x: m.sum(x, dim=[0]), [(3, 4)], NUMERIC)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_sum_dtype_argument(dtype):
    dt = lambda m: getattr(m, dtype)
    # non-negative inputs: a negative float converted to uint8 is platform-defined in PyTorch
    check_op(lambda m, x: x.sum(dtype=dt(m)), [(3, 4)], ALL_DTYPES, low=0.0)
    check_op(lambda m, x: x.sum(1, keepdim=True, dtype=dt(m)), [(3, 4)], ALL_DTYPES,
             ["transposed"], low=0.0)
    check_op(lambda m, x: x.mean(0, dtype=dt(m)), [(3, 4)], ALL_DTYPES, low=0.0)
    check_op(lambda m, x: x.prod(1, dtype=dt(m)), [(3, 4)], ALL_DTYPES, high=2.0, low=0.0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod(layout, dim, keepdim):
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    check_op(lambda m, x: x.prod(**kw), [(3, 4, 5)], ALL_DTYPES, [layout], low=-2.0, high=2.0)


def test_integer_sums_wrap_like_int64():
    a = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    run_both(lambda m, x: x.sum(), a)
    run_both(lambda m, x: x.prod(), a)
    b = np.array([200, 100], dtype=np.uint8)
    run_both(lambda m, x: x.sum(), b)
    run_both(lambda m, x: x.sum(dtype=m.uint8), b)


# ---- amax / amin / max / min / argmax / argmin -----------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2), ()])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin(layout, dim, keepdim):
    kw = {"keepdim": keepdim} if dim is None else {"dim": dim, "keepdim": keepdim}
    check_op(lambda m, x: x.amax(**kw), [(3, 4, 5)], ALL_DTYPES, [layout])
    check_op(lambda m, x: m.amin(x, **kw), [(3, 4, 5)], ALL_DTYPES, [layout])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_with_dim(layout, dim, keepdim):
    # small integer ranges make ties: the first index must win, as in PyTorch
    check_op(lambda m, x: tuple(x.max(dim, keepdim)), [(3, 4, 5)], ALL_DTYPES, [layout])
    check_op(lambda m, x: tuple(m.min(x, dim=dim, keepdim=keepdim)), [(3, 4, 5)], ALL_DTYPES, [layout])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_argmin(layout, dim, keepdim):
    check_op(lambda m, x: x.argmax(dim, keepdim), [(3, 4, 5)], ALL_DTYPES, [layout])
    check_op(lambda m, x: m.argmin(x, dim=dim, keepdim=keepdim), [(3, 4, 5)], ALL_DTYPES, [layout])


def test_max_min_all_and_binary():
    check_op(lambda m, x: x.max(), [(3, 4)], ALL_DTYPES, LAYOUTS)
    check_op(lambda m, x: m.min(x), [(3, 4)], ALL_DTYPES, LAYOUTS)
    check_op(lambda m, x, y: m.max(x, y), [(3, 4), (4,)], NUMERIC)
    check_op(lambda m, x, y: x.min(y), [(3, 4), (3, 1)], NUMERIC)
    check_op(lambda m, x, y: m.max(x, other=y), [(3, 4), (3, 4)], FLOATS)


def test_max_returns_named_tuple():
    x = ember.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]])
    r = x.max(1)
    assert r.values.tolist() == [5.0, 7.0] and r.indices.tolist() == [1, 0]
    values, indices = ember.min(x, 0)
    assert values.tolist() == [1.0, 0.0, 2.0] and indices.tolist() == [0, 1, 0]
    assert isinstance(r, tuple) and len(r) == 2 and r[0] is r.values
    assert repr(r).startswith("ember.return_types.max(\nvalues=tensor(")
    assert type(r).__name__ == "max"


# ---- var / std ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("correction", [0, 1, 2, 0.5])
def test_var_std(layout, dim, keepdim, correction):
    kw = dict(dim=dim, correction=correction, keepdim=keepdim)
    check_op(lambda m, x: x.var(**kw), [(3, 4, 5)], FLOATS + ["int64"], [layout])
    check_op(lambda m, x: m.std(x, **kw), [(3, 4, 5)], FLOATS, [layout])


def test_var_std_unbiased_forms():
    check_op(lambda m, x: x.var(), [(3, 4)], FLOATS)
    check_op(lambda m, x: x.var(False), [(3, 4)], FLOATS)
    check_op(lambda m, x: x.var(unbiased=False), [(3, 4)], FLOATS)
    check_op(lambda m, x: x.var(1, False), [(3, 4)], FLOATS)
    check_op(lambda m, x: x.std(1, True, True), [(3, 4)], FLOATS)
    check_op(lambda m, x: m.std(x, (0, 1), False, keepdim=True), [(3, 4)], FLOATS)
    with pytest.raises(TypeError, match="var"):
        ember.ones(3).var(unbiased=True, correction=1)


def test_var_correction_beyond_n_gives_inf_or_nan():
    check_op(lambda m, x: x.var(1, correction=5), [(3, 4)], FLOATS)  # inf
    check_op(lambda m, x: x.var(1, correction=4), [(3, 4)], FLOATS)  # inf: n - c = 0
    run_both(lambda m, x: x.var(correction=4), np.ones(4, np.float32))  # 0/0 = nan
    check_op(lambda m, x: x.reshape(()).var(), [(1,)], FLOATS)  # one element, correction 1: nan


def test_var_is_accurate_with_a_large_mean():
    a = (np.random.default_rng(1).standard_normal(10000) + 1e4).astype(np.float32)
    run_both(lambda m, x: x.var(), a, rtol=1e-4)
    run_both(lambda m, x: x.std(), a.astype(np.float64))


# ---- norm --------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("p", [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1, "fro"])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm(layout, p, dim, keepdim):
    if p == "fro" and dim is not None and not isinstance(dim, tuple):
        dim = (dim,)
    check_op(lambda m, x: x.norm(p, dim, keepdim), [(3, 4, 5)], FLOATS + ["int64"], [layout],
             rtol=1e-5)


def test_norm_function_and_dtype():
    check_op(lambda m, x: m.norm(x), [(3, 4)], FLOATS)
    check_op(lambda m, x: m.norm(x, dim=1), [(3, 4)], FLOATS)
    check_op(lambda m, x: x.norm(p=2, dtype=m.float64), [(3, 4)], FLOATS)
    check_op(lambda m, x: m.norm(x, float("inf"), dim=(0, 1), keepdim=True), [(3, 4)], FLOATS)
    with pytest.raises(NotImplementedError, match="norm"):
        ember.ones(2, 2).norm("nuc")


# ---- logsumexp ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, -1, (0, 2), 1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp(layout, dim, keepdim):
    check_op(lambda m, x: m.logsumexp(x, dim, keepdim), [(3, 4, 5)], ALL_DTYPES, [layout])
    # large values: stable (exp(300) overflows float32 and float64 would at 1000)
    check_op(lambda m, x: x.logsumexp(dim, keepdim=keepdim), [(3, 4, 5)], FLOATS, [layout],
             low=-1000.0, high=1000.0)


def test_logsumexp_infinities():
    inf, nan = np.inf, np.nan
    a = np.array([[-inf, -inf], [inf, inf], [inf, -inf], [nan, inf], [1.0, -inf]], np.float32)
    run_both(lambda m, x: x.logsumexp(1), a)
    run_both(lambda m, x: x.logsumexp(0), a)
    run_both(lambda m, x: x.logsumexp(1), a.astype(np.float64))


# ---- all / any ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_all_any(layout, dim, keepdim):
    kw = dim_kwargs(dim, keepdim)
    check_op(lambda m, x: x.all(**kw), [(3, 4, 5)], ALL_DTYPES, [layout], low=0.0, high=1.0)
    check_op(lambda m, x: m.any(x, **kw), [(3, 4, 5)], ALL_DTYPES, [layout], low=0.0, high=1.0)
    check_op(lambda m, x: (x > 2).any(**kw), [(3, 4, 5)], FLOATS, [layout])


def test_all_any_nan_is_true():
    a = np.array([np.nan, 0.0], np.float32)
    run_both(lambda m, x: (x.all(), x.any(), x.narrow(0, 0, 1).all(), x.narrow(0, 1, 1).any()), a)


# ---- softmax / log_softmax ---------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax(layout, dim, fn):
    check_op(lambda m, x: getattr(x, fn)(dim), [(3, 4, 5)], FLOATS + ["int64"], [layout])
    check_op(lambda m, x: getattr(m, fn)(x, dim=dim), [(3, 4, 5)], FLOATS, [layout],
             low=-500.0, high=500.0, atol=1e-5)


def test_softmax_dtype_and_edge_values():
    check_op(lambda m, x: m.softmax(x, 1, dtype=m.float64), [(3, 4)], ["int64", "float32"])
    check_op(lambda m, x: x.log_softmax(0, m.float32), [(3, 4)], ["int32", "float64"])
    inf = np.inf
    a = np.array([[-inf, -inf, -inf], [inf, 1.0, 2.0], [-inf, 1.0, 2.0], [np.nan, 1.0, 0.0]],
                 np.float32)
    for fn in ("softmax", "log_softmax"):
        run_both(lambda m, x: getattr(x, fn)(1), a)
        run_both(lambda m, x: getattr(x, fn)(0), a)


def test_softmax_long_rows_and_columns():
    check_op(lambda m, x: x.softmax(-1), [(4, 50000)], FLOATS)
    check_op(lambda m, x: x.log_softmax(0), [(3000, 300)], FLOATS, atol=1e-5)
    check_op(lambda m, x: x.softmax(1), [(2, 700, 300)], FLOATS, ["contiguous", "transposed"])


# ---- 0-d and empty tensors ---------------------------------------------------------------------

ZERO_D_OPS = {
    "sum": lambda m, x, d: x.sum(d),
    "sum_kd": lambda m, x, d: x.sum(d, keepdim=True),
    "mean": lambda m, x, d: x.mean(d),
    "prod": lambda m, x, d: x.prod() if d is None else x.prod(d),
    "amax": lambda m, x, d: x.amax(d),
    "max": lambda m, x, d: tuple(x.max(d)),
    "max_all": lambda m, x, d: x.max(),
    "argmin": lambda m, x, d: x.argmin(d, True),
    "var": lambda m, x, d: x.var(d, correction=0),
    "std": lambda m, x, d: x.std(d),
    "norm": lambda m, x, d: x.norm(2, d),
    "logsumexp": lambda m, x, d: x.logsumexp(d),
    "all": lambda m, x, d: x.all(d),
    "any": lambda m, x, d: x.any(d),
    "softmax": lambda m, x, d: x.softmax(d),
    "log_softmax": lambda m, x, d: x.log_softmax(d),
}


@pytest.mark.parametrize("op", list(ZERO_D_OPS))
@pytest.mark.parametrize("dim", [0, -1, None])
def test_zero_dim(op, dim):
    f = ZERO_D_OPS[op]
    if dim is None and op in ("softmax", "log_softmax", "max"):
        return
    if dim is None and op == "logsumexp":
        dim = ()
    # helpers.make_inputs cannot build 0-d inputs (NumPy gives a scalar): reshape a (1,) one
    check_op(lambda m, x: f(m, x.reshape(()), dim), [(1,)], ALL_DTYPES)


def test_zero_dim_bad_dim():
    for op in ("sum", "mean", "amax", "max", "argmax", "var", "logsumexp", "softmax"):
        with pytest.raises(IndexError, match=op):
            getattr(ember.tensor(1.0), op)(1)
    with pytest.raises(IndexError, match="norm"):
        ember.tensor(1.0).norm(2, 1)


EMPTY_OPS = {
    "sum": lambda m, x: (x.sum(), x.sum(0), x.sum(1, keepdim=True)),
    "prod": lambda m, x: (x.prod(), x.prod(0), x.prod(1)),
    "mean": lambda m, x: (x.mean(), x.mean(0), x.mean(1)),
    "var": lambda m, x: (x.var(0), x.var(1), x.std(1)),
    "norm": lambda m, x: (x.norm(), x.norm(1, 0), x.norm(0, 1)),
    "logsumexp": lambda m, x: (x.logsumexp(0), x.logsumexp(1)),
    "all": lambda m, x: (x.all(), x.all(0), x.any(), x.any(1)),
    "softmax": lambda m, x: (x.softmax(0), x.log_softmax(1)),
    "amax0": lambda m, x: x.amax(0),
    "amax1": lambda m, x: x.amax(1),
    "amax_all": lambda m, x: x.amax(),
    "max_all": lambda m, x: x.max(),
    "max0": lambda m, x: tuple(x.max(0)),
    "max1": lambda m, x: tuple(x.min(1)),
    "argmax_all": lambda m, x: x.argmax(),
    "argmax0": lambda m, x: x.argmax(0),
    "argmin1": lambda m, x: x.argmin(1),
    "norm_inf0": lambda m, x: x.norm(float("inf"), 0),
    "norm_inf1": lambda m, x: x.norm(float("-inf"), 1),
    "norm_inf_all": lambda m, x: x.norm(float("inf")),
}


@pytest.mark.parametrize("op", list(EMPTY_OPS))
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0)])
def test_empty(op, shape):
    # where torch raises (max of an empty reduction), ember must raise too
    check_op(EMPTY_OPS[op], [shape], FLOATS)


def test_empty_max_error_types():
    with pytest.raises(IndexError, match="amax"):
        ember.empty(0, 3).amax(0)
    with pytest.raises(IndexError, match="max"):
        ember.empty(0, 3).max(0)
    with pytest.raises(RuntimeError, match="max"):
        ember.empty(0, 3).max()
    with pytest.raises(RuntimeError, match="argmax"):
        ember.empty(0, 3).argmax()
    with pytest.raises(RuntimeError, match="norm"):
        ember.empty(0, 3).norm(float("inf"))


# ---- NaN ---------------------------------------------------------------------------------------

def nan_array(shape, seed=0, frac=0.1):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-3, 3, size=shape).astype(np.float32)
    a[rng.random(shape) < frac] = np.nan
    return a


@pytest.mark.parametrize("dim", [0, 1])
def test_nan_propagation(dim):
    a = nan_array((40, 30))
    for f in (lambda m, x: x.amax(dim), lambda m, x: x.amin(dim), lambda m, x: tuple(x.max(dim)),
              lambda m, x: tuple(x.min(dim)), lambda m, x: x.argmax(dim), lambda m, x: x.argmin(dim),
              lambda m, x: x.max(), lambda m, x: x.argmax(), lambda m, x: x.sum(dim),
              lambda m, x: x.norm(float("inf"), dim), lambda m, x: x.norm(0, dim),
              lambda m, x: x.var(dim), lambda m, x: x.softmax(dim)):
        run_both(f, a)
        run_both(f, a.T.copy())
        run_both(lambda m, x: f(m, x.t()), a)


def test_nan_in_long_rows():
    a = nan_array((3, 70000), seed=3, frac=1e-4)
    a[2, :] = np.arange(70000, dtype=np.float32) % 7  # ties: first index of the max
    for f in (lambda m, x: tuple(x.max(1)), lambda m, x: x.argmin(1), lambda m, x: x.amax(1),
              lambda m, x: x.argmax(), lambda m, x: x.argmax(1), lambda m, x: x.select(0, 2).argmax()):
        run_both(f, a)
    b = a[2].copy()
    run_both(lambda m, x: (x.argmax(), x.argmin(), x.max(), x.min()), b)
    b[50000] = np.nan
    b[60000] = np.nan
    run_both(lambda m, x: (x.argmax(), x.argmin(), x.max(), tuple(x.max(0))), b)


# ---- big shapes: the blocked and tiled paths ---------------------------------------------------

BIG = [(3, 40000), (40000, 3), (100, 700), (700, 100), (7, 300, 50), (1, 70000)]


@pytest.mark.parametrize("shape", BIG)
def test_big_shapes(shape):
    for dim in [0, -1, None, (0, len(shape) - 1)]:
        check_op(lambda m, x: (x.sum(dim), x.mean(dim), x.var(dim), x.norm(2, dim), x.amax(dim),
                               x.logsumexp(dim if dim is not None else tuple(range(x.dim())))),
                 [shape], ["float32"], ["contiguous", "transposed"], rtol=1e-4, atol=1e-5)
        check_op(lambda m, x: (x.sum(dim), x.prod(dim) if isinstance(dim, int) else x.prod(),
                               x.all(dim), x.any(dim)),
                 [shape], ["int64", "bool"], ["contiguous", "sliced"], low=0.0, high=1.0)
    for dim in [0, -1]:
        check_op(lambda m, x: (tuple(x.max(dim)), x.argmin(dim), x.argmax()), [shape],
                 ["float32", "int32"], ["contiguous", "transposed"])


def test_float32_sum_accuracy_1m():
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 1, size=1_000_000).astype(np.float32)
    exact = float(np.sum(a.astype(np.float64)))
    e = ember.from_numpy(a)
    assert abs(e.sum().item() - exact) <= 1e-6 * exact
    assert abs(e.mean().item() - exact / a.size) <= 1e-6 * exact / a.size
    run_both(lambda m, x: (x.sum(), x.mean(), x.norm(), x.var(), x.std()), a, rtol=1e-5)
    run_both(lambda m, x: (x.sum(0), x.sum(1)), a.reshape(1000, 1000), rtol=1e-5)


def test_threads_bit_identical():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(1_000_000).astype(np.float32)
    x = ember.from_numpy(a)
    views = [x, x.view(1000, 1000), x.view(1000, 1000).t(), x.view(250000, 4), x.view(4, 250000),
             x.view(100, 100, 100).permute(2, 0, 1)]

    def results():
        out = []
        for v in views:
            out += [v.sum(), v.mean(), v.var(), v.std(), v.norm(), v.norm(3.0), v.logsumexp(0),
                    v.sum(0), v.sum(-1), v.var(0), v.norm(dim=-1), v.mean(0), v.softmax(-1), v.argmax()]
        return [r.numpy().tobytes() for r in out]

    one, two = on_thread_counts(results)
    assert one == two


# ---- bad inputs --------------------------------------------------------------------------------

def test_dim_out_of_range():
    x = ember.ones(2, 3)
    for call in (lambda: x.sum(2), lambda: x.mean(-3), lambda: x.prod(2), lambda: x.amax((0, 5)),
                 lambda: x.max(2), lambda: x.argmax(-3), lambda: x.var(2), lambda: x.norm(2, 3),
                 lambda: x.logsumexp(2), lambda: x.all(2), lambda: x.softmax(2),
                 lambda: x.log_softmax(-3)):
        with pytest.raises(IndexError, match="out of range"):
            call()
    with pytest.raises(IndexError, match="sum"):
        x.sum(2)


def test_repeated_dims():
    x = ember.ones(2, 3)
    for name in ("sum", "mean", "amax", "amin", "var", "std", "norm", "logsumexp", "all", "any"):
        with pytest.raises(ValueError, match=f"{name}: dim 0 appears multiple times"):
            if name == "norm":
                x.norm(2, (0, -2))
            else:
                getattr(x, name)((0, -2))


def test_wrong_dtypes():
    i = ember.ones(2, 3, dtype=ember.int64)
    b = ember.ones(2, 3, dtype=ember.bool)
    for call, name in ((lambda: i.mean(), "mean"), (lambda: i.var(), "var"), (lambda: i.std(), "std"),
                       (lambda: i.norm(), "norm"), (lambda: i.softmax(0), "softmax"),
                       (lambda: i.log_softmax(0), "log_softmax"), (lambda: b.argmax(), "argmax"),
                       (lambda: b.argmin(0), "argmin"), (lambda: i.mean(dtype=ember.int32), "mean")):
        with pytest.raises(TypeError, match=name):
            call()


def test_bad_argument_types():
    x = ember.ones(2, 3)
    with pytest.raises(TypeError):
        x.sum(1.5)
    with pytest.raises(TypeError):
        x.argmax((0, 1))
    with pytest.raises(TypeError):
        x.max((0, 1))
    with pytest.raises(TypeError):
        x.logsumexp()
    with pytest.raises(ValueError, match="norm"):
        x.norm("bad")


def test_inputs_untouched():
    a = np.random.default_rng(2).standard_normal((5, 6)).astype(np.float32)
    x = ember.from_numpy(a.copy())
    v = x._version
    for f in (lambda: x.sum(0), lambda: x.var(1), lambda: x.softmax(0), lambda: x.max(1),
              lambda: x.logsumexp(1), lambda: x.norm(3, 0)):
        f()
    assert x._version == v
    np.testing.assert_array_equal(x.numpy(), a)


def test_baseline_isa_copy_matches_torch():
    """On AVX2 machines the kernels run their AVX2 copy; EMBER_DISABLE_AVX2=1 makes a fresh
    process take the baseline copy, which must pass the same checks."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, EMBER_DISABLE_AVX2="1")
    tests = ("test_nan or test_threads_bit_identical or test_float32_sum or test_empty_max "
             "or test_logsumexp_infinities or test_softmax_dtype or test_var_is_accurate "
             "or (test_big_shapes and shape2) or (test_amax_amin and contiguous and True-0)")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                        os.path.abspath(__file__), "-k", tests],
                       env=env, capture_output=True, text=True, cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
