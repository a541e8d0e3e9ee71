"""bfloat16 and float16 as dtypes, against torch 2.13: the dtype objects and promotion, casts both
ways bit for bit (all 65536 values of each type; float32/float64 values across the range with
NaN, inf, denormals and ties), creation, .half()/.bfloat16()/Module.to, printing, item/tolist,
NumPy (float16 both ways, bfloat16 through ml_dtypes), DLPack, safetensors and torch.save files."""
import io
import pickle

import numpy as np
import pytest
import torch

import ember
from helpers import assert_promotion_like_torch

HALF = ["bfloat16", "float16"]
ALL = ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128",
       "bfloat16", "float16"]


def bits(t):
    """The uint16 bit patterns of a 16-bit float tensor (ember or torch) as a NumPy array."""
    if isinstance(t, torch.Tensor):
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return np.asarray(t.contiguous().numpy()).view(np.uint16)


def half_from_bits(name, pattern):
    """The same 16-bit patterns as an ember tensor and a torch tensor of dtype `name`."""
    t = torch.from_numpy(pattern.astype(np.uint16).view(np.int16).copy()).view(getattr(torch, name))
    e = ember.from_dlpack(t)  # DLPack keeps the bits (checked against numpy below)
    return e.clone(), t


def all_patterns(name):
    return half_from_bits(name, np.arange(65536, dtype=np.uint32))


def float32_samples():
    rng = np.random.default_rng(0)
    special = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FA00000, 0x7F800000,
                        0xFF800000, 0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000,
                        0x33800000, 0x33000000, 0x33000001, 0x387FE000, 0x38800000, 0x477FE000,
                        0x477FEFFF, 0x477FF000, 0x477FF001, 0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF,
                        0x3F808000, 0x3F818000, 0x3F800FFF, 0x3F801000, 0x3F803000],
                       dtype=np.uint32)
    # random bit patterns (every exponent), and values near 1 where the rounding bits vary
    rand = rng.integers(0, 2**32, size=200000, dtype=np.uint64).astype(np.uint32)
    near = (0x3F800000 + rng.integers(0, 2**17, size=20000)).astype(np.uint32)
    return np.concatenate([special, rand, near]).view(np.float32)


def test_dtype_objects():
    for name in HALF:
        e, t = getattr(ember, name), getattr(torch, name)
        assert (e.is_floating_point, e.is_complex, e.is_signed, e.itemsize) == \
            (t.is_floating_point, t.is_complex, t.is_signed, t.itemsize)
        assert repr(e) == repr(t).replace("torch", "ember")
        assert pickle.loads(pickle.dumps(e)) is e
        assert ember.finfo(e).eps == torch.finfo(t).eps
    assert ember.half is ember.float16


@pytest.mark.parametrize("a", ALL)
def test_promotion_and_can_cast(a):
    for b in ALL:
        assert_promotion_like_torch(a, b)


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("other", [1, 2.5, True, "int64", "int32", "uint8", "bool", "float32",
                                   "float64", "bfloat16", "float16", "f32_0d", "i64_0d"])
def test_result_type_with_tensors_and_scalars(name, other):
    e = ember.ones(3, dtype=getattr(ember, name))
    t = torch.ones(3, dtype=getattr(torch, name))
    if other == "f32_0d":
        eo, to = ember.tensor(1.5), torch.tensor(1.5)
    elif other == "i64_0d":
        eo, to = ember.tensor(2), torch.tensor(2)
    elif isinstance(other, str):
        eo, to = ember.ones(3, dtype=getattr(ember, other)), torch.ones(3, dtype=getattr(torch, other))
    else:
        eo, to = other, other
    assert str((e + eo).dtype).split(".")[-1] == str((t + to).dtype).split(".")[-1]
    assert str((eo * e).dtype).split(".")[-1] == str((to * t).dtype).split(".")[-1]


