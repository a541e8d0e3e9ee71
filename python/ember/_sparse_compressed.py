"""Compressed sparse tensors as torch shows them: ember.sparse_csr_tensor / sparse_csc_tensor /
sparse_compressed_tensor, Tensor.to_sparse_csr() / to_sparse_csc() / to_sparse(layout=...), and
crow_indices() / col_indices() / ccol_indices() / row_indices() / values().

A CSR/CSC tensor is a sparse COO tensor kept in compressed order and tagged with its layout
(Note [Compressed sparse layouts] in include/ember/tensor.h), so the COO ops in C++
(src/ops/sparse.cpp: to_dense, mm, scaling, clone, transpose) serve it; this module derives the
compressed index vectors from the sorted rows (columns) and back, and gives torch's signatures."""
import builtins

from . import _C
from ._tensor_attributes import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc

_CODES = {sparse_coo: 0, sparse_csr: 1, sparse_csc: 2}
_LAYOUTS = {0: sparse_coo, 1: sparse_csr, 2: sparse_csc}
# compressed-indices name, plain-indices name, what the compressed dim counts (torch's words)
_NAMES = {1: ("crow_indices", "col_indices", "rows", "ncols"),
          2: ("ccol_indices", "row_indices", "columns", "nrows")}
_TORCH_LAYOUT_NAMES = {-1: "Strided", 0: "Sparse", 1: "SparseCsr", 2: "SparseCsc"}


def layout_code(t):
    """-1 strided, 0 COO, 1 CSR, 2 CSC."""
    return _C._sparse_layout(t)


def is_compressed(t):
    return isinstance(t, _C.Tensor) and _C._sparse_layout(t) > 0


def layout_of(t):
    return _LAYOUTS.get(_C._sparse_layout(t))


def _tensor_arg(x, name, op):
    from . import Tensor, as_tensor
    if isinstance(x, Tensor):
        return x
    try:
        return as_tensor(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op}: {name} must be a tensor or a sequence of numbers, got "
                        f"{type(x).__name__}") from e


def _check_invariants(code, compressed, plain, nplain, nnz, op):
    """torch's _validate_compressed_sparse_indices, with its messages. ember checks these always
    (its COO parts rely on them); check_invariants=True adds the sortedness check (_build)."""
    cname, pname, _, _ = _NAMES[code]
    plain_count = "ncols" if code == 1 else "nrows"
    if compressed.numel() and bool((compressed[..., 0] != 0).any()):
        raise RuntimeError(f"{op}: `{cname}[..., 0] == 0` is not satisfied.")
    if compressed.numel() and bool((compressed[..., -1] != nnz).any()):
        raise RuntimeError(f"{op}: `{cname}[..., -1] == nnz` is not satisfied.")
    steps = compressed[..., 1:] - compressed[..., :-1]
    if steps.numel() and bool(((steps < 0) | (steps > nplain)).any()):
        raise RuntimeError(f"{op}: `0 <= {cname}[..., 1:] - {cname}[..., :-1] <= "
                           f"{plain_count}` is not satisfied.")
    if plain.numel() and bool(((plain < 0) | (plain >= nplain)).any()):
        raise RuntimeError(f"{op}: `0 <= {pname} < {plain_count}` is not satisfied.")


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                             layout=None, device=None, pin_memory=False, requires_grad=False,
                             check_invariants=None):
    """sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
    dtype=None, layout=None, device=None, requires_grad=False, check_invariants=None) -> Tensor

    A CSR (layout=ember.sparse_csr) or CSC (ember.sparse_csc) tensor from its compressed index
    vector, its plain indices and its values; batched when the indices have leading dims.

    >>> ember.sparse_compressed_tensor([0, 1, 2], [1, 0], [5., 6.], (2, 2),
    ...                                layout=ember.sparse_csc).to_dense()
    tensor([[0., 6.],
            [5., 0.]])
    """
    return _build(compressed_indices, plain_indices, values, size, layout, dtype, device,
                  requires_grad, check_invariants, "sparse_compressed_tensor")


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None,
    device=None, requires_grad=False, check_invariants=None) -> Tensor

    A CSR tensor: row i holds values[crow[i]:crow[i+1]] at columns col_indices[crow[i]:crow[i+1]].
    Without size, the column count is the largest column index + 1.

    >>> a = ember.sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], [1., 2., 3.], (3, 3))
    >>> a.to_dense()
    tensor([[1., 0., 2.],
            [0., 0., 0.],
            [0., 3., 0.]])
    """
    return _build(crow_indices, col_indices, values, size, sparse_csr, dtype, device,
                  requires_grad, check_invariants, "sparse_csr_tensor")


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None,
    device=None, requires_grad=False, check_invariants=None) -> Tensor

    A CSC tensor: column j holds values[ccol[j]:ccol[j+1]] at rows row_indices[ccol[j]:ccol[j+1]].

    >>> ember.sparse_csc_tensor([0, 1, 1], [1], [4.], (2, 2)).to_dense()
    tensor([[0., 0.],
            [4., 0.]])
    """
    return _build(ccol_indices, row_indices, values, size, sparse_csc, dtype, device,
                  requires_grad, check_invariants, "sparse_csc_tensor")


