"""uint16, uint32 and uint64 against torch 2.13, op by op: torch gives them "limited support"
(creation, casts, copies, indexing, eq/ne, mul, bitwise and/or/xor, sum/prod/cumsum to int64,
sort/unique, NumPy and files) and refuses the rest (add, lt, max, neg, promotion with any other
integer type). Every case runs in both libraries: where torch answers, ember answers the same
(values and dtype); where torch raises, ember raises an exception of the same class naming
the op or the dtype (docs/unsigned_ints.md)."""
import io
import pickle

import numpy as np
import pytest
import torch

import ember
from helpers import assert_promotion_like_torch

WIDE = ["uint16", "uint32", "uint64"]
MAX = {"uint16": 2 ** 16 - 1, "uint32": 2 ** 32 - 1, "uint64": 2 ** 64 - 1}
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "bfloat16", "float16", "float32",
          "float64", "complex64", "complex128", *WIDE]


def same(e, t):
    """ember's result equals torch's: type, dtype, shape and exact values."""
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), type(e)
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
        assert tuple(e.shape) == tuple(t.shape)
        assert e.tolist() == t.tolist()
        return
    if isinstance(t, torch.dtype):
        assert str(e).split(".")[-1] == str(t).split(".")[-1]
        return
    assert type(e) is type(t) and e == t, (e, t)


# Where torch refuses but ember's kernel is dtype-generic and answers (docs/unsigned_ints.md):
# the answer must be torch's own for the same values in int64, cast to the unsigned dtype by
# torch (so ~x and wrapping follow torch's casts), never something else.
EMBER_ANSWERS = {"count_nonzero", "flip", "gather", "index_put", "index_select", "logical_not",
                 "lshift", "rshift", "not", "masked_fill", "masked_select",
                 "nonzero", "scatter", "setitem_index_tensor"}
# Refused by both with another exception class: ember's mean of any integer tensor is a
# TypeError (torch: RuntimeError), as for int64.
OTHER_REFUSAL = {"mean": TypeError}


def like_int64(e, t64, name):
    """ember's answer `e` (for dtype `name`) against torch's int64 answer `t64`."""
    if isinstance(t64, (tuple, list)):
        assert len(e) == len(t64)
        for a, b in zip(e, t64):
            like_int64(a, b, name)
        return
    if str(e.dtype).split(".")[-1] == name and t64.dtype == torch.int64:
        t64 = t64.to(getattr(torch, name))
    same(e, t64)


def run_both(fn, name, case=None):
    """fn(lib, dtype) in torch and ember: the same result, or the same refusal (exception class;
    a NotImplementedError names the dtype)."""
    try:
        t = fn(torch, getattr(torch, name))
    except Exception as texc:  # noqa: BLE001 -- torch's refusal is the expectation
        if case in EMBER_ANSWERS:
            like_int64(fn(ember, getattr(ember, name)), fn(torch, torch.int64), name)
            return
        with pytest.raises(OTHER_REFUSAL.get(case, type(texc))) as eexc:
            fn(ember, getattr(ember, name))
        if isinstance(texc, NotImplementedError):
            assert name in str(eexc.value), str(eexc.value)
        return
    assert case not in EMBER_ANSWERS, f"torch answers {case} now: move it out of EMBER_ANSWERS"
    same(fn(ember, getattr(ember, name)), t)


def vec(L, dt, values=(1, 2, 3)):
    return L.tensor(list(values), dtype=dt)


def rev(L, dt):
    return L.tensor([3, 2, 1], dtype=dt)


mask = lambda L: L.tensor([True, False, True])  # noqa: E731

