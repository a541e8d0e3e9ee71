"""The ops of int8 and int16 tensors against torch 2.13: arithmetic with overflow wrap,
floor_divide/remainder signs, division by zero, comparisons, bitwise and shift ops, reductions
(sum/prod accumulate in int64), indexing, gather/scatter, cat/stack, sort/topk/unique, where,
clamp, abs/neg/sign, matmul, and the errors that name the op. Dtype objects, casts, interop and
files: test_small_ints.py."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op, errors_of_both

SMALL = ["int8", "int16"]
EDGES = {"int8": [-128, -127, -1, 0, 1, 126, 127], "int16": [-32768, -32767, -1, 0, 1, 32766, 32767]}


def both(name):
    return getattr(ember, name), getattr(torch, name)


def full_range(name, shape, seed=0):
    """(ember, torch) tensors of random values over the dtype's whole range, edges included."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(name)
    a = rng.integers(info.min, info.max + 1, size=shape).astype(name)
    flat = a.reshape(-1)
    flat[:len(EDGES[name])] = EDGES[name][:flat.size]
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


# ---- elementwise arithmetic ----------------------------------------------------------------------

BINARY = {
    "add": lambda m, x, y: m.add(x, y),
    "add_alpha": lambda m, x, y: m.add(x, y, alpha=3),
    "sub": lambda m, x, y: x - y,
    "mul": lambda m, x, y: x * y,
    "true_div": lambda m, x, y: x / m.where(y == 0, m.ones_like(y), y),
    "maximum": lambda m, x, y: m.maximum(x, y),
    "minimum": lambda m, x, y: m.minimum(x, y),
    "eq": lambda m, x, y: x == y,
    "lt": lambda m, x, y: x < y,
    "ge": lambda m, x, y: m.ge(x, y),
    "ne": lambda m, x, y: m.ne(x, y),
    "logical_and": lambda m, x, y: m.logical_and(x, y),
    "bitwise_and": lambda m, x, y: x & y,
    "bitwise_or": lambda m, x, y: x | y,
    "bitwise_xor": lambda m, x, y: x ^ y,
    "gcd": lambda m, x, y: m.gcd(x, y),
    "floor_divide": lambda m, x, y: m.floor_divide(x, m.where(y == 0, m.ones_like(y), y)),
    "remainder": lambda m, x, y: m.remainder(x, m.where(y == 0, m.ones_like(y), y)),
    "fmod": lambda m, x, y: m.fmod(x, m.where(y == 0, m.ones_like(y), y)),
    "div_trunc": lambda m, x, y: m.div(x, m.where(y == 0, m.ones_like(y), y), rounding_mode="trunc"),
    "div_floor": lambda m, x, y: m.div(x, m.where(y == 0, m.ones_like(y), y), rounding_mode="floor"),
    "where": lambda m, x, y: m.where(x > y, x, y),
    "atan2": lambda m, x, y: m.atan2(x, y),
}


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_small_values_layouts_broadcast(name, op):
    check_op(BINARY[op], [(3, 4), (3, 4)], dtypes=[name], layouts=LAYOUTS, low=-6, high=6)
    check_op(BINARY[op], [(2, 3, 4), (4,)], dtypes=[name], low=-6, high=6)
    check_op(BINARY[op], [(), (5,)], dtypes=[name], low=-6, high=6)
    check_op(BINARY[op], [(0, 3), (3,)], dtypes=[name])


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_full_range_wraps_as_torch(name, op):
    xe, xt = full_range(name, (64,), 1)
    ye, yt = full_range(name, (64,), 2)
    assert_same(BINARY[op](ember, xe, ye), BINARY[op](torch, xt, yt), rtol=1e-6)
    assert_same(BINARY[op](ember, xe, ye.flip(0)), BINARY[op](torch, xt, yt.flip(0)), rtol=1e-6)


@pytest.mark.parametrize("name", SMALL)
def test_overflow_edges(name):
    e, t = both(name)
    lo, hi = EDGES[name][0], EDGES[name][-1]
    cases = [lambda m, x: x + 1, lambda m, x: x - 1, lambda m, x: x * 2, lambda m, x: -x,
             lambda m, x: m.abs(x), lambda m, x: x // -1, lambda m, x: x % -1, lambda m, x: x * x,
             lambda m, x: m.pow(x, 3), lambda m, x: x + 1000, lambda m, x: m.neg(x)]
    xe, xt = ember.tensor([lo, hi, -1, 0], dtype=e), torch.tensor([lo, hi, -1, 0], dtype=t)
    for f in cases:
        assert_same(f(ember, xe), f(torch, xt))
    ie, it = xe.clone(), xt.clone()
    ie += 1
    it += 1
    assert_same(ie, it)
    ie.mul_(3)
    it.mul_(3)
    assert_same(ie, it)