def _build(compressed, plain, values, size, layout, dtype, device, requires_grad,
           check_invariants, op):
    from . import arange, stack, zeros, int64, int32, Tensor, as_tensor
    from ._device import tensor_to_device
    if device is not None:
        tensor_to_device(device, op)
    if layout in (sparse_bsr, sparse_bsc):
        raise NotImplementedError(f"{op}: layout {layout} is not supported in ember (only "
                                  "ember.sparse_csr and ember.sparse_csc)")
    if layout not in (sparse_csr, sparse_csc):
        raise RuntimeError(f"{op} expected sparse compressed tensor layout but got {layout}")
    code = _CODES[layout]
    cname, pname, counted, _ = _NAMES[code]
    compressed = _tensor_arg(compressed, cname, op)
    plain = _tensor_arg(plain, pname, op)
    values = values if isinstance(values, Tensor) else as_tensor(values, dtype=dtype)
    if dtype is not None and values.dtype != dtype:
        values = values.to(dtype)
    for t, name in ((compressed, cname), (plain, pname)):
        if t.dtype not in (int32, int64):
            raise RuntimeError(f"{op}: {name} must be an int32 or int64 tensor, got {t.dtype}")
    if compressed.dim() < 1 or plain.dim() != compressed.dim():
        raise RuntimeError(f"{op}: {cname} and {pname} must have the same number of dims, at "
                           f"least 1 (got shapes {tuple(compressed.shape)} and "
                           f"{tuple(plain.shape)})")
    nb = compressed.dim() - 1
    batch = tuple(compressed.shape[:-1])
    if tuple(plain.shape[:-1]) != batch or values.dim() < nb + 1 or \
            tuple(values.shape[:nb]) != batch:
        raise RuntimeError(f"{op}: batch shapes of {cname} {tuple(compressed.shape)}, {pname} "
                           f"{tuple(plain.shape)} and values {tuple(values.shape)} must match")
    nnz = plain.shape[-1]
    if values.shape[nb] != nnz:
        raise RuntimeError(f"{op}: {pname} and values must have the same number of elements "
                           f"(nnz), got {nnz} and {values.shape[nb]}")
    dense = tuple(values.shape[nb + 1:])
    if size is None:
        nplain = int(plain.max()) + 1 if plain.numel() else 0
        ncomp = compressed.shape[-1] - 1
        size = batch + ((ncomp, nplain) if code == 1 else (nplain, ncomp)) + dense
    size = tuple(int(s) for s in size)
    if len(size) != nb + 2 + len(dense) or size[:nb] != batch or size[nb + 2:] != dense:
        raise RuntimeError(f"{op}: size {size} does not match batch shape {batch}, 2 sparse "
                           f"dims and dense shape {dense} of the indices and values")
    nrows, ncols = size[nb], size[nb + 1]
    ncomp, nplain = (nrows, ncols) if code == 1 else (ncols, nrows)
    if compressed.shape[-1] != ncomp + 1:
        raise RuntimeError(f"{op}: {cname}.shape[-1] must be equal to the number of {counted} "
                           f"+ 1 (={ncomp + 1}), but got {compressed.shape[-1]}")
    _check_invariants(code, compressed, plain, nplain, nnz, op)
    nbatch = 1
    for b in batch:
        nbatch *= b
    # compressed index vector -> one compressed coordinate per entry (its row for CSR)
    counts = (compressed[..., 1:] - compressed[..., :-1]).reshape(-1).to(int64)
    comp = arange(ncomp, dtype=int64).repeat(nbatch).repeat_interleave(counts)
    rows = [comp, plain.reshape(-1).to(int64)]
    entry_batch = arange(nbatch * nnz, dtype=int64) // builtins.max(nnz, 1)
    if check_invariants and nnz > 1:  # within a row (column), plain indices strictly increase
        slot = entry_batch * ncomp + comp
        if bool(((slot[1:] == slot[:-1]) & (rows[1][1:] <= rows[1][:-1])).any()):
            raise RuntimeError(f"{op}: `{pname}[..., {cname}[..., i - 1]:{cname}[..., i]] for "
                               f"all i = 1, ..., {'nrows' if code == 1 else 'ncols'} are sorted "
                               "and distinct along the "
                               "last dimension values` is not satisfied.")
    if code == 2:
        rows.reverse()
    coords = []
    for b in reversed(batch):  # row-major batch coordinates of each entry
        coords.insert(0, entry_batch % b)
        entry_batch = entry_batch // b
    indices = stack(coords + rows) if nbatch * nnz else zeros((nb + 2, 0), dtype=int64)
    flat = values.detach() if requires_grad else values
    flat = flat.reshape((nbatch * nnz,) + dense)
    out = _C._sparse_coo_tensor(indices, flat, list(size))
    _C._set_sparse_layout(out, code, compressed.dtype == int32 and plain.dtype == int32)
    return out.requires_grad_() if requires_grad else out


