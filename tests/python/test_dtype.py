"""dtypes and conversions against PyTorch: dtype objects and aliases, legacy tensor types
(ember.FloatTensor), t.type(), .to(), .float()/.long()/..., item/tolist, printing
(repr(ember_t) == repr(torch_t) with 'torch' -> 'ember'), Python protocols (len, iter,
bool, float, int, index, format) and the basic attributes (shape, size, dim, numel...)."""
import math

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"]
ALIASES = {"float": "float32", "double": "float64", "long": "int64", "int": "int32", "short": "int16"}
LEGACY = {"FloatTensor": "float32", "DoubleTensor": "float64", "LongTensor": "int64",
          "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8", "ByteTensor": "uint8",
          "BoolTensor": "bool"}


def name_of(d):
    return str(d).split(".")[-1]


# ---- dtype objects ----------------------------------------------------------------------------

def test_dtype_names_and_aliases():
    for n in ALL:
        d = getattr(ember, n)
        assert repr(d) == repr(getattr(torch, n)).replace("torch", "ember")
        assert str(d) == f"ember.{n}"
        assert d.is_floating_point == getattr(torch, n).is_floating_point
        assert d.is_signed == getattr(torch, n).is_signed
        assert d.itemsize == getattr(torch, n).itemsize
        assert d.abbr == getattr(torch, n).abbr
        assert ember.ones(1, dtype=d).element_size() == d.itemsize
    for alias, n in ALIASES.items():
        assert getattr(ember, alias) == getattr(ember, n)
        assert hash(getattr(ember, alias)) == hash(getattr(ember, n))
    assert ember.get_default_dtype() == ember.float32
    assert len({getattr(ember, n) for n in ALL}) == 8
    for n in ("bfloat16", "float16", "complex64", "complex128", "uint16",
              "uint32", "uint64", "complex32"):
        assert getattr(ember, n).abbr == getattr(torch, n).abbr


def test_promote_types_and_can_cast():
    for a in ALL:
        for b in ALL:
            assert name_of(ember.promote_types(getattr(ember, a), getattr(ember, b))) == \
                name_of(torch.promote_types(getattr(torch, a), getattr(torch, b)))
            assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b))


# ---- legacy types and t.type() ----------------------------------------------------------------

@pytest.mark.parametrize("legacy", list(LEGACY))
def test_legacy_tensor_types(legacy):
    L, TL = getattr(ember, legacy), getattr(torch, legacy)
    assert repr(L) == f"ember.{legacy}"
    e, t = L([1, 2]), TL([1, 2])
    assert_same(e, t)
    assert L(2, 3).shape == TL(2, 3).shape and name_of(L(2, 3).dtype) == LEGACY[legacy]
    assert L().shape == TL().shape == (0,)
    assert isinstance(ember.ones(1, dtype=getattr(ember, LEGACY[legacy])), L)
    assert not isinstance(ember.ones(1, dtype=ember.float64 if legacy != "DoubleTensor" else ember.int64), L)
    assert not isinstance(3, L)
    # a Size is a shape, not data (einops' YOLO example: FloatTensor(prediction[..., :4].shape))
    for size in ((5, 3, 1, 4), (0,), (), (2,)):
        assert L(ember.Size(size)).shape == TL(torch.Size(size)).shape == size
        assert name_of(L(ember.Size(size)).dtype) == LEGACY[legacy]
    # a tensor of the type's dtype is aliased; another dtype, or a bare number, is refused
    src = ember.ones(3, dtype=getattr(ember, LEGACY[legacy]))
    same = L(src)
    assert same.data_ptr() == src.data_ptr() and same.shape == (3,)
    other = ember.ones(2, dtype=ember.int64 if legacy != "LongTensor" else ember.float32)
    with pytest.raises(TypeError, match=f"{legacy}.*dtype"):
        L(other)
    with pytest.raises(TypeError):
        TL(torch.ones(2, dtype=torch.int64 if legacy != "LongTensor" else torch.float32))
    for bad in (2.5, True, "x"):
        with pytest.raises(TypeError, match=legacy):
            L(bad)
        with pytest.raises(TypeError):
            TL(bad)
    assert_same(L(np.arange(3)), TL(np.arange(3)))