UNARY = {
    "neg": lambda m, x: m.neg(x),
    "abs": lambda m, x: m.abs(x),
    "sign": lambda m, x: m.sign(x),
    "square": lambda m, x: m.square(x),
    "bitwise_not": lambda m, x: ~x,
    "logical_not": lambda m, x: m.logical_not(x),
    "clamp": lambda m, x: m.clamp(x, -3, 5),
    "clamp_min": lambda m, x: x.clamp(min=-2),
    "clamp_tensor": lambda m, x: m.clamp(x, m.full_like(x, -1), m.full_like(x, 2)),
    "relu": lambda m, x: m.relu(x),
    "floor": lambda m, x: m.floor(x),
    "round": lambda m, x: m.round(x),
    "pow2": lambda m, x: m.pow(x, 2),
    "rpow": lambda m, x: 2 ** m.abs(x),
    "exp": lambda m, x: m.exp(x),
    "sin": lambda m, x: m.sin(x),
    "sqrt_abs": lambda m, x: m.sqrt(m.abs(x)),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "isnan": lambda m, x: m.isnan(x),
    "signbit": lambda m, x: m.signbit(x),
    "mul_scalar": lambda m, x: x * 3,
    "add_float": lambda m, x: x + 1.5,
    "div_scalar": lambda m, x: x / 2,
    "floordiv_scalar": lambda m, x: x // 3,
    "mod_scalar": lambda m, x: x % 3,
    "mod_neg_scalar": lambda m, x: x % -3,
    "lshift": lambda m, x: x << 2,
    "rshift": lambda m, x: x >> 1,
    "eq_scalar": lambda m, x: x == 2,
    "lt_float": lambda m, x: x < 0.5,
    "nan_to_num": lambda m, x: m.nan_to_num(x),
}


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(name, op):
    check_op(UNARY[op], [(3, 4)], dtypes=[name], layouts=LAYOUTS, low=-6, high=6, rtol=1e-6)
    check_op(UNARY[op], [()], dtypes=[name], rtol=1e-6)
    xe, xt = full_range(name, (50,), 3)
    assert_same(UNARY[op](ember, xe), UNARY[op](torch, xt), rtol=1e-5)


@pytest.mark.parametrize("name", SMALL)
def test_shifts_with_tensor_amounts(name):
    e, t = both(name)
    bits = 8 if name == "int8" else 16
    xe, xt = full_range(name, (4 * bits,), 4)
    se = ember.arange(bits, dtype=e).repeat(4)
    st = torch.arange(bits, dtype=t).repeat(4)
    assert_same(xe << se, xt << st)
    assert_same(xe >> se, xt >> st)
    assert_same(ember.bitwise_left_shift(xe, 1), torch.bitwise_left_shift(xt, 1))


@pytest.mark.parametrize("name", SMALL)
def test_mixed_dtype_arithmetic_promotes_as_torch(name):
    e, t = both(name)
    for other in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                  "float64"):
        oe, ot = both(other)
        xe, xt = ember.tensor([-3, 5, 7], dtype=e), torch.tensor([-3, 5, 7], dtype=t)
        ye, yt = ember.tensor([1, 2, 0], dtype=oe), torch.tensor([1, 2, 0], dtype=ot)
        for f in (lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b if other != "bool" else a + b,
                  lambda a, b: a < b, lambda a, b: a == b, lambda a, b: torch_where(a, b)):
            assert_same_dtype_and_values(f(xe, ye), f(xt, yt))
            assert_same_dtype_and_values(f(ye, xe), f(yt, xt))
        assert_same_dtype_and_values(xe + ye[0], xt + yt[0])  # 0-d tensor of another dtype


def assert_same_dtype_and_values(e, t):
    """assert_same through float64 values (NumPy has no bfloat16), the dtypes compared by name."""
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert_same(e.double(), t.double(), rtol=1e-2)


def torch_where(a, b):
    m = ember if isinstance(a, ember.Tensor) else torch
    return m.where(a > 0, a, b)


@pytest.mark.parametrize("name", SMALL)
def test_in_place_keeps_dtype_or_refuses_as_torch(name):
    e, t = both(name)
    xe, xt = ember.tensor([1, 2], dtype=e), torch.tensor([1, 2], dtype=t)
    xe.add_(ember.tensor([300, 5], dtype=ember.int16 if name == "int8" else ember.int32))
    xt.add_(torch.tensor([300, 5], dtype=torch.int16 if name == "int8" else torch.int32))
    assert_same(xe, xt)
    errors_of_both(lambda m, x: x.add_(1.5), [xe], [xt])  # float into an integer tensor
    errors_of_both(lambda m, x: x.div_(2), [xe], [xt])


