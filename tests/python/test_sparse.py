"""Sparse COO tensors against torch: construction, to_sparse/to_dense, coalesce, products with
gradients (into the dense operand and, sparse, into the values), dense + sparse, and the guard
that makes every op not taught sparse refuse it cleanly."""
import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)


def pair(a, dtype="float64"):
    a = np.asarray(a, dtype=dtype)
    return ember.tensor(a), torch.tensor(a)


def close(e, t, rtol=1e-6, atol=1e-8):
    if isinstance(t, torch.Tensor) and t.is_sparse:
        assert e.is_sparse and e.layout == ember.sparse_coo
        assert tuple(e.shape) == tuple(t.shape)
        e, t = e.to_dense(), t.to_dense()
    assert not e.is_sparse
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def sparse_array(shape, density=0.3):
    a = rng.standard_normal(shape)
    return a * (rng.random(shape) < density)


def coo_pair(indices, values, size=None, **kw):
    ie, it = ember.tensor(np.asarray(indices, dtype=np.int64)), torch.tensor(np.asarray(indices))
    ve, vt = pair(values, kw.pop("vdtype", "float64"))
    dt = kw.pop("dtype", None)
    ke = {"dtype": getattr(ember, str(dt).split(".")[1])} if dt else {}
    kt = {"dtype": dt} if dt else {}
    if size is None:
        return ember.sparse_coo_tensor(ie, ve, **ke), torch.sparse_coo_tensor(it, vt, **kt)
    return (ember.sparse_coo_tensor(ie, ve, size, **ke), torch.sparse_coo_tensor(it, vt, size, **kt))


def test_construct_with_and_without_size():
    idx, val = [[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0]
    for size in [(2, 3), (4, 5), None]:
        e, t = coo_pair(idx, val, size)
        close(e, t)
        assert e._nnz() == t._nnz() and e.sparse_dim() == 2 and e.dense_dim() == 0


def test_construct_dtype_and_duplicates():
    e, t = coo_pair([[0, 0, 1]], [1.0, 2.0, 5.0], (3,), dtype=torch.int64)
    assert e.dtype == ember.int64
    close(e, t)
    assert not e.is_coalesced()
    ce, ct = e.coalesce(), t.coalesce()
    assert ce.is_coalesced() and ce._nnz() == ct._nnz() == 2
    np.testing.assert_array_equal(ce.indices().numpy(), ct.indices().numpy())
    np.testing.assert_array_equal(ce.values().numpy(), ct.values().numpy())


def test_construct_hybrid_and_int32_indices():
    vals = rng.standard_normal((3, 4))
    e, t = coo_pair([[0, 2, 1]], vals, (3, 4))
    close(e, t)
    assert e.dense_dim() == 1
    ei = ember.sparse_coo_tensor(np.array([[0, 1]], dtype=np.int32), ember.ones(2), (2,))
    assert ei._indices().dtype == ember.int64


def test_bad_inputs():
    with pytest.raises((ValueError, RuntimeError), match=r"out of bounds|index"):
        ember.sparse_coo_tensor(ember.tensor([[0, 5]]), ember.ones(2), (3,))
    with pytest.raises((ValueError, RuntimeError), match=r"\(3,\)|3"):
        ember.sparse_coo_tensor(ember.tensor([[0, 1]]), ember.ones(3), (3,))
    with pytest.raises((ValueError, RuntimeError), match="sparse_dim"):
        ember.sparse_coo_tensor(ember.tensor([[0, 1]]), ember.ones(2), (3, 3))
    with pytest.raises(RuntimeError, match="uncoalesced"):
        ember.sparse_coo_tensor(ember.tensor([[0, 0]]), ember.ones(2), (3,)).indices()
    s = ember.eye(3).to_sparse()
    with pytest.raises((ValueError, RuntimeError), match=r"cannot be multiplied|3 != 4"):
        s @ ember.ones(4, 2)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 2, 3, 2), (0, 3), (3, 0)])
def test_to_sparse_round_trip(shape):
    a = sparse_array(shape)
    e, t = pair(a)
    close(e.to_sparse(), t.to_sparse())
    close(e.to_sparse().to_dense(), t)
    assert e.to_sparse()._nnz() == t.to_sparse()._nnz()
    close(e.to_sparse_coo(), t.to_sparse_coo())
    if len(shape) >= 2:
        es, ts = e.to_sparse(1), t.to_sparse(1)
        assert es.sparse_dim() == ts.sparse_dim() == 1 and es._nnz() == ts._nnz()
        close(es, ts)


