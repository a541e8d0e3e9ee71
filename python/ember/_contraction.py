"""Tensor contractions at the top level (einsum, tensordot, kron, inner, cross, cdist,
chain_matmul, addmv, addbmm, baddbmm, ger, vdot): permute/reshape around one BLAS matmul or
bmm per pair of operands, so the gradients are matmul's. No element loops."""
import builtins
import functools
import warnings

from . import _C, _creation
from ._inplace_and_copy import inplace_form

Tensor = _C.Tensor


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")
    return x


def _prod(xs):
    return functools.reduce(lambda a, b: a * b, xs, 1)


# ---- einsum ------------------------------------------------------------------------------------
def _parse_operand(subs, t, i, ell_count):
    """Labels of operand i, with '...' replaced by the ellipsis labels ('0', '1', ...) of its
    broadcast dims, right-aligned across operands."""
    if subs.count("...") > 1 or subs.replace("...", "").count("."):
        raise RuntimeError(f"einsum(): found more than one ellipsis or a stray '.' in subscripts "
                           f"'{subs}' of operand {i}")
    letters = subs.replace("...", "")
    for c in letters:
        if not c.isalpha():
            raise RuntimeError(f"einsum(): invalid subscript given at index {subs.index(c)} in the "
                               f"equation string, subscripts must be in [a-zA-Z] (got '{c}')")
    if "..." in subs:
        k = t.dim() - len(letters)
        if k < 0:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) "
                               f"is more than the number of dimensions ({t.dim()}) for operand {i}")
        head, tail = subs.split("...")
        return list(head) + [str(ell_count - k + j) for j in range(k)] + list(tail), k
    if len(letters) != t.dim():
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) "
                           f"does not match the number of dimensions ({t.dim()}) for operand {i} "
                           f"and no ellipsis was given")
    return list(letters), 0


def _take_diagonals(t, labels):
    """A label repeated within one operand reads that operand's diagonal (torch.diagonal)."""
    while len(set(labels)) != len(labels):
        seen = {}
        for j, c in enumerate(labels):
            if c in seen:
                i = seen[c]
                if t.shape[i] != t.shape[j]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand but the "
                                       f"sizes don't match, {t.shape[i]} != {t.shape[j]}")
                t = _C.diagonal(t, 0, i, j)  # the diagonal becomes the last dim
                labels = [x for k, x in enumerate(labels) if k not in (i, j)] + [c]
                break
            seen[c] = j
    return t, labels


def _sum_out(t, labels, keep):
    dims = [j for j, c in enumerate(labels) if c not in keep]
    if not dims:
        return t, labels
    return t.sum(dims), [c for c in labels if c in keep]


def _contract_pair(a, la, b, lb, keep):
    """a (labels la) times b (labels lb), summing the shared labels not in `keep`."""
    sizes = {}
    for t, ls in ((a, la), (b, lb)):
        for c, s in zip(ls, t.shape):
            if sizes.get(c, 1) != 1 and s != 1 and sizes[c] != s:
                raise RuntimeError(f"einsum(): operands do not broadcast: subscript {c} has size "
                                   f"{sizes[c]} and {s}")
            if sizes.get(c, 1) == 1:  # a size-1 dim broadcasts to the other's (even 0)
                sizes[c] = s
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    a_only = [c for c in la if c not in lb]
    b_only = [c for c in lb if c not in la]
    a = a.permute(*[la.index(c) for c in batch + a_only + summed])
    b = b.permute(*[lb.index(c) for c in batch + summed + b_only])
    a = a.expand(*[sizes[c] if c in batch + summed else s
                   for c, s in zip(batch + a_only + summed, a.shape)])
    b = b.expand(*[sizes[c] if c in batch + summed else s
                   for c, s in zip(batch + summed + b_only, b.shape)])
    nb, m, k, n = (_prod(sizes[c] for c in batch), _prod(sizes[c] for c in a_only),
                   _prod(sizes[c] for c in summed), _prod(sizes[c] for c in b_only))
    out = _C.bmm(a.reshape([nb, m, k]), b.reshape([nb, k, n]))
    labels = batch + a_only + b_only
    return out.reshape([sizes[c] for c in labels]), labels


