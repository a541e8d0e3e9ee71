"""NumPy and DLPack interop: from_numpy / .numpy() / np.asarray share memory both ways
(writes show on the other side, lifetimes are tied), strides survive, unsupported dtypes
raise TypeError, np.array() copies; DLPack both ways with PyTorch and NumPy."""
import gc
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

NP_DTYPES = [np.bool_, np.uint8, np.int32, np.int64, np.float32, np.float64]
EMBER_OF = {np.bool_: "bool", np.uint8: "uint8", np.int32: "int32", np.int64: "int64",
            np.float32: "float32", np.float64: "float64"}


def sample(np_dtype, shape=(3, 4)):
    a = np.arange(int(np.prod(shape))).reshape(shape) % 7
    return a.astype(np_dtype)


# ---- from_numpy ---------------------------------------------------------------------------

@pytest.mark.parametrize("np_dtype", NP_DTYPES)
def test_from_numpy_dtype_values_and_sharing(np_dtype):
    a = sample(np_dtype)
    e = ember.from_numpy(a)
    assert e.dtype.name == EMBER_OF[np_dtype] and e.shape == a.shape
    assert e.stride() == torch.from_numpy(a).stride()
    assert e.tolist() == a.tolist()
    assert e.data_ptr() == a.ctypes.data
    a[1, 2] = 1                      # numpy -> ember
    assert e.tolist()[1][2] == a[1, 2]
    e.narrow(0, 2, 1).fill_(0)       # ember -> numpy
    assert not a[2].any()


@pytest.mark.parametrize("make", [
    lambda a: a.T, lambda a: a[:, ::2], lambda a: a[1:, 1:3], lambda a: np.asfortranarray(a),
    lambda a: a[::2], lambda a: a.reshape(2, 2, 3).transpose(1, 2, 0), lambda a: a[1], lambda a: a[1, 1:2],
    lambda a: np.broadcast_to(a[:1], (5, 4)),
], ids=["T", "step", "slice", "fortran", "rows", "permuted", "row", "one", "broadcast"])
def test_from_numpy_non_contiguous(make):
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    v = make(a)
    with warnings.catch_warnings():  # broadcast_to gives a read-only view (warned, as torch)
        warnings.simplefilter("ignore", UserWarning)
        e = ember.from_numpy(v)
    t = torch.from_numpy(v) if v.flags.writeable else torch.tensor(v)
    assert e.tolist() == v.tolist()
    assert e.shape == v.shape and e.stride() == tuple(s // 8 for s in v.strides)
    assert_same(e + 1, t + 1)
    a[...] += 100  # still a view of the base array
    assert e.tolist() == v.tolist()


def test_from_numpy_zero_d_and_empty():
    e = ember.from_numpy(np.array(2.5))
    assert e.shape == () and e.item() == 2.5 and e.dtype == ember.float64
    for shape in [(0,), (0, 3), (3, 0, 2)]:
        a = np.zeros(shape, np.float32)
        e = ember.from_numpy(a)
        assert e.shape == shape and e.numel() == 0 and e.tolist() == a.tolist()


@pytest.mark.parametrize("a", [np.zeros(3, np.longdouble), np.zeros(3, object),
                               np.array(["a", "b"]), np.zeros(3, "datetime64[s]")],
                         ids=lambda a: str(a.dtype))
def test_from_numpy_unsupported_dtypes_raise_type_error(a):
    with pytest.raises(TypeError):
        ember.from_numpy(a)
    with pytest.raises(TypeError):
        ember.tensor(a)
    with pytest.raises(TypeError):
        ember.as_tensor(a)


def test_from_numpy_bad_inputs():
    for bad in [[1, 2], 3.0, None, torch.zeros(2), "abc"]:
        with pytest.raises(TypeError):
            ember.from_numpy(bad)
    with pytest.raises(ValueError, match="negative strides"):
        ember.from_numpy(np.arange(5)[::-1])


def test_from_numpy_keeps_the_array_alive():
    e = ember.from_numpy(np.arange(1000, dtype=np.int64) * 3)  # the only reference is ember's
    gc.collect()
    assert e.tolist()[999] == 2997
    v = e.narrow(0, 10, 5)
    del e
    gc.collect()
    assert v.tolist() == [30, 33, 36, 39, 42]


def test_from_numpy_readonly_array():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):  # torch warns the same way
        e = ember.from_numpy(a)
    assert e.tolist() == [0.0, 1.0, 2.0]


# ---- .numpy() and np.asarray ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_numpy_shares_memory(dtype):
    e = ember.arange(12).view(3, 4).to(getattr(ember, dtype))
    n = e.numpy()
    assert n.dtype == np.dtype(dtype if dtype != "bool" else np.bool_)
    assert n.shape == (3, 4) and n.ctypes.data == e.data_ptr()
    assert n.tolist() == e.tolist()
    n[0, 1] = 0              # numpy -> ember
    assert e.tolist()[0][1] == 0
    e.select(1, 3).fill_(1)  # ember -> numpy
    assert (n[:, 3] == 1).all()


@pytest.mark.parametrize("make", [lambda t: t.t(), lambda t: t.narrow(1, 1, 2), lambda t: t.select(1, 2),
                                  lambda t: t.unsqueeze(1).expand(3, 2, 4), lambda t: t.diagonal(),
                                  lambda t: t.permute(1, 0)],
                         ids=["t", "narrow", "select", "expand", "diagonal", "permute"])
def test_numpy_of_views(make):
    e = ember.arange(12, dtype=ember.float32).view(3, 4)
    t = torch.arange(12, dtype=torch.float32).view(3, 4)
    n, tn = make(e).numpy(), make(t).numpy()
    assert n.shape == tn.shape and n.strides == tn.strides
    np.testing.assert_array_equal(n, tn)
    e.add_(1)
    np.testing.assert_array_equal(n, tn + 1)  # still a view