def test_to_sparse_all_zero_and_0d():
    e, t = pair(np.zeros((3, 3)))
    assert e.to_sparse()._nnz() == 0
    close(e.to_sparse(), t.to_sparse())
    e0, t0 = pair(np.array(2.5))
    close(e0.to_sparse(), t0.to_sparse())


def test_repr_like_torch():
    i = [[0, 1], [2, 0]]
    e, t = coo_pair(i, [3.0, 4.0], (3, 3), vdtype="float32")
    assert repr(e) == repr(t).replace("torch.", "ember.")


@pytest.mark.parametrize("form", ["matmul", "mm", "spmm", "sparse.mm"])
def test_sparse_times_dense_values_and_grads(form):
    a, d = sparse_array((5, 4)), rng.standard_normal((4, 3))
    se, st = pair(a)
    se, st = se.to_sparse().requires_grad_(), st.to_sparse().requires_grad_()
    de, dt = pair(d)
    de.requires_grad_()
    dt.requires_grad_()
    f = {"matmul": lambda m, x, y: x @ y, "mm": lambda m, x, y: m.mm(x, y),
         "spmm": lambda m, x, y: m.spmm(x, y), "sparse.mm": lambda m, x, y: m.sparse.mm(x, y)}[form]
    oe, ot = f(ember, se, de), f(torch, st, dt)
    close(oe, ot)
    w = rng.standard_normal((5, 3))
    (oe * ember.tensor(w)).sum().backward()
    (ot * torch.tensor(w)).sum().backward()
    close(de.grad, dt.grad)
    if form != "sparse.mm":
        assert not st.grad.is_sparse  # torch 2.13: mm's gradient of the sparse operand is dense
        close(se.grad, st.grad)
    else:  # torch.sparse.mm masks it to the operand's pattern; ember's is dense (docs/sparse.md)
        mask = torch.tensor(a != 0)
        close(se.grad * ember.tensor(a != 0), st.grad.to_dense() * mask)


def test_dense_times_sparse_and_grads():
    d, a = rng.standard_normal((2, 5)), sparse_array((5, 4))
    de, dt = pair(d)
    de.requires_grad_()
    dt.requires_grad_()
    se, st = pair(a)
    se, st = se.to_sparse(), st.to_sparse()
    oe, ot = de @ se, dt @ st
    close(oe, ot)
    oe.sum().backward()
    ot.sum().backward()
    close(de.grad, dt.grad)


def test_grad_into_values_through_sparse_coo_tensor():
    idx = [[0, 1, 1, 0], [2, 0, 2, 2]]  # a duplicate at (0, 2)
    ve, vt = pair([1.0, 2.0, 3.0, 4.0])
    ve.requires_grad_()
    vt.requires_grad_()
    d = rng.standard_normal((3, 2))
    se = ember.sparse_coo_tensor(ember.tensor(idx), ve, (2, 3))
    st = torch.sparse_coo_tensor(torch.tensor(idx), vt, (2, 3))
    (se @ ember.tensor(d)).pow(2).sum().backward()
    (st @ torch.tensor(d)).pow(2).sum().backward()
    close(ve.grad, vt.grad)


def test_gradcheck_values_and_dense_operand():
    idx = ember.tensor([[0, 1, 2, 2], [1, 0, 2, 0]])
    v = ember.tensor(rng.standard_normal(4), requires_grad=True)
    d = ember.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda v, d: ember.sparse_coo_tensor(idx, v, (3, 3)) @ d, (v, d))
    assert ember.autograd.gradcheck(
        lambda d: d.t() @ ember.sparse_coo_tensor(idx, v.detach(), (3, 3)), (d,))


def test_dense_plus_sparse_and_sparse_plus_sparse():
    a, b = sparse_array((3, 4)), sparse_array((3, 4))
    ae, at = pair(a)
    be, bt = pair(b)
    close(ae + be.to_sparse(), at + bt.to_sparse())
    close(ae.to_sparse() + be, bt + at.to_sparse())  # torch refuses sparse + dense
    close(ae.to_sparse() + be.to_sparse(), at.to_sparse() + bt.to_sparse())
    # gcn's eye(V) + int64 adjacency: promotion as torch
    e, t = coo_pair([[0, 1], [1, 2]], [1, 1], (3, 3), vdtype="int64")
    close(ember.eye(3) + e, torch.eye(3) + t)


def test_dense_plus_sparse_grad():
    a = rng.standard_normal((3, 3))
    ae, at = pair(a)
    ae.requires_grad_()
    at.requires_grad_()
    se, st = pair(sparse_array((3, 3)))
    (ae + se.to_sparse()).pow(2).sum().backward()
    (at + st.to_sparse()).pow(2).sum().backward()
    close(ae.grad, at.grad)