@pytest.mark.parametrize("name", HALF)
def test_all_65536_values_widen_exactly(name):
    e, t = all_patterns(name)
    assert np.array_equal(bits(e), bits(t))
    for wide in ("float32", "float64"):
        ew, tw = e.to(getattr(ember, wide)), t.to(getattr(torch, wide))
        uint = np.uint32 if wide == "float32" else np.uint64
        assert np.array_equal(ew.numpy().view(uint), tw.numpy().view(uint)), wide
    # and back: every value (NaN payloads included) survives the round trip as torch's
    assert np.array_equal(bits(e.float().to(getattr(ember, name))),
                          bits(t.float().to(getattr(torch, name))))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_narrowing_rounds_as_torch(name, src):
    f = float32_samples()
    if src == "float64":  # doubles between the floats: double rounding through float32, as torch
        f = np.concatenate([f.astype(np.float64),
                            f.astype(np.float64) * (1 + 2.0**-30), np.array([1 + 2**-8 + 2**-30])])
    e = ember.from_numpy(f.copy()).to(getattr(ember, name))
    t = torch.from_numpy(f.copy()).to(getattr(torch, name))
    if src == "float64" and name == "bfloat16":
        # torch writes a NaN from float64 as 0xFFFF in its vector loop and 0x7FC0 in the loop's
        # tail (where the tail falls depends on its thread split); ember always 0x7FC0
        nan = np.isnan(f)
        assert np.array_equal(bits(e)[~nan], bits(t)[~nan]) and (bits(e)[nan] == 0x7FC0).all()
        assert np.isnan(t.float().numpy()[nan]).all()
        return
    assert np.array_equal(bits(e), bits(t))
    # strided and broadcast sources take the same conversion
    e2 = ember.from_numpy(f.copy())[::3].to(getattr(ember, name))
    t2 = torch.from_numpy(f.copy())[::3].to(getattr(torch, name))
    assert np.array_equal(bits(e2), bits(t2))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("src", ["int64", "int32", "uint8", "bool"])
def test_integers_and_bool_to_half(name, src):
    rng = np.random.default_rng(1)
    if src == "bool":
        a = rng.random(100) < 0.5
    elif src == "uint8":
        a = rng.integers(0, 256, 1000).astype(np.uint8)
    else:
        big = 2**62 if src == "int64" else 2**31 - 1
        a = np.concatenate([rng.integers(-big, big, 5000), np.arange(-3000, 3000),
                            [2**24 + 1, 2**24 + 3, 65519, 65520, 65536 * 3 + 1]]).astype(src)
    e = ember.from_numpy(a.copy()).to(getattr(ember, name))
    t = torch.from_numpy(a.copy()).to(getattr(torch, name))
    assert np.array_equal(bits(e), bits(t))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("dst", ["int64", "int32", "uint8", "bool", "complex64", "complex128"])
def test_half_to_other_dtypes(name, dst):
    vals = [0.0, -0.0, 1.0, -2.5, 3.75, 100.0, 255.0, 0.5, -7.0, 1e-3]
    if dst == "uint8":  # a negative float to uint8 differs in ember for every float dtype
        vals = [v for v in vals if v >= 0]
    e = ember.tensor(vals, dtype=getattr(ember, name))
    t = torch.tensor(vals, dtype=getattr(torch, name))
    assert e.to(getattr(ember, dst)).tolist() == t.to(getattr(torch, dst)).tolist()


def test_bfloat16_float16_both_ways():
    for a, b in (("bfloat16", "float16"), ("float16", "bfloat16")):
        e, t = all_patterns(a)
        assert np.array_equal(bits(e.to(getattr(ember, b))), bits(t.to(getattr(torch, b))))