# (case name, fn(lib, dtype)): each runs in torch and ember (test_op_like_torch).
CASES = {
    # creation
    "tensor": lambda L, dt: L.tensor([0, 1, 2, 65535], dtype=dt),
    "tensor_wraps_negative": lambda L, dt: L.tensor([-1, -70000], dtype=dt),
    "tensor_scalar": lambda L, dt: L.tensor(7, dtype=dt),
    "tensor_bool_data": lambda L, dt: L.tensor([True, False], dtype=dt),
    "tensor_float_data": lambda L, dt: L.tensor([1.7, 3.0], dtype=dt),
    "tensor_negative_float": lambda L, dt: L.tensor([-1.5], dtype=dt),
    "tensor_overflow": lambda L, dt: L.tensor([2 ** 32], dtype=dt),
    "tensor_2_64_minus_1": lambda L, dt: L.tensor([2 ** 64 - 1], dtype=dt),
    "zeros": lambda L, dt: L.zeros(2, 3, dtype=dt),
    "ones": lambda L, dt: L.ones(4, dtype=dt),
    "full": lambda L, dt: L.full((2,), 7, dtype=dt),
    "full_negative_wraps": lambda L, dt: L.full((2,), -1, dtype=dt),
    "full_float": lambda L, dt: L.full((1,), 2.5, dtype=dt),
    "empty_shape": lambda L, dt: (L.empty(2, 3, dtype=dt).shape == (2, 3), L.empty(2, dtype=dt).dtype),
    "zeros_like": lambda L, dt: L.zeros_like(vec(L, dt)),
    "ones_like": lambda L, dt: L.ones_like(vec(L, dt)),
    "full_like": lambda L, dt: L.full_like(vec(L, dt), 4),
    "scalar_tensor": lambda L, dt: L.scalar_tensor(3, dtype=dt),
    "arange": lambda L, dt: L.arange(5, dtype=dt),
    "randint": lambda L, dt: (lambda r: (r.dtype, r.shape, bool((r.to(L.int64) < 10).all())))(
        L.randint(0, 10, (50,), dtype=dt)),
    "randint_negative_low": lambda L, dt: L.randint(-1, 5, (2,), dtype=dt).dtype,
    "randint_high_beyond_uint16": lambda L, dt: L.randint(0, 2 ** 16 + 1, (2,), dtype=dt).dtype,
    "type_name": lambda L, dt: vec(L, dt).type().replace("torch.", "ember."),
    # casts
    "to_float32": lambda L, dt: vec(L, dt, (0, 1, 65535)).to(L.float32),
    "to_float64": lambda L, dt: vec(L, dt, (0, 1, 65535)).to(L.float64),
    "to_float16": lambda L, dt: vec(L, dt).to(L.float16),
    "to_bfloat16": lambda L, dt: vec(L, dt).to(L.bfloat16),
    "to_complex64": lambda L, dt: vec(L, dt).to(L.complex64),
    "to_int64": lambda L, dt: vec(L, dt, (0, 65535)).to(L.int64),
    "to_int8": lambda L, dt: vec(L, dt, (255, 300)).to(L.int8),
    "to_uint8": lambda L, dt: vec(L, dt, (257, 300)).to(L.uint8),
    "to_bool": lambda L, dt: vec(L, dt, (0, 2)).to(L.bool),
    "to_each_wide": lambda L, dt: [vec(L, dt, (1, 65535)).to(getattr(L, w)) for w in WIDE],
    "from_float32": lambda L, dt: L.tensor([0.0, 1.5, 2.7, 300.0, 65535.0]).to(dt),
    "from_negative_float_wraps": lambda L, dt: L.tensor([-1.0, -3.7, -2.0 ** 31]).to(dt),
    "from_float_strided": lambda L, dt: L.tensor([-1.0, 0.0, 65536.0, 0.0, 4.5, 0.0]).to(dt)[::2],
    "from_float64": lambda L, dt: L.tensor([-1.0, 65536.0, 4294967296.0],
                                           dtype=L.float64).to(dt),
    "from_float16": lambda L, dt: L.tensor([-1.0, 65504.0], dtype=L.float16).to(dt),
    "from_int64_wraps": lambda L, dt: L.tensor([-1, 2, 2 ** 40 + 5]).to(dt),
    "from_uint64_max": lambda L, dt: L.tensor([2 ** 64 - 1, 2 ** 63], dtype=L.uint64).to(dt),
    "uint64_max_to_float": lambda L, dt: L.tensor([2 ** 64 - 1], dtype=L.uint64).to(dt).to(
        L.float64),
    "uint64_max_to_int64": lambda L, dt: L.tensor([2 ** 64 - 1], dtype=L.uint64).to(dt).to(L.int64),
    "float_method": lambda L, dt: vec(L, dt).float(),
    "long_method": lambda L, dt: vec(L, dt).long(),
    # arithmetic: torch has mul and true division; add, sub, // and % refuse the types
    "mul": lambda L, dt: vec(L, dt) * rev(L, dt),
    "mul_wraps": lambda L, dt: vec(L, dt, (65535, 2 ** 16)) * vec(L, dt, (65535, 2 ** 16)),
    "mul_python_int": lambda L, dt: vec(L, dt) * 2,
    "mul_int64_0d": lambda L, dt: vec(L, dt) * L.tensor(2),
    "mul_inplace": lambda L, dt: vec(L, dt).mul_(3),
    "mul_float": lambda L, dt: vec(L, dt) * 2.5,
    "mul_float_tensor": lambda L, dt: vec(L, dt) * L.tensor([0.5, 1.5, 2.5]),
    "add_float_tensor": lambda L, dt: vec(L, dt) + L.tensor([0.5, 1.5, 2.5]),
    "add_float": lambda L, dt: vec(L, dt) + 2.5,
    "div": lambda L, dt: vec(L, dt) / rev(L, dt),
    "div_scalar": lambda L, dt: vec(L, dt) / 2,
    "sqrt": lambda L, dt: vec(L, dt).sqrt(),
    "add": lambda L, dt: vec(L, dt) + rev(L, dt),
    "add_python_int": lambda L, dt: vec(L, dt) + 1,
    "sub": lambda L, dt: vec(L, dt) - rev(L, dt),
    "floor_divide": lambda L, dt: vec(L, dt) // rev(L, dt),
    "remainder": lambda L, dt: vec(L, dt) % rev(L, dt),
    "neg": lambda L, dt: -vec(L, dt),
    "abs": lambda L, dt: vec(L, dt).abs(),
    "pow": lambda L, dt: vec(L, dt) ** 2,
    "sign": lambda L, dt: vec(L, dt).sign(),
    "clamp": lambda L, dt: vec(L, dt).clamp(1, 2),
    "maximum": lambda L, dt: L.maximum(vec(L, dt), rev(L, dt)),
    "matmul": lambda L, dt: vec(L, dt) @ rev(L, dt),
    # promotion with other integer types: refused, as torch
    "add_int32": lambda L, dt: vec(L, dt) + L.tensor([1, 2, 3], dtype=L.int32),
    "mul_int64": lambda L, dt: vec(L, dt) * L.tensor([1, 2, 3]),
    "mul_uint8": lambda L, dt: vec(L, dt) * L.tensor([1, 2, 3], dtype=L.uint8),
    "eq_int64": lambda L, dt: vec(L, dt) == L.tensor([1, 2, 3]),
    "cat_int64": lambda L, dt: L.cat([vec(L, dt), L.tensor([1])]),
    "mul_other_wide": lambda L, dt: [vec(L, dt) * vec(L, getattr(L, w)) for w in WIDE if
                                     getattr(L, w) != dt],
    "cat_float": lambda L, dt: L.cat([vec(L, dt), L.tensor([2.5])]),
    # comparisons: eq/ne only
    "eq": lambda L, dt: vec(L, dt) == rev(L, dt),
    "ne": lambda L, dt: vec(L, dt) != rev(L, dt),
    "eq_scalar": lambda L, dt: vec(L, dt) == 2,
    "eq_float_tensor": lambda L, dt: vec(L, dt) == L.tensor([1.0, 2.5, 3.0]),
    "lt_float_tensor": lambda L, dt: vec(L, dt) < L.tensor([1.0, 2.5, 3.0]),
    "lt": lambda L, dt: vec(L, dt) < rev(L, dt),
    "ge": lambda L, dt: vec(L, dt) >= rev(L, dt),
    "lt_scalar": lambda L, dt: vec(L, dt) < 2,
    "equal": lambda L, dt: L.equal(vec(L, dt), vec(L, dt)),
    "equal_int64": lambda L, dt: L.equal(vec(L, dt), L.tensor([1, 2, 3])),
    "allclose": lambda L, dt: L.allclose(vec(L, dt), vec(L, dt)),
    "isclose": lambda L, dt: L.isclose(vec(L, dt, (1, 2, 65535)), vec(L, dt, (1, 3, 65535))),
    "assert_close_equal": lambda L, dt: L.testing.assert_close(vec(L, dt), vec(L, dt)),
    "assert_close_differs": lambda L, dt: L.testing.assert_close(vec(L, dt), rev(L, dt)),
    "isnan": lambda L, dt: vec(L, dt).isnan(),
    "isfinite": lambda L, dt: vec(L, dt).isfinite(),
    "logical_not": lambda L, dt: L.logical_not(vec(L, dt)),
    "logical_and": lambda L, dt: L.logical_and(vec(L, dt), rev(L, dt)),
    # bitwise: and/or/xor only
    "and": lambda L, dt: vec(L, dt, (6, 65535, 0)) & rev(L, dt),
    "or": lambda L, dt: vec(L, dt, (6, 65535, 0)) | rev(L, dt),
    "xor": lambda L, dt: vec(L, dt, (6, 65535, 0)) ^ rev(L, dt),
    "and_scalar": lambda L, dt: vec(L, dt) & 1,
    "ior": lambda L, dt: vec(L, dt).bitwise_or_(rev(L, dt)),
    "not": lambda L, dt: ~vec(L, dt),
    "lshift": lambda L, dt: vec(L, dt) << 1,
    "rshift": lambda L, dt: vec(L, dt) >> 1,
    # reductions: sum/prod/cumsum in int64 (the uint64 values wrap), any/all
    "sum": lambda L, dt: vec(L, dt, (65535, 1)).sum(),
    "sum_dim": lambda L, dt: L.ones(2, 3, dtype=dt).sum(0),
    "sum_uint64_wraps": lambda L, dt: L.tensor([2 ** 64 - 1, 1], dtype=L.uint64).to(dt).sum(),
    "prod": lambda L, dt: vec(L, dt, (65535, 65535, 65535)).prod(),
    "cumsum": lambda L, dt: vec(L, dt, (65535, 1, 2)).cumsum(0),
    "sum_dtype_self": lambda L, dt: vec(L, dt).sum(dtype=dt),
    "mean": lambda L, dt: vec(L, dt).mean(),
    "max": lambda L, dt: vec(L, dt).max(),
    "min": lambda L, dt: vec(L, dt).min(),
    "max_dim": lambda L, dt: vec(L, dt).max(0),
    "amax": lambda L, dt: vec(L, dt).amax(),
    "argmax": lambda L, dt: vec(L, dt).argmax(),
    "any": lambda L, dt: vec(L, dt, (0, 0, 5)).any(),
    "any_false": lambda L, dt: vec(L, dt, (0, 0)).any(),
    "all": lambda L, dt: vec(L, dt, (1, 0, 5)).all(),
    "nonzero": lambda L, dt: vec(L, dt, (0, 1, 0)).nonzero(),
    "count_nonzero": lambda L, dt: vec(L, dt, (0, 1, 0)).count_nonzero(),
    "topk": lambda L, dt: vec(L, dt).topk(1),
    # ordering
    "sort": lambda L, dt: tuple(L.tensor([2 ** 64 - 1, 2 ** 63, 5, 0],
                                         dtype=L.uint64).to(dt).sort()),
    "sort_descending": lambda L, dt: tuple(vec(L, dt, (5, 65535, 0)).sort(descending=True)),
    "argsort": lambda L, dt: vec(L, dt, (5, 65535, 0)).argsort(),
    "unique": lambda L, dt: L.tensor([2 ** 64 - 1, 2 ** 63, 5, 5], dtype=L.uint64).to(dt).unique(),
    "unique_counts": lambda L, dt: vec(L, dt, (3, 1, 3)).unique(return_counts=True),
    # indexing, views, joins, moves
    "index": lambda L, dt: vec(L, dt)[1],
    "slice": lambda L, dt: vec(L, dt, (1, 2, 3, 4))[1::2],
    "index_tensor": lambda L, dt: vec(L, dt)[L.tensor([2, 0, 2])],
    "index_mask": lambda L, dt: vec(L, dt)[mask(L)],
    "setitem": lambda L, dt: (lambda x: (x.__setitem__(0, 9), x)[1])(vec(L, dt)),
    "setitem_slice_tensor": lambda L, dt: (lambda x: (x.__setitem__(slice(0, 2), vec(L, dt, (7, 8))),
                                                      x)[1])(vec(L, dt)),
    "setitem_index_tensor": lambda L, dt: (lambda x: (x.__setitem__(L.tensor([0, 2]), 9), x)[1])(
        vec(L, dt)),
    "index_select": lambda L, dt: vec(L, dt).index_select(0, L.tensor([2, 0])),
    "gather": lambda L, dt: vec(L, dt).gather(0, L.tensor([2, 0])),
    "masked_fill": lambda L, dt: vec(L, dt).masked_fill(mask(L), 5),
    "masked_select": lambda L, dt: vec(L, dt).masked_select(mask(L)),
    "index_put": lambda L, dt: L.zeros(3, dtype=dt).index_put_((L.tensor([1]),), vec(L, dt, (5,))),
    "scatter": lambda L, dt: L.zeros(3, dtype=dt).scatter(0, L.tensor([0]), vec(L, dt)),
    "flip": lambda L, dt: vec(L, dt).flip(0),
    "roll": lambda L, dt: vec(L, dt).roll(1),
    "cat": lambda L, dt: L.cat([vec(L, dt), rev(L, dt)]),
    "stack": lambda L, dt: L.stack([vec(L, dt), rev(L, dt)]),
    "chunk": lambda L, dt: list(vec(L, dt).chunk(3)),
    "reshape": lambda L, dt: vec(L, dt).reshape(3, 1),
    "transpose_contiguous": lambda L, dt: L.tensor([[0, 1, 2], [3, 4, 65535]],
                                                   dtype=dt).t().contiguous(),
    "expand_contiguous": lambda L, dt: vec(L, dt)[None].expand(2, 3).contiguous(),
    "repeat": lambda L, dt: vec(L, dt).repeat(2),
    "clone": lambda L, dt: vec(L, dt).clone(),
    "copy_from_float": lambda L, dt: vec(L, dt).copy_(L.tensor([7.0, 8.0, 9.0])),
    "copy_into_float": lambda L, dt: L.zeros(3).copy_(vec(L, dt)),
    "copy_broadcast": lambda L, dt: L.zeros(2, 3, dtype=dt).copy_(vec(L, dt)),
    "fill_": lambda L, dt: vec(L, dt).fill_(4),
    "zero_": lambda L, dt: vec(L, dt).zero_(),
    "where": lambda L, dt: L.where(mask(L), vec(L, dt), rev(L, dt)),
    "where_scalar": lambda L, dt: L.where(mask(L), vec(L, dt), 0),
    "view_as_signed": lambda L, dt: vec(L, dt, (65535, 2)).view(
        {"uint16": L.int16, "uint32": L.int32, "uint64": L.int64}[str(dt).split(".")[-1]]),
    "view_from_signed": lambda L, dt: L.tensor([-1, 2], dtype={"uint16": L.int16, "uint32": L.int32,
                                                          "uint64": L.int64}[str(dt).split(".")[-1]]).view(dt),
    "view_as_uint8": lambda L, dt: vec(L, dt).view(L.uint8),
    # values out
    "item": lambda L, dt: L.tensor([2 ** 64 - 1], dtype=L.uint64).to(dt).item(),
    "tolist": lambda L, dt: L.tensor([2 ** 64 - 1, 2 ** 63, 1], dtype=L.uint64).to(dt).tolist(),
    "int_of_0d": lambda L, dt: int(L.tensor(65535, dtype=dt)),
    "repr": lambda L, dt: repr(L.tensor([2 ** 64 - 1, 1], dtype=L.uint64).to(dt)).replace(
        "torch.", "ember."),
    "repr_2d": lambda L, dt: repr(L.tensor([[0, 1], [65535, 7]], dtype=dt)).replace("torch.",
                                                                                    "ember."),
    "element_size": lambda L, dt: vec(L, dt).element_size(),
    "is_signed": lambda L, dt: vec(L, dt).is_signed(),
    "is_floating_point": lambda L, dt: vec(L, dt).is_floating_point(),
    "nbytes": lambda L, dt: vec(L, dt).nbytes,
}


