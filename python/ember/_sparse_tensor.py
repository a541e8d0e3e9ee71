"""Sparse COO tensors as torch shows them: ember.sparse_coo_tensor, the layout ember.sparse_coo,
and the Tensor methods (is_sparse, indices(), values(), coalesce(), to_dense(), to_sparse(), ...).
The math is in C++ (src/ops/sparse.cpp); this module only shapes torch's signatures."""
from . import _C
from ._tensor_attributes import (layout, strided, sparse_coo, sparse_csr, sparse_csc,  # noqa: F401
                                 sparse_bsr, sparse_bsc)
from ._printing import tensor_repr as _dense_repr


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, requires_grad=False,
                      check_invariants=None, is_coalesced=None, pin_memory=False):
    """sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
    requires_grad=False) -> Tensor

    A sparse COO tensor: values[k] sits at indices[:, k]. Without size, each sparse dim is the
    largest index + 1. Duplicate indices are kept until coalesce() sums them.

    >>> i = ember.tensor([[0, 1], [2, 0]])
    >>> ember.sparse_coo_tensor(i, ember.tensor([3.0, 4.0]), (2, 3)).to_dense()
    tensor([[0., 0., 3.],
            [4., 0., 0.]])
    """
    from . import Tensor, as_tensor
    from ._device import tensor_to_device as _to_device
    if device is not None:
        _to_device(device, "sparse_coo_tensor")
    if not isinstance(indices, Tensor):
        indices = as_tensor(indices)
    if not indices.dtype.is_floating_point and indices.dtype != _int64():
        indices = indices.to(_int64())  # torch takes any integer indices and stores int64
    if not isinstance(values, Tensor):
        values = as_tensor(values, dtype=dtype)
    if dtype is not None and values.dtype != dtype:
        values = values.to(dtype)
    if requires_grad:
        values = values.detach()
    out = _C._sparse_coo_tensor(indices, values, None if size is None else [int(s) for s in size])
    if is_coalesced is not None:  # trusted, as torch trusts it (its invariant checks are off)
        _C._set_coalesced(out, bool(is_coalesced))
    return out.requires_grad_() if requires_grad else out


def _int64():
    from ._dtype import int64
    return int64


def _layout(self):
    """layout -> ember.layout

    ember.sparse_coo, sparse_csr or sparse_csc for a sparse tensor, else ember.strided.

    >>> ember.zeros(2).layout, ember.eye(2).to_sparse().layout
    (ember.strided, ember.sparse_coo)
    """
    return _compressed.layout_of(self) or strided


def _is_sparse(self):
    """is_sparse -> bool: whether self is a sparse COO tensor.

    >>> ember.eye(2).is_sparse, ember.eye(2).to_sparse().is_sparse
    (False, True)
    """
    return _C._sparse_layout(self) == 0


def _is_sparse_csr(self):
    """is_sparse_csr -> bool: whether self is a sparse CSR tensor.

    >>> ember.eye(2).to_sparse_csr().is_sparse_csr, ember.eye(2).to_sparse().is_sparse_csr
    (True, False)
    """
    return _C._sparse_layout(self) == 1


def _sparse_check(self, what, coo_only=True):
    if not _C._is_sparse(self):
        raise RuntimeError(f"{what}: expected a sparse tensor, got one with layout ember.strided")
    if coo_only and _compressed.is_compressed(self):
        _compressed.refuse_coo_only(self, what)


def _indices(self):
    """indices() -> Tensor: the int64 indices [sparse_dim, nnz] (of a coalesced tensor).

    >>> s = ember.tensor([[0., 2.], [3., 0.]]).to_sparse()
    >>> s.indices()
    tensor([[0, 1],
            [1, 0]])
    """
    _sparse_check(self, "indices")
    if not _C._is_coalesced(self):
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() "
                           "first")
    return _C._sparse_indices(self)


def _values(self):
    """values() -> Tensor: the values [nnz, *dense_dims] (of a coalesced COO tensor, or of a
    CSR/CSC one: [*batch, nnz, *dense_dims]); differentiable, as torch's.

    >>> s = ember.tensor([[0., 2.], [3., 0.]]).to_sparse()
    >>> s.values()
    tensor([2., 3.])
    """
    _sparse_check(self, "values", coo_only=False)
    if _compressed.is_compressed(self):
        return _compressed.compressed_values(self)
    if not _C._is_coalesced(self):
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() "
                           "first")
    return _C._sparse_values_grad(self)


def _raw_indices(self):
    """_indices() -> Tensor: the indices as stored, coalesced or not."""
    _sparse_check(self, "_indices")
    return _C._sparse_indices(self)


def _raw_values(self):
    """_values() -> Tensor: the values as stored, coalesced or not."""
    _sparse_check(self, "_values")
    return _C._sparse_values(self)


def _nnz(self):
    """_nnz() -> int: the number of stored entries (duplicates counted)."""
    _sparse_check(self, "_nnz", coo_only=False)
    if _compressed.is_compressed(self):
        return _compressed.compressed_nnz(self)
    return _C._sparse_indices(self).shape[1]


