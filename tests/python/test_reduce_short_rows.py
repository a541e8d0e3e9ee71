"""Reductions over many short rows along the last dim (2-129 elements: the kernels'
short-row path, src/kernels/cpu/reduce_short_rows.h) against PyTorch: every reduction and
dtype, NaN/inf rows, non-contiguous inputs, keepdim, a partial last block of rows, float32
accuracy, and the same bits on 1 and 2 threads."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, on_thread_counts

pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")

# around the boundaries: < 16 (transposed), 16 and up (lanes), 64 (max/min lanes), > 128 (old)
LENGTHS = [2, 3, 4, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129]
ROWS = 37  # two full blocks of 16 rows and a partial one

FLOAT_OPS = {
    "sum": lambda m, x, k: x.sum(-1, keepdim=k),
    "mean": lambda m, x, k: x.mean(-1, keepdim=k),
    "amax": lambda m, x, k: x.amax(-1, keepdim=k),
    "amin": lambda m, x, k: x.amin(-1, keepdim=k),
    "prod": lambda m, x, k: x.prod(-1, keepdim=k),
    "var": lambda m, x, k: x.var(-1, keepdim=k),
    "std": lambda m, x, k: x.std(-1, keepdim=k, correction=0),
    "logsumexp": lambda m, x, k: m.logsumexp(x, -1, keepdim=k),
    "norm2": lambda m, x, k: x.norm(2, -1, keepdim=k),
    "norm1": lambda m, x, k: x.norm(1, -1, keepdim=k),
    "norm_inf": lambda m, x, k: x.norm(float("inf"), -1, keepdim=k),
    "norm_ninf": lambda m, x, k: x.norm(float("-inf"), -1, keepdim=k),
    "norm3": lambda m, x, k: x.norm(3.0, -1, keepdim=k),
    "max": lambda m, x, k: tuple(x.max(-1, keepdim=k)),
    "argmin": lambda m, x, k: x.argmin(-1, keepdim=k),
}
INT_OPS = {
    "sum": lambda m, x, k: x.sum(-1, keepdim=k),
    "prod": lambda m, x, k: x.prod(-1, keepdim=k),
    "amax": lambda m, x, k: x.amax(-1, keepdim=k),
    "amin": lambda m, x, k: x.amin(-1, keepdim=k),
    "all": lambda m, x, k: x.all(-1, keepdim=k),
    "any": lambda m, x, k: x.any(-1, keepdim=k),
}


def both(a):
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_float_reductions_of_short_rows(n, dtype, keepdim):
    # prod: values near 1 so rows of 129 stay finite and well conditioned
    a = (np.random.default_rng(n).uniform(-1, 1, (ROWS, n)) * 0.3 + 1.0).astype(dtype)
    a[::3] -= 1.2  # rows with negative values too
    e, t = both(a)
    tol = dict(rtol=2e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for name, f in FLOAT_OPS.items():
        try:
            assert_same(f(ember, e, keepdim), f(torch, t, keepdim), **tol)
        except AssertionError as err:
            raise AssertionError(f"{name}: {err}") from None


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "bool"])
def test_integer_and_bool_reductions_of_short_rows(n, dtype):
    a = np.random.default_rng(n).integers(0, 3 if dtype != "bool" else 2, (ROWS, n)).astype(dtype)
    if dtype == "int32":
        a = a * 1_000_003 - 1_500_000  # sums and prods wrap like int64
    e, t = both(a)
    for name, f in INT_OPS.items():
        if dtype == "bool" and name in ("amax", "amin"):
            continue
        try:
            assert_same(f(ember, e, False), f(torch, t, False))
        except AssertionError as err:
            raise AssertionError(f"{name}: {err}") from None
    if dtype != "bool":
        assert_same(e.argmax(-1), t.argmax(-1))


@pytest.mark.parametrize("n", [2, 5, 16, 24, 40, 64, 80, 128])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_inf_rows(n, dtype):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((48, n)).astype(dtype)
    a[0, 0] = np.nan           # first element
    a[1, n - 1] = np.nan       # last element (the tail of the lanes)
    a[2, n // 2] = np.nan
    a[3, :] = np.nan
    a[4, :] = -np.inf          # all -inf: amax -inf, logsumexp -inf
    a[5, :] = np.inf
    a[6, 0], a[6, n - 1] = np.inf, -np.inf  # sum nan, amax inf, amin -inf
    a[7, n // 2] = np.inf
    a[8, n - 1] = -np.inf
    a[9, :] = 0.0
    a[10, 1] = np.nan
    a[10, 0] = np.inf
    a[20:24] = a[0:4]          # the same rows in another block
    e, t = both(a)
    for f in (lambda m, x: x.sum(-1), lambda m, x: x.mean(-1), lambda m, x: x.amax(-1),
              lambda m, x: x.amin(-1), lambda m, x: x.prod(-1), lambda m, x: x.var(-1),
              lambda m, x: m.logsumexp(x, -1), lambda m, x: x.norm(float("inf"), -1),
              lambda m, x: x.norm(2, -1), lambda m, x: tuple(x.max(-1)), lambda m, x: x.argmin(-1),
              lambda m, x: x.all(-1), lambda m, x: x.any(-1)):
        assert_same(f(ember, e), f(torch, t), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [3, 16, 48, 100])
def test_non_contiguous_short_rows(n):
    rng = np.random.default_rng(n)
    wide = rng.standard_normal((40, 2 * n + 5)).astype(np.float32)
    cube = rng.standard_normal((6, 7, n)).astype(np.float64)
    e_wide, t_wide = both(wide)
    e_cube, t_cube = both(cube)
    views = [  # (ember view, torch view)
        (e_wide[:, :n], t_wide[:, :n]),                      # contiguous rows, gaps between
        (e_wide[:, 1:2 * n + 1:2], t_wide[:, 1:2 * n + 1:2]),  # strided rows
        (e_wide.flip(0)[:, :n], t_wide.flip(0)[:, :n]),
        (e_cube.permute(1, 0, 2), t_cube.permute(1, 0, 2)),  # kept dims out of order
        (e_cube[:, ::2, :], t_cube[:, ::2, :]),
    ]
    for ev, tv in views:
        for f in (lambda m, x: x.sum(-1), lambda m, x: x.amax(-1), lambda m, x: x.var(-1, keepdim=True),
                  lambda m, x: m.logsumexp(x, -1), lambda m, x: x.argmax(-1), lambda m, x: x.prod(-1)):
            assert_same(f(ember, ev), f(torch, tv), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("n", [16, 32, 64, 128])
def test_float32_short_row_sums_accurate(n):
    """Rows with cancellation: within a few float32 ulps of the exact (float64) sum of the row's
    magnitudes, as accurate as torch."""
    rng = np.random.default_rng(n)
    a = (rng.standard_normal((500, n)) * 10.0 ** rng.integers(-3, 4, (500, n))).astype(np.float32)
    exact = a.astype(np.float64).sum(-1)
    scale = np.abs(a.astype(np.float64)).sum(-1)
    e_err = np.abs(ember.from_numpy(a).sum(-1).numpy().astype(np.float64) - exact)
    t_err = np.abs(torch.from_numpy(a).sum(-1).numpy().astype(np.float64) - exact)
    assert np.all(e_err <= 2 ** -23 * scale)
    assert e_err.max() <= t_err.max() + 2 ** -24 * scale.max()


@pytest.mark.parametrize("n", [2, 7, 16, 33, 64, 128])
def test_short_rows_same_bits_on_1_and_2_threads(n):
    rng = np.random.default_rng(n)
    x32 = ember.from_numpy(rng.standard_normal((20000 // n + 3, n)).astype(np.float32))
    x64 = ember.from_numpy(rng.standard_normal((3, 20000 // n + 5, n)))

    def results():
        out = []
        for x in (x32, x64, x64.transpose(0, 1)):
            out += [x.sum(-1), x.mean(-1), x.var(-1), x.std(-1), x.amax(-1), x.amin(-1),
                    x.prod(-1), x.logsumexp(-1), x.norm(dim=-1), x.norm(3.0, -1), x.argmax(-1)]
        return [r.numpy().tobytes() for r in out]

    one, two = on_thread_counts(results)
    assert one == two
    assert results() == one  # and every call
