"""What a tensor is (layout, dim_order, output_nr, grad_dtype, is_inference, ...), the predicates
(is_same_size, is_signed, get_device, is_inference_mode_enabled), Tensor.new / module_load /
where / nonzero_static, and the creation functions that take a layout or memory
(empty_strided, empty_permuted, new_empty_strided, scalar_tensor, range, asarray, frombuffer,
from_file) against torch 2.13."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_grad, check_op


def test_attributes():
    for lib in (torch, ember):
        x = lib.zeros(2, 3)
        assert str(x.layout).endswith("strided") and x.layout is lib.strided
        assert x.dim_order() == (0, 1) and x.t().dim_order() == (1, 0)
        assert lib.zeros(2, 3, 4).permute(2, 0, 1).dim_order() == (1, 2, 0)
        assert x.is_distributed() is False and x.is_inference() is False
        assert x.const_data_ptr() == x.data_ptr()
        assert x.get_device() == -1 and lib.get_device(x) == -1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert x.volatile is False
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                return ga * 2 + gb * 3

        a = lib.ones(2, 3, requires_grad=True)
        first, second = Two.apply(a)
        assert (first.output_nr, second.output_nr, a.output_nr) == (0, 1, 0)
        assert lib.is_same_size(x, lib.ones(2, 3)) and not lib.is_same_size(x, lib.ones(3, 2))
        assert not lib.is_signed(lib.ones(2, dtype=lib.uint8)) and lib.is_signed(x)
        assert not lib.is_signed(lib.ones(2, dtype=lib.bool))
        with pytest.raises(TypeError):
            lib.is_same_size(x, 3)


def test_grad_dtype():
    for lib in (torch, ember):
        x = lib.ones(3, requires_grad=True)
        assert x.grad_dtype == lib.float32
        x.grad_dtype = lib.float64
        assert x.grad_dtype == lib.float64
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        assert x.grad.dtype == lib.float64 and x.grad.tolist() == [4.0] * 3
        with pytest.raises(RuntimeError, match="already a gradient"):
            x.grad_dtype = lib.float32
        x.grad = None
        x.grad_dtype = None
        assert x.grad_dtype is None
        (x * 3).sum().backward()
        assert x.grad.dtype == lib.float32
        assert lib.ones(2, dtype=lib.int64).grad_dtype == lib.int64
        with pytest.raises(RuntimeError, match="grad_dtype can only be accessed on leaf"):
            (x * 2).grad_dtype
        with pytest.raises(RuntimeError, match="grad_dtype can only be set on leaf"):
            (x * 2).grad_dtype = lib.float64
        with pytest.raises(RuntimeError, match="grad_dtype must be a"):
            x.grad_dtype = 3
    # the matmul backward that adds straight into .grad must not write float32 into float64
    w = ember.ones(3, 2, requires_grad=True)
    w.grad_dtype = ember.float64
    for _ in range(2):
        (ember.ones(4, 3) @ w).sum().backward()
    assert w.grad.dtype == ember.float64 and w.grad.tolist() == [[8.0, 8.0]] * 3


def test_inference_mode_enabled():
    for lib in (torch, ember):
        assert not lib.is_inference_mode_enabled()
        with lib.inference_mode():
            assert lib.is_inference_mode_enabled()
            with lib.inference_mode(False):
                assert not lib.is_inference_mode_enabled()
            assert lib.is_inference_mode_enabled()
        assert not lib.is_inference_mode_enabled()
        with lib.no_grad():
            assert not lib.is_inference_mode_enabled()


def test_as_subclass():
    for lib in (torch, ember):
        class Marked(lib.Tensor):
            def __init__(self, *args, **kwargs):
                raise AssertionError("as_subclass must not run __init__")

        x = lib.ones(2, 3, requires_grad=True)
        y = x.as_subclass(Marked)
        assert type(y) is Marked and tuple(y.shape) == (2, 3)
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        (y * 2).sum().backward()  # still in x's graph
        assert x.grad.tolist() == [[2.0] * 3] * 2
        p = lib.zeros(2).as_subclass(lib.nn.Parameter)
        assert isinstance(p, lib.nn.Parameter)
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            x.as_subclass(int)


def test_module_load():
    for lib in (torch, ember):
        p = lib.zeros(3)
        r = p.module_load(lib.ones(3))
        assert r.tolist() == [1.0] * 3 and p.tolist() == [1.0] * 3 and r is not p
        q = lib.full((3,), 2.0, requires_grad=True)
        r = p.module_load(q, assign=True)
        assert not r.requires_grad and r.untyped_storage().data_ptr() == q.untyped_storage().data_ptr()


def test_tensor_new():
    for lib in (torch, ember):
        x = lib.zeros(2, dtype=lib.float64)
        assert tuple(x.new(2, 3).shape) == (2, 3) and x.new(2, 3).dtype == lib.float64
        assert tuple(x.new(lib.Size([4])).shape) == (4,)
        assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new([1, 2]).dtype == lib.float64
        assert tuple(x.new().shape) == (0,)
        src = lib.ones(2, dtype=lib.float64)
        assert x.new(src).untyped_storage().data_ptr() == src.untyped_storage().data_ptr()


def test_where_method_and_nonzero_static():
    check_op(lambda m, x, y: x.where(x > 0, y), [(3, 4), (4,)], ["float32", "int64"])
    check_op(lambda m, x: x.where(x > 0, 0.5), [(3, 4)])
    check_grad(lambda m, x, y: x.where(x > 0, y), [(3, 4), (3, 4)])
    for size, fill in [(5, -1), (2, 9), (0, -1), (12, 7)]:
        check_op(lambda m, x: m.nonzero_static(x, size=size, fill_value=fill), [(3, 4)],
                 ["int64", "bool", "float32"])
        check_op(lambda m, x: x.nonzero_static(size=size), [(6,)], ["int64"])
    check_op(lambda m, x: m.nonzero_static(x, size=-1), [(3,)], ["int64"])


def test_scalar_tensor_and_range():
    for s, kw in [(3, {}), (2.5, {}), (True, {}), (7, {"dtype": "int64"}), (1.5, {"dtype": "float64"})]:
        got = ember.scalar_tensor(s, **{k: getattr(ember, v) for k, v in kw.items()})
        want = torch.scalar_tensor(s, **{k: getattr(torch, v) for k, v in kw.items()})
        assert_same(got, want)
    assert ember.scalar_tensor(2.0, requires_grad=True).requires_grad
    with pytest.raises(TypeError):
        ember.scalar_tensor("a")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args, kw in [((1, 4), {}), ((1, 2, 0.5), {}), ((4, 1, -1), {}), ((0, 1, 0.3), {}),
                         ((1, 4), {"dtype": "int64"}), ((2.5, 4), {"dtype": "float64"})]:
            got = ember.range(*args, **{k: getattr(ember, v) for k, v in kw.items()})
            want = torch.range(*args, **{k: getattr(torch, v) for k, v in kw.items()})
            assert_same(got, want)
        for lib in (torch, ember):
            with pytest.raises(RuntimeError):
                lib.range(1, 4, -1)
    with pytest.warns(UserWarning, match="deprecated"):
        ember.range(1, 3)


def test_empty_strided_and_permuted():
    for lib in (torch, ember):
        x = lib.empty_strided((2, 3), (1, 2))
        assert tuple(x.shape) == (2, 3) and x.stride() == (1, 2) and x.dtype == lib.float32
        y = lib.empty_strided((2, 3), (3, 1), dtype=lib.int64, requires_grad=False)
        assert y.is_contiguous() and y.dtype == lib.int64
        z = lib.empty_permuted((2, 3, 4), (0, 2, 1))
        assert z.stride() == (12, 1, 3)
        w = lib.zeros(1, dtype=lib.float64).new_empty_strided((2, 2), (1, 2))
        assert w.stride() == (1, 2) and w.dtype == lib.float64
        assert tuple(lib.empty_strided((0, 3), (3, 1)).shape) == (0, 3)
        with pytest.raises(RuntimeError):
            lib.empty_strided((2, 3), (1,))
        with pytest.raises(RuntimeError):
            lib.empty_permuted((2, 3), (0, 0))
    x = ember.empty_strided((2, 3), (1, 2)).fill_(1.0)
    assert x.sum().item() == 6.0


def test_asarray():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for lib in (torch, ember):
        t = lib.asarray(a)
        assert tuple(t.shape) == (2, 3) and t.dtype == lib.float32
        t[0, 0] = 100
        assert a[0, 0] == 100  # shares the array's memory
        a[0, 0] = 0
        assert lib.asarray([1, 2]).dtype == lib.int64 and lib.asarray(3.5).dim() == 0
        src = lib.ones(3)
        assert lib.asarray(src).untyped_storage().data_ptr() == src.untyped_storage().data_ptr()
        assert lib.asarray(src, copy=True).untyped_storage().data_ptr() != src.untyped_storage().data_ptr()
        assert lib.asarray(src, dtype=lib.float64).dtype == lib.float64
        assert lib.asarray([1.0], requires_grad=True).requires_grad
        with pytest.raises((ValueError, RuntimeError)):
            lib.asarray(src, dtype=lib.float64, copy=False)


def test_frombuffer():
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    for lib in (torch, ember):
        t = lib.frombuffer(buf, dtype=lib.int32)
        assert t.tolist() == [0, 1, 2, 3]
        t[0] = 9
        assert buf[0] == 9  # shares the buffer
        buf[0] = 0
        assert lib.frombuffer(buf, dtype=lib.int32, count=2, offset=4).tolist() == [1, 2]
        assert lib.frombuffer(buf, dtype=lib.uint8, count=3).tolist() == [0, 0, 0]
        for kw in [{"count": 5}, {"offset": 16}, {"count": 0}]:
            with pytest.raises(ValueError):
                lib.frombuffer(buf, dtype=lib.int32, **kw)
        with pytest.raises(ValueError):
            lib.frombuffer(bytearray(b"\x00" * 6), dtype=lib.int32)
        with pytest.raises(ValueError):
            lib.frombuffer([1, 2], dtype=lib.int32)


def test_from_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(5, dtype=np.float64).tofile(path)
    for lib in (torch, ember):
        t = lib.from_file(str(path), shared=False, size=5, dtype=lib.float64)
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
        t[0] = 7.0
        assert np.fromfile(path)[0] == 0.0  # a private copy
        s = lib.from_file(str(path), shared=True, size=3, dtype=lib.float64)
        s[1] = 8.0
        del s
        assert np.fromfile(path)[1] == 8.0
        np.arange(5, dtype=np.float64).tofile(path)
        with pytest.raises(RuntimeError):
            lib.from_file(str(path), shared=False, size=9, dtype=lib.float64)


def test_untyped_storage_from_file(tmp_path):
    """UntypedStorage.from_file(filename, shared, nbytes), which safetensors' safe_open reads
    through: a private map (writes stay in memory), a shared one (writes reach the file, which
    is created or extended), torch's RuntimeErrors."""
    path = tmp_path / "bytes.bin"
    for lib in (torch, ember):
        path.write_bytes(bytes(range(10)))
        s = lib.UntypedStorage.from_file(str(path), False, 10)
        assert isinstance(s, lib.UntypedStorage) and s.nbytes() == 10 and list(s)[:4] == [0, 1, 2, 3]
        s[0] = 99
        assert path.read_bytes()[0] == 0
        assert lib.UntypedStorage.from_file(str(path), False, 4).nbytes() == 4
        assert lib.UntypedStorage.from_file(str(path)).nbytes() == 0
        t = lib.tensor([], dtype=lib.uint8).set_(lib.UntypedStorage.from_file(str(path), False, 10))
        assert t[:3].tolist() == [0, 1, 2]
        w = lib.UntypedStorage.from_file(str(path), True, 10)
        w[1] = 77
        del w
        assert path.read_bytes()[1] == 77
        new = tmp_path / f"new_{lib.__name__}.bin"
        n = lib.UntypedStorage.from_file(str(new), True, 6)
        assert n.nbytes() == 6 and list(n) == [0] * 6 and new.stat().st_size == 6
        with pytest.raises(RuntimeError, match="smaller than the required mapping size"):
            lib.UntypedStorage.from_file(str(path), False, 20)
        with pytest.raises(RuntimeError, match="unable to open file"):
            lib.UntypedStorage.from_file(str(tmp_path / "missing"), False, 3)


