"""Comparisons and checks (python/ember/_comparison.py), dtype limits and type queries
(_dtype_info.py) and the print options (_printing.py), against PyTorch 2.13."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op, gradcheck_op

ALL = ["bool", "uint8", "int32", "int64", "float32", "float64"]
NUM = ["uint8", "int32", "int64", "float32", "float64"]
FLOAT = ["float32", "float64"]


def _specials(m, x):
    """x with NaN, +inf and -inf in its first row (floats)."""
    return m.where(m.arange(x.shape[-1]) % 3 == 0, x / 0, x)


FORWARD = {
    "isclose": (lambda m, a, b: m.isclose(a, a + b * 1e-6), [(3, 4), (4,)], FLOAT),
    "isclose_tol": (lambda m, a, b: m.isclose(a, b, rtol=0.5, atol=0.3), [(3, 4), (3, 4)], FLOAT),
    "isclose_int": (lambda m, a, b: m.isclose(a, b, atol=2), [(3, 4), (3, 4)], ["int64", "uint8"]),
    "isclose_bool": (lambda m, a, b: m.isclose(a, b), [(3, 4), (3, 4)], ["bool"]),
    "isclose_zero_tol": (lambda m, a, b: m.isclose(a, b, 0, 0), [(3, 4), (3, 4)], ["int32"]),
    "isclose_nan": (lambda m, a: m.isclose(_specials(m, a), _specials(m, a), equal_nan=True),
                    [(3, 6)], FLOAT),
    "isclose_nan_unequal": (lambda m, a: _specials(m, a).isclose(_specials(m, a)), [(3, 6)], FLOAT),
    "allclose": (lambda m, a, b: m.allclose(a, a + b * 1e-9), [(3, 4), (4,)], FLOAT),
    "allclose_false": (lambda m, a, b: a.allclose(b), [(3, 4), (3, 4)], FLOAT),
    "equal": (lambda m, a: m.equal(a, a.clone()), [(3, 4)], ALL),
    "equal_shape": (lambda m, a, b: m.equal(a, b), [(3, 4), (4,)], ALL),
    "equal_values": (lambda m, a, b: a.equal(b), [(3, 4), (3, 4)], NUM),
    "isreal": (lambda m, a: m.isreal(a), [(3, 4)], ALL),
    "is_floating_point": (lambda m, a: m.is_floating_point(a), [(2,)], ALL),
    "is_complex": (lambda m, a: (m.is_complex(a), a.is_complex()), [(2,)], ALL),
    "is_nonzero": (lambda m, a: (m.is_nonzero(a), a.is_nonzero()), [(1,)], ALL),
    "count_nonzero": (lambda m, a: m.count_nonzero(a), [(3, 4)], ALL),
    "count_nonzero_dim": (lambda m, a: a.count_nonzero(1), [(3, 4)], ALL),
    "count_nonzero_dims": (lambda m, a: m.count_nonzero(a, dim=(0, -1)), [(2, 3, 4)], NUM),
    "nan_to_num": (lambda m, a: m.nan_to_num(_specials(m, a)), [(3, 6)], FLOAT),
    "nan_to_num_values": (lambda m, a: _specials(m, a).nan_to_num(1.5, posinf=9.0, neginf=-9.0),
                          [(3, 6)], FLOAT),
    "nan_to_num_int": (lambda m, a: m.nan_to_num(a), [(3, 4)], ["int64", "bool"]),
    "signbit": (lambda m, a: m.signbit(a), [(3, 4)], NUM + ["bool"]),
    "signbit_zero": (lambda m, a: m.signbit(m.cat([a * 0, -(a * 0)])), [(4,)], FLOAT),
    "copysign": (lambda m, a, b: m.copysign(a, b), [(3, 4), (4,)], NUM),
    "copysign_scalar": (lambda m, a: a.copysign(-2.0), [(3, 4)], FLOAT + ["int64"]),
    "copysign_zero": (lambda m, a: m.copysign(a, -(a * 0)), [(3, 4)], FLOAT),
    "heaviside": (lambda m, a, b: m.heaviside(a.round(), b), [(3, 4), (4,)], FLOAT + ["int64"]),
    "isin": (lambda m, a, b: m.isin(a, b), [(3, 4), (5,)], ["int64", "int32"]),
    "isin_invert": (lambda m, a, b: m.isin(a, b, invert=True), [(3, 4), (4,)], ["int64"]),
    "isin_scalar": (lambda m, a: m.isin(a, 2), [(3, 4)], ["int64"]),
    "eq_": (lambda m, a, b: a.clone().eq_(b), [(3, 4), (4,)], NUM),
    "lt_": (lambda m, a, b: a.clone().lt_(b), [(3, 4), (3, 4)], FLOAT),
    "logical_not_": (lambda m, a: a.clone().logical_not_(), [(3, 4)], ALL),
    "type_as": (lambda m, a, b: a.type_as(b), [(3, 4), (2,)], ALL),
    "is_signed": (lambda m, a: (a.is_signed(), a.is_same_size(a.t())), [(3, 4)], ALL),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    fn, shapes, dtypes = FORWARD[name]
    check_op(fn, shapes, dtypes=dtypes, layouts=LAYOUTS)


GRADS = {
    "nan_to_num": (lambda m, a: m.nan_to_num(m.log(a)), [(3, 4)]),
    "copysign": (lambda m, a, b: m.copysign(a, b), [(3, 4), (4,)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_matches_torch(name):
    fn, shapes = GRADS[name]
    check_grad(fn, shapes, layouts=LAYOUTS, requires=[True] + [False] * (len(shapes) - 1))


def test_gradcheck():
    gradcheck_op(lambda m, a: m.nan_to_num(a * 2), [(3, 4)])
    gradcheck_op(lambda m, a: m.copysign(a, m.ones(4) * -1), [(3, 4)])


@pytest.mark.parametrize("shape", [(), (0,), (3, 0)])
def test_0d_and_empty(shape):
    for fn in (lambda m, a: m.isclose(a, a), lambda m, a: m.count_nonzero(a),
               lambda m, a: m.nan_to_num(a), lambda m, a: m.signbit(a),
               lambda m, a: m.equal(a, a), lambda m, a: m.allclose(a, a)):
        check_op(fn, [shape], dtypes=FLOAT)


def test_out_and_inplace():
    x = torch.tensor([math.nan, math.inf, 1.0])
    e = ember.tensor([math.nan, math.inf, 1.0])
    out = ember.empty(3)
    r = ember.nan_to_num(e, out=out)
    assert r is out
    assert_same(out, torch.nan_to_num(x))
    e.nan_to_num_(2.0)
    x.nan_to_num_(2.0)
    assert_same(e, x)
    a = ember.tensor([1.0, -2.0])
    a.copysign_(ember.tensor([-1.0, 1.0]))
    assert a.tolist() == [-1.0, 2.0]


def test_bad_inputs():
    f, d = ember.ones(3), ember.ones(3, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="isclose.*Float.*Double"):
        ember.isclose(f, d)
    with pytest.raises(RuntimeError):
        torch.isclose(torch.ones(3), torch.ones(3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="rtol"):
        ember.isclose(f, f, rtol=-1)
    with pytest.raises(RuntimeError, match=r"isclose.*\(3, 4\).*\(5, 6\)"):
        ember.isclose(ember.ones(3, 4), ember.ones(5, 6))
    with pytest.raises(RuntimeError, match="more than one value"):
        ember.ones(2).is_nonzero()
    with pytest.raises(RuntimeError, match="no values"):
        ember.is_nonzero(ember.ones(0))
    with pytest.raises(RuntimeError, match="heaviside.*different dtypes"):
        ember.heaviside(f, d)
    with pytest.raises(IndexError, match="count_nonzero.*99"):
        ember.count_nonzero(ember.ones(3, 4), 99)
    with pytest.raises(TypeError, match="equal"):
        ember.equal([1], f)
    with pytest.raises(TypeError, match="nan_to_num_"):
        ember.nan_to_num_("abc")
    with pytest.raises(TypeError, match="type_as"):
        f.type_as("abc")
    with pytest.raises(TypeError, match="is_same_size"):
        f.is_same_size([3])
    with pytest.raises(TypeError, match="bincount.*weights"):
        ember.bincount(ember.tensor([1]), [1.0])
    out = ember.empty(2)  # resized with torch's warning (an empty out: silently)
    with pytest.warns(UserWarning, match="was resized since it had shape"):
        assert ember.nan_to_num(f, out=out) is out and out.shape == f.shape


# ---- finfo / iinfo / typename / numel ----------------------------------------------------------
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_finfo_fields_match_torch(name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(e, field) == getattr(t, field), field
    assert repr(e) == repr(t)
    assert ember.finfo() == ember.finfo(ember.float32)


@pytest.mark.parametrize("name", ["uint8", "int32", "int64"])
def test_iinfo_fields_match_torch(name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(e, field) == getattr(t, field), field
    assert repr(e) == repr(t)


def test_info_bad_inputs():
    with pytest.raises(TypeError, match="finfo"):
        ember.finfo(ember.int64)
    with pytest.raises(TypeError, match="iinfo"):
        ember.iinfo(ember.float32)
    with pytest.raises(TypeError, match="iinfo"):
        ember.iinfo(ember.bool)
    with pytest.raises(TypeError):
        ember.finfo("float32")


def test_typename_numel_is_storage():
    for dt in ("float32", "float64", "int64", "int32", "uint8", "bool"):
        assert ember.typename(ember.zeros(2, dtype=getattr(ember, dt))) == \
            torch.typename(torch.zeros(2, dtype=getattr(torch, dt)))
    assert ember.typename(3) == torch.typename(3) == "int"
    assert ember.numel(ember.zeros(2, 3)) == 6
    assert ember.numel(ember.zeros(0, 3)) == 0
    with pytest.raises(TypeError, match="numel"):
        ember.numel([1, 2])
    assert ember.is_storage(ember.zeros(2)) is False
    assert ember.is_storage(ember.zeros(2).untyped_storage()) is True
    assert ember.is_storage(ember.zeros(2).storage()) is True
    assert ember.is_tensor(ember.zeros(2)) and not ember.is_tensor([1])


# ---- print options -----------------------------------------------------------------------------
@pytest.fixture
def restore_printoptions():
    yield
    ember.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("options", [
    dict(precision=2), dict(precision=7), dict(threshold=5), dict(edgeitems=1, threshold=10),
    dict(linewidth=30), dict(profile="short"), dict(profile="full"), dict(sci_mode=True),
    dict(sci_mode=False), dict(profile="short", precision=6),
])
def test_set_printoptions_matches_torch(options, restore_printoptions):
    ember.set_printoptions(**options)
    torch.set_printoptions(**options)
    rng = np.random.default_rng(0)
    for arr in (rng.standard_normal((4, 5)), rng.standard_normal(2000) * 1e-5,
                np.arange(30.0).reshape(3, 10), np.arange(1500).reshape(30, 50),
                np.array([1e10, 1.0, 0.5])):
        e = repr(ember.from_numpy(arr.copy())).replace("ember.", "torch.")
        t = repr(torch.from_numpy(arr.copy()))
        assert e == t, f"{options}\n{e}\n{t}"


def test_set_printoptions_bad_profile(restore_printoptions):
    with pytest.raises(ValueError, match="profile"):
        ember.set_printoptions(profile="tiny")