def test_transpose_clone_detach_to_dtype():
    e, t = pair(sparse_array((3, 4)))
    es, ts = e.to_sparse(), t.to_sparse()
    close(es.t(), ts.t())
    close(ember.transpose(es, 0, 1), torch.transpose(ts, 0, 1))
    close(es.clone(), ts.clone())
    close(es.detach(), ts.detach())
    close(es.float(), ts.float())
    close(es.to(ember.float32), ts.to(torch.float32))
    assert es.to("cpu") is es


def test_sparse_sum():
    e, t = pair(sparse_array((3, 4)))
    close(ember.sparse.sum(e.to_sparse()), torch.sparse.sum(t.to_sparse()))
    close(ember.sparse.sum(e.to_sparse(), 1), torch.sparse.sum(t.to_sparse(), 1))


# Every op not taught sparse refuses a sparse input with NotImplementedError naming the layout,
# never a crash or garbage (the guard in ops::check_defined and Tensor::data_ptr/as_strided).
SWEEP = [
    lambda m, s: m.exp(s), lambda m, s: m.relu(s), lambda m, s: s * s, lambda m, s: m.exp(s) - s,
    lambda m, s: m.sum(s, 0), lambda m, s: s.mean(), lambda m, s: s.max(), lambda m, s: s[0],
    lambda m, s: s.view(-1), lambda m, s: s.reshape(-1), lambda m, s: m.cat([s, s]),
    lambda m, s: s.numpy(), lambda m, s: s.contiguous(), lambda m, s: m.softmax(s, 0),
    lambda m, s: m.nn.functional.linear(s, s), lambda m, s: s.abs(), lambda m, s: s.sort(),
    lambda m, s: s.tolist(), lambda m, s: m.where(s > 0, s, s),
    lambda m, s: s.unsqueeze(0), lambda m, s: s.flatten(), lambda m, s: m.bmm(s, s),
    lambda m, s: s.masked_fill(s > 0, 1.0), lambda m, s: m.nn.functional.dropout(s),
    lambda m, s: s.add_(1.0), lambda m, s: s.copy_(s), lambda m, s: m.stack([s]),
]


@pytest.mark.parametrize("k", range(len(SWEEP)))
def test_dense_ops_refuse_sparse(k):
    s = ember.eye(3).to_sparse()
    try:
        SWEEP[k](ember, s)
    except NotImplementedError as err:
        assert "sparse" in str(err)
    except (RuntimeError, TypeError, ValueError, IndexError) as err:
        assert "sparse" in str(err)
    else:
        pytest.fail("op accepted a sparse tensor")
    close(s.to_dense(), torch.eye(3, dtype=torch.float32))  # s is intact


@pytest.mark.parametrize("f", [lambda s: -s, lambda s: s * 2.5, lambda s: 2.5 * s, lambda s: s / 4.0])
def test_scalar_ops_values_and_grads(f):
    a, d = sparse_array((4, 3)), rng.standard_normal((3, 2))
    ve, vt = pair(a)
    se = ve.to_sparse().requires_grad_()
    st = vt.to_sparse().requires_grad_()
    oe, ot = f(se), f(st)
    close(oe, ot)
    (oe @ ember.tensor(d)).sum().backward()
    (ot @ torch.tensor(d)).sum().backward()
    close(se.grad.to_dense(), st.grad.to_dense())


def test_int_values_scale_and_to_dtype():
    e, t = coo_pair([[0, 2]], [3, 4], (4,), vdtype="int64")
    close(e * 3, t * 3)
    close(-e, -t)
    close(e.double(), t.double())


def test_sparse_plus_sparse_with_grad_refuses_cleanly():
    s = ember.eye(3).to_sparse().requires_grad_()
    with pytest.raises(NotImplementedError, match="sparse \\+ sparse"):
        s - s * 0.5


def test_addmm_and_requires_grad_kwarg():
    a, d, c = sparse_array((3, 4)), rng.standard_normal((4, 2)), rng.standard_normal((3, 2))
    (ae, at), (de, dt), (ce, ct) = pair(a), pair(d), pair(c)
    close(ember.sparse.addmm(ce, ae.to_sparse(), de, beta=0.5, alpha=2.0),
          torch.sparse.addmm(ct, at.to_sparse(), dt, beta=0.5, alpha=2.0))
    e = ember.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), requires_grad=True)
    t = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), requires_grad=True)
    assert e.requires_grad and t.requires_grad
    close(e, t)


