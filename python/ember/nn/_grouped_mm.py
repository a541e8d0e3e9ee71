"""F.grouped_mm: several matrix products whose groups are given by offsets along one dim
(torch 2.13's grouped GEMM, as mixture-of-experts layers use it). One matmul per group,
a loop over the groups only:

    2-d a (M, K) x 3-d b (G, K, N), offs over M  -> (M, N): rows of a in group g times b[g]
    3-d a (G, M, K) x 2-d b (K, N), offs over N  -> (M, N): a[g] times columns of b in group g
    2-d a (M, K) x 2-d b (K, N), offs over K     -> (G, M, N): a[:, group g] @ b[group g, :]
    3-d a (G, M, K) x 3-d b (G, K, N), no offs   -> (G, M, N): bmm

Differences from torch (docs/nn.md): rows or columns past the last offset are 0 (torch leaves
them uninitialized), and ember has no 16-byte stride requirement. Re-exported by
ember.nn.functional."""
from .. import _C
from .. import _creation as _cr
from .._dtype import float32, int32
from .._pointwise import _check_tensor

__all__ = ["grouped_mm"]


def _bounds(offs, n_groups, name):
    if offs.dtype != int32:
        raise RuntimeError("Offsets have to be int32")
    if offs.dim() != 1 or offs.numel() != n_groups:
        raise RuntimeError(f"grouped_mm: expected {n_groups} offsets ({name} groups), got offs of "
                           f"shape {list(offs.shape)}")
    ends = [int(v) for v in offs.tolist()]
    starts = [0] + ends[:-1]
    return [(s, max(s, e)) for s, e in zip(starts, ends)]


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """The grouped products described in the module docstring.

    >>> a, b = ember.ones(5, 2), ember.ones(2, 2, 3)
    >>> ember.nn.functional.grouped_mm(a, b, offs=ember.tensor([2, 5], dtype=ember.int32)).shape
    ember.Size([5, 3])
    """
    _check_tensor(mat_a, "grouped_mm", "mat_a")
    _check_tensor(mat_b, "grouped_mm", "mat_b")
    if offs is not None:
        _check_tensor(offs, "grouped_mm", "offs")
    if mat_a.dim() not in (2, 3):
        raise RuntimeError("mat_a has to be 2 or 3d")
    if mat_b.dim() not in (2, 3):
        raise RuntimeError("mat_b has to be 2 or 3d")
    for m, name in ((mat_a, "mat_a"), (mat_b, "mat_b")):
        if m.dtype != float32:
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{m.dtype}")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    a2, b2 = mat_a.dim() == 2, mat_b.dim() == 2
    if (a2 or b2) != (offs is not None):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both "
                           "matrices are 3d")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    if not a2 and not b2:
        if mat_a.shape[0] != mat_b.shape[0]:
            raise RuntimeError("matrix batch sizes have to match")
        return _C.bmm(mat_a, mat_b)
    if a2 and not b2:  # row groups
        m, n = mat_a.shape[0], mat_b.shape[2]
        parts, end = [], 0
        for g, (s, e) in enumerate(_bounds(offs, mat_b.shape[0], "row")):
            s, e = min(s, m), min(e, m)
            parts.append(mat_a[s:e].matmul(mat_b[g]))
            end = max(end, e)
        parts.append(_cr.zeros((m - end, n), dtype=mat_a.dtype))
        return _C.cat(parts, 0)
    if not a2 and b2:  # column groups of b
        m, n = mat_a.shape[1], mat_b.shape[1]
        parts, end = [], 0
        for g, (s, e) in enumerate(_bounds(offs, mat_a.shape[0], "column")):
            s, e = min(s, n), min(e, n)
            parts.append(mat_a[g].matmul(mat_b[:, s:e]))
            end = max(end, e)
        parts.append(_cr.zeros((m, n - end), dtype=mat_a.dtype))
        return _C.cat(parts, 1)
    k = mat_a.shape[1]  # both 2-d: groups along the contraction
    return _C.stack([mat_a[:, min(s, k):min(e, k)].matmul(mat_b[min(s, k):min(e, k)])
                     for s, e in _bounds(offs, offs.numel(), "contraction")], 0)
