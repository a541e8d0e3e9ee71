"""torch.memory_format: the order in which a 4-d (5-d) tensor's dims sit in memory.

ember tensors are strided, so a layout is a choice of strides: `channels_last` is (N, C, H, W)
with strides (H*W*C, 1, W*C, C), the NHWC order convolution libraries like. A tensor gets there
by `contiguous(memory_format=...)`, `to(memory_format=...)`, `clone(memory_format=...)`,
`empty(..., memory_format=...)`, the `*_like` factories and `Module.to(memory_format=...)`;
`is_contiguous(memory_format=...)` asks. Each conversion is a permute, a contiguous copy and the
inverse permute, so autograd flows through it. **Difference**: ember's ops return row-major
results whatever their inputs' layout (torch keeps channels_last through elementwise ops and
convolutions), and `preserve_format` (the default of clone, `to` and the `*_like` factories)
gives a row-major result where torch keeps the input's strides; values are the same either way.
"""
from . import _C

Tensor = _C.Tensor


class memory_format:
    """torch.memory_format: contiguous_format, channels_last, channels_last_3d, preserve_format.

    >>> x = ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last)
    >>> x.stride(), x.is_contiguous(memory_format=ember.channels_last)
    ((60, 1, 15, 3), True)
    """

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):  # pickles as the module attribute of that name
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# Outermost to innermost dim of each layout that has a fixed rank.
_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def _check(fmt, op):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(fmt).__name__}")
    return fmt


def _order(t, fmt):
    """The dim order fmt gives t (None: row-major), or the rank error torch raises."""
    order = _ORDER.get(fmt)
    if order is not None and t.dim() != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {fmt._name} format "
                           f"(got shape {list(t.shape)})")
    return order


def _dense_in(t, order):
    """Whether t's strides are exactly those of its sizes laid out in `order` (size-1 dims
    may have any stride), as torch's is_contiguous(memory_format) decides."""
    expected = 1
    for d in reversed(order):
        n = t.shape[d]
        if n != 1:
            if t.stride(d) != expected:
                return False
            expected *= n
    return True


def is_contiguous(t, fmt):
    """Tensor.is_contiguous(memory_format): False for a rank the layout does not fit."""
    _check(fmt, "is_contiguous")
    if fmt is contiguous_format or fmt is preserve_format:
        return t.is_contiguous()
    order = _ORDER[fmt]
    return t.dim() == len(order) and _dense_in(t, order)


def _permuted_copy(t, order):
    """A copy of t whose dims sit in memory in `order`: a row-major clone of the permuted view
    (clone, not contiguous, so size-1 and empty dims get fresh strides too, as torch's)."""
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return t.permute(*order).clone().permute(*inverse)


def contiguous(t, fmt):
    """Tensor.contiguous(memory_format): self when already laid out so, else a copy that is."""
    _check(fmt, "contiguous")
    if fmt is preserve_format:
        if t.is_contiguous():
            return t
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator "
                           f"(got a non-contiguous tensor of shape {list(t.shape)})")
    order = _order(t, fmt)
    if order is None:
        return t.contiguous()
    return t if _dense_in(t, order) else _permuted_copy(t, order)


def clone(t, fmt):
    """clone(memory_format=...): a copy in that layout (preserve_format: row-major)."""
    _check(fmt, "clone")
    order = _order(t, fmt)
    return t.clone() if order is None else _permuted_copy(t, order)


def empty(out, fmt):
    """ember.empty(..., memory_format=...): out (row-major) laid out as fmt asks."""
    _check(fmt, "empty")
    if fmt is preserve_format:
        raise RuntimeError("empty(): unsupported memory format preserve_format")
    order = _order(out, fmt)
    return out if order is None else _permuted_copy(out, order)


def convert(t, dtype, fmt, op):
    """to() / the cast methods: t in `dtype` (None: its own) laid out as fmt (None or
    preserve_format: as the cast leaves it). t itself when nothing changes, as torch."""
    same = dtype is None or dtype == t.dtype
    if fmt is None or _check(fmt, op) is preserve_format:
        return t if same else t._to_dtype(dtype)
    order = _order(t, fmt)
    if order is None:
        return (t if same else t._to_dtype(dtype)).contiguous()
    if same:
        return t if _dense_in(t, order) else _permuted_copy(t, order)
    return _permuted_copy(t._to_dtype(dtype), order)  # a fresh result gets torch's strides


def like(out, fmt, op):
    """The *_like factories: out (row-major, the input's shape) in the layout memory_format asks
    (preserve_format: row-major)."""
    if fmt is None or _check(fmt, op) is preserve_format:
        return out
    order = _order(out, fmt)
    return out if order is None else _permuted_copy(out, order)


FUNCTIONS = {"memory_format": memory_format, "contiguous_format": contiguous_format,
             "channels_last": channels_last, "channels_last_3d": channels_last_3d,
             "preserve_format": preserve_format}