def test_coalesced_flag_and_compressed_layout_names_as_torch():
    for lib in (torch, ember):
        s = lib.sparse_coo_tensor([[1, 0]], [1.0, 2.0], (2,))
        assert not s.is_coalesced()
        assert s._coalesced_(True) is s and s.is_coalesced()  # trusted, not checked
        assert s.indices().tolist() == [[1, 0]]
        assert not s._coalesced_(False).is_coalesced()
        assert lib.sparse_coo_tensor([[1, 0]], [1.0, 2.0], (2,), is_coalesced=True).is_coalesced()
        assert not lib.sparse_coo_tensor([[0]], [1.0], (2,), is_coalesced=False).is_coalesced()
        with pytest.raises((RuntimeError, NotImplementedError)):
            lib.ones(2)._coalesced_(True)
        for name in ("sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"):
            layout = getattr(lib, name)
            assert repr(layout) == f"{lib.__name__}.{name}" and layout != lib.sparse_coo
            assert lib.ones(2).layout != layout and s.layout != layout
    with pytest.raises(NotImplementedError, match="layout ember.sparse_bsr"):
        ember.ones(2, 2).to_sparse(layout=ember.sparse_bsr, blocksize=(1, 1))


@pytest.mark.parametrize("rows,size,kw", [
    ([0, 0, 2, 2, 3], 5, {}), ([0, 0, 2, 2, 3], 5, {"out_int32": True}), ([], 3, {}),
    ([1, 1], 2, {}), ([0, 1, 1, 1, 4], 6, {}), (2, 4, {})])
def test_convert_indices_from_coo_to_csr_as_torch(rows, size, kw):
    for dtype in ("int64", "int32"):
        t = torch._convert_indices_from_coo_to_csr(
            torch.tensor(rows, dtype=getattr(torch, dtype)), size, **kw)
        e = ember._convert_indices_from_coo_to_csr(
            ember.tensor(rows, dtype=getattr(ember, dtype)), size, **kw)
        assert e.tolist() == t.tolist() and str(e.dtype)[6:] == str(t.dtype)[6:]


def test_convert_indices_from_coo_to_csr_errors_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="supposed to be a vector"):
            lib._convert_indices_from_coo_to_csr(lib.tensor([[1, 1]]), 2)
        with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
            lib._convert_indices_from_coo_to_csr(lib.tensor([1.0]), 2)


def test_sparse_tensors_save_and_load_across_libraries(tmp_path):
    # torch.save writes a COO tensor as _rebuild_sparse_tensor(_get_layout('torch.sparse_coo'),
    # (indices, values, size, is_coalesced)); each library reads the other's file.
    i, v = [[0, 1, 1], [1, 0, 0]], [1.0, 2.0, 3.0]
    for coalesce in (False, True):
        e = ember.sparse_coo_tensor(i, v, (2, 3))
        t = torch.sparse_coo_tensor(i, v, (2, 3))
        if coalesce:
            e, t = e.coalesce(), t.coalesce()
        ember.save({"adj": e, "layout": ember.strided}, tmp_path / "e.pt")
        torch.save({"adj": t, "layout": torch.strided}, tmp_path / "t.pt")
        from_ember = torch.load(tmp_path / "e.pt")  # weights_only: the globals are torch's
        from_torch = ember.load(tmp_path / "t.pt")
        assert from_ember["layout"] is torch.strided and from_torch["layout"] is ember.strided
        for got, want, lib in ((from_ember["adj"], t, torch), (from_torch["adj"], e, ember)):
            assert got.layout == lib.sparse_coo and got.is_coalesced() == coalesce
            assert got._indices().tolist() == want._indices().tolist()
            assert got.to_dense().tolist() == want.to_dense().tolist()


def test_linear_on_a_sparse_input_as_torch():
    # PyG feeds sparse node features to Linear: sparse @ weight.T (+ bias), strided, gradients
    # into weight and bias.
    x = np.array([[0.0, 2.0], [1.0, 0.0], [0.0, 0.0]], np.float32)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    res = {}
    for lib in (torch, ember):
        lw = lib.nn.Linear(2, 3)
        with lib.no_grad():
            lw.weight.copy_(lib.from_numpy(w))
            lw.bias.copy_(lib.from_numpy(b))
        y = lw(lib.from_numpy(x).to_sparse())
        assert y.layout == lib.strided
        (y * y).sum().backward()
        res[lib] = (y, lw.weight.grad, lw.bias.grad,
                    lib.nn.functional.linear(lib.from_numpy(x).to_sparse(), lw.weight))
        with pytest.raises(RuntimeError):
            lib.nn.functional.linear(lib.zeros(2, 3, 2).to_sparse(), lw.weight)
    for e, t in zip(res[ember], res[torch]):
        close(e, t)
