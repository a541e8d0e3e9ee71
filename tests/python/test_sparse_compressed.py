"""Compressed sparse tensors (CSR, CSC) against torch: construction and its invariant checks,
conversions between strided/COO/CSR/CSC (batched and hybrid where torch has them), the index
accessors, products (mm, matmul, @, addmm, sparse.mm with reduce) with their gradients, scaling,
transpose, dtype, clone/detach and torch.save round trips."""
import warnings

import numpy as np
import pytest
import torch

import ember

warnings.filterwarnings("ignore", message=".*[Ss]parse.*")
rng = np.random.default_rng(0)
LAYOUTS = [("sparse_csr", "crow_indices", "col_indices"),
           ("sparse_csc", "ccol_indices", "row_indices")]


def sparse_array(shape, density=0.4):
    return rng.standard_normal(shape) * (rng.random(shape) < density)


def both(a, dtype="float64"):
    a = np.asarray(a, dtype=dtype)
    return ember.tensor(a), torch.tensor(a)


def same(e, t, rtol=1e-6, atol=1e-9):
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def same_compressed(e, t, comp, plain):
    """Same layout, shape, dtype, index vectors (with their dtype), values and nnz."""
    assert e.layout == getattr(ember, str(t.layout).split(".")[1])
    assert tuple(e.shape) == tuple(t.shape) and e._nnz() == t._nnz()
    same(getattr(e, comp)(), getattr(t, comp)())
    same(getattr(e, plain)(), getattr(t, plain)())
    same(e.values(), t.values())
    same(e.to_dense(), t.to_dense())


@pytest.mark.parametrize("layout,comp,plain", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 5), (3, 0), (0, 3), (0, 0), (2, 3, 4), (2, 2, 3, 3)])
def test_dense_to_compressed_and_back_as_torch(layout, comp, plain, dtype, shape):
    a = sparse_array(shape)
    if len(shape) > 2:  # torch needs the same nnz in each batch
        a = np.broadcast_to(sparse_array(shape[-2:]), shape).copy() * 2
    e, t = both(a, dtype)
    es, ts = getattr(e, "to_" + layout)(), getattr(t, "to_" + layout)()
    same_compressed(es, ts, comp, plain)
    es2 = e.to_sparse(layout=getattr(ember, layout))
    same_compressed(es2, ts, comp, plain)
    assert getattr(es, "to_" + layout)() is es


