"""torch.sparse: products and reductions that take sparse COO tensors (docs/sparse.md). The
math is in C++ (src/ops/sparse.cpp)."""
from .. import _C


def mm(mat1, mat2, reduce=None):
    """mm(mat1, mat2) -> Tensor: mat1 @ mat2 where either may be sparse COO; the gradient of a
    sparse operand is sparse (its indices).

    >>> s = ember.eye(2).to_sparse()
    >>> ember.sparse.mm(s, ember.ones(2, 1))
    tensor([[1.],
            [1.]])
    """
    if reduce is not None:
        raise NotImplementedError("sparse.mm: reduce= is not supported in ember")
    import ember
    return ember.mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """addmm(mat, mat1, mat2, *, beta=1, alpha=1) -> Tensor: beta * mat + alpha * (mat1 @ mat2)
    with mat1 sparse COO."""
    import ember
    return ember.add(ember.mul(mat, beta), ember.mul(ember.mm(mat1, mat2), alpha))


def sum(input, dim=None, dtype=None):
    """sum(input, dim=None, dtype=None) -> Tensor: the sum of a sparse tensor's entries (over
    `dim` when given). The gradient into input is sparse."""
    dense = _C._to_dense(input)
    if dim is None:
        return dense.sum(dtype=dtype)
    out = dense.sum(dim, dtype=dtype)
    return out.to_sparse() if out.dim() > 0 else out


__all__ = ["mm", "addmm", "sum"]
