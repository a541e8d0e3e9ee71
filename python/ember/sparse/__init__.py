"""torch.sparse: products and reductions that take sparse COO, CSR and CSC tensors
(docs/sparse.md). The math is in C++ (src/ops/sparse.cpp); `mm(..., reduce=)` on a CSR matrix is
composed here from ember's gather and scatter_reduce ops."""
from .. import _C

_REDUCE = {"sum": "sum", "mean": "mean", "amax": "amax", "amin": "amin", "max": "amax",
           "min": "amin"}


def mm(mat1, mat2, reduce=None):
    """mm(mat1, mat2, reduce=None) -> Tensor: mat1 @ mat2 where either may be sparse (COO, CSR
    or CSC); the gradient of a sparse operand is dense (g @ mat2^T). With reduce ("sum", "mean",
    "amax", "amin"), mat1 must be CSR: row i of the result reduces values[k] * mat2[col[k]] over
    row i's entries (0 for an empty row), differentiable in mat2 and in mat1's values.

    >>> s = ember.eye(2).to_sparse()
    >>> ember.sparse.mm(s, ember.ones(2, 1))
    tensor([[1.],
            [1.]])
    >>> a = ember.tensor([[1., 3.], [0., 0.]]).to_sparse_csr()
    >>> ember.sparse.mm(a, ember.ones(2, 1), "mean")
    tensor([[2.],
            [0.]])
    """
    import ember
    if reduce is None:
        return ember.mm(mat1, mat2)
    if reduce not in _REDUCE:
        raise RuntimeError(f"sparse.mm: reduce argument must be either sum, mean, amax or amin, "
                           f"got {reduce}")
    layout = _C._sparse_layout(mat1) if isinstance(mat1, ember.Tensor) else -1
    if layout != 1:
        names = {-1: "Strided", 0: "Sparse", 2: "SparseCsc"}
        raise RuntimeError(f"sparse_mm_reduce: expect self to be SparseCsr, got "
                           f"{names.get(layout, type(mat1).__name__)}")
    if not isinstance(mat2, ember.Tensor) or mat2.dim() != 2 or mat1.dim() != 2:
        raise RuntimeError("sparse_mm_reduce: expected 2-d operands, got "
                           f"{tuple(mat1.shape)} and {tuple(getattr(mat2, 'shape', ()))}")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"sparse_mm_reduce: shapes {tuple(mat1.shape)} and "
                           f"{tuple(mat2.shape)} cannot be multiplied ({mat1.shape[1]} != "
                           f"{mat2.shape[0]})")
    if mat1.dtype != mat2.dtype:
        raise RuntimeError(f"sparse_mm_reduce: expected mat1 and mat2 of the same dtype, got "
                           f"{mat1.dtype} and {mat2.dtype}")
    if _REDUCE[reduce] == "sum":
        return ember.mm(mat1, mat2)
    if _REDUCE[reduce] == "mean":  # the sum over a row's entries, divided by their count
        ptr = mat1.crow_indices().to(mat2.dtype)
        return ember.mm(mat1, mat2) / (ptr[1:] - ptr[:-1]).clamp(min=1).unsqueeze(1)
    rows, cols = _C._sparse_indices(mat1)
    vals = _C._sparse_values_grad(mat1)
    if vals.dim() != 1:
        raise RuntimeError("sparse_mm_reduce: a CSR matrix with dense dims is not supported")
    terms = vals.unsqueeze(1) * mat2.index_select(0, cols)
    out = mat2.new_zeros((mat1.shape[0], mat2.shape[1]))
    index = rows.unsqueeze(1).expand(terms.shape)
    return out.scatter_reduce(0, index, terms, _REDUCE[reduce], include_self=False)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """addmm(mat, mat1, mat2, *, beta=1, alpha=1) -> Tensor: beta * mat + alpha * (mat1 @ mat2)
    with mat1 sparse (COO, CSR or CSC).

    >>> a = ember.eye(2).to_sparse_csr()
    >>> ember.sparse.addmm(ember.ones(2, 1), a, ember.ones(2, 1), alpha=2)
    tensor([[3.],
            [3.]])
    """
    import ember
    return ember.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):
    """sum(input, dim=None, dtype=None) -> Tensor: the sum of a sparse tensor's entries (over
    `dim` when given). The gradient into input is sparse.

    >>> ember.sparse.sum(ember.eye(2).to_sparse())
    tensor(2.)
    """
    dense = _C._to_dense(input)
    if dim is None:
        return dense.sum(dtype=dtype)
    out = dense.sum(dim, dtype=dtype)
    return out.to_sparse() if out.dim() > 0 else out


__all__ = ["mm", "addmm", "sum"]