@pytest.mark.parametrize("name", SMALL)
def test_division_by_zero_is_an_error(name):
    e, t = both(name)
    xe, xt = ember.tensor([5, -3], dtype=e), torch.tensor([5, -3], dtype=t)
    ze, zt = ember.tensor([1, 0], dtype=e), torch.tensor([1, 0], dtype=t)
    for f in (lambda m, x, z: m.floor_divide(x, z), lambda m, x, z: x % z, lambda m, x, z: x // 0,
              lambda m, x, z: m.remainder(x, 0), lambda m, x, z: m.div(x, z, rounding_mode="trunc"),
              lambda m, x, z: m.div(x, z, rounding_mode="floor"), lambda m, x, z: m.fmod(x, z)):
        got, want = errors_of_both(f, [xe, ze], [xt, zt])
        assert "ZeroDivisionError" in got and "ZeroDivisionError" in want
    assert_same(xe / ze, xt / zt)  # true division gives floats: inf


# ---- reductions ----------------------------------------------------------------------------------

REDUCE = {
    "sum": lambda m, x: x.sum(),
    "sum_dim": lambda m, x: x.sum(1, keepdim=True),
    "sum_dtype": lambda m, x: x.sum(0, dtype=x.dtype),
    "prod": lambda m, x: x.prod(),
    "prod_dim": lambda m, x: x.prod(0),
    "cumsum": lambda m, x: x.cumsum(1),
    "cumprod": lambda m, x: x.cumprod(0),
    "amax": lambda m, x: x.amax(1),
    "amin": lambda m, x: x.amin(0),
    "max": lambda m, x: x.max(),
    "max_dim": lambda m, x: tuple(x.max(1)),
    "min_dim": lambda m, x: tuple(x.min(0)),
    "argmax": lambda m, x: x.argmax(),
    "argmin_dim": lambda m, x: x.argmin(1),
    "all": lambda m, x: x.all(),
    "any_dim": lambda m, x: x.any(1),
    "count_nonzero": lambda m, x: m.count_nonzero(x, 0),
    "mean_float": lambda m, x: x.float().mean(),
    "median": lambda m, x: x.median(),
    "cummax": lambda m, x: tuple(m.cummax(x, 1)),
    "aminmax": lambda m, x: tuple(m.aminmax(x)),
    "nansum": lambda m, x: m.nansum(x),
}


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", sorted(REDUCE))
def test_reductions(name, op):
    check_op(REDUCE[op], [(4, 5)], dtypes=[name], layouts=LAYOUTS, low=-5, high=5)
    xe, xt = full_range(name, (6, 40), 5)
    assert_same(REDUCE[op](ember, xe), REDUCE[op](torch, xt), rtol=1e-5)


@pytest.mark.parametrize("name", SMALL)
def test_sum_of_full_range_does_not_wrap(name):
    e, t = both(name)
    hi = EDGES[name][-1]
    xe, xt = ember.full((1000,), hi, dtype=e), torch.full((1000,), hi, dtype=t)
    assert_same(xe.sum(), xt.sum())
    assert xe.sum().item() == 1000 * hi and xe.sum().dtype == ember.int64
    assert_same(xe.sum(dtype=e), xt.sum(dtype=t))  # asked for: wraps as torch
    assert_same(xe.cumsum(0)[-1], xt.cumsum(0)[-1])


@pytest.mark.parametrize("name", SMALL)
def test_float_only_reductions_refuse_as_torch(name):
    e, t = both(name)
    xe, xt = ember.ones(3, dtype=e), torch.ones(3, dtype=t)
    for op in ("mean", "var", "std"):  # ember says TypeError for every integer dtype, torch RuntimeError
        got, _ = errors_of_both(lambda m, x: getattr(x, op)(), [xe], [xt], ember_exc=(TypeError, RuntimeError))
        assert op in got


# ---- indexing, joining, sorting -------------------------------------------------------------------

