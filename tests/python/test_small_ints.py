"""int8 and int16 as dtypes (torch.int8 / torch.int16 = torch.short): the dtype objects, type
promotion, iinfo, creation, casts, NumPy and DLPack interop, printing and files (torch.save,
safetensors), each against torch 2.13. Their ops are in test_small_ints_ops.py."""
import pickle

import numpy as np
import pytest
import torch

import ember
from helpers import assert_promotion_like_torch, assert_same

SMALL = ["int8", "int16"]
EDGES = {"int8": [-128, -127, -1, 0, 1, 126, 127], "int16": [-32768, -32767, -1, 0, 1, 32766, 32767]}
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "bfloat16", "float16", "float32",
          "float64", "complex64", "complex128"]
NP_OF = {"int8": np.int8, "int16": np.int16}


def both(name):
    return getattr(ember, name), getattr(torch, name)


def edge_pair(name):
    e, t = both(name)
    return ember.tensor(EDGES[name], dtype=e), torch.tensor(EDGES[name], dtype=t)


# ---- dtype objects, promotion, iinfo -----------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
def test_dtype_object_matches_torch(name):
    e, t = both(name)
    assert isinstance(e, ember.dtype)
    assert repr(e) == repr(t).replace("torch", "ember")
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize", "abbr"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert pickle.loads(pickle.dumps(e)) is e
    assert ember.short is ember.int16


@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_and_can_cast_with_every_dtype(a):
    for b in SMALL:
        assert_promotion_like_torch(a, b)
        assert_promotion_like_torch(b, a)


def test_uint8_with_int8_needs_int16():
    assert ember.promote_types(ember.uint8, ember.int8) is ember.int16
    u, i = ember.tensor([200], dtype=ember.uint8), ember.tensor([-100], dtype=ember.int8)
    assert_same(u + i, torch.tensor([200], dtype=torch.uint8) + torch.tensor([-100], dtype=torch.int8))


@pytest.mark.parametrize("name", SMALL)
def test_result_type_with_scalars_and_tensors(name):
    e, t = both(name)
    xe, xt = ember.ones(2, dtype=e), torch.ones(2, dtype=t)
    for other in (1, 1000, 1.5, True, 2j):
        assert str(ember.result_type(xe, other)) == str(torch.result_type(xt, other)).replace("torch", "ember")
    for o in ("uint8", "int8", "int16", "int32", "float16", "bfloat16"):
        oe, ot = both(o)
        assert str(ember.result_type(xe, ember.ones((), dtype=oe))) == \
            str(torch.result_type(xt, torch.ones((), dtype=ot))).replace("torch", "ember")
        assert str(ember.result_type(xe, ember.ones(2, dtype=oe))) == \
            str(torch.result_type(xt, torch.ones(2, dtype=ot))).replace("torch", "ember")


@pytest.mark.parametrize("name", SMALL)
def test_iinfo(name):
    e, t = both(name)
    ie, it = ember.iinfo(e), torch.iinfo(t)
    assert (ie.bits, ie.min, ie.max, ie.dtype) == (it.bits, it.min, it.max, it.dtype)
    assert ember.iinfo(e) == ember.iinfo(e)
    with pytest.raises(TypeError):
        ember.finfo(e)


# ---- creation ---------------------------------------------------------------------------------

CREATORS = {
    "zeros": lambda m, dt: m.zeros(2, 3, dtype=dt),
    "ones": lambda m, dt: m.ones(4, dtype=dt),
    "full": lambda m, dt: m.full((2,), -7, dtype=dt),
    "arange": lambda m, dt: m.arange(-5, 9, 2, dtype=dt),
    "arange_wraps": lambda m, dt: m.arange(0, 200, 50, dtype=dt),
    "linspace": lambda m, dt: m.linspace(0, 10, 5, dtype=dt),
    "eye": lambda m, dt: m.eye(3, dtype=dt),
    "tensor": lambda m, dt: m.tensor([[1, -2], [3, 4]], dtype=dt),
    "tensor_floats": lambda m, dt: m.tensor([1.7, -2.7, 0.0], dtype=dt),
    "zeros_like": lambda m, dt: m.zeros_like(m.ones(2, 2), dtype=dt),
    "full_like": lambda m, dt: m.full_like(m.ones(3, dtype=dt), 5),
    "empty_shape": lambda m, dt: m.empty(0, 3, dtype=dt),
    "scalar": lambda m, dt: m.tensor(-3, dtype=dt),
}


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", sorted(CREATORS))
def test_creation(name, op):
    e, t = both(name)
    if op == "arange_wraps" and name == "int16":
        return  # nothing to wrap
    assert_same(CREATORS[op](ember, e), CREATORS[op](torch, t))