@pytest.mark.parametrize("src", ALL)
def test_type_method(src):
    e, t = ember.ones(2, dtype=getattr(ember, src)), torch.ones(2, dtype=getattr(torch, src))
    assert e.type() == t.type().replace("torch", "ember")
    for legacy in LEGACY:
        assert_same(e.type(getattr(ember, legacy)), t.type(getattr(torch, legacy)))
        assert_same(e.type(f"torch.{legacy}"), t.type(f"torch.{legacy}"))
        assert_same(e.type(f"ember.{legacy}"), t.type(f"torch.{legacy}"))
    for n in ALL:
        assert_same(e.type(getattr(ember, n)), t.type(getattr(torch, n)))
    assert e.type(e.dtype) is e  # no conversion needed: the same tensor, as in torch
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        e.type("torch.NotAType")
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        e.type("torch.cuda.FloatTensor")
    # the Tensor class itself means the default dtype (pyro's eight_schools: .type(torch.Tensor));
    # another class is refused naming it, as torch
    assert_same(e.type(ember.Tensor), t.type(torch.Tensor))
    for lib in (ember, torch):
        class Sub(lib.Tensor):
            pass
        for bad in (Sub, lib.nn.Parameter, int):
            with pytest.raises(ValueError, match=f"invalid type: '{bad.__name__}'"):
                lib.ones(2).type(bad)


# ---- .to() and the cast methods --------------------------------------------------------------

VALUES = [0.0, 1.0, -1.0, 2.7, -2.7, 0.5, 255.0, 256.0, 1e6, -0.0, 100.5]


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_to_dtype_values(src, dst):
    vals = VALUES if src.startswith("float") else [0, 1, 2, 7, 100, 255]
    if src == "bool":
        vals = [True, False]
    if dst == "uint8" and src in ("float32", "float64", "int8", "int16", "int32", "int64"):
        vals = [v for v in vals if v >= 0 and v < 256]  # out of range into uint8: platform-defined
    for name, hi in (("int8", 128), ("int16", 32768)):  # out of range floats: platform-defined
        if name in (src, dst) and src != "bool":
            vals = [v for v in vals if -hi <= v < hi]
    e, t = ember.tensor(vals, dtype=getattr(ember, src)), torch.tensor(vals, dtype=getattr(torch, src))
    assert_same(e.to(getattr(ember, dst)), t.to(getattr(torch, dst)))
    assert_same(e.to(dtype=getattr(ember, dst)), t.to(dtype=getattr(torch, dst)))
    assert_same(e.t().to(getattr(ember, dst)), t.t().to(getattr(torch, dst)))


def test_to_signatures():
    x = ember.ones(2, 3)
    assert x.to(ember.float32) is x
    assert x.to(ember.float32, copy=True) is not x and x.to(ember.float32, copy=True).tolist() == x.tolist()
    assert x.to("cpu") is x and x.to(ember.device("cpu")) is x and x.cpu() is x
    assert x.to("cpu", ember.int64).dtype == ember.int64
    assert x.to(device="cpu", dtype=ember.float64).dtype == ember.float64
    assert x.to(ember.ones(1, dtype=ember.uint8)).dtype == ember.uint8
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        x.to("cuda")  # as torch's CPU build
    y = x.to(ember.int64)
    assert not y._shares_storage(x)
    v = ember.arange(6).view(2, 3).t()
    assert v.to(ember.float64).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


@pytest.mark.parametrize("method,dtype", [("float", "float32"), ("double", "float64"), ("long", "int64"),
                                          ("int", "int32"), ("short", "int16"), ("char", "int8"),
                                          ("byte", "uint8"), ("bool", "bool")])
def test_cast_methods(method, dtype):
    for src in ALL:
        vals = [0, 1, 3] if src != "bool" else [True, False]
        e, t = ember.tensor(vals, dtype=getattr(ember, src)), torch.tensor(vals, dtype=getattr(torch, src))
        assert_same(getattr(e, method)(), getattr(t, method)())
        if src == dtype:
            assert getattr(e, method)() is e
    assert_same(getattr(ember.tensor([2.7, -2.7]), method)() if dtype != "uint8" else ember.tensor([2.7]).byte(),
                getattr(torch.tensor([2.7, -2.7]), method)() if dtype != "uint8" else torch.tensor([2.7]).byte())


def test_float_to_int_truncates_and_nan_is_safe():
    assert ember.tensor([1.7, -1.7, 0.9, -0.9]).long().tolist() == [1, -1, 0, 0]
    # NaN/inf into an integer dtype is undefined in C++; ember saturates instead of crashing
    v = ember.tensor([float("nan"), float("inf"), -float("inf"), 1e20]).long().tolist()
    assert v == [0, 2**63 - 1, -2**63, 2**63 - 1]
    assert ember.tensor([float("nan"), 0.0, -0.0]).bool().tolist() == [True, False, False]