INDEXING = {
    "getitem": lambda m, x: x[1:, ::2],
    "index_tensor": lambda m, x: x[m.tensor([2, 0, 2])],
    "mask": lambda m, x: x[x > 0],
    "index_select": lambda m, x: x.index_select(1, m.tensor([3, 0])),
    "gather": lambda m, x: m.gather(x, 1, m.tensor([[0, 1], [2, 3], [4, 0]])),
    "scatter": lambda m, x: m.zeros_like(x).scatter(1, m.tensor([[0], [1], [2]]), x[:, :1]),
    "scatter_add": lambda m, x: x.scatter_add(0, m.tensor([[0, 1, 2, 0, 1]]), x[:1]),
    "scatter_reduce": lambda m, x: x.scatter_reduce(0, m.tensor([[0, 1, 2, 0, 1]]), x[:1], "amax"),
    "index_add": lambda m, x: x.index_add(0, m.tensor([0, 0]), x[:2]),
    "index_put": lambda m, x: x.index_put((m.tensor([0, 2]),), x[1]),
    "masked_fill": lambda m, x: x.masked_fill(x < 0, 7),
    "masked_select": lambda m, x: m.masked_select(x, x > 1),
    "take": lambda m, x: m.take(x, m.tensor([0, 14, 7])),
    "cat": lambda m, x: m.cat([x, x[:1]]),
    "cat_mixed": lambda m, x: m.cat([x, m.ones(1, 5, dtype=m.uint8)]),
    "stack": lambda m, x: m.stack([x, -x], 1),
    "flip": lambda m, x: x.flip(0),
    "roll": lambda m, x: x.roll(2, 1),
    "tril": lambda m, x: x.tril(),
    "repeat": lambda m, x: x.repeat(2, 1),
    "sort": lambda m, x: tuple(m.sort(x, dim=1, stable=True)),
    "sort_desc": lambda m, x: tuple(m.sort(x, dim=0, descending=True, stable=True)),
    "argsort": lambda m, x: m.argsort(x.flatten(), stable=True),
    "topk": lambda m, x: m.topk(x.flatten(), 4)[0],  # the indices of ties are torch's choice
    "topk_indices": lambda m, x: x.flatten()[m.topk(x.flatten(), 4, largest=False)[1]],
    "kthvalue": lambda m, x: m.kthvalue(x.flatten(), 3)[0],
    "unique": lambda m, x: m.unique(x),
    "unique_counts": lambda m, x: tuple(m.unique(x, return_inverse=True, return_counts=True)),
    "unique_consecutive": lambda m, x: m.unique_consecutive(x.flatten()),
    "nonzero": lambda m, x: m.nonzero(x),
    "searchsorted": lambda m, x: m.searchsorted(m.sort(x.flatten())[0], x),
    "diff": lambda m, x: m.diff(x, dim=1),
    "bincount": lambda m, x: m.bincount(x.flatten().abs()),
    "isin": lambda m, x: m.isin(x, x[0]),
    "clone_contig": lambda m, x: x.t().contiguous(),
}


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", sorted(INDEXING))
def test_indexing_joining_sorting(name, op):
    check_op(INDEXING[op], [(3, 5)], dtypes=[name], layouts=["contiguous", "transposed", "sliced"],
             low=-4, high=4)
    xe, xt = full_range(name, (3, 5), 6)
    if op != "bincount":
        assert_same(INDEXING[op](ember, xe), INDEXING[op](torch, xt))


@pytest.mark.parametrize("name", SMALL)
def test_setitem_and_copy(name):
    e, t = both(name)
    xe, xt = ember.zeros(3, 4, dtype=e), torch.zeros(3, 4, dtype=t)
    xe[1] = 5
    xt[1] = 5
    xe[:, 2] = ember.tensor([1, -2, 3], dtype=ember.int64)
    xt[:, 2] = torch.tensor([1, -2, 3], dtype=torch.int64)
    xe[xe == 0] = -1
    xt[xt == 0] = -1
    assert_same(xe, xt)
    ye, yt = ember.empty(3, 4, dtype=e), torch.empty(3, 4, dtype=t)
    ye.copy_(ember.arange(12.0).view(3, 4))
    yt.copy_(torch.arange(12.0).view(3, 4))
    assert_same(ye, yt)
    ye.fill_(EDGES[name][0])
    yt.fill_(EDGES[name][0])
    assert_same(ye, yt)


@pytest.mark.parametrize("name", SMALL)
def test_small_int_index_tensors_refused_naming_the_op(name):
    """torch takes int64/int32 (and bool/uint8 masks) as indices; ember refuses the others with a
    TypeError naming the op, for every dtype (docs/small_ints.md)."""
    e, t = both(name)
    ie, it = ember.tensor([0, 1], dtype=e), torch.tensor([0, 1], dtype=t)
    got, _ = errors_of_both(lambda m, i: m.ones(3)[i], [ie], [it], exc=IndexError, ember_exc=TypeError)
    assert "int8" in got or "int16" in got
    for op, f in (("index_select", lambda m, i: m.ones(3, 2).index_select(0, i)),
                  ("gather", lambda m, i: m.gather(m.ones(3), 0, i)),
                  ("embedding", lambda m, i: m.nn.functional.embedding(i, m.ones(4, 2)))):
        got, _ = errors_of_both(f, [ie], [it], ember_exc=TypeError)
        assert op in got