# --- the parts of a compressed tensor ------------------------------------------------------------

def _batch_info(t):
    """(batch shape, entries per batch) of a compressed tensor."""
    nb = _C._sparse_indices(t).shape[0] - 2
    batch = tuple(t.shape[:nb])
    nbatch = 1
    for b in batch:
        nbatch *= b
    total = _C._sparse_indices(t).shape[1]
    return batch, (total // nbatch if nbatch else 0)


def _index_out(t, idx):
    from . import int32
    return idx.to(int32) if _C._sparse_int32_indices(t) else idx


def _compressed_indices(t):
    from . import arange, int64
    batch, nnz = _batch_info(t)
    nb = len(batch)
    idx = _C._sparse_indices(t)
    code = layout_code(t)
    comp = idx[nb] if code == 1 else idx[nb + 1]
    ncomp = t.shape[nb] if code == 1 else t.shape[nb + 1]
    nbatch = 1
    for b in batch:
        nbatch *= b
    # entries are sorted by (batch, compressed coordinate): count those before each boundary
    key = arange(comp.shape[0], dtype=int64) // builtins.max(nnz, 1) * ncomp + comp if nb else comp
    ptr = _C._compressed_pointer(key, nbatch * ncomp)
    if nb:
        starts = ptr[:-1].reshape(nbatch, ncomp)
        ends = (arange(1, nbatch + 1, dtype=int64) * nnz).reshape(nbatch, 1)
        ptr = starts.new_zeros((nbatch, ncomp + 1))
        ptr[:, :-1] = starts - (ends - nnz)
        ptr[:, -1:] = nnz
    return _index_out(t, ptr.reshape(batch + (ncomp + 1,)))


def _plain_indices(t):
    batch, nnz = _batch_info(t)
    idx = _C._sparse_indices(t)
    row = idx[len(batch) + 1] if layout_code(t) == 1 else idx[len(batch)]
    return _index_out(t, row.reshape(batch + (nnz,)))


def _need(t, code, what):
    have = layout_code(t)
    if have != code:
        want = "sparse row compressed" if code == 1 else "sparse column compressed"
        raise RuntimeError(f"{what} expected {want} tensor layout but got "
                           f"{_TORCH_LAYOUT_NAMES[have]}")


def _crow_indices(self):
    """crow_indices() -> Tensor: a CSR tensor's row pointer (nrows + 1 entries per batch).

    >>> ember.tensor([[0., 1.], [2., 3.]]).to_sparse_csr().crow_indices()
    tensor([0, 1, 3])
    """
    _need(self, 1, "crow_indices")
    return _compressed_indices(self)


def _col_indices(self):
    """col_indices() -> Tensor: a CSR tensor's column index of each value.

    >>> ember.tensor([[0., 1.], [2., 3.]]).to_sparse_csr().col_indices()
    tensor([1, 0, 1])
    """
    _need(self, 1, "col_indices")
    return _plain_indices(self)


def _ccol_indices(self):
    """ccol_indices() -> Tensor: a CSC tensor's column pointer (ncols + 1 entries per batch).

    >>> ember.tensor([[0., 1.], [2., 3.]]).to_sparse_csc().ccol_indices()
    tensor([0, 1, 3])
    """
    _need(self, 2, "ccol_indices")
    return _compressed_indices(self)


def _row_indices(self):
    """row_indices() -> Tensor: a CSC tensor's row index of each value.

    >>> ember.tensor([[0., 1.], [2., 3.]]).to_sparse_csc().row_indices()
    tensor([1, 0, 1])
    """
    _need(self, 2, "row_indices")
    return _plain_indices(self)


def compressed_values(t):
    """The values [*batch, nnz, *dense] of a compressed tensor: a view of its stored values,
    through which a gradient flows back into the tensor."""
    batch, nnz = _batch_info(t)
    vals = _C._sparse_values_grad(t)  # differentiable, as torch's values()
    return vals.reshape(batch + (nnz,) + tuple(vals.shape[1:])) if batch else vals


def compressed_nnz(t):
    return _batch_info(t)[1]


def compressed_dense_dim(t):
    return _C._sparse_values(t).dim() - 1


def refuse_coo_only(t, what):
    """torch's answer to a COO-only method (indices(), coalesce(), ...) on a CSR/CSC tensor."""
    raise RuntimeError(f"{what} expected sparse coordinate tensor layout but got "
                       f"{_TORCH_LAYOUT_NAMES[layout_code(t)]}")


# --- conversions ---------------------------------------------------------------------------------

def _check_equal_batches(out, op):
    batch, _ = _batch_info(out)
    if not batch:
        return out
    from . import bincount, int64, arange
    idx = _C._sparse_indices(out)
    nb = len(batch)
    lin = arange(1, dtype=int64).new_zeros(idx.shape[1])
    for d in range(nb):
        lin = lin * batch[d] + idx[d]
    nbatch = 1
    for b in batch:
        nbatch *= b
    counts = bincount(lin, minlength=nbatch)
    if counts.numel() and bool((counts != counts[0]).any()):
        raise RuntimeError(f"{op}: Expect the same number of specified elements per batch.")
    return out


def to_compressed(t, layout, dense_dim, op):
    """A strided, COO or compressed tensor in layout ember.sparse_csr / sparse_csc."""
    code = _CODES[layout]
    if layout_code(t) == code and dense_dim in (None, compressed_dense_dim(t)):
        return t
    if layout_code(t) < 0:
        dd = 0 if dense_dim is None else int(dense_dim)
        if t.dim() < 2 or not 0 <= dd <= t.dim() - 2:
            raise RuntimeError(f"{op}: expected a tensor of at least 2 dims with dense_dim in "
                               f"[0, {builtins.max(t.dim() - 2, 0)}], got shape "
                               f"{tuple(t.shape)} and dense_dim {dense_dim}")
        t = _C._to_sparse(t, t.dim() - dd)
    elif dense_dim is not None and dense_dim != compressed_dense_dim(t):
        raise RuntimeError(f"{op}: dense_dim {dense_dim} does not match the input's "
                           f"{compressed_dense_dim(t)}")
    if _C._sparse_indices(t).shape[0] < 2:
        raise RuntimeError(f"{op}: a compressed layout needs at least 2 sparse dims, got "
                           f"{_C._sparse_indices(t).shape[0]} (shape {tuple(t.shape)})")
    return _check_equal_batches(_C._sparse_relayout(t, code), op)


def _to_sparse_csr(self, dense_dim=None):
    """to_sparse_csr(dense_dim=None) -> Tensor: self in CSR layout (self when it is already).

    >>> ember.eye(2).to_sparse_csr().layout
    ember.sparse_csr
    """
    return to_compressed(self, sparse_csr, dense_dim, "to_sparse_csr")


def _to_sparse_csc(self, dense_dim=None):
    """to_sparse_csc(dense_dim=None) -> Tensor: self in CSC layout (self when it is already).

    >>> ember.eye(2).to_sparse_csc().layout
    ember.sparse_csc
    """
    return to_compressed(self, sparse_csc, dense_dim, "to_sparse_csc")


def compressed_repr(self, inner):
    from ._dtype import float32
    code = layout_code(self)
    cname, pname, _, _ = _NAMES[code]
    parts = [f"size={tuple(self.shape)}", f"nnz={compressed_nnz(self)}"]
    if self.dtype != float32:
        parts.append(f"dtype={self.dtype!r}")
    tail = [f"layout={_LAYOUTS[code]!r}"]  # as torch: on a line of its own
    if self.grad_fn is not None:
        tail.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        tail.append("requires_grad=True")
    return (f"tensor({cname}={inner(_compressed_indices(self), cname + '=')},\n"
            f"       {pname}={inner(_plain_indices(self), pname + '=')},\n"
            f"       values={inner(compressed_values(self), 'values=')}, "
            + ", ".join(parts) + ",\n       " + ", ".join(tail) + ")")


def compressed_parts(t):
    """(compressed indices, plain indices, values) as torch.save writes a CSR/CSC tensor."""
    return _compressed_indices(t), _plain_indices(t), compressed_values(t).detach()


FUNCTIONS = {"sparse_csr_tensor": sparse_csr_tensor, "sparse_csc_tensor": sparse_csc_tensor,
             "sparse_compressed_tensor": sparse_compressed_tensor}

METHODS = {"crow_indices": _crow_indices, "col_indices": _col_indices,
           "ccol_indices": _ccol_indices, "row_indices": _row_indices,
           "to_sparse_csr": _to_sparse_csr, "to_sparse_csc": _to_sparse_csc}