@pytest.mark.parametrize("name", HALF)
def test_creation(name):
    e, t = getattr(ember, name), getattr(torch, name)
    for fn in ("zeros", "ones", "empty"):
        x = getattr(ember, fn)(2, 3, dtype=e)
        assert x.dtype is e and tuple(x.shape) == (2, 3)
    assert np.array_equal(bits(ember.full((5,), 3.14159, dtype=e)), bits(torch.full((5,), 3.14159, dtype=t)))
    assert np.array_equal(bits(ember.full((2,), float("nan"), dtype=e)),
                          bits(torch.full((2,), float("nan"), dtype=t)))
    assert np.array_equal(bits(ember.arange(0, 300, 1.5, dtype=e)), bits(torch.arange(0, 300, 1.5, dtype=t)))
    assert np.array_equal(bits(ember.arange(10, dtype=e)), bits(torch.arange(10, dtype=t)))
    assert np.array_equal(bits(ember.linspace(-1, 1, 7, dtype=e)), bits(torch.linspace(-1, 1, 7, dtype=t)))
    assert np.array_equal(bits(ember.eye(3, dtype=e)), bits(torch.eye(3, dtype=t)))
    data = [[1.0, 2.5, -3.1], [1e-5, 65504.0, float("nan")]]
    assert np.array_equal(bits(ember.tensor(data, dtype=e)), bits(torch.tensor(data, dtype=t)))
    assert ember.zeros_like(ember.ones(2), dtype=e).dtype is e
    assert ember.ones(2).new_ones(3, dtype=e).dtype is e
    ember.manual_seed(0)
    r, n = ember.rand(1000, dtype=e), ember.randn(1000, dtype=e)
    assert r.dtype is e and n.dtype is e
    assert 0 <= float(r.float().min()) and float(r.float().max()) <= 1
    assert abs(float(n.float().mean())) < 0.2 and 0.8 < float(n.float().std()) < 1.2
    x = ember.empty(4, dtype=e)
    x.uniform_(2, 3)
    assert 2 <= float(x.float().min()) and float(x.float().max()) <= 3


def test_full_refuses_overflow_as_torch():
    with pytest.raises(RuntimeError, match="float16"):
        ember.full((2,), 70000.0, dtype=ember.float16)
    with pytest.raises(RuntimeError):
        torch.full((2,), 70000.0, dtype=torch.float16)
    assert ember.full((1,), float("inf"), dtype=ember.float16).item() == float("inf")
    assert ember.full((1,), 1e38, dtype=ember.bfloat16).item() == torch.full((1,), 1e38, dtype=torch.bfloat16).item()


@pytest.mark.parametrize("name", HALF)
def test_cast_methods_and_module_to(name):
    x = ember.arange(3.0)
    method = "half" if name == "float16" else "bfloat16"
    y = getattr(x, method)()
    assert y.dtype is getattr(ember, name) and y.tolist() == [0.0, 1.0, 2.0]
    assert getattr(y, method)() is y
    assert y.float().dtype is ember.float32 and x.dtype is ember.float32
    assert y.is_floating_point() and ember.is_floating_point(y)
    assert y.type() == ("ember.HalfTensor" if name == "float16" else "ember.BFloat16Tensor")
    m = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.BatchNorm1d(2))
    getattr(m, method)()
    assert m[0].weight.dtype is getattr(ember, name)
    assert m[1].num_batches_tracked.dtype is ember.int64  # integer buffers keep their dtype
    m.to(ember.float32)
    assert m[0].weight.dtype is ember.float32
    m.to(getattr(ember, name))
    assert m[0].bias.dtype is getattr(ember, name)


@pytest.mark.parametrize("name", HALF)
def test_printing_as_torch(name):
    cases = [[1.0, 2.5, -3.0], [0.1, 1000.0, 3e-4], [[1.0, 2.0], [3.0, 4.0]], [65504.0, -1e-5],
             [float("nan"), float("inf"), 1.0], list(range(2000)), []]
    for data in cases:
        e = ember.tensor(data, dtype=getattr(ember, name))
        t = torch.tensor(data, dtype=getattr(torch, name))
        assert repr(e) == repr(t).replace("torch.", "ember."), data
    e = ember.tensor(2.5, dtype=getattr(ember, name))
    assert repr(e).replace("ember.", "torch.") == repr(torch.tensor(2.5, dtype=getattr(torch, name)))


@pytest.mark.parametrize("name", HALF)
def test_item_tolist_float(name):
    e = ember.tensor([1.1, -2.2, 3.3], dtype=getattr(ember, name))
    t = torch.tensor([1.1, -2.2, 3.3], dtype=getattr(torch, name))
    assert e.tolist() == t.tolist()
    assert e[1].item() == t[1].item() and float(e[2]) == float(t[2])