# ---- matmul --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
def test_matmul_wraps_as_torch(name):
    check_op(lambda m, a, b: a @ b, [(4, 6), (6, 3)], dtypes=[name], layouts=["contiguous", "transposed"])
    check_op(lambda m, a, b: a @ b, [(2, 4, 6), (6,)], dtypes=[name])
    ae, at = full_range(name, (5, 7), 7)
    be, bt = full_range(name, (7, 3), 8)
    assert_same(ae @ be, at @ bt)
    assert_same(ember.mm(ae, be.t().contiguous().t()), torch.mm(at, bt.t().contiguous().t()))
    assert_same(ember.dot(ae[0], be[:, 0]), torch.dot(at[0], bt[:, 0]))


# ---- modules and the F namespace -----------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
def test_functional_ops_refuse_or_match(name):
    e, t = both(name)
    xe, xt = ember.tensor([[1, -2, 3]], dtype=e), torch.tensor([[1, -2, 3]], dtype=t)
    assert_same(ember.nn.functional.relu(xe), torch.nn.functional.relu(xt))
    assert_same(ember.nn.functional.one_hot(xe.abs().long()), torch.nn.functional.one_hot(xt.abs().long()))
    got, _ = errors_of_both(lambda m, x: m.nn.functional.softmax(x, 0), [xe], [xt],
                            exc=(RuntimeError, NotImplementedError), ember_exc=TypeError)
    assert "softmax" in got
    with pytest.raises(TypeError, match="linear: expected input and weight to have the same dtype"):
        ember.nn.Linear(3, 2)(xe)


@pytest.mark.parametrize("name", SMALL)
def test_sparse_coo_of_small_ints(name):
    xe, xt = full_range(name, (4, 5), 9)
    xe, xt = xe * (xe > 0), xt * (xt > 0)  # about half zeros
    se, st = xe.to_sparse(), xt.to_sparse()
    assert se.dtype == getattr(ember, name)
    assert_same(se.to_dense(), st.to_dense())
    assert_same((se + se).to_dense(), (st + st).to_dense())  # wraps as torch
    assert_same(ember.sparse.sum(se), torch.sparse.sum(st))
    assert_same(ember.sparse.mm(se, xe.t()), torch.sparse.mm(st, xt.t()))
    ie = ember.tensor([[0, 0, 1]])
    ve = ember.tensor([EDGES[name][-1], 1, 5], dtype=getattr(ember, name))
    it, vt = torch.tensor([[0, 0, 1]]), torch.tensor([EDGES[name][-1], 1, 5], dtype=getattr(torch, name))
    assert_same(ember.sparse_coo_tensor(ie, ve, (3,)).coalesce().to_dense(),
                torch.sparse_coo_tensor(it, vt, (3,)).coalesce().to_dense())
    i32 = ember.tensor([[0, 3], [4, 0]], dtype=ember.int32).to_sparse()
    assert (i32 + i32).dtype == ember.int32 and (i32 - i32).dtype == ember.int32  # was float32


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16"])
def test_long_rows_sort_stably_as_torch(name):
    """Rows long enough for the counting sort (1- and 2-byte integers): values and stable indices,
    both directions, along a non-contiguous dim, and topk (which keeps the comparison sort)."""
    n = 20000 if name == "int16" else 600
    rng = np.random.default_rng(10)
    if name == "bool":
        a = rng.random((3, n)) < 0.5
    else:
        info = np.iinfo(name)
        a = rng.integers(info.min, info.max + 1, size=(3, n)).astype(name)
        a[0, :50] = a[0, 0]  # a run of ties
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    for desc in (False, True):
        assert_same(tuple(ember.sort(e, dim=1, descending=desc, stable=True)),
                    tuple(torch.sort(t, dim=1, descending=desc, stable=True)))
        assert_same(tuple(ember.sort(e.t(), dim=0, descending=desc, stable=True)),
                    tuple(torch.sort(t.t(), dim=0, descending=desc, stable=True)))
        assert_same(ember.argsort(e[1], descending=desc, stable=True),
                    torch.argsort(t[1], descending=desc, stable=True))
    assert_same(ember.topk(e[2].to(ember.int64), 5)[0], torch.topk(t[2].to(torch.int64), 5)[0])
    assert_same(ember.unique(e), torch.unique(t))