@pytest.mark.parametrize("name", SMALL)
def test_creation_edge_values_and_overflow_errors(name):
    e, t = both(name)
    lo, hi = EDGES[name][0], EDGES[name][-1]
    assert_same(ember.tensor([lo, hi], dtype=e), torch.tensor([lo, hi], dtype=t))
    assert_same(ember.full((1,), lo, dtype=e), torch.full((1,), lo, dtype=t))
    for bad in (lo - 1, hi + 1, float("nan")):
        with pytest.raises(RuntimeError, match=f"{name}.*overflow|overflow.*{name}"):
            ember.tensor([bad], dtype=e)
        with pytest.raises(RuntimeError, match="full"):
            ember.full((2,), bad, dtype=e)


@pytest.mark.parametrize("name", SMALL)
def test_randint_and_random_stay_in_range(name):
    e, _ = both(name)
    lo, hi = EDGES[name][0], EDGES[name][-1]
    x = ember.randint(lo, hi + 1, (2000,), dtype=e)
    assert x.dtype == e and int(x.min()) >= lo and int(x.max()) <= hi
    assert int(x.min()) < lo // 2 and int(x.max()) > hi // 2  # spread over the range
    y = ember.empty(2000, dtype=e).random_()
    assert int(y.min()) >= 0 and int(y.max()) <= hi
    with pytest.raises(RuntimeError, match="randint|random_"):
        ember.randint(lo - 1, 0, (3,), dtype=e)


@pytest.mark.parametrize("name", SMALL)
def test_legacy_types_and_cast_methods(name):
    e, t = both(name)
    legacy = {"int8": "CharTensor", "int16": "ShortTensor"}[name]
    assert_same(getattr(ember, legacy)([1, -2]), getattr(torch, legacy)([1, -2]))
    assert isinstance(ember.ones(1, dtype=e), getattr(ember, legacy))
    assert ember.ones(2).type(getattr(ember, legacy)).dtype == e
    assert ember.ones(2).type(f"torch.{legacy}").dtype == e
    assert ember.ones(2, dtype=e).type() == f"ember.{legacy}"  # as ember.ones(2).type()
    method = {"int8": "char", "int16": "short"}[name]
    x = [1.7, -2.7, 100.0]
    assert_same(getattr(ember.tensor(x), method)(), getattr(torch.tensor(x), method)())
    y = ember.ones(2, dtype=e)
    assert getattr(y, method)() is y


# ---- casts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("other", DTYPES)
def test_casts_both_ways(name, other):
    e, t = both(name)
    oe, ot = both(other)
    xe, xt = edge_pair(name)
    if other not in ("bool", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                     "int32", "int64", name):
        xe, xt = xe.clamp(-100, 100), xt.clamp(-100, 100)  # into a narrower type: platform-defined
        if other == "uint8":
            xe, xt = xe.clamp(0, 100), xt.clamp(0, 100)
    if other in ("bfloat16", "float16") and name == "int16":  # 32767 rounds to 32768: overflows back
        xe, xt = xe.clamp(-2048, 2048), xt.clamp(-2048, 2048)
    up = (lambda x: x.float()) if other == "bfloat16" else (lambda x: x)  # NumPy has no bfloat16
    assert_same(up(xe.to(oe)), up(xt.to(ot)))
    assert_same(xe.to(oe).to(e), xt.to(ot).to(t))
    assert_same(up(xe.flip(0).to(oe)), up(xt.flip(0).to(ot)))  # strided source


@pytest.mark.parametrize("name", SMALL)
def test_float_to_small_int_truncates(name):
    e, t = both(name)
    x = [1.9, -1.9, 0.5, -0.5, 100.99, -100.99]
    assert_same(ember.tensor(x).to(e), torch.tensor(x).to(t))
    assert_same(ember.tensor(x, dtype=ember.float64).to(e), torch.tensor(x, dtype=torch.float64).to(t))


@pytest.mark.parametrize("name", SMALL)
def test_wider_ints_wrap_into_small_ints(name):
    e, t = both(name)
    x = [300, -300, 70000, -70000, 2**40 + 5, -(2**40) - 5]
    assert_same(ember.tensor(x).to(e), torch.tensor(x).to(t))
    assert_same(ember.tensor(x[:4], dtype=ember.int32).to(e), torch.tensor(x[:4], dtype=torch.int32).to(t))


@pytest.mark.parametrize("name", SMALL)
def test_item_tolist_and_python_conversions(name):
    xe, xt = edge_pair(name)
    assert xe.tolist() == xt.tolist() and all(type(v) is int for v in xe.tolist())
    assert xe[0].item() == xt[0].item() and type(xe[0].item()) is int
    assert int(xe[-1]) == int(xt[-1]) and float(xe[0]) == float(xt[0])
    assert bool(xe[3]) is False and bool(xe[4]) is True