@pytest.mark.parametrize("layout,comp,plain", LAYOUTS)
def test_constructors_as_torch(layout, comp, plain):
    cases = [  # compressed, plain, values, size
        ([0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], (3, 3)),
        ([0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], None),
        ([0, 0, 0], [], [], (2, 2)),
        ([0], [], [], (0, 0)),
        ([[0, 1, 2], [0, 2, 2]], [[1, 0], [0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2, 2, 2)),
        ([0, 1, 2], [1, 0], [[1.0, 2.0], [3.0, 4.0]], (2, 2, 2)),  # hybrid: dense values
    ]
    fn = "sparse_csr_tensor" if layout == "sparse_csr" else "sparse_csc_tensor"
    for c, p, v, size in cases:
        for idx_dtype in ("int64", "int32"):
            args_e = [ember.tensor(np.asarray(x, dtype=idx_dtype)) for x in (c, p)]
            args_t = [torch.tensor(np.asarray(x, dtype=idx_dtype)) for x in (c, p)]
            ve, vt = both(v, "float32")
            sz = () if size is None else (size,)  # torch takes no size=None positionally
            e = getattr(ember, fn)(*args_e, ve, *sz)
            t = getattr(torch, fn)(*args_t, vt, *sz)
            same_compressed(e, t, comp, plain)
            e = ember.sparse_compressed_tensor(*args_e, ve, *sz, layout=getattr(ember, layout),
                                               dtype=ember.float64)
            t = torch.sparse_compressed_tensor(*args_t, vt, *sz, layout=getattr(torch, layout),
                                               dtype=torch.float64)
            same_compressed(e, t, comp, plain)
    e = getattr(ember, fn)([0, 1], [0], [2.0], (1, 1), requires_grad=True)
    assert e.requires_grad and e.is_leaf


def test_flags_parts_and_coo_only_methods_as_torch():
    for lib in (ember, torch):
        a = lib.tensor([[1.0, 0.0], [2.0, 3.0]]).to_sparse_csr()
        c = a.to_sparse_csc()
        assert (a.is_sparse, a.is_sparse_csr, c.is_sparse, c.is_sparse_csr) == (
            False, True, False, False)
        assert (a.sparse_dim(), a.dense_dim(), a._nnz()) == (2, 0, 3)
        assert a.to_sparse().is_sparse and a.to_sparse_coo().layout == lib.sparse_coo
        for name in ("indices", "coalesce", "is_coalesced"):
            with pytest.raises(RuntimeError, match="expected sparse coordinate tensor layout"):
                getattr(a, name)()
        with pytest.raises(RuntimeError, match="column compressed"):
            a.row_indices()
        with pytest.raises(RuntimeError, match="row compressed"):
            c.col_indices()
    e = ember.tensor([[1.0, 0.0], [2.0, 3.0]]).to_sparse_csr()
    assert repr(e) == ("tensor(crow_indices=tensor([0, 1, 3]),\n"
                       "       col_indices=tensor([0, 0, 1]),\n"
                       "       values=tensor([1., 2., 3.]), size=(2, 2), nnz=3,\n"
                       "       layout=ember.sparse_csr)")


@pytest.mark.parametrize("src", ["coo", "csr", "csc"])
def test_conversions_between_layouts_as_torch(src):
    a = sparse_array((5, 4))
    e, t = both(a)
    conv = {"coo": "to_sparse", "csr": "to_sparse_csr", "csc": "to_sparse_csc"}
    es, ts = getattr(e, conv[src])(), getattr(t, conv[src])()
    same_compressed(es.to_sparse_csr(), ts.to_sparse_csr(), "crow_indices", "col_indices")
    same_compressed(es.to_sparse_csc(), ts.to_sparse_csc(), "ccol_indices", "row_indices")
    ec, tc = es.to_sparse_coo(), ts.to_sparse_coo().coalesce()  # torch's from CSC is not
    assert ec.is_coalesced()
    same(ec.indices(), tc.indices())
    same(ec.values(), tc.values())


@pytest.mark.parametrize("layout,comp,plain", LAYOUTS)
def test_transpose_clone_detach_dtype_scale_as_torch(layout, comp, plain):
    a = sparse_array((4, 3))
    e, t = both(a)
    es, ts = getattr(e, "to_" + layout)(), getattr(t, "to_" + layout)()
    other = {"crow_indices": ("ccol_indices", "row_indices"),
             "ccol_indices": ("crow_indices", "col_indices")}[comp]
    same_compressed(es.t(), ts.t(), *other)
    same_compressed(es.transpose(0, 1), ts.transpose(0, 1), *other)
    same_compressed(ember.t(es), torch.t(ts), *other)
    for f in (lambda x: x.clone(), lambda x: x.detach(), lambda x: x.float(),
              lambda x: x.to(x.dtype), lambda x: x * 2, lambda x: 3 * x, lambda x: -x,
              lambda x: x + x):
        same_compressed(f(es), f(ts), comp, plain)
    same(es + e, ts + t)


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 4, 3), (4, 0, 2), (0, 3, 2), (3, 4, 0)])
def test_products_and_gradients_as_torch(layout, dtype, shape):
    m, k, n = shape
    a = sparse_array((m, k))
    a[0 if m else slice(0), :] = 0  # an empty row
    ea, ta = both(a, dtype)
    eb, tb = both(rng.standard_normal((k, n)), dtype)
    eb.requires_grad_(), tb.requires_grad_()
    es, ts = getattr(ea, "to_" + layout)(), getattr(ta, "to_" + layout)()
    for f in (lambda s, d: s @ d, lambda s, d: s.matmul(d), lambda s, d: s.mm(d),
              lambda s, d, lib=None: (ember if isinstance(s, ember.Tensor) else torch).mm(s, d),
              lambda s, d: (ember if isinstance(s, ember.Tensor) else torch).sparse.mm(s, d)):
        ro, rt = f(es, eb), f(ts, tb)
        same(ro, rt, rtol=1e-5, atol=1e-5)
        g = rng.standard_normal(rt.shape)
        ro.backward(ember.tensor(g, dtype=ro.dtype)), rt.backward(torch.tensor(g, dtype=rt.dtype))
        same(eb.grad, tb.grad, rtol=1e-5, atol=1e-5)
        eb.grad, tb.grad = None, None
    ec, tc = both(rng.standard_normal((m, n)), dtype)
    same(ember.addmm(ec, es, eb, beta=0.5, alpha=2.0), torch.addmm(tc, ts, tb, beta=0.5, alpha=2.0),
         rtol=1e-5, atol=1e-5)
    same(ember.sparse.addmm(ec, es, eb), torch.sparse.addmm(tc, ts, tb), rtol=1e-5, atol=1e-5)
    ev, tv = both(rng.standard_normal(k), dtype)
    same(es @ ev, ts @ tv, rtol=1e-5, atol=1e-5)