def _sparse_dim(self):
    """sparse_dim() -> int: dims held by indices (0 for a strided tensor).

    >>> ember.ones(2, 3).to_sparse().sparse_dim(), ember.ones(2, 3).to_sparse(1).sparse_dim()
    (2, 1)
    """
    if _compressed.is_compressed(self):
        return 2
    return _C._sparse_indices(self).shape[0] if _C._is_sparse(self) else 0


def _dense_dim(self):
    """dense_dim() -> int: dims held by each value (self.dim() for a strided tensor).

    >>> ember.ones(2, 3).to_sparse(1).dense_dim(), ember.ones(2, 3).dense_dim()
    (1, 2)
    """
    if _compressed.is_compressed(self):
        return _compressed.compressed_dense_dim(self)
    return _C._sparse_values(self).dim() - 1 if _C._is_sparse(self) else self.dim()


def _is_coalesced(self):
    """is_coalesced() -> bool: indices sorted and unique.

    >>> s = ember.sparse_coo_tensor([[1, 0, 1]], [1., 2., 3.], (2,))
    >>> s.is_coalesced(), s.coalesce().is_coalesced()
    (False, True)
    """
    _sparse_check(self, "is_coalesced")
    return _C._is_coalesced(self)


def _coalesced_(self, coalesced):
    """_coalesced_(coalesced) -> Tensor: marks self coalesced (or not) in place, trusting the
    caller that its indices are sorted and unique, and returns self.

    >>> s = ember.sparse_coo_tensor([[0, 1]], [1., 2.], (2,))
    >>> s._coalesced_(True).is_coalesced()
    True
    """
    if _compressed.is_compressed(self):
        _compressed.refuse_coo_only(self, "_coalesced_")
    _C._set_coalesced(self, bool(coalesced))
    return self


def _coalesce(self):
    """coalesce() -> Tensor: sorted unique indices, the values of duplicates summed.

    >>> s = ember.sparse_coo_tensor([[0, 0]], ember.tensor([1.0, 2.0]), (2,))
    >>> s.coalesce().values()
    tensor([3.])
    """
    if _compressed.is_compressed(self):
        _compressed.refuse_coo_only(self, "coalesce")
    return _C._coalesce(self)


def _to_dense(self, dtype=None, *, masked_grad=None):
    """to_dense() -> Tensor: the strided tensor (self when already strided).

    >>> ember.sparse_coo_tensor([[1, 0, 1]], [1., 2., 3.], (3,)).to_dense()
    tensor([2., 4., 0.])
    """
    out = _C._to_dense(self)
    return out if dtype is None else out.to(dtype)


def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """to_sparse(sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor

    The COO tensor of self's nonzero entries over its first sparse_dim dims (all by default);
    with layout=ember.sparse_csr / sparse_csc, the compressed tensor (to_sparse_csr/csc).

    >>> ember.tensor([[0.0, 2.0], [0.0, 0.0]]).to_sparse()._nnz()
    1
    """
    if layout in (sparse_csr, sparse_csc):
        if sparse_dim is not None:
            raise RuntimeError("to_sparse: sparse_dim cannot be given with a compressed layout "
                               f"({layout})")
        return _compressed.to_compressed(self, layout, dense_dim, f"to_sparse({layout})")
    if layout not in (None, sparse_coo):
        raise NotImplementedError(f"to_sparse: layout {layout} is not supported in ember "
                                  "(ember.sparse_coo, sparse_csr and sparse_csc are)")
    if blocksize is not None or dense_dim is not None:
        raise RuntimeError("to_sparse: blocksize and dense_dim go with a compressed layout, not "
                           "ember.sparse_coo")
    return _to_sparse_coo(self, sparse_dim)


def _to_sparse_coo(self, sparse_dim=None):
    """to_sparse_coo() -> Tensor: self in COO layout (a CSR/CSC tensor's entries, coalesced).

    >>> ember.eye(2).to_sparse_csr().to_sparse_coo().layout
    ember.sparse_coo
    """
    if _compressed.is_compressed(self):
        if sparse_dim not in (None, _C._sparse_indices(self).shape[0]):
            raise RuntimeError(f"to_sparse: sparse_dim {sparse_dim} does not match the "
                               f"compressed tensor's {_C._sparse_indices(self).shape[0]}")
        return _C._sparse_relayout(self, 0)
    return _C._to_sparse(self, sparse_dim)