def test_numpy_float16_both_ways():
    e, t = all_patterns("float16")
    a = e.numpy()
    assert a.dtype == np.float16 and np.array_equal(a.view(np.uint16), bits(t))
    back = ember.from_numpy(a)
    assert back.dtype is ember.float16 and np.array_equal(bits(back), bits(t))
    a[0] = 7.0  # from_numpy shares memory
    assert back[0].item() == 7.0
    assert ember.tensor(np.array([1.5, 2.5], np.float16)).dtype is ember.float16
    assert np.asarray(ember.ones(2, dtype=ember.float16)).dtype == np.float16


def test_numpy_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    e, t = all_patterns("bfloat16")
    a = e.numpy()
    assert a.dtype == ml_dtypes.bfloat16
    assert np.array_equal(a.view(np.uint16), bits(t))
    back = ember.from_numpy(a)
    assert back.dtype is ember.bfloat16 and np.array_equal(bits(back), bits(t))
    assert ember.tensor(np.array([1.5], ml_dtypes.bfloat16)).dtype is ember.bfloat16


@pytest.mark.parametrize("name", HALF)
def test_dlpack_both_ways(name):
    e = ember.tensor([1.5, -2.0, 3.25], dtype=getattr(ember, name))
    t = torch.from_dlpack(e)
    assert t.dtype == getattr(torch, name) and t.tolist() == e.tolist()
    back = ember.from_dlpack(torch.tensor([0.5, 4.0], dtype=getattr(torch, name)))
    assert back.dtype is getattr(ember, name) and back.tolist() == [0.5, 4.0]


@pytest.mark.parametrize("name", HALF)
def test_torch_save_load_both_ways(name, tmp_path):
    data = [1.5, -2.25, 1e-3, 100.0]
    e = ember.tensor(data, dtype=getattr(ember, name))
    ember.save({"w": e, "v": e[1:]}, tmp_path / "e.pt")
    got = torch.load(tmp_path / "e.pt")
    assert got["w"].dtype == getattr(torch, name)
    assert np.array_equal(bits(got["w"]), bits(torch.tensor(data, dtype=getattr(torch, name))))
    assert got["v"].tolist() == got["w"][1:].tolist()
    torch.save({"w": torch.tensor(data, dtype=getattr(torch, name))}, tmp_path / "t.pt")
    back = ember.load(tmp_path / "t.pt")
    assert back["w"].dtype is getattr(ember, name) and np.array_equal(bits(back["w"]), bits(e))


@pytest.mark.parametrize("name", HALF)
def test_safetensors_both_ways(name, tmp_path):
    from safetensors.torch import load_file, save_file
    data = [1.5, -2.25, 1e-3, 100.0]
    e = ember.tensor(data, dtype=getattr(ember, name))
    ember.save({"w": e, "x": ember.ones(3)}, tmp_path / "e.safetensors")
    got = load_file(str(tmp_path / "e.safetensors"))
    assert got["w"].dtype == getattr(torch, name)
    assert np.array_equal(bits(got["w"]), bits(e))
    save_file({"w": torch.tensor(data, dtype=getattr(torch, name))}, str(tmp_path / "t.safetensors"))
    back = ember.load(tmp_path / "t.safetensors")
    assert back["w"].dtype is getattr(ember, name) and np.array_equal(bits(back["w"]), bits(e))


@pytest.mark.parametrize("name", HALF)
def test_requires_grad_and_casts_carry_gradients(name):
    x = ember.tensor([1.0, 2.0, 3.0], dtype=getattr(ember, name), requires_grad=True)
    assert x.requires_grad
    w = ember.tensor([0.5, 0.25, 2.0], requires_grad=True)
    (x.float() * w).sum().backward()
    assert x.grad.dtype is getattr(ember, name) and x.grad.tolist() == [0.5, 0.25, 2.0]
    w.grad = None
    y = w.to(getattr(ember, name))
    (y * 2).sum().backward()
    assert w.grad.dtype is ember.float32 and w.grad.tolist() == [2.0, 2.0, 2.0]


def test_bad_inputs():
    x = ember.ones(3, dtype=ember.bfloat16)
    with pytest.raises(IndexError):
        ember.arange(5)[x]  # a floating index tensor
    with pytest.raises(TypeError):
        x & x  # bitwise ops are integer-only
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.ones(3, dtype=ember.int64).add_(x)
