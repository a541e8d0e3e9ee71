"""The nested tensor itself (torch.nested, strided layout): a Tensor subclass whose own data is
one flat buffer holding its components' elements back to back, plus their shapes.

Why a flat buffer and not a list of tensors: the nested tensor is then an ordinary node of
ember's autograd graph -- requires_grad, is_leaf, grad_fn, backward(), .grad accumulation and
retain_graph are the C++ engine's own; a component (unbind, nt[i]) is a narrow + view of the
buffer, so its gradient lands in the buffer; and an elementwise op, dropout, linear or a layer
norm over the last dim is one ember op on the buffer instead of one per component. Ops that
mix a component's dims (transpose, matmul, softmax over an inner dim) run per component and
concatenate the results into a new buffer (ember.cat, differentiable).

The class is made on first use: defining a Tensor subclass with a __torch_function__ turns
ember's routing on for the rest of the process (docs/overrides.md), a cost programs that never
build a nested tensor should not pay.
"""
from .. import _C
from .._tensor import Tensor

_CLASS = []


def nested_class():
    """The nested tensor class, defined on the first call."""
    if not _CLASS:
        from ._ops import torch_function
        _CLASS.append(_define(torch_function))
    return _CLASS[0]


def is_nested(x):
    return bool(_CLASS) and isinstance(x, _CLASS[0])


def buffer(nt):
    """nt's flat buffer as a plain Tensor (a view: gradients reach nt)."""
    return _C._as_subclass(Tensor, nt)


def wrap(flat, sizes):
    """A nested tensor over the 1-d tensor `flat`, components of shapes `sizes`."""
    nt = _C._as_subclass(nested_class(), flat)
    nt._nested_sizes = tuple(tuple(s) for s in sizes)
    return nt


def from_components(comps, dtype=None):
    """A nested tensor whose buffer concatenates comps (differentiable: ember.cat)."""
    import ember
    if not comps:
        return wrap(ember.empty(0, dtype=dtype), ())
    flat = ember.cat([c.reshape(-1) for c in comps])
    return wrap(flat, [c.shape for c in comps])


def components(nt):
    """nt's components: views of its buffer (narrow + view), gradients flowing back to nt."""
    flat, out, offset = buffer(nt), [], 0
    for shape in nt._nested_sizes:
        n = numel_of(shape)
        out.append(flat.narrow(0, offset, n).view(shape))
        offset += n
    return out


