"""ember.ops.aten: the aten overloads libraries name directly (PyG keys its Index/EdgeIndex
handlers by them), each called as torch.ops.aten's with the same arguments against torch 2.13;
their names and reprs, identity across lookups, and the errors for what the table lacks."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

A = np.random.default_rng(0).uniform(-2, 2, (3, 4)).astype(np.float32)


def _x(lib):
    return lib.from_numpy(A.copy())


def _idx(lib):
    return lib.tensor([2, 0, 2])


CALLS = {
    "clone.default": lambda a, lib: a.clone.default(_x(lib).t()),
    "clone.default memory_format": lambda a, lib: a.clone.default(
        _x(lib).t(), memory_format=lib.contiguous_format),
    "detach.default": lambda a, lib: a.detach.default(_x(lib).requires_grad_()),
    "alias.default": lambda a, lib: a.alias.default(_x(lib).t()),
    "_to_copy.default": lambda a, lib: a._to_copy.default(_x(lib), dtype=lib.float64),
    "_to_copy.default plain": lambda a, lib: a._to_copy.default(_x(lib)),
    "cat.default": lambda a, lib: a.cat.default([_x(lib), _x(lib)], 1),
    "flip.default": lambda a, lib: a.flip.default(_x(lib), [0, 1]),
    "index_select.default": lambda a, lib: a.index_select.default(_x(lib), 1, _idx(lib)),
    "slice.Tensor": lambda a, lib: a.slice.Tensor(_x(lib), 1, 1, 2 ** 63 - 1, 2),
    "slice.Tensor negative dim": lambda a, lib: a.slice.Tensor(_x(lib), -2, -2),
    "index.Tensor": lambda a, lib: a.index.Tensor(_x(lib), [None, _idx(lib)]),
    "index.Tensor two": lambda a, lib: a.index.Tensor(_x(lib), [lib.tensor([0, 1]),
                                                                lib.tensor([3, 3])]),
    "select.int": lambda a, lib: a.select.int(_x(lib), 1, -1),
    "unbind.int": lambda a, lib: a.unbind.int(_x(lib), 1),
    "unsqueeze.default": lambda a, lib: a.unsqueeze.default(_x(lib), -1),
    "squeeze.default": lambda a, lib: a.squeeze.default(_x(lib).view(3, 1, 4, 1)),
    "squeeze.dim": lambda a, lib: a.squeeze.dim(_x(lib).view(3, 1, 4, 1), 1),
    "squeeze.dims": lambda a, lib: a.squeeze.dims(_x(lib).view(3, 1, 4, 1), [1, 3]),
    "sort.default": lambda a, lib: a.sort.default(_x(lib), 0, True),
    "sort.stable": lambda a, lib: a.sort.stable(lib.tensor([2, 1, 2, 1]), stable=True),
    "add.Tensor": lambda a, lib: a.add.Tensor(_x(lib), _x(lib), alpha=2),
    "sub.Tensor": lambda a, lib: a.sub.Tensor(_x(lib), 1.5),
    "add_.Tensor": lambda a, lib: a.add_.Tensor(_x(lib), _x(lib), alpha=-1),
    "sub_.Tensor": lambda a, lib: a.sub_.Tensor(_x(lib), _x(lib)[0]),
    "mm.default": lambda a, lib: a.mm.default(_x(lib), _x(lib).t()),
    "addmm.default": lambda a, lib: a.addmm.default(lib.ones(3), _x(lib), _x(lib).t(), beta=2),
    "bmm.default": lambda a, lib: a.bmm.default(_x(lib)[None], _x(lib).t()[None]),
    "packet call": lambda a, lib: a.add(_x(lib), _x(lib)),
}


@pytest.mark.parametrize("case", list(CALLS))
def test_aten_overload_matches_torch(case):
    want = CALLS[case](torch.ops.aten, torch)
    got = CALLS[case](ember.ops.aten, ember)
    assert type(got) is tuple if type(want) is tuple else True
    assert_same(got, want)


def test_aten_overload_views_and_copies_as_torch():
    for lib in (torch, ember):
        x = _x(lib).t()
        alias = lib.ops.aten.alias.default(x)
        assert alias.data_ptr() == x.data_ptr() and alias.stride() == x.stride()
        copy = lib.ops.aten._to_copy.default(x)
        assert copy.data_ptr() != x.data_ptr()
        y = _x(lib)
        assert lib.ops.aten.add_.Tensor(y, 1) is y
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            lib.ops.aten._pin_memory.default(y)  # no accelerator to pin for, in either


def test_aten_sparse_addmm_matches_torch():
    i, v = [[0, 1, 2], [1, 3, 0]], [1.0, 2.0, 3.0]
    dense = A[:, :4].T.copy()
    outs = []
    for lib in (torch, ember):
        s = lib.sparse_coo_tensor(lib.tensor(i), lib.tensor(v), (3, 4))
        outs.append(lib.ops.aten._sparse_addmm.default(lib.ones(3, 3), s, lib.from_numpy(dense),
                                                       beta=0.5, alpha=2.0))
    assert_same(outs[1], outs[0])


def test_aten_names_reprs_and_identity():
    for lib in (torch, ember):
        aten = lib.ops.aten
        assert aten.clone.default is aten.clone.default and aten.clone is aten.clone
        assert aten.clone.default.overloadpacket is aten.clone
        assert repr(aten.clone.default) == "<OpOverload(op='aten.clone', overload='default')>"
        assert repr(aten.slice) == "<OpOverloadPacket(op='aten.slice')>"
        assert str(aten.slice.Tensor) == "aten.slice.Tensor"
        assert aten.clone.default.name() == "aten::clone"
        assert aten.slice.Tensor.name() == "aten::slice.Tensor"
        assert aten.squeeze.dims.__name__ == "squeeze.dims"
        assert {"default", "dim", "dims"} <= set(aten.squeeze.overloads())
        assert hasattr(aten, "clone") and hasattr(aten.squeeze, "dims")
        assert not hasattr(aten.clone, "no_such_overload")


def test_aten_missing_names_say_so():
    with pytest.raises(AttributeError, match="ember does not implement torch.ops.aten.conv_tbc"):
        ember.ops.aten.conv_tbc
    with pytest.raises(AttributeError, match="no overload name 'Scalar'"):
        ember.ops.aten.mm.Scalar
    with pytest.raises(TypeError, match="aten::index.Tensor: indices must be a list"):
        ember.ops.aten.index.Tensor(ember.ones(2), ember.tensor([0]))
    with pytest.raises(RuntimeError, match="aten::_to_copy"):
        ember.ops.aten._to_copy.default(ember.ones(2), layout=ember.sparse_coo)