def _repr(self):
    if not _C._is_sparse(self):
        return _dense_repr(self)
    from ._dtype import float32

    def inner(t, label):  # the dense repr, indented under its label, its dtype said once outside
        text = _dense_repr(t.detach()).replace(f", dtype={t.dtype!r}", "")
        return text.replace("\n", "\n" + " " * (len("       ") + len(label)))
    if _compressed.is_compressed(self):
        return _compressed.compressed_repr(self, inner)
    parts = [f"size={tuple(self.shape)}", f"nnz={_nnz(self)}"]
    if self.dtype != float32:
        parts.append(f"dtype={self.dtype!r}")
    parts.append(f"layout={sparse_coo!r}")
    if self.grad_fn is not None:
        parts.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        parts.append("requires_grad=True")
    return (f"tensor(indices={inner(_C._sparse_indices(self), 'indices=')},\n"
            f"       values={inner(_C._sparse_values(self), 'values=')},\n       "
            + ", ".join(parts) + ")")


def _transpose_method(dense_transpose):
    def transpose(self, dim0, dim1):
        if _C._is_sparse(self):
            return _C._sparse_transpose(self, dim0, dim1)
        return dense_transpose(self, dim0, dim1)
    transpose.__doc__ = dense_transpose.__doc__
    return transpose


def _t_method(dense_t):
    def t(self):
        if _C._is_sparse(self):
            if self.dim() < 2:
                return self
            return _C._sparse_transpose(self, 0, 1)
        return dense_t(self)
    t.__doc__ = dense_t.__doc__
    return t


from . import _sparse_compressed as _compressed  # noqa: E402


def spmm(input, mat2):
    """spmm(input, mat2) -> Tensor: sparse @ dense (torch.mm with a sparse first operand).

    >>> s = ember.tensor([[0., 2.], [3., 0.]]).to_sparse()
    >>> ember.spmm(s, ember.ones(2, 1))
    tensor([[2.],
            [3.]])
    """
    from . import mm
    return mm(input, mat2)


def _convert_indices_from_coo_to_csr(input, size, *, out_int32=False):
    """_convert_indices_from_coo_to_csr(input, size, *, out_int32=False) -> Tensor

    The CSR row pointer (length size + 1) of sorted COO row indices: entry h is the number of
    indices below h (PyG's index2ptr), counted in one pass (src/kernels/cpu/sparse.cpp).

    >>> ember._convert_indices_from_coo_to_csr(ember.tensor([0, 0, 2, 3]), 4)
    tensor([0, 2, 2, 3, 4])
    """
    from . import Tensor
    from ._dtype import TORCH_TYPE_NAMES
    if not isinstance(input, Tensor):
        raise TypeError(f"_convert_indices_from_coo_to_csr(): argument 'input' must be Tensor, "
                        f"not {type(input).__name__}")
    if input.dim() > 1:
        raise RuntimeError(f"Input is supposed to be a vector, but got {input.dim()} dimensional "
                           f"tensor.")
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype == _bool():
        raise NotImplementedError(f'"convert_indices_from_coo_to_csr_cpu" not implemented for '
                                  f"'{TORCH_TYPE_NAMES[input.dtype.name]}'")
    ptr = _C._compressed_pointer(input.reshape(-1), int(size))
    return ptr.to(_int32()) if out_int32 else ptr


def _int32():
    from ._dtype import int32
    return int32


def _bool():
    from ._dtype import bool as b
    return b


FUNCTIONS = {"_convert_indices_from_coo_to_csr": _convert_indices_from_coo_to_csr,
             "sparse_coo_tensor": sparse_coo_tensor, "sparse_coo": sparse_coo, "spmm": spmm,
             "sparse_csr": sparse_csr, "sparse_csc": sparse_csc, "sparse_bsr": sparse_bsr,
             "sparse_bsc": sparse_bsc}

# Installed over the strided-only answers (_device's is_sparse, _tensor_attributes' layout).
OVERRIDES = {
    "layout": property(_layout), "is_sparse": property(_is_sparse),
    "is_sparse_csr": property(_is_sparse_csr), "__repr__": _repr, "__str__": _repr,
}

METHODS = {
    "indices": _indices, "values": _values, "_indices": _raw_indices, "_values": _raw_values,
    "_nnz": _nnz, "sparse_dim": _sparse_dim, "dense_dim": _dense_dim,
    "is_coalesced": _is_coalesced, "_coalesced_": _coalesced_, "coalesce": _coalesce, "to_dense": _to_dense,
    "to_sparse": _to_sparse, "to_sparse_coo": _to_sparse_coo, **_compressed.METHODS,
}


def install(tensor_cls, namespace):
    for name, fn in {**OVERRIDES, **METHODS}.items():
        setattr(tensor_cls, name, fn)
    tensor_cls.transpose = _transpose_method(tensor_cls.transpose)
    tensor_cls.t = _t_method(tensor_cls.t)
    for name, fn in {**FUNCTIONS, **_compressed.FUNCTIONS}.items():
        namespace.setdefault(name, fn)
    for name in ("transpose", "t"):
        dense = namespace[name]

        def fn(input, *args, _dense=dense, _name=name):
            if _C._is_sparse(input):
                return getattr(input, _name)(*args)
            return _dense(input, *args)
        fn.__doc__ = dense.__doc__
        fn.__name__ = name
        namespace[name] = fn