@pytest.mark.parametrize("name", WIDE)
@pytest.mark.parametrize("case", sorted(CASES))
def test_op_like_torch(case, name):
    run_both(CASES[case], name, case)


# ---- the dtype objects -----------------------------------------------------------------------

@pytest.mark.parametrize("name", WIDE)
def test_dtype_object_matches_torch(name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert isinstance(e, ember.dtype)
    assert repr(e) == repr(t).replace("torch", "ember")
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize", "abbr"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert pickle.loads(pickle.dumps(e)) is e
    ie, it = ember.iinfo(e), torch.iinfo(t)
    assert (ie.bits, ie.min, ie.max, ie.dtype) == (it.bits, it.min, it.max, it.dtype)
    with pytest.raises(TypeError):
        ember.finfo(e)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", WIDE)
def test_promote_types_and_can_cast_with_every_dtype(a, b):
    """promote_types answers or refuses (RuntimeError) as torch's, both argument orders."""
    for x, y in ((a, b), (b, a)):
        try:
            torch.promote_types(getattr(torch, x), getattr(torch, y))
        except RuntimeError:
            with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
                ember.promote_types(getattr(ember, x), getattr(ember, y))
            assert ember.can_cast(getattr(ember, x), getattr(ember, y)) == \
                torch.can_cast(getattr(torch, x), getattr(torch, y))
            continue
        assert_promotion_like_torch(x, y)


@pytest.mark.parametrize("name", WIDE)
def test_result_type_with_python_scalars(name):
    e, t = getattr(ember, name), getattr(torch, name)
    for other in (1, 1.5, True):
        same(ember.result_type(ember.ones(2, dtype=e), other),
             torch.result_type(torch.ones(2, dtype=t), other))


def test_uint64_tensor_data_is_python_ints_only():
    """torch reads uint64 data as unsigned Python ints: negative ints and floats are refused."""
    for data, exc in (([-1], OverflowError), (-1, OverflowError), ([1.5], TypeError),
                      (2.0, TypeError)):
        with pytest.raises(exc):
            torch.tensor(data, dtype=torch.uint64)
        with pytest.raises(exc):
            ember.tensor(data, dtype=ember.uint64)
    same(ember.tensor(2 ** 64 - 1, dtype=ember.uint64), torch.tensor(2 ** 64 - 1, dtype=torch.uint64))


# ---- NumPy and files --------------------------------------------------------------------------

@pytest.mark.parametrize("name", WIDE)
def test_numpy_both_ways_share_memory(name):
    a = np.array([0, 1, MAX[name]], dtype=name)
    t = ember.from_numpy(a)
    assert t.dtype == getattr(ember, name) and t.tolist() == a.tolist()
    t[0] = 5
    assert a[0] == 5  # shared
    back = t.numpy()
    assert back.dtype == np.dtype(name) and back.tolist() == a.tolist()
    back[1] = 9
    assert t[1].item() == 9
    for make in (ember.as_tensor, ember.tensor):
        same(make(a), torch.as_tensor(a))
    same(ember.tensor(a, dtype=ember.float32), torch.tensor(a, dtype=torch.float32))
    assert np.asarray(ember.from_numpy(a)).dtype == np.dtype(name)


@pytest.mark.parametrize("name", WIDE)
def test_pickle_round_trips(name):
    """torch 2.13 pickles these tensors but cannot read them back (pickle.loads raises
    AttributeError: UntypedStorage has no dtype); ember's round-trips the values (more than
    torch, not different)."""
    with pytest.raises(AttributeError):
        pickle.loads(pickle.dumps(torch.tensor([1], dtype=getattr(torch, name))))
    x = ember.tensor([[0, 1], [65535, MAX[name]]], dtype=getattr(ember, name))
    y = pickle.loads(pickle.dumps(x.t()))
    assert y.dtype == x.dtype and y.tolist() == x.t().tolist()


@pytest.mark.parametrize("name", WIDE)
def test_dlpack_both_ways(name):
    t = torch.tensor([1, 2, 65535], dtype=getattr(torch, name))
    same(ember.from_dlpack(t), t)
    back = torch.from_dlpack(ember.tensor([1, 2, 65535], dtype=getattr(ember, name)))
    assert back.dtype == t.dtype and torch.equal(back, t)


@pytest.mark.parametrize("name", WIDE)
def test_torch_save_both_ways(name):
    tt = torch.tensor([[0, 1], [65535, MAX[name]]], dtype=getattr(torch, name))
    et = ember.tensor([[0, 1], [65535, MAX[name]]], dtype=getattr(ember, name))
    buf = io.BytesIO()
    torch.save({"x": tt, "t": tt.t()}, buf)
    for weights_only in (True, False):
        buf.seek(0)
        got = ember.load(buf, weights_only=weights_only)
        same(got["x"], tt)
        same(got["t"], tt.t())
    buf = io.BytesIO()
    ember.save({"x": et, "t": et.t(), "f": ember.ones(2)}, buf)
    buf.seek(0)
    got = torch.load(buf, weights_only=True)
    same(et, got["x"])
    same(et.t(), got["t"])
    assert got["t"].untyped_storage().data_ptr() == got["x"].untyped_storage().data_ptr()


def test_safetensors_both_ways(tmp_path):
    st = pytest.importorskip("safetensors.torch")
    tensors = {n: torch.tensor([1, 2, MAX[n]], dtype=getattr(torch, n)) for n in WIDE}
    tensors.update(a=torch.ones(2), b=torch.tensor([3], dtype=torch.int16),
                   c=torch.tensor([4], dtype=torch.int32), d=torch.tensor([5]),
                   e=torch.ones(1, dtype=torch.float16))
    path = tmp_path / "t.safetensors"
    st.save_file(tensors, str(path), metadata={"format": "pt"})
    got = ember.load(path)
    for k, v in tensors.items():
        same(got[k], v)
    ours = tmp_path / "e.safetensors"
    ember.serialization.save_file({k: ember.from_numpy(v.numpy()) for k, v in tensors.items()},
                                  ours, metadata={"format": "pt"})
    assert ours.read_bytes() == path.read_bytes()  # the same dtype order and header
    back = st.load_file(str(ours))
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and torch.equal(back[k], v)


# ---- errors name the op and the dtype --------------------------------------------------------

@pytest.mark.parametrize("name", WIDE)
def test_refusals_name_op_and_dtype(name):
    x = ember.tensor([1, 2], dtype=getattr(ember, name))
    for fn, op in ((lambda: x + x, "add"), (lambda: x < x, "lt"), (lambda: x.max(), "max"),
                   (lambda: -x, "neg"), (lambda: x.topk(1), "topk")):
        with pytest.raises(NotImplementedError, match=f"{op}.*{name}"):
            fn()
    with pytest.raises(RuntimeError, match=f"{name} and int64"):
        x * ember.tensor([1, 2])
