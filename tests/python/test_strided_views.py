"""as_strided and unfold (views with backward, overlapping elements included), the in-place
view ops (t_, transpose_, swapaxes_, swapdims_, squeeze_, unsqueeze_, as_strided_), resize_ /
set_ / is_set_to, and storages (untyped_storage, storage) against torch 2.13."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_grad, check_op, gradcheck_op


def geometry(e, t):
    assert_same(e, t)
    assert e.stride() == t.stride() and e.storage_offset() == t.storage_offset()


# ---- as_strided -----------------------------------------------------------------------------------
AS_STRIDED = [((4, 6), (2, 3), (1, 2), None), ((4, 6), (3, 3), (6, 1), 5),
              ((4, 6), (3, 4), (0, 1), 2), ((4, 6), (2, 2, 2), (6, 1, 1), 0),  # overlapping
              ((6,), (), (), 3), ((6,), (0, 2), (1, 1), 0), ((2, 3), (3, 2), (1, 3), None)]


@pytest.mark.parametrize("base,size,stride,offset", AS_STRIDED)
def test_as_strided_matches_torch(base, size, stride, offset):
    check_op(lambda m, x: x.as_strided(size, stride, offset), [base], ["float32", "int64", "bool"])
    check_op(lambda m, x: m.as_strided(x, size, stride, offset), [base])
    e, t = ember.arange(24.0)[:int(np.prod(base))].view(base), torch.arange(24.0)[:int(np.prod(base))].view(base)
    geometry(e.as_strided(size, stride, offset), t.as_strided(size, stride, offset))
    assert e.as_strided(size, stride, offset)._shares_storage(e)
    check_grad(lambda m, x: x.as_strided(size, stride, offset), [base])


def test_as_strided_of_a_view_and_gradcheck():
    # offsets and strides are in the storage, not relative to the view
    check_grad(lambda m, x: (x * 1)[1:, 2:].as_strided((2, 2), (1, 3), 4), [(4, 6)])
    check_grad(lambda m, x: x.expand(3, 4).as_strided((2, 4), (0, 1)), [(4,)])
    gradcheck_op(lambda m, x: x.as_strided((3, 3), (2, 1), 1) * x.as_strided((3, 3), (1, 2)), [(12,)])


def test_as_strided_errors():
    check_op(lambda m, x: x.as_strided((2, 2), (1, -1)), [(6,)])
    check_op(lambda m, x: x.as_strided((2, 2), (1,)), [(6,)])
    check_op(lambda m, x: x.as_strided((3, 3), (3, 1)), [(6,)])
    check_op(lambda m, x: x.as_strided((2,), (1,), -1), [(6,)])
    check_op(lambda m, x: x.as_strided((2, -2), (1, 1)), [(6,)])
    with pytest.raises(RuntimeError, match=r"as_strided: setStorage: sizes \(3, 3\).*out of bounds"):
        ember.zeros(6).as_strided((3, 3), (3, 1))


# ---- unfold ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,dim,size,step", [((10,), 0, 3, 2), ((3, 8), 1, 4, 1),
                                                 ((3, 8), -1, 2, 3), ((5, 4, 3), 0, 5, 1),
                                                 ((4, 6), 0, 0, 1), ((), 0, 1, 1), ((), -1, 0, 2)])
def test_unfold_matches_torch(shape, dim, size, step):
    check_op(lambda m, x: x.unfold(dim, size, step), [shape], ["float32", "int64"])
    if shape:
        e, t = ember.arange(float(np.prod(shape))).view(shape), torch.arange(float(np.prod(shape))).view(shape)
        geometry(e.unfold(dim, size, step), t.unfold(dim, size, step))
    check_grad(lambda m, x: x.unfold(dim, size, step), [shape])


def test_unfold_gradcheck_and_errors():
    gradcheck_op(lambda m, x: x.unfold(1, 3, 1).pow(2).sum(-1), [(2, 7)])
    check_grad(lambda m, x: x.t().unfold(0, 2, 1), [(3, 4)])
    for size, step, dim in [(7, 1, 0), (2, 0, 0), (-1, 1, 0), (1, 1, 2)]:
        check_op(lambda m, x: x.unfold(dim, size, step), [(6,)])
    with pytest.raises(RuntimeError, match="unfold: maximum size for tensor at dimension 0 is 6 "
                                           "but size is 7"):
        ember.zeros(6).unfold(0, 7, 1)


# ---- in-place view ops ----------------------------------------------------------------------------
INPLACE_VIEWS = {
    "t_": ((3, 4), lambda x: x.t_()),
    "transpose_": ((2, 3, 4), lambda x: x.transpose_(0, 2)),
    "swapaxes_": ((2, 3, 4), lambda x: x.swapaxes_(1, -1)),
    "swapdims_": ((2, 3, 4), lambda x: x.swapdims_(0, 1)),
    "squeeze_": ((3, 1, 4, 1), lambda x: x.squeeze_()),
    "squeeze_dim": ((3, 1, 4, 1), lambda x: x.squeeze_(1)),
    "squeeze_dims": ((3, 1, 4, 1), lambda x: x.squeeze_((1, 3))),
    "unsqueeze_": ((3, 4), lambda x: x.unsqueeze_(1)),
    "as_strided_": ((3, 4), lambda x: x.as_strided_((2, 3), (1, 2), 1)),
}


@pytest.mark.parametrize("name", list(INPLACE_VIEWS))
def test_inplace_view_ops_match_torch(name):
    shape, fn = INPLACE_VIEWS[name]
    n = int(np.prod(shape))
    e, t = ember.arange(float(n)).view(shape), torch.arange(float(n)).view(shape)
    ev, tv = e._version, t._version
    assert fn(e) is e and fn(torch_t := t) is torch_t
    geometry(e, t)
    assert e._version - ev == t._version - tv

    def grad_fn(m, x):
        y = x * 2
        fn(y)
        return y * y
    check_grad(grad_fn, [shape])


def test_inplace_view_ops_on_views_and_leaves():
    def on_view(m, x):
        y = x * 1
        v = y[1:]
        v.t_()
        v.mul_(3)  # writes through the view into y
        return y
    check_grad(on_view, [(3, 4)])
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            lib.ones(2, 3, requires_grad=True).t_()
        with lib.no_grad():
            leaf = lib.ones(2, 3, requires_grad=True)
            leaf.t_()
        assert tuple(leaf.shape) == (3, 2) and leaf.is_leaf
    check_op(lambda m, x: x.t_(), [(2, 3, 4)])
    check_op(lambda m, x: x.transpose_(0, 3), [(2, 3)])
    check_op(lambda m, x: x.unsqueeze_(4), [(2, 3)])
    check_op(lambda m, x: x.squeeze_(5), [(2, 3)])
    with pytest.raises(RuntimeError, match=r"t_: expects a tensor with <= 2 dimensions"):
        ember.ones(2, 3, 4).t_()


# ---- resize_, set_, is_set_to ----------------------------------------------------------------------
def test_resize_grows_and_keeps_views():
    for lib in (torch, ember):
        x = lib.arange(6.0)
        v = x.view(2, 3)
        assert x.resize_(10) is x
        assert tuple(x.shape) == (10,) and x.is_contiguous()
        assert x.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()
        assert x[:6].tolist() == list(range(6)) and v.tolist() == [[0, 1, 2], [3, 4, 5]]
        x.resize_(2, 2)
        assert x.tolist() == [[0, 1], [2, 3]]
        x.resize_as_(lib.ones(3, 1))
        assert tuple(x.shape) == (3, 1)
    check_op(lambda m, x: x[1:].resize_(3, 2), [(8,)])  # keeps the storage offset
    check_op(lambda m, x: m.resize_as_(x, m.ones(2, 2)), [(5,)])


def test_resize_errors():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.ones(3, requires_grad=True).resize_(6)
        with pytest.raises(RuntimeError, match="negative dimension|overflow"):
            lib.ones(3).resize_(-1)
        with pytest.raises(RuntimeError, match="not resizable"):
            lib.from_numpy(np.zeros(3)).resize_(10)


def test_resize_and_resize_as_out_of_place():
    check_op(lambda m, x: x.resize(3, 2), [(2, 3)])
    check_op(lambda m, x: x.resize_as(m.ones(6)), [(2, 3)])
    check_op(lambda m, x: x.resize(4), [(2, 3)])


def test_set_and_is_set_to():
    for lib in (torch, ember):
        src = lib.arange(12.0).view(3, 4)[1:]
        x = lib.zeros(2)
        v0 = x._version
        assert x.set_(src) is x and x.is_set_to(src) and not x.is_set_to(src.clone())
        assert x.tolist() == src.tolist() and x._version > v0
        y = lib.zeros(1).set_(src, 2, (2, 2), (1, 2))
        assert y.tolist() == [[6.0, 8.0], [7.0, 9.0]]  # from src's own offset (4), as torch
        z = lib.zeros(1).set_(src.untyped_storage(), 1, (3,), (4,))
        assert z.tolist() == [1.0, 5.0, 9.0]
        w = lib.zeros(1).set_(src.untyped_storage())
        assert tuple(w.shape) == (12,)
        assert tuple(lib.ones(3).set_().shape) == (0,)
        with pytest.raises(RuntimeError):
            lib.zeros(1).set_(lib.arange(3))  # another dtype
        g = lib.zeros(1).set_(src, 0, (4, 4), (4, 1))  # the storage grows, as torch's
        assert g[:2].tolist() == lib.arange(4.0, 12.0).view(2, 4).tolist()
        with pytest.raises(RuntimeError, match="leaf Variable"):
            lib.zeros(3, requires_grad=True).set_(lib.ones(3))


# ---- storages ---------------------------------------------------------------------------------------
def test_untyped_storage_bytes_and_sharing():
    a = np.arange(4, dtype=np.float32)
    for lib in (torch, ember):
        t = lib.from_numpy(a.copy())
        s = t.untyped_storage()
        assert s.nbytes() == 16 and len(s) == 16 and s.size() == 16 and s.element_size() == 1
        assert s.data_ptr() == t[1:].untyped_storage().data_ptr() == t.view(2, 2).untyped_storage().data_ptr()
        assert s.data_ptr() != t.clone().untyped_storage().data_ptr()
        assert s.data_ptr() == t.data_ptr()
        assert [s[i] for i in range(4, 8)] == [0, 0, 128, 63]  # 1.0f, little-endian
        s[7] = 64  # 0x3F800000 (1.0f) -> 0x40800000 (4.0f)
        assert t[1].item() == 4.0
        s.fill_(0)
        assert t.tolist() == [0.0] * 4
        with pytest.raises(IndexError):
            s[16]


def test_typed_storage_elements():
    for lib in (torch, ember):
        t = lib.arange(6).view(2, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: TypedStorage is deprecated
            st = t[1].storage()
        assert st.size() == 6 and len(st) == 6 and st.dtype == t.dtype and st.element_size() == 8
        assert st[4] == 4 and st.tolist() == list(range(6)) and st.nbytes() == 48
        st[0] = 10
        assert t[0, 0].item() == 10
        assert st.data_ptr() == t.untyped_storage().data_ptr()
        assert t.storage_type().__name__ == "LongStorage"
        assert isinstance(st.untyped()[0], int)

