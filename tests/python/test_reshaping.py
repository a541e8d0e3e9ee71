"""Shape and join functions of python/ember/_reshaping.py (tile, repeat, repeat_interleave,
*stack, atleast_*d, movedim, broadcast_*, meshgrid, diag*, trace, rot90, block_diag,
cartesian_prod, combinations, take, index_add/copy/fill, tensor_split/hsplit/vsplit/dsplit,
ravel): forward and gradients against PyTorch, gradchecks, 0-d/empty and bad inputs."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op, gradcheck_op

ALL = ["bool", "uint8", "int32", "int64", "float32", "float64"]
NUM = ["int64", "float32", "float64"]


def _idx(m, values):
    return m.tensor(values)


FORWARD = {
    "repeat": (lambda m, x: x.repeat(2, 1, 3), [(3, 4)], ALL),
    "repeat_list": (lambda m, x: x.repeat([2, 2]), [(3, 4)], NUM),
    "tile": (lambda m, x: m.tile(x, (2,)), [(3, 4)], ALL),
    "tile_more": (lambda m, x: x.tile(2, 1, 2), [(3, 4)], NUM),
    "repeat_interleave": (lambda m, x: m.repeat_interleave(x, 2), [(3, 4)], ALL),
    "repeat_interleave_dim": (lambda m, x: x.repeat_interleave(3, dim=1), [(3, 4)], NUM),
    "repeat_interleave_tensor": (lambda m, x: m.repeat_interleave(x, _idx(m, [1, 0, 3]), dim=0),
                                 [(3, 4)], NUM),
    "repeat_interleave_index": (lambda m, x: m.repeat_interleave(_idx(m, [2, 0, 1, 3])), [(1,)], ["int64"]),
    "atleast": (lambda m, a, b, c: (m.atleast_1d(a), m.atleast_2d(a, b), m.atleast_3d([a, b, c])),
                [(), (4,), (3, 4)], NUM),
    "atleast_3d_2d": (lambda m, x: m.atleast_3d(x), [(2, 3)], NUM),
    "vstack": (lambda m, a, b: m.vstack([a, b]), [(4,), (3, 4)], NUM),
    "row_stack": (lambda m, a, b: m.row_stack((a, b)), [(2, 4), (3, 4)], NUM),
    "hstack": (lambda m, a, b: m.hstack([a, b]), [(3, 2), (3, 4)], NUM),
    "hstack_1d": (lambda m, a, b: m.hstack([a, b]), [(3,), (4,)], NUM),
    "dstack": (lambda m, a, b: m.dstack([a, b]), [(3, 4), (3, 4)], NUM),
    "column_stack": (lambda m, a, b: m.column_stack([a, b]), [(3,), (3, 2)], NUM),
    "movedim": (lambda m, x: m.movedim(x, 0, -1), [(2, 3, 4)], ALL),
    "movedim_many": (lambda m, x: x.movedim((0, 1), (2, 0)), [(2, 3, 4)], NUM),
    "moveaxis": (lambda m, x: m.moveaxis(x, -1, 0), [(2, 3, 4)], NUM),
    "swapdims": (lambda m, x: m.swapdims(x, 0, 2), [(2, 3, 4)], NUM),
    "ravel": (lambda m, x: m.ravel(x), [(3, 4)], ALL),
    "broadcast_tensors": (lambda m, a, b: m.broadcast_tensors(a, b), [(3, 1), (4,)], NUM),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (2, 3, 4)), [(3, 1)], NUM),
    "meshgrid_ij": (lambda m, a, b, c: m.meshgrid(a, b, c, indexing="ij"), [(2,), (3,), (4,)], NUM),
    "meshgrid_xy": (lambda m, a, b, c: m.meshgrid([a, b, c], indexing="xy"), [(2,), (3,), (4,)], NUM),
    "meshgrid_0d": (lambda m, a, b: m.meshgrid(a, b, indexing="xy"), [(), (3,)], NUM),
    "diag_1d": (lambda m, x: m.diag(x), [(4,)], ALL),
    "diag_1d_offset": (lambda m, x: m.diag(x, 2), [(3,)], NUM),
    "diag_1d_neg": (lambda m, x: x.diag(-1), [(3,)], NUM),
    "diag_2d": (lambda m, x: m.diag(x, 1), [(3, 4)], ALL),
    "diag_embed": (lambda m, x: m.diag_embed(x), [(2, 3)], NUM),
    "diag_embed_dims": (lambda m, x: m.diag_embed(x, -1, 0, 2), [(2, 3)], NUM),
    "diagflat": (lambda m, x: m.diagflat(x, 1), [(2, 2)], NUM),
    "trace": (lambda m, x: m.trace(x), [(3, 4)], ["int32", "int64", "float32", "float64"]),
    "rot90": (lambda m, x: m.rot90(x), [(3, 4)], NUM),
    "rot90_k": (lambda m, x: (x.rot90(2), x.rot90(3, [1, 2]), x.rot90(-1, (0, 2))), [(2, 3, 4)], NUM),
    "block_diag": (lambda m, a, b, c: m.block_diag(a, b, c), [(2, 3), (4,), ()], NUM),
    "cartesian_prod": (lambda m, a, b: m.cartesian_prod(a, b), [(3,), (2,)], NUM),
    "combinations": (lambda m, x: m.combinations(x), [(4,)], NUM),
    "combinations_r3": (lambda m, x: m.combinations(x, 3, with_replacement=True), [(4,)], NUM),
    "take": (lambda m, x: m.take(x, _idx(m, [[0, -1], [5, 11]])), [(3, 4)], ALL),
    "index_add": (lambda m, x, s: x.index_add(0, _idx(m, [2, 0, 2]), s, alpha=2), [(3, 4), (3, 4)], NUM),
    "index_copy": (lambda m, x, s: m.index_copy(x, 1, _idx(m, [3, 0]), s), [(3, 4), (3, 2)], NUM),
    "index_fill": (lambda m, x: m.index_fill(x, 1, _idx(m, [3, 0]), -1), [(3, 4)], NUM),
    "tensor_split": (lambda m, x: m.tensor_split(x, 3, dim=1), [(3, 7)], ALL),
    "tensor_split_indices": (lambda m, x: x.tensor_split([1, 5, 3, -2, 9]), [(7, 2)], NUM),
    "tensor_split_tensor": (lambda m, x: m.tensor_split(x, _idx(m, [2, 4]), 1), [(3, 7)], NUM),
    "hsplit": (lambda m, x: m.hsplit(x, 2), [(3, 4)], NUM),
    "hsplit_1d": (lambda m, x: m.hsplit(x, [1, 2]), [(5,)], NUM),
    "vsplit": (lambda m, x: x.vsplit(3), [(3, 4)], NUM),
    "dsplit": (lambda m, x: m.dsplit(x, [1]), [(2, 3, 4)], NUM),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    fn, shapes, dtypes = FORWARD[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(fn, shapes, dtypes=dtypes, layouts=LAYOUTS)


GRADS = {
    "repeat": (lambda m, x: x.repeat(2, 1, 3), [(3, 4)]),
    "tile": (lambda m, x: m.tile(x, (2, 2)), [(3, 4)]),
    "repeat_interleave": (lambda m, x: m.repeat_interleave(x, 2, dim=0), [(3, 4)]),
    "repeat_interleave_tensor": (lambda m, x: x.repeat_interleave(_idx(m, [2, 0, 1, 1]), 1), [(3, 4)]),
    "vstack": (lambda m, a, b: m.vstack([a, b]), [(4,), (3, 4)]),
    "dstack": (lambda m, a, b: m.dstack([a, b]), [(1, 4), (4,)]),
    "movedim": (lambda m, x: m.movedim(x, (0, 2), (1, 0)), [(2, 3, 4)]),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (2, 3, 4)), [(3, 1)]),
    "meshgrid": (lambda m, a, b: m.meshgrid(a, b, indexing="xy"), [(3,), (4,)]),
    "diag": (lambda m, x: m.diag(x, -1), [(4,)]),
    "diag_2d": (lambda m, x: m.diag(x, 1), [(4, 4)]),
    "diag_embed": (lambda m, x: m.diag_embed(x, 1, 0, 2), [(2, 3)]),
    "trace": (lambda m, x: m.trace(x), [(3, 4)]),
    "rot90": (lambda m, x: m.rot90(x, 3), [(3, 4)]),
    "block_diag": (lambda m, a, b: m.block_diag(a, b), [(2, 3), (3,)]),
    "cartesian_prod": (lambda m, a, b: m.cartesian_prod(a, b), [(3,), (2,)]),
    "combinations": (lambda m, x: m.combinations(x, 2), [(4,)]),
    "take": (lambda m, x: m.take(x, _idx(m, [0, -1, 0, 5])), [(3, 4)]),
    "index_add": (lambda m, x, s: x.index_add(1, _idx(m, [2, 0, 2]), s), [(3, 4), (3, 3)]),
    "index_copy": (lambda m, x, s: x.index_copy(0, _idx(m, [2, 0]), s), [(3, 4), (2, 4)]),
    "index_fill": (lambda m, x: x.index_fill(0, _idx(m, [1]), 2.5), [(3, 4)]),
    "tensor_split": (lambda m, x: m.tensor_split(x, 3, 1), [(3, 7)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_matches_torch(name):
    fn, shapes = GRADS[name]
    check_grad(fn, shapes, layouts=LAYOUTS)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, shapes = GRADS[name]
    gradcheck_op(lambda m, *xs: fn(m, *xs), shapes)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0)])
def test_0d_and_empty(shape):
    fns = [lambda m, x: m.ravel(x), lambda m, x: m.atleast_2d(x), lambda m, x: m.tile(x, (2,)),
           lambda m, x: m.repeat_interleave(x, 2), lambda m, x: m.broadcast_to(x, (3,) + x.shape)]
    if len(shape) >= 1:
        fns += [lambda m, x: m.tensor_split(x, 2), lambda m, x: m.vstack([x, x])]
    for fn in fns:
        check_op(fn, [shape], dtypes=["float32"])


def test_broadcast_shapes_and_inplace_index_ops():
    assert ember.broadcast_shapes((3, 1), (4,), 1) == torch.broadcast_shapes((3, 1), (4,), 1)
    assert ember.broadcast_shapes() == torch.broadcast_shapes()
    x, t = ember.zeros(3, 4), torch.zeros(3, 4)
    for name, args in (("index_add_", (0, [2, 0], "s")), ("index_copy_", (0, [1, 2], "s")),
                       ("index_fill_", (1, [0, 3], 7.0))):
        src = np.arange(8.0).reshape(2, 4)
        ea = [ember.tensor(a) if isinstance(a, list) else ember.from_numpy(src.copy()) if a == "s"
              else a for a in args]
        ta = [torch.tensor(a) if isinstance(a, list) else torch.from_numpy(src.copy()) if a == "s"
              else a for a in args]
        ea[-1] = ea[-1].float() if isinstance(ea[-1], ember.Tensor) else ea[-1]
        ta[-1] = ta[-1].float() if isinstance(ta[-1], torch.Tensor) else ta[-1]
        assert getattr(x, name)(*ea) is x
        getattr(t, name)(*ta)
        assert_same(x, t)


def test_repeat_and_tile_return_new_memory():
    # repeat, tile and repeat_interleave always copy, as torch: an unsqueezed tensor repeated along the new dim used to come
    # back as a stride-0 view, so an in-place write landed in every repeat (pyro's _cummin)
    for lib in (torch, ember):
        x = lib.arange(6.0).reshape(3, 2)
        cases = [(lambda v: v.unsqueeze(0).repeat(3, 1, 1)), (lambda v: v.repeat(1, 1)),
                 (lambda v: v.repeat(2, 1)), (lambda v: lib.tile(v, (1,))),
                 (lambda v: v[:, :1].repeat(1, 4)), (lambda v: v.t().repeat(1, 1)),
                 (lambda v: v[:1].repeat_interleave(3, dim=0)), (lambda v: v.repeat_interleave(1, 0)),
                 (lambda v: lib.repeat_interleave(v[:, :1], 1))]
        for fn in cases:
            r = fn(x)
            assert r.is_contiguous() and r.data_ptr() != x.data_ptr()
            r.fill_(-1.0)
            assert x.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    n = 4
    for lib in (torch, ember):
        v = lib.tensor([[3.0, 1.0], [2.0, 5.0], [0.5, 4.0], [1.0, 0.0]])
        tril = v.unsqueeze(0).repeat(n, 1, 1)
        mask = lib.ones(n, n).triu(diagonal=1).reshape(n, n, 1).expand(n, n, 2) > 0.5
        tril.masked_fill_(mask, v.max())
        got = tril.min(dim=1)[0].tolist()
        assert got == [[3.0, 1.0], [2.0, 1.0], [0.5, 1.0], [0.5, 0.0]], (lib.__name__, got)


def test_meshgrid_without_indexing_warns_as_torch():
    with pytest.warns(UserWarning, match="indexing"):
        ember.meshgrid(ember.ones(2), ember.ones(3))


def test_bad_inputs():
    x = ember.ones(3, 4)
    with pytest.raises(RuntimeError, match="repeat.*smaller"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match="broadcast_tensors.*\\(3, 4\\).*\\(5, 6\\)"):
        ember.broadcast_tensors(x, ember.ones(5, 6))
    with pytest.raises(RuntimeError, match="meshgrid"):
        ember.meshgrid(x, x, indexing="ij")
    with pytest.raises(RuntimeError, match="meshgrid"):
        ember.meshgrid(ember.ones(2), ember.ones(2), indexing="yx")
    with pytest.raises(RuntimeError, match="diag"):
        ember.diag(ember.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="trace"):
        ember.trace(ember.ones(3))
    with pytest.raises(RuntimeError, match="rot90"):
        ember.rot90(x, 1, [0, 0])
    with pytest.raises(RuntimeError, match="rot90"):
        ember.rot90(ember.ones(3))
    with pytest.raises(IndexError, match="take.*12"):
        ember.take(x, ember.tensor([12]))
    with pytest.raises(RuntimeError, match="hsplit.*divisible"):
        ember.hsplit(x, 3)
    with pytest.raises(RuntimeError, match="vsplit"):
        ember.vsplit(ember.ones(4), 2)
    with pytest.raises(RuntimeError, match="tensor_split"):
        ember.tensor_split(ember.tensor(1.0), 2)
    with pytest.raises(RuntimeError, match="repeat_interleave"):
        ember.repeat_interleave(x, ember.tensor([1, 2]), dim=0)
    with pytest.raises(RuntimeError, match="repeat_interleave.*negative"):
        ember.repeat_interleave(ember.tensor([1, -1]))
    with pytest.raises(IndexError, match="index_add"):
        x.index_add(0, ember.tensor([3]), ember.ones(1, 4))
    with pytest.raises(RuntimeError, match="block_diag"):
        ember.block_diag(ember.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="combinations"):
        ember.combinations(x)
    with pytest.raises(TypeError, match="vstack"):
        ember.vstack(x)
    with pytest.raises(IndexError, match="movedim"):
        ember.movedim(x, 5, 0)
    with pytest.raises(TypeError, match="index_add.*source"):
        ember.index_add(x, 0, ember.tensor([0]), 3)
    with pytest.raises(TypeError, match="index_fill.*index"):
        ember.index_fill(x, 0, [0], 1.0)
    with pytest.raises(TypeError, match="repeat_interleave.*repeats"):
        ember.repeat_interleave(x, "abc")
    for call in (lambda m: m.ones(3, 4).repeat(2), lambda m: m.trace(m.ones(3)),
                 lambda m: m.hsplit(m.ones(3, 4), 3), lambda m: m.rot90(m.ones(3))):
        with pytest.raises(RuntimeError):
            call(torch)