# ---- item / tolist ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_item_and_tolist_types(dtype):
    vals = [[1, 0, 3], [4, 5, 6]] if dtype != "bool" else [[True, False, True], [False, False, True]]
    e, t = ember.tensor(vals, dtype=getattr(ember, dtype)), torch.tensor(vals, dtype=getattr(torch, dtype))
    el, tl = e.tolist(), t.tolist()
    assert el == tl and type(el[0][0]) is type(tl[0][0])
    assert e.t().tolist() == t.t().tolist()
    assert e.narrow(1, 1, 2).tolist() == t.narrow(1, 1, 2).tolist()
    for i in range(2):
        a, b = e.select(0, i).select(0, 1).item(), t.select(0, i).select(0, 1).item()
        assert a == b and type(a) is type(b)
    assert e.select(0, 0).select(0, 0).tolist() == t[0, 0].tolist()  # 0-d tolist is a number
    assert ember.zeros(0, 3, dtype=getattr(ember, dtype)).tolist() == []
    assert ember.zeros(2, 0).tolist() == [[], []]
    assert ember.ones(1, 1, 1, dtype=getattr(ember, dtype)).item() == 1


def test_item_errors_and_precision():
    with pytest.raises((ValueError, RuntimeError), match="item"):
        ember.ones(2).item()
    with pytest.raises((ValueError, RuntimeError)):
        ember.ones(0).item()
    assert ember.tensor(0.1, dtype=ember.float64).item() == 0.1
    assert ember.tensor(0.1).item() == float(np.float32(0.1))
    assert ember.tensor(2**62).item() == 2**62
    assert ember.tensor([-5], dtype=ember.int32).item() == -5


# ---- printing ----------------------------------------------------------------------------------

REPR_CASES = [
    "m.tensor([1, 2, 3])", "m.tensor([[1, -2], [300, 4]])", "m.tensor([1.5, 2.0])", "m.tensor([1., 2.])",
    "m.tensor([0.1, 0.25, 100.5])", "m.tensor([1e-5, 1.0])", "m.tensor([1e10, 1.0])",
    "m.tensor([123456.7, 1.0])", "m.tensor([1e8, 1.0])", "m.tensor([1e-8])", "m.tensor([12345.678])",
    "m.tensor([0.001, 1000.])", "m.tensor([0.0001, 1.])", "m.tensor([0.00001, 1.])", "m.tensor([-0.5, 0.0])",
    "m.tensor([float('nan'), 1.0])", "m.tensor([float('inf'), -float('inf'), 1.5])", "m.tensor([float('nan')])",
    "m.tensor([float('inf'), 2.0])", "m.tensor([True, False])", "m.tensor([1.5], dtype=m.float64)",
    "m.tensor([1, 2], dtype=m.int32)", "m.tensor([1, 2], dtype=m.uint8)", "m.tensor([1.], dtype=m.float64)",
    "m.tensor(3)", "m.tensor(3.5)", "m.tensor(True)", "m.tensor(2.5, dtype=m.float64)",
    "m.tensor(7, dtype=m.int32)", "m.tensor(-0.0)", "m.tensor(float('nan'))", "m.tensor(1e-7)",
    "m.tensor([])", "m.zeros(0, 3)", "m.zeros(2, 0)", "m.zeros(0, dtype=m.int32)", "m.zeros(0, 2, dtype=m.float64)",
    "m.zeros(0, dtype=m.int64)", "m.zeros(0, dtype=m.bool)", "m.zeros(0, 1, dtype=m.uint8)",
    "m.arange(2000)", "m.arange(2000).float()", "m.arange(2000).view(40, 50)", "m.arange(3000).view(10, 10, 30)",
    "m.arange(24).view(2, 3, 4)", "m.arange(24).view(2, 3, 4).float()", "m.arange(24).view(2, 1, 3, 4)",
    "m.zeros(2, 3)", "m.ones(3, dtype=m.bool)", "m.tensor([[1.5, -2.25], [3., 4.]])", "m.tensor([-1., -2.])",
    "m.tensor([1e-3, 2e-3])", "m.tensor([100000., 1.])", "m.tensor([1e5, 1.5])", "m.tensor([1e15, 1.])",
    "m.arange(1001).float() / 7", "m.arange(100).float() / 3", "m.arange(30).view(3, 10).double() * 1e6",
    "m.tensor([0.])", "m.tensor([-0.])", "m.tensor([1, -1], dtype=m.int64) * 10**12",
    "m.tensor([[True, False], [False, True]])", "m.arange(10).view(2, 5).t()", "m.arange(1100).view(1100, 1)",
    "m.arange(1100).view(1, 1100)", "m.tensor([3.14159265, 2.71828])", "m.tensor([1.23456789e-3, 5.])",
    "m.tensor([[1e-10, 1.], [2., 3.]])", "m.full((2, 2), float('nan'))", "m.tensor([0.1, float('nan'), 10000.])",
    "m.linspace(-1, 1, 5)", "m.tensor([1.0e8])", "m.tensor([99999999.])", "m.tensor([0.5])", "m.tensor([5e-5, 5.])",
    "m.arange(2000, dtype=m.float64).view(20, 100) / 3", "m.arange(1500) % 2 == 0", "m.arange(1200, dtype=m.uint8)",
    "m.arange(-600, 600, dtype=m.int32)", "m.arange(40).view(2, 20) * 1e-5", "m.ones(7, 7, 7, 7)",
    "m.arange(1024).view(4, 4, 4, 4, 4)", "m.zeros(3, 1000)", "m.arange(1001).view(1001, 1).double()",
    "m.tensor([[-1e-3, 2e5]], dtype=m.float64)", "m.tensor([1.0, -1.0]).expand(3, 2)",
    "m.tensor([123456789.0])", "m.tensor([1e-4, 1.])", "m.tensor([0.1] * 30)",
]