# ---- NumPy and DLPack --------------------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
def test_from_numpy_shares_memory(name):
    a = np.array(EDGES[name], dtype=NP_OF[name])
    x = ember.from_numpy(a)
    assert x.dtype == getattr(ember, name) and x.tolist() == a.tolist()
    a[0] = 5
    assert x[0].item() == 5
    x[1] = -3
    assert a[1] == -3
    s = a[::2]  # strided
    assert ember.from_numpy(s).tolist() == s.tolist()


@pytest.mark.parametrize("name", SMALL)
def test_numpy_and_tensor_of_an_array(name):
    xe, xt = edge_pair(name)
    n = xe.numpy()
    assert n.dtype == NP_OF[name] and n.tolist() == xt.numpy().tolist()
    n[0] = 9
    assert xe[0].item() == 9  # numpy() shares memory
    a = np.array(EDGES[name], dtype=NP_OF[name])
    assert_same(ember.tensor(a), torch.tensor(a))
    assert_same(ember.as_tensor(a), torch.as_tensor(a))
    assert_same(ember.tensor(a, dtype=ember.int64), torch.tensor(a, dtype=torch.int64))
    assert_same(ember.tensor(a.astype(np.float32), dtype=getattr(ember, name)),
                torch.tensor(a.astype(np.float32), dtype=getattr(torch, name)))
    assert np.asarray(xe).dtype == NP_OF[name]


def test_int16_audio_samples_to_float():
    """The WAV pattern: int16 PCM samples -> float32 in [-1, 1)."""
    rng = np.random.default_rng(0)
    pcm = rng.integers(-32768, 32768, size=(2, 1000)).astype(np.int16)
    e = ember.from_numpy(pcm).float() / 32768.0
    t = torch.from_numpy(pcm).float() / 32768.0
    assert_same(e, t)
    assert_same((ember.from_numpy(pcm).float() * 32767).round().clamp(-32768, 32767).short(),
                (torch.from_numpy(pcm).float() * 32767).round().clamp(-32768, 32767).short())


@pytest.mark.parametrize("name", SMALL)
def test_dlpack_both_ways(name):
    xe, xt = edge_pair(name)
    from_torch = ember.from_dlpack(xt)
    assert from_torch.dtype == getattr(ember, name) and from_torch.tolist() == xt.tolist()
    to_torch = torch.from_dlpack(xe)
    assert to_torch.dtype == getattr(torch, name) and to_torch.tolist() == xe.tolist()
    to_torch[0] = 1
    assert xe[0].item() == 1  # shared


# ---- printing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("case", ["edges", "matrix", "scalar", "empty", "long"])
def test_repr_matches_torch(name, case):
    e, t = both(name)
    make = {"edges": lambda m, dt: m.tensor(EDGES[name], dtype=dt),
            "matrix": lambda m, dt: m.arange(-6, 6, dtype=dt).reshape(3, 4),
            "scalar": lambda m, dt: m.tensor(-7, dtype=dt),
            "empty": lambda m, dt: m.zeros(0, 2, dtype=dt),
            "long": lambda m, dt: m.arange(2000, dtype=m.int64).to(dt)}[case]
    assert repr(make(ember, e)) == repr(make(torch, t)).replace("torch.", "ember.")


# ---- files -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
def test_torch_save_files_both_ways(name, tmp_path):
    xe, xt = edge_pair(name)
    torch.save({"w": xt, "v": xt[1::2]}, tmp_path / "t.pt")
    got = ember.load(tmp_path / "t.pt")
    assert_same(got["w"], xt) and assert_same(got["v"], xt[1::2])
    ember.save({"w": xe, "v": xe[1::2]}, tmp_path / "e.pt")
    back = torch.load(tmp_path / "e.pt")
    assert back["w"].dtype == getattr(torch, name) and back["w"].tolist() == xe.tolist()
    assert back["v"].tolist() == xe[1::2].tolist()
    assert pickle.loads(pickle.dumps(xe)).tolist() == xe.tolist()