def test_storage_slices_and_asarray_of_a_storage():
    """storage[a:b] is a storage over those bytes (elements), sharing them; asarray(storage,
    dtype=) reads its memory as dtype, sharing it (safetensors' loader: from_file, slice,
    asarray, view)."""
    for lib in (torch, ember):
        x = lib.tensor([1, 2, 3, 4], dtype=lib.uint8)
        s = x.untyped_storage()
        v = s[1:3]
        assert isinstance(v, lib.UntypedStorage) and list(v) == [2, 3] and v.nbytes() == 2
        assert v.data_ptr() - s.data_ptr() == 1
        v[0] = 9
        assert x.tolist() == [1, 9, 3, 4]
        with pytest.raises(RuntimeError, match="step of 2"):
            s[0:4:2]
        assert lib.asarray(v, dtype=lib.uint8).tolist() == [9, 3]
        assert lib.tensor([], dtype=lib.uint8).set_(s[2:]).tolist() == [3, 4]
        assert lib.asarray(s, dtype=lib.int16).tolist() == [2305, 1027]
        assert lib.asarray(s[:3], dtype=lib.int16).tolist() == [2305]  # whole elements only
        assert lib.asarray(s).dtype == lib.int64 and lib.asarray(s).numel() == 0
        f = lib.tensor([1.0, 2.0])
        a = lib.asarray(f.untyped_storage(), dtype=lib.float32)
        a[0] = 5.0
        assert f.tolist() == [5.0, 2.0]
        assert lib.asarray(f.untyped_storage()[4:], dtype=lib.float32).tolist() == [2.0]
    e = ember.tensor([1.0, 2.0, 3.0]).storage()
    assert isinstance(e[1:], ember.TypedStorage) and e[1:].tolist() == [2.0, 3.0]
    assert ember.asarray(e[1:]).tolist() == [2.0, 3.0] and e[1:].nbytes() == 8