def test_gradient_into_values_as_torch():
    c, p, v = [0, 2, 2, 3], [0, 2, 1], rng.standard_normal(3)
    ev, tv = both(v)
    ev.requires_grad_(), tv.requires_grad_()
    eb, tb = both(rng.standard_normal((3, 2)))
    es = ember.sparse_csr_tensor(ember.tensor(c), ember.tensor(p), ev, (3, 3))
    ts = torch.sparse_csr_tensor(torch.tensor(c), torch.tensor(p), tv, (3, 3))
    (es @ eb).pow(2).sum().backward(), (ts @ tb).pow(2).sum().backward()
    same(ev.grad, tv.grad)
    ev.grad, tv.grad = None, None
    es = ember.sparse_csr_tensor(ember.tensor(c), ember.tensor(p), ev, (3, 3))
    ts = torch.sparse_csr_tensor(torch.tensor(c), torch.tensor(p), tv, (3, 3))
    (es.values() * 3).sum().backward(), (ts.values() * 3).sum().backward()
    same(ev.grad, tv.grad)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "max", "min"])
def test_sparse_mm_reduce_as_torch(reduce):
    a = sparse_array((6, 5))
    a[2] = 0
    ea, ta = both(a)
    eb, tb = both(rng.standard_normal((5, 3)))
    eb.requires_grad_(), tb.requires_grad_()
    ro = ember.sparse.mm(ea.to_sparse_csr(), eb, reduce)
    rt = torch.sparse.mm(ta.to_sparse_csr(), tb, reduce)
    same(ro, rt)
    ro.sum().backward(), rt.sum().backward()
    same(eb.grad, tb.grad)
    for lib, x, y in ((ember, ea, eb), (torch, ta, tb)):
        with pytest.raises(RuntimeError, match="SparseCsc"):
            lib.sparse.mm(x.to_sparse_csc(), y, reduce)


def test_gradcheck_product_wrt_dense_operand():
    s = ember.tensor(sparse_array((4, 3))).to_sparse_csr()
    b = ember.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert ember.autograd.gradcheck(lambda b: ember.sparse.mm(s, b), (b,))
    d = ember.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert ember.autograd.gradcheck(lambda d: d @ s, (d,))  # dense @ CSR
    assert ember.autograd.gradcheck(lambda b: ember.sparse.mm(s, b, "mean"), (b,))
    v = ember.tensor(rng.standard_normal(3), requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda v: ember.sparse_csc_tensor(ember.tensor([0, 1, 2, 3]), ember.tensor([2, 0, 1]), v,
                                          (3, 3)) @ b.detach(), (v,))