@pytest.mark.parametrize("case", REPR_CASES)
def test_repr_matches_torch(case):
    e = eval(case, {"m": ember})
    t = eval(case, {"m": torch})
    assert repr(e) == repr(t).replace("torch", "ember")
    assert str(e) == str(t).replace("torch", "ember")


def test_repr_random_values():
    rng = np.random.default_rng(0)
    for scale in [1e-6, 1e-3, 1, 10, 1e4, 1e9]:
        for shape in [(5,), (3, 4), (2, 2, 3), (40, 40)]:
            a = (rng.standard_normal(shape) * scale).astype(np.float32)
            assert repr(ember.from_numpy(a)) == repr(torch.from_numpy(a)).replace("torch", "ember")
            b = a.astype(np.float64)
            assert repr(ember.from_numpy(b)) == repr(torch.from_numpy(b)).replace("torch", "ember")
            c = (a * 100).astype(np.int64)
            assert repr(ember.from_numpy(c)) == repr(torch.from_numpy(c)).replace("torch", "ember")


def test_repr_requires_grad_suffix():
    e = ember.tensor([1.0, 2.0], requires_grad=True)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(e) == repr(t).replace("torch", "ember")


def test_format():
    assert f"{ember.tensor(3.5)}" == f"{torch.tensor(3.5)}" == "3.5"
    assert f"{ember.tensor(3.14159):.2f}" == "3.14"
    assert f"{ember.tensor(7)}" == "7" and f"{ember.tensor(7):>4}" == "   7"
    assert f"{ember.tensor([1.5, 2.0])}" == "tensor([1.5000, 2.0000])"
    assert "{}".format(ember.tensor(True)) == "True"


# ---- Python protocols -------------------------------------------------------------------------

def test_len_iter():
    e, t = ember.arange(6).view(3, 2), torch.arange(6).view(3, 2)
    assert len(e) == len(t) == 3
    assert [r.tolist() for r in e] == [r.tolist() for r in t]
    assert [r._shares_storage(e) for r in e] == [True] * 3
    assert len(ember.zeros(0, 3)) == 0 and list(ember.zeros(0, 3)) == []
    assert [x.item() for x in ember.tensor([1.5, 2.5])] == [1.5, 2.5]
    with pytest.raises(TypeError):
        len(ember.tensor(1.0))
    with pytest.raises(TypeError):
        iter(ember.tensor(1.0))
    a, b = ember.tensor([3, 4])  # unpacking
    assert (a.item(), b.item()) == (3, 4)


def test_bool():
    for vals in [[0.0], [1.0], [True], [False], [0], [5], [-0.0], [float("nan")]]:
        assert bool(ember.tensor(vals)) == bool(torch.tensor(vals))
        assert bool(ember.tensor(vals[0])) == bool(torch.tensor(vals[0]))
    for vals in [[1, 2], []]:
        with pytest.raises(RuntimeError, match="ambiguous"):
            bool(ember.tensor(vals))
    assert ember.tensor([[3]]) and not ember.tensor([[0]])