def test_data_ptr_of_a_tensor_without_elements_is_zero():
    for lib in (ember, torch):
        assert lib.empty(0).data_ptr() == 0 and lib.arange(3)[3:].data_ptr() == 0
        assert lib.empty(0, 3).data_ptr() == 0 and lib.arange(3)[1:].data_ptr() != 0


def test_size_slice_is_a_size():
    for lib in (torch, ember):
        s = lib.zeros(2, 3, 4).shape
        assert type(s[1:]) is lib.Size and tuple(s[1:]) == (3, 4)
        assert type(s[::-1]) is lib.Size and tuple(s[::-1]) == (4, 3, 2)
        assert type(s[0]) is int and s[-1] == 4


def test_size_arithmetic_and_construction_match_torch():
    for lib in (torch, ember):
        s = lib.Size([2, 3])
        for got, want in ((s + (4,), (2, 3, 4)), ((1,) + s, (1, 2, 3)), (s + s, (2, 3, 2, 3)),
                          (s * 2, (2, 3, 2, 3)), (2 * s, (2, 3, 2, 3)), (s * 0, ()),
                          (s + (), (2, 3)), (lib.Size([lib.tensor(5)]), (5,)),
                          (lib.Size(), ()), (lib.Size(range(3)), (0, 1, 2))):
            assert type(got) is lib.Size and tuple(got) == want
        for bad in (lambda: s + (1.5,), lambda: s + ("a",), lambda: s + [1], lambda: [1] + s,
                    lambda: s * 2.0, lambda: lib.Size([1, None]), lambda: lib.Size(5)):
            with pytest.raises(TypeError):
                bad()
    with pytest.raises(TypeError, match=r"Size\(\) takes an iterable of 'int' \(item 2 is 'float'\)"):
        ember.Size([2, 3]) + (1.5,)