def test_numpy_zero_d_empty_and_lifetime():
    n = ember.tensor(3.5).numpy()
    assert isinstance(n, np.ndarray) and n.shape == () and n.dtype == np.float32 and n == 3.5
    assert ember.zeros(0, 3).numpy().shape == (0, 3)
    n = (ember.arange(100) * 2).numpy()  # the tensor's only reference is the array
    gc.collect()
    assert n[99] == 198


def test_asarray_shares_and_array_copies():
    e = ember.arange(6, dtype=ember.float32).view(2, 3)
    a = np.asarray(e)
    assert a.ctypes.data == e.data_ptr() and a.dtype == np.float32
    a[0, 0] = 7
    assert e.tolist()[0][0] == 7
    c = np.array(e)  # np.array copies by default
    assert c.ctypes.data != e.data_ptr()
    c[0, 1] = 100
    assert e.tolist()[0][1] == 1
    d = np.asarray(e, dtype=np.float64)
    assert d.dtype == np.float64 and d.tolist() == e.tolist()
    assert np.asarray(e, dtype=np.float32).ctypes.data == e.data_ptr()
    assert np.array(e, copy=False).ctypes.data == e.data_ptr()
    v = np.asarray(e.t())
    assert v.tolist() == [[7.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_numpy_functions_accept_tensors():
    e = ember.tensor([1.0, 4.0, 9.0])
    np.testing.assert_allclose(np.sqrt(e), [1, 2, 3])
    assert np.sum(np.asarray(e)) == 14.0
    assert isinstance(np.float64(2.0) * e, ember.Tensor)  # the tensor's operator wins
    assert isinstance(e * np.float64(2.0), ember.Tensor)
    assert (np.float32(2.0) * e).tolist() == [2.0, 8.0, 18.0]


def test_roundtrip_numpy_ember_numpy():
    a = np.random.default_rng(0).standard_normal((4, 5))
    b = ember.from_numpy(a).numpy()
    assert b.ctypes.data == a.ctypes.data and np.shares_memory(a, b)
    assert ember.from_numpy(ember.ones(3).numpy()).tolist() == [1.0, 1.0, 1.0]


# ---- DLPack ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_dlpack_torch_to_ember_shares(dtype):
    t = (torch.arange(12).view(3, 4) % 2).to(getattr(torch, dtype))
    e = ember.from_dlpack(t)
    assert e.dtype.name == dtype and e.shape == (3, 4) and e.stride() == t.stride()
    assert e.tolist() == t.tolist() and e.data_ptr() == t.data_ptr()
    if dtype != "bool":
        t[1, 1] = 1
        e.select(0, 2).fill_(0)
        assert e.tolist() == t.tolist() and not t[2].any()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_dlpack_ember_to_torch_shares(dtype):
    e = (ember.arange(12).view(3, 4) % 2).to(getattr(ember, dtype))
    t = torch.from_dlpack(e)
    assert str(t.dtype) == f"torch.{dtype}" and t.shape == (3, 4)
    assert t.tolist() == e.tolist() and t.data_ptr() == e.data_ptr()
    if dtype != "bool":
        t[0, 0] = 1
        e.narrow(1, 3, 1).fill_(0)
        assert e.tolist() == t.tolist()


def test_dlpack_views_scalars_and_empties():
    for make in [lambda x: x.t(), lambda x: x.narrow(1, 1, 2), lambda x: x.select(0, 1),
                 lambda x: x.unsqueeze(0).expand(2, 3, 4)]:
        e = ember.arange(12, dtype=ember.float32).view(3, 4)
        t = torch.from_dlpack(make(e))
        assert t.tolist() == make(e).tolist() and t.stride() == make(e).stride()
        tt = torch.arange(12, dtype=torch.float32).view(3, 4)
        e2 = ember.from_dlpack(make(tt))
        assert e2.tolist() == make(tt).tolist() and e2.stride() == make(tt).stride()
    assert torch.from_dlpack(ember.tensor(3.5)).item() == 3.5
    assert ember.from_dlpack(torch.tensor(2.5)).shape == ()
    assert ember.from_dlpack(torch.zeros(0, 3)).shape == (0, 3)
    assert torch.from_dlpack(ember.zeros(0, 3)).shape == (0, 3)
    assert ember.tensor(1.0).__dlpack_device__() == (1, 0)


def test_dlpack_with_numpy():
    a = np.arange(6.0)
    e = ember.from_dlpack(a)
    assert e.data_ptr() == a.ctypes.data and e.tolist() == a.tolist()
    n = np.from_dlpack(ember.arange(4, dtype=ember.int32))
    assert n.dtype == np.int32 and n.tolist() == [0, 1, 2, 3]


def test_dlpack_lifetime_and_unsupported():
    e = ember.from_dlpack(torch.arange(1000) * 5)  # torch's only reference is ember's
    gc.collect()
    assert e.tolist()[999] == 4995
    t = torch.from_dlpack(ember.arange(100) * 3)
    gc.collect()
    assert t[99].item() == 297
    z = ember.from_dlpack(torch.tensor([1 + 2j, -0.5j]))  # complex both ways (kDLComplex)
    assert z.dtype == ember.complex64 and z.tolist() == [1 + 2j, -0.5j]
    assert torch.from_dlpack(ember.tensor([3 - 1j], dtype=ember.complex128)).tolist() == [3 - 1j]
    # (uint16/32/64 are ember dtypes now: test_unsigned_dtypes.py takes them both ways)
    for bad in [torch.zeros(2, dtype=torch.float8_e4m3fn), torch.zeros(2, dtype=torch.complex32)]:
        with pytest.raises(TypeError):
            ember.from_dlpack(bad)
