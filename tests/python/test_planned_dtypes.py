"""dtypes ember names but does not implement yet (complex32, float8, ...: _dtype.PlannedDtype; the
complex, 16-bit float, int8/int16 and uint16/32/64 dtypes, implemented since, keep their property
checks here; their own tests are test_complex_*.py, test_half_*.py, test_small_ints.py and
test_unsigned_dtypes.py),
and the backend/layout flags of a tensor. A program that only names them runs (nanoGPT's dtype table);
making a tensor of one raises NotImplementedError naming the op and the dtype, never a silent fallback."""
import pickle

import numpy as np
import pytest
import torch

import ember

PLANNED = ["bfloat16", "float16", "half", "complex32", "chalf", "complex64", "cfloat", "complex128",
           "cdouble", "int8", "int16", "short", "uint16", "uint32", "uint64", "float8_e4m3fn",
           "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
           *(f"{u}int{b}" for u in ("", "u") for b in range(1, 8))]


@pytest.mark.parametrize("name", PLANNED)
def test_named_with_torchs_properties(name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert repr(e) == repr(t).replace("torch.", "ember.")
    assert e.is_floating_point == t.is_floating_point
    assert e.is_complex == t.is_complex
    assert e.itemsize == t.itemsize and e.abbr == t.abbr
    if not e.is_complex:
        assert e.is_signed == t.is_signed
    assert pickle.loads(pickle.dumps(e)) is e


def test_legacy_type_in_an_annotation_union():
    """torch's legacy types are classes, so `torch.LongTensor | None` is an annotation
    (diffusers' normalization layers evaluate it at import)."""
    import typing
    for u in (ember.LongTensor | None, None | ember.FloatTensor):
        assert type(None) in typing.get_args(u)
    assert typing.get_args(ember.LongTensor | None)[0] is ember.LongTensor

    def f(x: ember.LongTensor | None = None):
        return x
    assert typing.get_type_hints(f)["x"] == typing.Optional[ember.LongTensor]


def test_aliases_are_the_same_object():
    assert ember.half is ember.float16 and ember.cfloat is ember.complex64
    assert ember.short is ember.int16 and ember.cdouble is ember.complex128


def test_dtype_table_of_a_program():
    table = {"float32": ember.float32, "bfloat16": ember.bfloat16, "float16": ember.float16}
    assert ember.zeros(2, dtype=table["float32"]).dtype == ember.float32


MAKERS = {
    "zeros": lambda dt: ember.zeros(2, dtype=dt),
    "ones": lambda dt: ember.ones(2, 3, dtype=dt),
    "empty": lambda dt: ember.empty(2, dtype=dt),
    "randn": lambda dt: ember.randn(2, dtype=dt),
    "full": lambda dt: ember.full((2,), 1.0, dtype=dt),
    "arange": lambda dt: ember.arange(3, dtype=dt),
    "linspace": lambda dt: ember.linspace(0, 1, 3, dtype=dt),
    "eye": lambda dt: ember.eye(2, dtype=dt),
    "tensor": lambda dt: ember.tensor([1.0, 2.0], dtype=dt),
    "to": lambda dt: ember.ones(2).to(dt),
    "to_positional": lambda dt: ember.ones(2).to("cpu", dt),
    "type": lambda dt: ember.ones(2).type(dt),
    "zeros_like": lambda dt: ember.zeros_like(ember.ones(2), dtype=dt),
}


@pytest.mark.parametrize("op", sorted(MAKERS))
@pytest.mark.parametrize("name", ["complex32", "float8_e4m3fn", "uint4"])
def test_making_a_tensor_raises(op, name):
    dt = getattr(ember, name)
    with pytest.raises(NotImplementedError, match=f"does not implement dtype ember.{name} yet"):
        MAKERS[op](dt)


def test_the_16_bit_floats_and_small_ints_are_real_dtypes_now():
    for name in ("bfloat16", "float16", "half", "int8", "int16", "short", "uint16", "uint32",
                 "uint64"):
        assert isinstance(getattr(ember, name), ember.dtype)
        assert ember.ones(2, dtype=getattr(ember, name)).dtype is getattr(ember, name)


def test_backend_and_layout_flags_match_torch_cpu():
    e, t = ember.ones(2), torch.ones(2)
    for flag in ("is_cpu", "is_cuda", "is_mps", "is_meta", "is_xpu", "is_ipu", "is_maia", "is_mtia",
                 "is_xla", "is_vulkan", "is_mkldnn", "is_nested", "is_quantized", "is_sparse",
                 "is_sparse_csr"):
        assert getattr(e, flag) == getattr(t, flag), flag
    assert np.asarray(e).dtype == np.float32