@pytest.mark.parametrize("name", SMALL)
def test_safetensors_both_ways(name, tmp_path):
    st = pytest.importorskip("safetensors.torch")
    xe, xt = edge_pair(name)
    st.save_file({"q": xt}, str(tmp_path / "t.safetensors"))
    got = ember.load(tmp_path / "t.safetensors")
    assert_same(got["q"], xt)
    ember.save({"q": xe}, tmp_path / "e.safetensors")
    back = st.load_file(str(tmp_path / "e.safetensors"))
    assert back["q"].dtype == getattr(torch, name) and back["q"].tolist() == xe.tolist()
    st.save_file({"a": xt, "b": torch.ones(3), "c": torch.ones(2, dtype=torch.uint8),
                  "d": torch.ones(1, dtype=torch.float16), "e": torch.ones(2, dtype=torch.int8)},
                 str(tmp_path / "mixed.safetensors"), metadata={"format": "pt"})
    ember.serialization.save_file({"a": xe, "b": ember.ones(3), "c": ember.ones(2, dtype=ember.uint8),
                                   "d": ember.ones(1, dtype=ember.float16),
                                   "e": ember.ones(2, dtype=ember.int8)},
                                  tmp_path / "mixed_e.safetensors", metadata={"format": "pt"})
    assert (tmp_path / "mixed.safetensors").read_bytes() == (tmp_path / "mixed_e.safetensors").read_bytes()


def test_int8_quantized_weights_dequantize():
    """The int8 weight pattern: int8 values times a per-row float scale."""
    rng = np.random.default_rng(1)
    q = rng.integers(-128, 128, size=(4, 8)).astype(np.int8)
    scale = rng.uniform(0.01, 0.1, size=(4, 1)).astype(np.float32)
    e = ember.from_numpy(q).to(ember.float32) * ember.from_numpy(scale)
    t = torch.from_numpy(q).to(torch.float32) * torch.from_numpy(scale)
    assert_same(e, t)
    assert_same(ember.from_numpy(q) * ember.from_numpy(scale), torch.from_numpy(q) * torch.from_numpy(scale))


# ---- view(dtype): the same bytes as another dtype ----------------------------------------------

VIEWS = {
    "float_as_int16": lambda m: m.arange(6.0).view(2, 3).view(m.int16),
    "int16_as_int8": lambda m: m.tensor([[1, -2], [300, -32768]], dtype=m.int16).view(m.int8),
    "int8_as_int16": lambda m: m.arange(-4, 4, dtype=m.int8).view(2, 4).view(m.int16),
    "half_bits": lambda m: m.tensor([1.5, -0.1, 65504.0], dtype=m.float16).view(m.int16),
    "bits_to_half": lambda m: m.tensor([15872, -1], dtype=m.int16).view(m.float16).float(),
    "uint8_as_int8": lambda m: m.tensor([200, 5], dtype=m.uint8).view(m.int8),
    "same_size_strided": lambda m: m.arange(6.0).view(2, 3).t().view(m.int32),
    "sliced_rows": lambda m: m.arange(16, dtype=m.int8).view(4, 4)[1:3].view(m.int16),
    "zero_d_same_size": lambda m: m.tensor(2.5).view(m.int32),
    "empty": lambda m: m.zeros(0, 4, dtype=m.int8).view(m.int32),
}
VIEW_ERRORS = {
    "size": lambda m: m.arange(6, dtype=m.int8).view(2, 3).view(m.int16),
    "stride_last": lambda m: m.arange(6, dtype=m.int8).view(2, 3).t().view(m.int16),
    "stride_row": lambda m: m.arange(6, dtype=m.int8).view(2, 3)[:, :2].view(m.int16),
    "offset": lambda m: m.arange(6, dtype=m.int8).view(2, 3)[:, 1:].view(m.int16),
    "zero_d": lambda m: m.tensor(3, dtype=m.int16).view(m.int8),
}


@pytest.mark.parametrize("case", sorted(VIEWS))
def test_view_as_another_dtype(case):
    e, t = VIEWS[case](ember), VIEWS[case](torch)
    assert_same(e, t)
    if e.dtype != ember.float32:
        assert e.stride() == t.stride() and e.storage_offset() == t.storage_offset()


@pytest.mark.parametrize("case", sorted(VIEW_ERRORS))
def test_view_as_another_dtype_errors_as_torch(case):
    with pytest.raises(RuntimeError) as te:
        VIEW_ERRORS[case](torch)
    with pytest.raises(RuntimeError) as ee:
        VIEW_ERRORS[case](ember)
    assert str(ee.value) == "view: " + str(te.value)


def test_view_as_another_dtype_shares_memory_and_has_no_grad():
    x = ember.zeros(4, dtype=ember.int16)
    v = x.view(ember.int8)
    v[0], v[1] = 1, 1
    assert x[0].item() == 257 and x._version == v._version
    w = ember.ones(2, requires_grad=True).view(ember.int32)
    assert not w.requires_grad and w.tolist() == [1065353216] * 2
    with pytest.raises(NotImplementedError, match="view: ember does not implement dtype ember.complex32"):
        ember.ones(2).view(ember.complex32)
    assert x.view(-1).shape == (4,) and x.view(2, 2).shape == (2, 2) and x.view((4, 1)).shape == (4, 1)