def test_bad_input_raises_as_torch():
    c, p, v = [0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0]
    bad = [  # (compressed, plain, size, check_invariants, message)
        ([0, 2, 2], p, (3, 3), True, "must be equal to the number of rows"),
        ([0, 2, 1, 3], p, (3, 3), True, r"0 <= crow_indices\[..., 1:\]"),
        (c, [0, 5, 1], (3, 3), True, "0 <= col_indices < ncols"),
        (c, [2, 0, 1], (3, 3), True, "sorted and distinct"),
        ([1, 2, 2, 3], p, (3, 3), True, r"crow_indices\[..., 0\] == 0"),
    ]
    for lib in (ember, torch):
        for comp, plain, size, check, msg in bad:
            with pytest.raises(RuntimeError, match=msg):
                lib.sparse_csr_tensor(lib.tensor(comp), lib.tensor(plain), lib.tensor(v), size,
                                      check_invariants=check)
        with pytest.raises(RuntimeError, match="SparseCsr"):
            lib.sparse.mm(lib.ones(2, 2).to_sparse_csr().t(), lib.ones(2, 2), "sum")
        with pytest.raises(RuntimeError):  # a 3-d dense operand of a sparse product
            lib.sparse.mm(lib.eye(2).to_sparse_csr(), lib.ones(2, 2, 2))
        with pytest.raises(RuntimeError, match="same number of specified elements per batch"):
            lib.tensor([[[1.0, 0.0]], [[1.0, 1.0]]]).to_sparse_csr()
        with pytest.raises(RuntimeError, match="expected sparse compressed tensor layout"):
            lib.sparse_compressed_tensor(lib.tensor(c), lib.tensor(p), lib.tensor(v), (3, 3))
    # ember checks the bounds even without check_invariants (its COO parts rely on them)
    with pytest.raises(RuntimeError, match="sparse_csr_tensor: `0 <= col_indices < ncols`"):
        ember.sparse_csr_tensor(ember.tensor(c), ember.tensor([0, 5, 1]), ember.tensor(v), (3, 3))
    with pytest.raises(RuntimeError, match="int32 or int64"):
        ember.sparse_csr_tensor(ember.tensor([0.0, 1.0]), ember.tensor([0]), ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="at least 2 dims"):
        ember.ones(3).to_sparse_csr()
    with pytest.raises(NotImplementedError, match="sparse_bsr"):
        ember.eye(2).to_sparse(layout=ember.sparse_bsr, blocksize=(1, 1))
    with pytest.raises(NotImplementedError, match="not supported for a sparse tensor"):
        ember.eye(2).to_sparse_csr().exp()


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
def test_save_load_round_trip_with_torch(tmp_path, layout):
    a = sparse_array((4, 3))
    e = getattr(ember.tensor(a), "to_" + layout)()
    ember.save({"a": e}, tmp_path / "e.pt")
    t = torch.load(tmp_path / "e.pt")["a"]
    assert t.layout == getattr(torch, layout)
    np.testing.assert_array_equal(t.to_dense().numpy(), a)
    torch.save({"a": t}, tmp_path / "t.pt")
    back = ember.load(tmp_path / "t.pt")["a"]
    assert back.layout == getattr(ember, layout)
    np.testing.assert_array_equal(back.to_dense().numpy(), a)


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
def test_dense_times_compressed_and_leaf_gradient_as_torch(layout):
    a = sparse_array((4, 3))
    ea, ta = both(a)
    es, ts = getattr(ea, "to_" + layout)(), getattr(ta, "to_" + layout)()
    ed, td = both(rng.standard_normal((2, 4)))
    same(ed @ es, td @ ts)
    es.requires_grad_(), ts.requires_grad_()
    eb, tb = both(rng.standard_normal((3, 2)))
    (es @ eb).sum().backward(), (ts @ tb).sum().backward()
    assert es.grad.layout == ember.strided and ts.grad.layout == torch.strided  # g @ b^T
    same(es.grad, ts.grad)


def test_sum_of_a_sparse_tensor_as_torch():
    a = sparse_array((4, 3))
    a[1, 1] = 2.0
    for conv in ("to_sparse", "to_sparse_csr", "to_sparse_csc"):
        for dtype in ("float32", "float64", "int64"):
            e, t = both(a * 3, dtype)
            es, ts = getattr(e, conv)(), getattr(t, conv)()
            same(es.sum(), ts.sum())
            same(ember.sum(es), torch.sum(ts))
        e, t = both(a)
        es, ts = getattr(e, conv)().requires_grad_(), getattr(t, conv)().requires_grad_()
        es.sum().backward(), ts.sum().backward()
        assert es.grad.layout == ember.strided and ts.grad.layout == torch.strided
        same(es.grad, ts.grad)
    v = ember.tensor([1.0, 2.0], requires_grad=True)  # into the values through the constructor
    ember.sparse_csr_tensor(ember.tensor([0, 1, 2]), ember.tensor([1, 0]), v).sum().backward()
    assert v.grad.tolist() == [1.0, 1.0]