def test_float_int_index():
    for v, dtype in [(2.7, "float32"), (-2.7, "float64"), (3, "int64"), (True, "bool"), (7, "uint8")]:
        e, t = ember.tensor([[v]], dtype=getattr(ember, dtype)), torch.tensor([[v]], dtype=getattr(torch, dtype))
        assert float(e) == float(t) and int(e) == int(t)
        assert type(float(e)) is float and type(int(e)) is int
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        float(ember.ones(2))
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        int(ember.ones(0))
    items = [10, 20, 30]
    assert items[ember.tensor(1)] == 20 and items[ember.tensor([2])] == 30
    assert range(10)[ember.tensor(True)] == range(10)[torch.tensor(True)]
    assert ember.tensor(2, dtype=ember.int32).__index__() == 2
    import operator
    assert operator.index(ember.tensor(5)) == 5
    for bad in [ember.tensor(1.0), ember.tensor([1, 2])]:
        with pytest.raises(TypeError):
            items[bad]
    assert math.isclose(math.sqrt(ember.tensor(4.0)), 2.0)


# ---- attributes -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 3, 4)], ids=str)
def test_shape_size_dim_numel(shape):
    e, t = ember.zeros(shape), torch.zeros(shape)
    assert e.shape == t.shape and tuple(e.shape) == shape
    assert e.size() == t.size() and isinstance(e.size(), tuple)
    assert repr(e.shape) == repr(t.shape).replace("torch", "ember")
    assert e.dim() == t.dim() == e.ndim == e.ndimension() == len(shape)
    assert e.numel() == t.numel() == e.nelement() == e.shape.numel()
    for d in range(-len(shape), len(shape)):
        assert e.size(d) == t.size(d) == e.shape[d] and e.size(dim=d) == t.size(dim=d)
        assert e.stride(d) == t.stride(d)
    assert e.stride() == t.stride()
    with pytest.raises(IndexError):
        e.size(len(shape) + (1 if shape else 2))


def test_dtype_device_and_misc_attributes():
    e = ember.zeros(2, 3, dtype=ember.int32)
    assert e.dtype == ember.int32 and e.dtype is ember.int32
    assert str(e.device) == "cpu" and repr(e.device) == repr(torch.zeros(1).device)
    assert e.device == ember.device("cpu") and e.device != "cpu" and not e.is_cuda  # as torch
    assert e.is_floating_point() is False and ember.zeros(1).is_floating_point() is True
    assert e.is_contiguous() and not e.t().is_contiguous()
    assert ember.is_tensor(e) and not ember.is_tensor([1])
    assert isinstance(e, ember.Tensor)
    assert ember.device("cuda").type == "cuda"  # any device can be named (test_device.py)
    assert e.storage_offset() == 0 and e.narrow(1, 1, 2).storage_offset() == 1
    assert e.data_ptr() != 0 and e.narrow(1, 1, 2).data_ptr() == e.data_ptr() + 4


def test_type_of_tensor_class_follows_the_default_dtype():
    for lib in (ember, torch):
        prev = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            assert lib.tensor([1, 2]).type(lib.Tensor).dtype == lib.float64
        finally:
            lib.set_default_dtype(prev)


def test_python_types_as_dtypes_as_torch():
    # torch reads bool, int, float and complex where it takes a dtype (Note [Python types as dtypes])
    calls = [lambda m: m.zeros(2, dtype=int), lambda m: m.tensor([1, 2], dtype=float),
             lambda m: m.as_tensor(m.ones(2), dtype=int), lambda m: m.as_tensor([1.5], dtype=int),
             lambda m: m.ones(2).to(int), lambda m: m.ones(2).to(dtype=bool),
             lambda m: m.ones(2).to(complex), lambda m: m.ones(2).to("cpu", float),
             lambda m: m.arange(3, dtype=float), lambda m: m.full((2,), 1, dtype=float),
             lambda m: m.randn(2, dtype=float), lambda m: m.empty(2, dtype=bool),
             lambda m: m.ones(2).new_zeros(2, dtype=int), lambda m: m.zeros_like(m.ones(2), dtype=int),
             lambda m: m.ones(3).sum(dtype=float), lambda m: m.ones(2).view(int),
             lambda m: m.nn.Linear(2, 2).to(float).weight, lambda m: m.ones(2, dtype=complex)]
    for call in calls:
        assert str(call(ember).dtype).split(".")[1] == str(call(torch).dtype).split(".")[1]
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="invalid type: 'float'"):
            lib.ones(2).type(float)
        with pytest.raises(TypeError):
            lib.zeros(2, dtype=str)