def einsum(equation, *operands):
    """Einstein summation: torch.einsum's equation language (implicit and explicit output,
    '...', repeated subscripts for diagonals), contracted pairwise left to right.

    >>> ember.einsum('ij,j->i', ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, t in enumerate(operands):
        _check_tensor(t, "einsum", f"operands[{i}]")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(operands):
        word = "more" if len(operands) > len(subs) else "fewer"
        raise RuntimeError(f"einsum(): {word} operands were provided than specified in the equation "
                           f"'{equation}' ({len(operands)} operands, {len(subs)} in the equation)")
    ell = builtins.max([t.dim() - len(s.replace("...", "")) for s, t in zip(subs, operands)
                        if "..." in s] or [0])
    parsed = [_parse_operand(s, t, i, ell) for i, (s, t) in enumerate(zip(subs, operands))]
    ell_labels = [str(j) for j in range(ell)]
    if arrow:
        out_letters = rhs.replace("...", "")
        for c in out_letters:
            if not c.isalpha() or out_letters.count(c) > 1 or not any(c in s for s in subs):
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once or does "
                                   f"not appear in the equation for any input operand")
        if "..." in rhs:
            head, tail = rhs.split("...")
            out = list(head) + ell_labels + list(tail)
        else:
            out = list(out_letters)
    else:
        letters = "".join(s.replace("...", "") for s in subs)
        out = ell_labels + sorted(c for c in set(letters) if letters.count(c) == 1)
    terms = [_take_diagonals(t, labels) for t, (labels, _) in zip(operands, parsed)]
    # Labels used by no other operand and not in the output are summed away first.
    for i, (t, labels) in enumerate(terms):
        others = set(out).union(*[set(ls) for j, (_, ls) in enumerate(terms) if j != i])
        terms[i] = _sum_out(t, labels, others)
    t, labels = terms[0]
    for i in range(1, len(terms)):
        keep = set(out).union(*[set(ls) for _, ls in terms[i + 1:]])
        t, labels = _contract_pair(t, labels, terms[i][0], terms[i][1], keep)
    t, labels = _sum_out(t, labels, set(out))
    if len(terms) == 1:
        t = t.clone() if labels == out else t
    return t.permute(*[labels.index(c) for c in out]) if t.dim() else t


# ---- tensordot, kron, inner, outer, cross --------------------------------------------------------
def tensordot(a, b, dims=2, out=None):
    """Sums a's dims_a against b's dims_b (an int n: a's last n with b's first n).

    >>> ember.tensordot(ember.ones(2, 3), ember.ones(3, 4), dims=1).shape
    ember.Size([2, 4])
    """
    _check_tensor(a, "tensordot", "a")
    _check_tensor(b, "tensordot", "b")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, builtins.int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, builtins.int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError(f"tensordot: both dimension lists should have same length ({da} and {db})")
    da = [d % a.dim() for d in da] if a.dim() else da
    db = [d % b.dim() for d in db] if b.dim() else db
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"tensordot: contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in dim {y} "
                               f"(shapes {tuple(a.shape)} and {tuple(b.shape)})")
    ka = [d for d in range(a.dim()) if d not in da]
    kb = [d for d in range(b.dim()) if d not in db]
    k = _prod(a.shape[d] for d in da)
    am = a.permute(*(ka + da)).reshape([_prod(a.shape[d] for d in ka), k])
    bm = b.permute(*(db + kb)).reshape([k, _prod(b.shape[d] for d in kb)])
    result = _C.mm(am, bm).reshape([a.shape[d] for d in ka] + [b.shape[d] for d in kb])
    if out is None:
        return result
    from ._comparison import _into
    return _into(result, out, "tensordot")


def kron(input, other):
    """The Kronecker product: block (i, j) is input[i, j] * other.

    >>> ember.kron(ember.tensor([[1, 2]]), ember.tensor([[1], [10]]))
    tensor([[ 1,  2],
            [10, 20]])
    """
    _check_tensor(input, "kron")
    _check_tensor(other, "kron", "other")
    n = builtins.max(input.dim(), other.dim())
    sa = [1] * (n - input.dim()) + list(input.shape)
    sb = [1] * (n - other.dim()) + list(other.shape)
    a = input.reshape([v for s in sa for v in (s, 1)])
    b = other.reshape([v for s in sb for v in (1, s)])
    return _C.mul(a, b).reshape([x * y for x, y in zip(sa, sb)])


def inner(input, other):
    """inner(input, other) -> Tensor

    The sum of products over the last dim of both (a dot product for 1-D tensors).

    >>> ember.inner(ember.tensor([1, 2, 3]), ember.tensor([4, 5, 6]))
    tensor(32)
    """
    _check_tensor(input, "inner")
    _check_tensor(other, "inner", "other")
    if input.dim() == 0 or other.dim() == 0:
        return _C.mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {tuple(input.shape)} and {tuple(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def ger(input, vec2):
    """ger(input, vec2) -> Tensor

    Alias of outer: the outer product of two 1-D tensors.

    >>> ember.ger(ember.tensor([1, 2]), ember.tensor([3, 4]))
    tensor([[3, 4],
            [6, 8]])
    """
    return _C.outer(input, vec2)


def vdot(input, other):
    """The dot product of two 1-d tensors, input conjugated first (as torch.vdot).

    >>> ember.vdot(ember.tensor([1 + 1j, 2]), ember.tensor([1j, 1]))
    tensor(3.+1.j)
    """
    return _C.dot(_C.conj(input) if input.is_complex() else input, other)


def cross(input, other, dim=None, *, out=None):
    """The 3-vector cross product along dim (None: the first dim of size 3, with torch's
    deprecation warning).

    >>> ember.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """
    _check_tensor(input, "cross")
    _check_tensor(other, "cross", "other")
    from ._comparison import check_broadcast
    from ._reshaping import broadcast_tensors
    if input.dim() != other.dim():
        raise RuntimeError(f"cross: inputs must have the same number of dimensions (shapes "
                           f"{tuple(input.shape)} and {tuple(other.shape)})")
    check_broadcast("cross", input, other)
    a, b = broadcast_tensors(input, other)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe default "
                      "value of dim will change to agree with that of linalg.cross in a future "
                      "release.", UserWarning, stacklevel=2)
        dim = next((d for d, s in enumerate(a.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError(f"cross: no dimension of size 3 in input (shape {tuple(a.shape)})")
    n = builtins.max(a.dim(), 1)
    if not -n <= dim < n:
        raise IndexError(f"cross: Dimension out of range (expected to be in range of [{-n}, {n - 1}],"
                         f" but got {dim})")
    if a.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim] if input.dim() else 0} and "
                           f"{other.shape[dim] if other.dim() else 0}")
    x = [a.narrow(dim, i, 1) for i in range(3)]
    y = [b.narrow(dim, i, 1) for i in range(3)]
    result = _C.cat([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                     x[0] * y[1] - x[1] * y[0]], dim)
    if out is None:
        return result
    from ._comparison import _into
    return _into(result, out, "cross")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M). For p=2 with
    more than 25 rows on either side, torch's matmul form (|a|^2 - 2 a.b + |b|^2).

    >>> ember.cdist(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([[5., 1.]])
    """
    _check_tensor(x1, "cdist", "x1")
    _check_tensor(x2, "cdist", "x2")
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D, "
                           f"X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"cdist: X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]} (shapes {tuple(x1.shape)} and "
                           f"{tuple(x2.shape)})")
    if x1.dtype not in (_C.dtype.float32, _C.dtype.float64) or x2.dtype != x1.dtype:
        raise RuntimeError(f"cdist only supports floating-point dtypes of the same type, X1 got: "
                           f"{x1.dtype}, X2 got: {x2.dtype}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == modes[0] and (rows1 > 25 or rows2 > 25)))
    if use_mm:
        n1 = (x1 * x1).sum(-1, keepdim=True)
        n2 = (x2 * x2).sum(-1, keepdim=True)
        a = _C.cat([x1 * -2, n1, _creation.ones(list(n1.shape), dtype=x1.dtype)], -1)
        b = _C.cat([x2, _creation.ones(list(n2.shape), dtype=x2.dtype), n2], -1)
        return _C.sqrt(_C.clamp(_C.matmul(a, b.transpose(-2, -1)), min=1e-30))
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 0:
        return _C.ne(diff, 0).to(x1.dtype).sum(-1)
    if p == float("inf"):
        return _C.abs(diff).amax(-1) if diff.shape[-1] else diff.sum(-1)
    return _C.norm(diff, p, -1)


def chain_matmul(*matrices, out=None):
    """chain_matmul(*matrices, out=None) -> Tensor

    The product of 2-D matrices (deprecated in torch for linalg.multi_dot).

    >>> ember.chain_matmul(ember.eye(2), ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.ones(2, 1))
    tensor([[3.],
            [7.]])
    """
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or more "
                  "tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        _check_tensor(m, "chain_matmul", f"matrices[{i}]")
        if m.dim() != 2:
            raise RuntimeError(f"chain_matmul(): Tensor dimension is {m.dim()}, expected 2 instead "
                               f"(matrix {i})")
    result = functools.reduce(_C.mm, matrices) if len(matrices) > 1 else matrices[0].clone()
    if out is None:
        return result
    from ._comparison import _into
    return _into(result, out, "chain_matmul")


def _scaled_sum(fn, input, product, beta, alpha):
    """beta * input + alpha * product; beta == 0 ignores input (NaN and inf too), as torch.
    input must broadcast to the product's shape."""
    _check_tensor(input, fn)
    from ._reshaping import broadcast_shapes
    try:
        ok = tuple(broadcast_shapes(tuple(input.shape), tuple(product.shape))) == tuple(product.shape)
    except RuntimeError:
        ok = False
    if not ok:
        raise RuntimeError(f"{fn}: input of shape {tuple(input.shape)} can't be broadcast to the "
                           f"product's shape {tuple(product.shape)}")
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled
    return (input if beta == 1 else input * beta) + scaled


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """addmv(input, mat, vec, *, beta=1, alpha=1, out=None) -> Tensor

    beta * input + alpha * (mat @ vec).

    >>> ember.addmv(ember.tensor([1.0, 1.0]), ember.eye(2), ember.tensor([2.0, 3.0]), beta=2)
    tensor([4., 5.])
    """
    _check_tensor(mat, "addmv", "mat")
    _check_tensor(vec, "addmv", "vec")
    prod = _C.mv(mat, vec)
    return _out(_scaled_sum("addmv", input, prod, beta, alpha), out, "addmv")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor

    beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i]).

    >>> ember.addbmm(ember.zeros(2, 2), ember.ones(3, 2, 4), ember.ones(3, 4, 2))
    tensor([[12., 12.],
            [12., 12.]])
    """
    _check_tensor(batch1, "addbmm", "batch1")
    _check_tensor(batch2, "addbmm", "batch2")
    prod = _C.bmm(batch1, batch2).sum(0)
    return _out(_scaled_sum("addbmm", input, prod, beta, alpha), out, "addbmm")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor

    beta * input + alpha * (batch1 @ batch2), batch by batch.

    >>> ember.baddbmm(ember.zeros(3, 2, 2), ember.ones(3, 2, 4), ember.ones(3, 4, 2)).shape
    ember.Size([3, 2, 2])
    """
    _check_tensor(batch1, "baddbmm", "batch1")
    _check_tensor(batch2, "baddbmm", "batch2")
    prod = _C.bmm(batch1, batch2)
    return _out(_scaled_sum("baddbmm", input, prod, beta, alpha), out, "baddbmm")


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2).

    >>> ember.addr(ember.zeros(2, 2), ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    _check_tensor(vec1, "addr", "vec1")
    _check_tensor(vec2, "addr", "vec2")
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1 and vec2, but got shapes "
                           f"{tuple(vec1.shape)} and {tuple(vec2.shape)}")
    return _out(_scaled_sum("addr", input, _C.outer(vec1, vec2), beta, alpha), out, "addr")


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast).

    >>> ember.dist(ember.tensor([0.0, 0.0]), ember.tensor([3.0, 4.0]))
    tensor(5.)
    """
    _check_tensor(input, "dist")
    _check_tensor(other, "dist", "other")
    from ._comparison import check_broadcast
    check_broadcast("dist", input, other)
    diff = _C.sub(input, other)
    if p == 0:
        return _C.ne(diff, 0).to(diff.dtype).sum()
    if p == float("inf"):
        return _C.abs(diff).amax() if diff.numel() else diff.sum()
    return _C.norm(diff.reshape(-1), p)


def _out(result, out, fn):
    if out is None:
        return result
    from ._comparison import _into
    return _into(result, out, fn)


FUNCTIONS = {
    "einsum": einsum, "tensordot": tensordot, "kron": kron, "inner": inner, "ger": ger,
    "vdot": vdot, "cross": cross, "cdist": cdist, "chain_matmul": chain_matmul, "addmv": addmv,
    "addbmm": addbmm, "baddbmm": baddbmm, "addr": addr, "dist": dist,
}
METHODS = {n: FUNCTIONS[n] for n in ("kron", "inner", "ger", "vdot", "cross", "addmv", "addbmm",
                                     "baddbmm", "addr", "dist")}
for _name in ("addmv", "addbmm", "baddbmm", "addr"):
    METHODS[_name + "_"] = inplace_form(FUNCTIONS[_name], _name + "_")
