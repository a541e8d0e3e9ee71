"""ember.testing against torch.testing 2.13: same verdicts, same messages, same value ranges."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.testing as et


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
        return None
    except Exception as ex:  # noqa: BLE001 - the type and text are what we compare
        return type(ex).__name__, str(ex).replace("torch.", "ember.").replace(
            "<class 'ember.Tensor'>", "<class 'ember._C.Tensor'>")


def _pairs(mod):
    a, e = mod.tensor([1., 4., 5.]), mod.tensor([1., 2., 3.])
    nan = mod.tensor(float("nan"))
    return [
        ((a, e), {}), ((a, a.clone()), {}), ((nan, nan.clone()), {}),
        ((nan, nan.clone()), {"equal_nan": True}),
        (([a, 1], [e, 1]), {}), (({"x": 1.0}, {"x": 1.5}), {}), ((a, 1), {}),
        ((mod.tensor([1, 2]), mod.tensor([1, 3])), {}), ((a, a.double()), {}),
        ((a, a.double()), {"check_dtype": False}), ((1.0, 1), {}), ((1.0, 1), {"check_dtype": False}),
        ((a, e), {"rtol": 1.0, "atol": 0.0}), ((a, e), {"rtol": 1.0}),
        ((a, e), {"msg": "custom"}), ((a, e), {"msg": lambda m: f"Header\n\n{m}\n\nFooter"}),
        ((mod.zeros(2, 3), mod.zeros(3, 2)), {}), ((mod.zeros(2, 3), mod.zeros(3, 2).t()), {}),
        ((mod.zeros(2, 3), mod.zeros(3, 2).t()), {"check_stride": True}),
        ((None, None), {}), ((None, 1), {}), ((True, False), {}), (([1, 2], [1, 2, 3]), {}),
        (({"a": 1}, {"b": 1}), {}), ((mod.zeros(0), mod.zeros(0)), {}),
        ((mod.tensor([[1., 2.], [3., 4.]]), mod.tensor([[1., 2.], [3., 4.5]])), {}),
        ((mod.tensor([True, False]), mod.tensor([True, True])), {}),
        ((np.ones(3), np.ones(3) * 2), {}), ((np.float32(1.0), 1.0), {}),
    ]


def test_assert_close_matches_torch_verdicts_and_messages():
    for (ta, tk), (ea, ek) in zip(_pairs(torch), _pairs(ember)):
        assert _outcome(et.assert_close, *ea, **ek) == _outcome(torch.testing.assert_close, *ta, **tk)


def test_assert_close_random_values_against_torch():
    rng = np.random.default_rng(0)
    for dtype in ("float32", "float64", "int64"):
        for _ in range(5):
            x = rng.standard_normal((4, 5)).astype(dtype) if dtype != "int64" else \
                rng.integers(-5, 5, (4, 5))
            y = x + (rng.standard_normal((4, 5)) * 1e-5 * rng.integers(0, 2, (4, 5))).astype(x.dtype)
            got = _outcome(et.assert_close, ember.from_numpy(x), ember.from_numpy(y))
            want = _outcome(torch.testing.assert_close, torch.from_numpy(x), torch.from_numpy(y))
            assert got == want


def test_assert_allclose_warns_and_is_looser():
    a, e = ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0001])
    with pytest.warns(FutureWarning, match="assert_allclose"):
        et.assert_allclose(a, e)              # rtol 1e-4 for float32
    with pytest.warns(FutureWarning):
        et.assert_allclose(ember.tensor(float("nan")), float("nan"))  # equal_nan by default
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _outcome(torch.testing.assert_allclose, torch.tensor([1.0, 2.0]), [1.0, 2.1])
        assert _outcome(et.assert_allclose, ember.tensor([1.0, 2.0]), [1.0, 2.1]) == want


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_make_tensor_ranges_and_flags(dtype):
    ember.manual_seed(0)
    dt = getattr(ember, dtype)
    x = et.make_tensor((200,), dtype=dt)
    assert x.dtype == dt and tuple(x.shape) == (200,)
    v = x.numpy()
    lo, hi = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9))
    assert v.min() >= lo and v.max() <= hi
    if dtype != "bool":
        assert v.min() < 0 or dtype == "uint8"
    y = et.make_tensor(3, 4, dtype=dt, low=1, high=3 if dtype != "bool" else 2)
    assert (y.numpy() >= 1).all() and (y.numpy() < 3).all()
    z = et.make_tensor((3, 4), dtype=dt, noncontiguous=True, exclude_zero=True)
    assert not z.is_contiguous() and tuple(z.shape) == (3, 4) and (z.numpy() != 0).all()
    assert et.make_tensor((), dtype=dt).dim() == 0 and et.make_tensor((0, 2), dtype=dt).numel() == 0
    if dtype.startswith("float"):
        g = et.make_tensor([2], dtype=dt, requires_grad=True)
        assert g.requires_grad and g.is_leaf
        assert et.make_tensor(2, dtype=dt, exclude_zero=True, low=0, high=1e-45).numpy().min() > 0


def test_make_tensor_bad_inputs_as_torch():
    cases = [dict(dtype="int64", requires_grad=True), dict(dtype="float32", low=2, high=1),
             dict(dtype="float32", low=math.nan), dict(dtype="uint8", low=300, high=400)]
    for kw in cases:
        t_kw = dict(kw, dtype=getattr(torch, kw["dtype"]), device="cpu")
        e_kw = dict(kw, dtype=getattr(ember, kw["dtype"]))
        assert _outcome(et.make_tensor, (2,), **e_kw) == _outcome(torch.testing.make_tensor, (2,), **t_kw)
    with pytest.raises(ValueError, match="mutually exclusive"):
        et.make_tensor(2, 2, dtype=ember.float32, noncontiguous=True, memory_format="channels_last")
    with pytest.warns(FutureWarning, match="low==high"):
        assert (et.make_tensor(3, dtype=ember.float32, low=2, high=2).numpy() == 2).all()
