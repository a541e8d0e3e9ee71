"""View and shape ops against PyTorch: values, shapes, strides and storage offsets, storage
sharing (a view writes through to its base, and shares the version counter), negative
dims, 0-d and empty tensors, non-contiguous inputs; cat/stack; clone/detach/contiguous;
and the errors PyTorch raises."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_op

ALL = ["bool", "uint8", "int32", "int64", "float32", "float64"]


def pair(shape, dtype="int64"):
    """arange-filled (ember, torch) tensors of `shape` with equal values."""
    n = int(np.prod(shape)) if shape else 1
    a = np.arange(n).reshape(shape).astype(dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def shares(e_base, e_view, t_base, t_view):
    """ember says two tensors share storage exactly when torch does."""
    t_same = t_base.untyped_storage().data_ptr() == t_view.untyped_storage().data_ptr()
    assert e_base._shares_storage(e_view) == t_same
    return t_same


def same_geometry(e, t):
    assert_same(e, t)
    if t.numel() > 1:
        assert e.stride() == t.stride(), f"strides {e.stride()} != {t.stride()}"
    if t.numel() > 0:
        assert e.storage_offset() == t.storage_offset()


def check_view(fn, shape, dtype="int64", expect_view=True):
    """fn(module, x) on arange data: same values, strides and offset as torch, and it
    shares x's storage when torch's does (always, when expect_view)."""
    e, t = pair(shape, dtype)
    ev, tv = fn(ember, e), fn(torch, t)
    if isinstance(tv, (tuple, list)):
        assert isinstance(ev, tuple) == isinstance(tv, tuple)
        assert len(ev) == len(tv)
        for a, b in zip(ev, tv):
            same_geometry(a, b)
            assert shares(e, a, t, b) or not expect_view
        return
    same_geometry(ev, tv)
    s = shares(e, ev, t, tv)
    assert s or not expect_view


def raises_like_torch(fn, shape=(2, 3, 4)):
    e, t = pair(shape)
    with pytest.raises(Exception) as texc:
        fn(torch, t)
    with pytest.raises((RuntimeError, ValueError, IndexError, TypeError)) as eexc:
        fn(ember, e)
    return texc.value, eexc.value


# ---- view / reshape / flatten / unflatten -------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(12,), (3, 4), (2, -1), (-1,), (2, 1, 6), (1, 12, 1)], ids=str)
def test_reshape(shape, layout):
    check_op(lambda m, x: x.reshape(shape), [(3, 4)], ALL, [layout])
    check_op(lambda m, x: m.reshape(x, shape), [(3, 4)], ["float32"], [layout])


@pytest.mark.parametrize("shape", [(12,), (3, 4), (2, -1), (-1,), (2, 1, 6), (4, 3), (1, 1, 12)], ids=str)
def test_view_contiguous(shape):
    check_view(lambda m, x: x.view(shape), (3, 4))
    check_view(lambda m, x: x.view(*shape), (3, 4))


def test_view_of_non_contiguous():
    check_view(lambda m, x: x.t().view(4, 1, 3), (3, 4))           # adds a size-1 dim: allowed
    check_view(lambda m, x: x.permute(1, 0, 2).view(3, 2, 2, 2), (2, 3, 4))
    check_view(lambda m, x: x.narrow(1, 0, 2).view(3, 2, 1), (3, 4))
    check_view(lambda m, x: x.unsqueeze(0).expand(2, 3, 4).view(2, 12), (3, 4))  # stride-0 dim kept
    _, err = raises_like_torch(lambda m, x: x.t().view(12), (3, 4))
    assert "view" in str(err) and "reshape" in str(err)
    # reshape copies exactly when view can't
    check_view(lambda m, x: x.t().reshape(12), (3, 4), expect_view=False)
    e, _ = pair((3, 4))
    assert not e._shares_storage(e.t().reshape(12))
    assert e._shares_storage(e.reshape(2, 6))


def test_view_shape_errors():
    raises_like_torch(lambda m, x: x.view(5, -1), (12,))
    raises_like_torch(lambda m, x: x.view(-1, -1), (12,))
    raises_like_torch(lambda m, x: x.view(0, -1), (12,))
    raises_like_torch(lambda m, x: x.reshape(5), (12,))
    raises_like_torch(lambda m, x: x.view(-2, 6), (12,))
    raises_like_torch(lambda m, x: x.view(0, -1), (0, 3))
    with pytest.raises(ValueError, match=r"view.*\(5, -1\).*12"):
        ember.zeros(12).view(5, -1)


def test_view_by_keyword():
    """view(size=...) and view(dtype=...) (safetensors' loader spells the dtype by keyword);
    one keyword, alone, else TypeError, as torch."""
    for lib in (ember, torch):
        x = lib.arange(6.0)
        assert tuple(x.view(size=(2, 3)).shape) == (2, 3)
        v = x.view(dtype=lib.int32)
        assert v.dtype == lib.int32 and v.tolist() == x.view(lib.int32).tolist()
        v[0] = 0  # a view: the bytes are shared
        assert x[0].item() == 0.0
        for args, kw in [((), {"shape": (2, 3)}), ((), {"size": (6,), "dtype": lib.int32}),
                         ((6,), {"dtype": lib.int32})]:
            with pytest.raises(TypeError, match="view"):
                x.view(*args, **kw)
    assert ember.arange(6.0).view(size=(3, 2)).tolist() == torch.arange(6.0).view(size=(3, 2)).tolist()


def test_view_zero_d_and_empty():
    check_view(lambda m, x: x.view(1, 1), ())
    check_view(lambda m, x: x.view(-1), ())
    check_view(lambda m, x: x.reshape(()), (1,))
    check_view(lambda m, x: x.view(()), (1, 1))
    check_view(lambda m, x: x.view(3, 0), (0, 3))
    check_view(lambda m, x: x.reshape(-1), (0, 3))
    check_view(lambda m, x: x.view(0), (2, 0, 3))


@pytest.mark.parametrize("args", [(), (0,), (1,), (-2,), (0, 1), (1, 2), (-3, -2), (2, -1), (0, -1)], ids=str)
def test_flatten(args):
    check_view(lambda m, x: x.flatten(*args), (2, 3, 4))
    check_op(lambda m, x: m.flatten(x, *args), [(2, 3, 4)], ["float32"], LAYOUTS)


def test_flatten_edge_cases():
    check_view(lambda m, x: x.flatten(), ())                 # 0-d -> (1,)
    check_view(lambda m, x: x.flatten(0, -1), ())
    check_view(lambda m, x: x.flatten(), (0, 3))
    check_view(lambda m, x: x.t().flatten(), (3, 4), expect_view=False)
    raises_like_torch(lambda m, x: x.flatten(2, 1))
    raises_like_torch(lambda m, x: x.flatten(0, 3))


@pytest.mark.parametrize("dim,sizes", [(1, (3, 4)), (-1, (-1, 4)), (0, (2, 1)), (1, (12,)), (1, (1, 12, 1))], ids=str)
def test_unflatten(dim, sizes):
    check_view(lambda m, x: x.unflatten(dim, sizes), (2, 12))
    check_op(lambda m, x: m.unflatten(x, dim, sizes), [(2, 12)], ALL, LAYOUTS[:3])


def test_unflatten_errors():
    raises_like_torch(lambda m, x: x.unflatten(1, (5, -1)), (2, 12))
    raises_like_torch(lambda m, x: x.unflatten(1, ()), (2, 12))
    raises_like_torch(lambda m, x: x.unflatten(2, (3, 4)), (2, 12))


# ---- squeeze / unsqueeze ------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [None, 0, 1, 2, -1, -2, (0, 2), (0, 1, 2, 3), ()], ids=str)
def test_squeeze(dim):
    kw = {} if dim is None else {"dim": dim}
    check_view(lambda m, x: x.squeeze(**kw), (1, 2, 1, 3))
    check_op(lambda m, x: m.squeeze(x, **kw), [(1, 2, 1, 3)], ALL, LAYOUTS)


def test_squeeze_edges():
    check_view(lambda m, x: x.squeeze(), ())
    check_view(lambda m, x: x.squeeze(0), ())
    check_view(lambda m, x: x.squeeze(-1), ())
    check_view(lambda m, x: x.squeeze(), (1, 1))
    check_view(lambda m, x: x.squeeze(1), (0, 1))
    raises_like_torch(lambda m, x: x.squeeze(4), (1, 2, 1, 3))
    raises_like_torch(lambda m, x: x.squeeze((0, 0)), (1, 2, 1, 3))


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -2, -4], ids=str)
def test_unsqueeze(dim):
    check_view(lambda m, x: x.unsqueeze(dim), (2, 3, 4))
    check_view(lambda m, x: x.t().unsqueeze(min(dim, 2) if dim >= 0 else max(dim, -3)), (3, 4))
    check_op(lambda m, x: m.unsqueeze(x, dim), [(2, 3, 4)], ALL, LAYOUTS)


def test_unsqueeze_edges():
    check_view(lambda m, x: x.unsqueeze(0), ())
    check_view(lambda m, x: x.unsqueeze(-1), ())
    check_view(lambda m, x: x.unsqueeze(1), (0, 3))
    raises_like_torch(lambda m, x: x.unsqueeze(4))
    raises_like_torch(lambda m, x: x.unsqueeze(-5))
    raises_like_torch(lambda m, x: x.unsqueeze(1), ())


# ---- transpose / t / permute / T / mT -------------------------------------------------------------

@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (0, 2), (-1, 0), (-1, -2), (1, 1)], ids=str)
def test_transpose(dims):
    check_view(lambda m, x: x.transpose(*dims), (2, 3, 4))
    check_view(lambda m, x: m.transpose(x, *dims), (2, 3, 4))
    check_view(lambda m, x: x.swapaxes(*dims), (2, 3, 4))
    check_op(lambda m, x: x.transpose(*dims), [(2, 3, 4)], ALL, LAYOUTS)


def test_transpose_t_edges():
    check_view(lambda m, x: x.transpose(0, -1), ())
    check_view(lambda m, x: x.t(), ())
    check_view(lambda m, x: x.t(), (3,))
    check_view(lambda m, x: x.t(), (3, 4))
    check_view(lambda m, x: m.t(x), (0, 4))
    check_view(lambda m, x: x.permute(2, 1, 0), (2, 3, 4))  # what x.T does (deprecated in torch for 3-d)
    e = ember.zeros(2, 3, 4)
    assert e.T.shape == (4, 3, 2) and e.T.stride() == (1, 4, 12)
    check_view(lambda m, x: x.mT, (2, 3, 4))
    check_view(lambda m, x: x.T, (3, 5))
    raises_like_torch(lambda m, x: x.t())
    raises_like_torch(lambda m, x: x.transpose(0, 3))
    raises_like_torch(lambda m, x: x.mT, (3,))


@pytest.mark.parametrize("dims", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1), (2, 1, 0)], ids=str)
def test_permute(dims):
    check_view(lambda m, x: x.permute(*dims), (2, 3, 4))
    check_view(lambda m, x: x.permute(dims), (2, 3, 4))
    check_view(lambda m, x: m.permute(x, dims), (2, 3, 4))
    check_op(lambda m, x: x.permute(*dims), [(2, 3, 4)], ALL, LAYOUTS)


def test_permute_errors():
    raises_like_torch(lambda m, x: x.permute(0, 0, 1))
    raises_like_torch(lambda m, x: x.permute(2, 0, -1))
    raises_like_torch(lambda m, x: x.permute(0, 1))
    raises_like_torch(lambda m, x: x.permute(0, 1, 3))
    check_view(lambda m, x: x.permute(()), ())


# ---- expand --------------------------------------------------------------------------------

@pytest.mark.parametrize("src,target", [((3, 1), (3, 4)), ((3, 1), (2, 3, 4)), ((3, 1), (-1, 4)),
                                        ((1,), (5,)), ((), (2, 3)), ((3, 1), (3, 0)),
                                        ((1, 1), (2, -1, 3)), ((2, 3), (2, 3))], ids=str)
def test_expand(src, target):
    if target == (2, -1, 3):
        target = (4, -1, 3)  # a leading new dim takes a size; -1 keeps dim 1's size (1)
    check_view(lambda m, x: x.expand(*target), src)
    check_view(lambda m, x: x.expand(target), src)
    check_view(lambda m, x: x.expand_as(m.zeros([4 if s == -1 else s for s in target])) if -1 not in target
               else x.expand(target), src)
    check_op(lambda m, x: x.expand(*target), [src], ALL)


def test_expand_errors_and_writes():
    raises_like_torch(lambda m, x: x.expand(4, 4), (3, 1))
    raises_like_torch(lambda m, x: x.expand(4), (3, 1))
    raises_like_torch(lambda m, x: x.expand(-1, 3, 4), (3, 1))
    raises_like_torch(lambda m, x: x.expand(3, -2), (3, 1))
    e = ember.zeros(3, 1)
    x = e.expand(3, 4)
    assert x.stride() == (1, 0) and x._shares_storage(e) and not x.is_contiguous()
    e.add_(1)
    assert x.tolist() == [[1.0] * 4] * 3


# ---- narrow / select / diagonal -------------------------------------------------------------

@pytest.mark.parametrize("args", [(0, 0, 2), (0, 1, 1), (1, 1, 2), (-1, 1, 3), (2, -3, 2), (1, 3, 0),
                                  (0, 2, 0), (-2, 0, 3)], ids=str)
def test_narrow(args):
    check_view(lambda m, x: x.narrow(*args), (2, 3, 4))
    check_view(lambda m, x: m.narrow(x, *args), (2, 3, 4))
    check_op(lambda m, x: x.narrow(*args), [(2, 3, 4)], ALL, LAYOUTS)


def test_narrow_errors():
    raises_like_torch(lambda m, x: x.narrow(0, 8, 3), (10,))
    raises_like_torch(lambda m, x: x.narrow(0, 11, 0), (10,))
    raises_like_torch(lambda m, x: x.narrow(1, 1, -1), (3, 4))
    raises_like_torch(lambda m, x: x.narrow(2, 1, 1), (3, 4))
    raises_like_torch(lambda m, x: x.narrow(0, 0, 1), ())


@pytest.mark.parametrize("args", [(0, 0), (0, 1), (1, 2), (-1, 3), (2, -1), (-3, -2), (1, -3)], ids=str)
def test_select(args):
    check_view(lambda m, x: x.select(*args), (2, 3, 4))
    check_view(lambda m, x: m.select(x, *args), (2, 3, 4))
    check_op(lambda m, x: x.select(*args), [(2, 3, 4)], ALL, LAYOUTS)


def test_select_errors_and_zero_d_result():
    check_view(lambda m, x: x.select(0, 2), (5,))
    raises_like_torch(lambda m, x: x.select(0, 3), (3, 4))
    raises_like_torch(lambda m, x: x.select(0, -4), (3, 4))
    raises_like_torch(lambda m, x: x.select(2, 0), (3, 4))
    raises_like_torch(lambda m, x: x.select(0, 0), ())
    raises_like_torch(lambda m, x: x.select(1, 0), (3, 0))


@pytest.mark.parametrize("args", [(), (1,), (-1,), (3,), (5,), (-5,), (0, 1, 2), (1, -1, 0), (-2, 2, 0),
                                  (0, 0, 2)], ids=str)
def test_diagonal(args):
    check_view(lambda m, x: x.diagonal(*args), (3, 4, 5))
    check_view(lambda m, x: m.diagonal(x, *args), (3, 4, 5))
    check_op(lambda m, x: x.diagonal(*args), [(3, 4, 5)], ALL, LAYOUTS)
    if len(args) <= 1:
        check_view(lambda m, x: x.diagonal(*args), (4, 3))


def test_diagonal_kwargs_and_errors():
    check_view(lambda m, x: x.diagonal(offset=1, dim1=1, dim2=0), (3, 4))
    check_view(lambda m, x: x.diagonal(0), (0, 3))
    raises_like_torch(lambda m, x: x.diagonal(0, 1, 1))
    raises_like_torch(lambda m, x: x.diagonal(), (3,))
    raises_like_torch(lambda m, x: x.diagonal(0, 0, 3))


# ---- split / chunk / unbind -----------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 2, 3, 4, 10, 20, [2, 3, 5], (10,), [0, 10], [5, 0, 5]], ids=str)
def test_split(size):
    check_view(lambda m, x: x.split(size), (10, 2))
    check_view(lambda m, x: m.split(x, size), (10, 2))
    check_view(lambda m, x: x.t().split(size, 1), (10, 2))
    check_view(lambda m, x: x.t().split(size, dim=-1), (10, 2))


def test_split_edges_and_errors():
    check_view(lambda m, x: x.split(2), (0,))
    check_view(lambda m, x: x.split(0), (0,))
    check_view(lambda m, x: x.split(2, 1), (3, 0))
    raises_like_torch(lambda m, x: x.split(0), (10,))
    raises_like_torch(lambda m, x: x.split([2, 3]), (10,))
    raises_like_torch(lambda m, x: x.split(-1), (10,))
    raises_like_torch(lambda m, x: x.split([11, -1]), (10,))
    raises_like_torch(lambda m, x: x.split(2), ())
    raises_like_torch(lambda m, x: x.split(2, 2), (3, 4))


@pytest.mark.parametrize("n,chunks", [(10, 3), (10, 4), (10, 20), (6, 4), (5, 4), (12, 5), (1, 1),
                                      (0, 3), (7, 7), (9, 2)], ids=str)
def test_chunk(n, chunks):
    check_view(lambda m, x: x.chunk(chunks), (n, 2))
    check_view(lambda m, x: m.chunk(x, chunks, 1), (2, n))
    check_view(lambda m, x: x.chunk(chunks, dim=-1), (2, n))


def test_chunk_errors():
    raises_like_torch(lambda m, x: x.chunk(0), (10,))
    raises_like_torch(lambda m, x: x.chunk(-1), (10,))
    raises_like_torch(lambda m, x: x.chunk(2), ())
    raises_like_torch(lambda m, x: x.chunk(2, 3), (3, 4))


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3], ids=str)
def test_unbind(dim):
    check_view(lambda m, x: x.unbind(dim), (2, 3, 4))
    check_view(lambda m, x: m.unbind(x, dim), (2, 3, 4))
    check_op(lambda m, x: x.unbind(dim), [(2, 3, 4)], ALL, LAYOUTS)


def test_unbind_edges_and_iteration():
    check_view(lambda m, x: x.unbind(), (0, 3))
    check_view(lambda m, x: x.unbind(1), (3, 0))
    raises_like_torch(lambda m, x: x.unbind(), ())
    raises_like_torch(lambda m, x: x.unbind(3))
    e, t = pair((3, 2))
    assert [r.tolist() for r in e] == [r.tolist() for r in t]
    assert all(r._shares_storage(e) for r in e)


# ---- cat / stack ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_cat(dim, layout):
    check_op(lambda m, x, y, z: m.cat([x, y, z], dim), [(2, 3), (2, 3), (2, 3)], ALL, [layout])
    shapes = [(1, 3), (2, 3), (4, 3)] if dim in (0, -2) else [(2, 1), (2, 3), (2, 4)]
    check_op(lambda m, x, y, z: m.cat((x, y, z), dim=dim), shapes, ALL, [layout])


def test_cat_promotion_and_empties():
    for da, db in [("float32", "int64"), ("int32", "uint8"), ("bool", "uint8"), ("bool", "float64"),
                   ("int64", "float64"), ("bool", "bool")]:
        check_op(lambda m, x, y: m.cat([x.to(getattr(m, da)), y.to(getattr(m, db))]),
                 [(2, 3), (1, 3)], ["float64"], low=0, high=5)
    check_op(lambda m, x, y: m.cat([x, y]), [(0,), (2, 3)], ["float32"])       # legacy 1-d empty skip
    check_op(lambda m, x, y: m.cat([x, y], 1), [(2, 0), (2, 3)], ["float32"])
    check_op(lambda m, x, y: m.cat([x, y]), [(0, 3), (2, 3)], ["float32"])
    check_op(lambda m, x, y: m.cat([x, y]), [(0,), (0,)], ["int64"])
    check_op(lambda m, x: m.cat([x]), [(2, 3)], ALL)
    e = ember.ones(2)
    c = ember.cat([e, e])
    assert not c._shares_storage(e)


def test_cat_errors():
    two = lambda m, shapes: [m.zeros(s) for s in shapes]  # noqa: E731
    for shapes, dim in [([(2, 3), (2, 2)], 0), ([(2,), (2, 2)], 0), ([(2, 2)], 2), ([(), ()], 0)]:
        with pytest.raises(Exception):
            torch.cat(two(torch, shapes), dim)
        with pytest.raises((ValueError, IndexError)):
            ember.cat(two(ember, shapes), dim)
    with pytest.raises(ValueError, match="cat"):
        ember.cat([])
    with pytest.raises(ValueError, match=r"cat.*\(2, 3\).*\(2, 2\)"):
        ember.cat([ember.zeros(2, 3), ember.zeros(2, 2)])
    with pytest.raises(TypeError):
        ember.cat([ember.zeros(2), 3])


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(dim):
    check_op(lambda m, x, y: m.stack([x, y], dim), [(2, 3), (2, 3)], ALL, LAYOUTS)
    check_op(lambda m, x, y: m.stack((x, y), dim=dim), [(2, 3), (2, 3)], ["float32"])


def test_stack_edges_and_errors():
    check_op(lambda m, x, y: m.stack([x, y]), [(), ()], ALL)
    check_op(lambda m, x, y: m.stack([x, y]), [(0, 2), (0, 2)], ["float32"])
    check_op(lambda m, x, y: m.stack([x, y.double()]), [(2,), (2,)], ["float32"])
    for shapes, dim in [([(3,), (2,)], 0), ([(3,), (3,)], 2), ([(3,), (3,)], -3)]:
        with pytest.raises(Exception):
            torch.stack([torch.zeros(s) for s in shapes], dim)
        with pytest.raises((ValueError, IndexError)):
            ember.stack([ember.zeros(s) for s in shapes], dim)
    with pytest.raises(ValueError, match="stack"):
        ember.stack([])


# ---- clone / detach / contiguous --------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_clone_contiguous_detach(layout):
    check_op(lambda m, x: x.clone(), [(3, 4)], ALL, [layout])
    check_op(lambda m, x: m.clone(x), [(3, 4)], ALL, [layout])
    check_op(lambda m, x: x.contiguous(), [(3, 4)], ALL, [layout])
    check_op(lambda m, x: x.detach(), [(3, 4)], ALL, [layout])
    check_op(lambda m, x: m.detach(x), [(3, 4)], ["float32"], [layout])


def test_clone_contiguous_detach_storage():
    e = ember.arange(12).view(3, 4)
    c = e.clone()
    assert not c._shares_storage(e) and c.is_contiguous()
    c.add_(1)
    assert e.tolist()[0][0] == 0
    assert e.contiguous()._is_same(e)                   # already contiguous: the same tensor
    tc = e.t().contiguous()
    assert tc.is_contiguous() and not tc._shares_storage(e) and tc.stride() == (3, 1)
    assert tc.tolist() == torch.arange(12).view(3, 4).t().tolist()
    d = e.detach()
    assert d._shares_storage(e) and not d._is_same(e)
    d.add_(100)
    assert e.tolist()[0][0] == 100                      # detach shares data...
    assert d._version == e._version                     # ...and the version counter
    z = ember.tensor(5.0)
    assert z.clone().shape == () and z.contiguous().item() == 5.0
    assert ember.zeros(0, 3).clone().shape == (0, 3)


def test_is_contiguous_matches_torch():
    for fn in [lambda x: x, lambda x: x.t(), lambda x: x.narrow(1, 0, 2), lambda x: x.narrow(0, 1, 2),
               lambda x: x.select(1, 0), lambda x: x.unsqueeze(1), lambda x: x.expand(2, 3, 4),
               lambda x: x.narrow(1, 0, 1), lambda x: x.view(12, 1).t(), lambda x: x.diagonal()]:
        e, t = pair((3, 4))
        assert fn(e).is_contiguous() == fn(t).is_contiguous()


# ---- sharing and the version counter through views ---------------------------------------------

VIEW_FNS = {
    "view": lambda x: x.view(4, 3),
    "reshape": lambda x: x.reshape(2, 6),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "permute": lambda x: x.permute(1, 0),
    "expand": lambda x: x.unsqueeze(0).expand(2, 3, 4),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(0, 1),
    "diagonal": lambda x: x.diagonal(),
    "split": lambda x: x.split(2, 1)[1],
    "chunk": lambda x: x.chunk(3)[2],
    "unbind": lambda x: x.unbind(1)[3],
    "detach": lambda x: x.detach(),
    "T": lambda x: x.T,
    "view_as": lambda x: x.view_as(ember.zeros(12) if isinstance(x, ember.Tensor) else torch.zeros(12)),
}


@pytest.mark.parametrize("name", list(VIEW_FNS))
def test_views_share_storage_and_version(name):
    fn = VIEW_FNS[name]
    e, t = pair((3, 4), "float32")
    ev, tv = fn(e), fn(t)
    assert e._shares_storage(ev)
    v0 = e._version
    if name != "expand":
        ev.add_(10)           # write through the view...
        tv.add_(10)
        assert_same(e, t)     # ...the base sees it
        assert e._version > v0 and ev._version == e._version
    e.mul_(2)                 # write to the base: the view sees it
    t.mul_(2)
    assert_same(ev, tv)
    assert ev._version == e._version


def test_views_of_views_keep_offsets():
    check_view(lambda m, x: x.narrow(0, 1, 2).select(1, 2).unsqueeze(0).expand(3, 2), (4, 5))
    check_view(lambda m, x: x.t().narrow(0, 1, 3).diagonal(), (5, 6))
    check_view(lambda m, x: x.permute(2, 0, 1).select(0, 3).t().narrow(0, 1, 2), (2, 3, 5))
    check_view(lambda m, x: x.split(2)[1].view(-1).narrow(0, 3, 3), (6, 3))


def test_view_errors_name_the_op():
    with pytest.raises(IndexError, match="transpose"):
        ember.zeros(2, 3).transpose(0, 2)
    with pytest.raises(IndexError, match="select"):
        ember.zeros(2, 3).select(0, 5)
    with pytest.raises(ValueError, match="expand"):
        ember.zeros(3, 1).expand(4, 4)
    with pytest.raises(TypeError):
        ember.zeros(2, 3).view("a")
    with pytest.raises(TypeError):
        ember.zeros(2, 3).reshape(2.5, 2)


def test_split_keyword_names_as_torch():
    # torch names the sizes split_size in Tensor.split and split_size_or_sections in torch.split
    x, tx = ember.arange(6.0), torch.arange(6.0)
    for e, t in [(x.split(split_size=2), tx.split(split_size=2)),
                 (ember.split(x, split_size_or_sections=[1, 5]), torch.split(tx, split_size_or_sections=[1, 5])),
                 (ember.split(tensor=x, split_size_or_sections=4, dim=0), torch.split(tensor=tx, split_size_or_sections=4, dim=0))]:
        assert [p.tolist() for p in e] == [p.tolist() for p in t]
    for v in (x, tx):
        with pytest.raises(TypeError):
            v.split(split_size_or_sections=2)