def numel_of(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def nested_dim(nt):
    sizes = nt._nested_sizes
    return 1 + (len(sizes[0]) if sizes else 0)


def wrap_dim(nt, dim, what="dim"):
    """dim normalized against nt.dim(), IndexError as torch's when out of range."""
    n = nested_dim(nt)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def nested_size(nt, dim=None):
    if dim is None:
        raise RuntimeError("size(): a nested tensor has no single size (its components' shapes "
                           "may differ): use size(dim) for one dim, or unbind() / "
                           "_nested_tensor_size() for the components' shapes")
    d = wrap_dim(nt, int(dim))
    if d == 0:
        return len(nt._nested_sizes)
    found = {s[d - 1] for s in nt._nested_sizes}
    if len(found) > 1:
        raise RuntimeError(f"Given dimension {dim} is irregular and does not have a size.")
    return found.pop()


def _repr(nt):
    comps = components(nt)
    if not comps:
        body = ""
    else:
        lines = []
        for c in comps:
            c = c.detach()
            if nt.requires_grad:
                c.requires_grad_()
            lines.append("  " + repr(c).replace("\n", "\n  "))
        body = ",\n".join(lines)
    tail = ""
    if nt.grad_fn is not None:
        tail = f", grad_fn=<{type(nt.grad_fn).__name__}>"
    elif nt.requires_grad:
        tail = ", requires_grad=True"
    return f"nested_tensor([\n{body}\n]{tail})"


def _no_len(self):
    raise RuntimeError("len() of a nested tensor: it has no single size; use nt.size(0) for "
                       "the number of components")


def _no_iter(self):
    raise RuntimeError("iter() of a nested tensor: use nt.unbind() for its components")


def _no_bool(self):
    raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")


def _shape(self):
    return nested_size(self)


def _no_transpose(self):
    raise NotImplementedError("T: permute is not supported for nested tensors: use "
                              "transpose(-2, -1) (or .mT) for the components' last two dims")


def _no_stride(self, dim=None):
    raise RuntimeError("stride(): a nested tensor has no single stride (its components' strides "
                       "may differ)")


def _int_rows(rows):
    """rows (lists of ints, all of one length) as an int64 tensor, (n, 0) when they are empty."""
    import ember
    from .._dtype import int64
    if not rows or not rows[0]:
        return ember.empty((len(rows), 0), dtype=int64)
    return ember.tensor(rows, dtype=int64)


def _nested_tensor_size(self):
    """The components' shapes as an int64 tensor, one row each (torch's private accessor)."""
    return _int_rows([list(s) for s in self._nested_sizes])


def _grad_get(self):
    g = Tensor.grad.__get__(self)
    return None if g is None else wrap(g, self._nested_sizes)


def _grad_set(self, value):
    if is_nested(value):
        value = buffer(value)
    Tensor.grad.__set__(self, value)


def nested_parts(nt):
    """What torch.save writes for nt: its buffer (requiring grad as nt, if a leaf), and per
    component its size, its strides and its offset in the buffer (int64 tensors)."""
    import ember
    from .._dtype import int64
    sizes = nt._nested_sizes
    strides, offsets, offset = [], [], 0
    for s in sizes:
        st, step = [], 1
        for d in reversed(s):
            st.append(step)
            step *= d
        strides.append(st[::-1])
        offsets.append(offset)
        offset += numel_of(s)
    flat = buffer(nt).detach()
    if nt.requires_grad and nt.is_leaf:
        flat.requires_grad_()
    return (flat, _int_rows([list(s) for s in sizes]), _int_rows(strides),
            ember.tensor(offsets, dtype=int64))


def _rebuild(comps, dtype, requires_grad):
    """A pickled nested tensor, rebuilt from copies of its components."""
    out = from_components(comps, dtype=dtype)
    return out.requires_grad_() if requires_grad else out


def _define(torch_function):
    def size(self, dim=None):
        """size(dim) -> int: the size of dim (0: the number of components; a dim where the
        components' sizes differ raises, as torch's)."""
        return nested_size(self, dim)

    def dim(self):
        return nested_dim(self)

    def numel(self):
        return sum(numel_of(s) for s in self._nested_sizes)

    def deepcopy(self, memo):
        out = wrap(buffer(self).detach().clone(), self._nested_sizes)
        return out.requires_grad_(self.requires_grad) if self.is_leaf else out

    def reduce_ex(self, proto):
        comps = [c.detach().clone() for c in components(self)]
        return (_rebuild, (comps, self.dtype, self.requires_grad and self.is_leaf))

    namespace = {
        "__module__": "ember.nested", "__doc__": "A nested tensor (ember.nested.nested_tensor).",
        "__torch_function__": classmethod(torch_function),
        "size": size, "dim": dim, "ndimension": dim, "numel": numel, "nelement": numel,
        "shape": property(_shape), "ndim": property(dim), "is_nested": property(lambda s: True),
        "grad": property(_grad_get, _grad_set),
        "data": property(lambda s: wrap(buffer(s).detach(), s._nested_sizes)),
        "mT": property(lambda s: s.transpose(-2, -1)), "T": property(_no_transpose),
        "stride": _no_stride, "_nested_tensor_size": _nested_tensor_size,
        "__repr__": _repr, "__str__": _repr, "__len__": _no_len, "__iter__": _no_iter,
        "__bool__": _no_bool, "__deepcopy__": deepcopy, "__reduce_ex__": reduce_ex,
    }
    return type("NestedTensor", (Tensor,), namespace)