def test_python_attributes_on_a_tensor():
    # torch tensors carry a __dict__: libraries hang their own data on them (pyro's param store
    # sets constrained.unconstrained = weakref.ref(...), its einsum sets term._pyro_dims)
    import copy
    import pickle
    import weakref
    for lib in (torch, ember):
        x = lib.ones(2, requires_grad=True)
        assert x.__dict__ == {} and not hasattr(x, "tag")
        x.tag = "a"
        x.ref = weakref.ref(x)
        assert x.tag == "a" and x.ref() is x and set(vars(x)) == {"tag", "ref"}
        del x.ref
        with pytest.raises(AttributeError):
            x.ref
        y = x * 2  # results are new objects with their own (empty) attributes
        assert y.__dict__ == {} and x.detach().__dict__ == {} and x[0].__dict__ == {}
        y._pyro_dims = "ab"
        assert y._pyro_dims == "ab"
        # deepcopy copies the attributes deeply and the gradient; pickling keeps the attributes
        x.sum().backward()
        x.box = [1, 2]
        d = copy.deepcopy(x)
        assert d.box == [1, 2] and d.box is not x.box and d.tag == "a"
        assert d.grad.tolist() == [1.0, 1.0] and d.grad is not x.grad
        p = pickle.loads(pickle.dumps(x))
        assert p.box == [1, 2] and p.tag == "a" and p.requires_grad
        assert pickle.loads(pickle.dumps(lib.ones(1))).__dict__ == {}
        w = lib.nn.Parameter(lib.zeros(2))
        w.note = 3
        assert copy.deepcopy(w).__dict__ == {}  # torch's Parameter deepcopy drops them
        assert pickle.loads(pickle.dumps(w)).note == 3
        assert type(pickle.loads(pickle.dumps(w))) is lib.nn.Parameter


def test_cdata_names_the_cpp_tensor():
    # torch's _cdata: equal for two Python objects of one C++ tensor, different for a new tensor
    # over the same memory (detach, .data, views); pyro.module compares parameters by it
    for lib in (torch, ember):
        p = lib.nn.Parameter(lib.ones(2))
        t = lib.ones(3, requires_grad=True)
        (t * 2).sum().backward()
        m = lib.nn.Linear(2, 2)
        assert isinstance(t._cdata, int) and t._cdata != 0
        assert p._cdata == p._cdata and t.grad._cdata == t.grad._cdata
        assert m.weight._cdata == dict(m.named_parameters())["weight"]._cdata
        assert t.requires_grad_()._cdata == t._cdata and t.contiguous()._cdata == t._cdata
        for other in (p.data, p.detach(), p.view(2), p[:], p.clone()):
            assert other._cdata != p._cdata
        with pytest.raises(AttributeError):
            t._cdata = 1
