"""What a tensor is, rather than what it holds: layout, dim_order, inference and distributed
flags, device index, same-size and signedness predicates, as_subclass, module_load; and the
legacy creation spellings torch keeps (range with its inclusive end, scalar_tensor,
Tensor.new) and nonzero_static / Tensor.where. Queries and argument shaping only."""
import builtins
import warnings

from . import _C
from ._dtype import to_dtype, float64, get_default_dtype

Tensor = _C.Tensor


class layout:
    """torch.layout: how a tensor's elements are arranged. ember has one, `strided`.

    >>> ember.zeros(2).layout, ember.strided
    (ember.strided, ember.strided)
    """

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        # 'torch.sparse_coo' under the drop-in runner, where ember answers to torch (PyG compares
        # str(layout) with 'torch.sparse_coo'), as Tensor.type() names 'torch.FloatTensor'.
        import sys
        return f"{sys.modules[__package__].__name__}.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
# torch's compressed layouts: CSR and CSC tensors live in _sparse_compressed.py; the blocked ones
# (BSR, BSC) are names to compare a layout with, and asking for one raises NotImplementedError.
sparse_csr, sparse_csc = layout("sparse_csr"), layout("sparse_csc")
sparse_bsr, sparse_bsc = layout("sparse_bsr"), layout("sparse_bsc")
# torch.nested's jagged layout: a name; asking ember.nested for it raises NotImplementedError.
jagged = layout("jagged")


def _check(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


# ---- inference mode -----------------------------------------------------------------------------
from ._grad_mode import is_inference_mode_enabled  # noqa: E402


def is_inference(input):
    """False: ember has no inference tensors (a tensor made under inference_mode is a normal
    tensor that can later enter autograd), documented in docs/autograd.md.

    >>> with ember.inference_mode():
    ...     x = ember.ones(2)
    >>> ember.is_inference(x)
    False
    """
    _check(input, "is_inference")
    return False


# ---- predicates -----------------------------------------------------------------------------------
def is_same_size(input, other):
    """is_same_size(input, other) -> bool

    True when the two tensors have the same shape.

    >>> ember.is_same_size(ember.zeros(2, 3), ember.ones(2, 3))
    True
    """
    _check(input, "is_same_size")
    _check(other, "is_same_size", "other")
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    """is_signed(input) -> bool

    True when input's dtype can hold negative values (False for bool and uint8/16/32/64).

    >>> ember.is_signed(ember.tensor([1])), ember.is_signed(ember.tensor([1], dtype=ember.uint8))
    (True, False)
    """
    _check(input, "is_signed")
    return input.dtype.is_signed


def get_device(input):
    """get_device(input) -> int

    The device index of input: -1 for a CPU tensor (ember's only device).

    >>> ember.get_device(ember.ones(2))
    -1
    """
    _check(input, "get_device")
    return input.get_device()


def _dim_order(self, *, ambiguity_check=False):
    """dim_order(*, ambiguity_check=False) -> tuple

    The dims from outermost to innermost in memory (stride descending; ties keep order).

    >>> ember.zeros(2, 3, 4).dim_order()
    (0, 1, 2)
    >>> ember.zeros(2, 3, 4).permute(2, 0, 1).dim_order()
    (1, 2, 0)
    """
    strides = self.stride()
    if ambiguity_check and len(set(s for s, n in zip(strides, self.shape) if n > 1)) != \
            sum(1 for n in self.shape if n > 1):
        raise RuntimeError("dim_order: the tensor's memory format is ambiguous (equal strides)")
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


def _module_load(self, other, assign=False):
    """module_load(other, assign=False) -> Tensor

    What nn.Module.load_state_dict stores for parameter `self` given state-dict value
    `other`: self with other's values copied in, or other itself (detached) when assign=True.

    >>> p = ember.zeros(2)
    >>> p.module_load(ember.tensor([1.0, 2.0]))
    tensor([1., 2.])
    >>> p
    tensor([1., 2.])
    """
    _check(other, "module_load", "other")
    return other.detach() if assign else self.copy_(other).detach()


def _as_subclass(self, cls):
    """as_subclass(cls) -> Tensor

    self's data (an alias view, still in self's graph) as an instance of Tensor subclass
    `cls`, whose __init__ does not run (as torch).

    >>> class MyTensor(ember.Tensor):  # opts out of __torch_function__, as torch spells it
    ...     __torch_function__ = ember._C._disabled_torch_function_impl
    >>> y = ember.tensor([1.0, 2.0]).as_subclass(MyTensor)
    >>> type(y).__name__, y.tolist()
    ('MyTensor', [1.0, 2.0])
    """
    return _C._as_subclass(cls, self)


def _volatile(self):
    """volatile -> bool

    Removed in torch (it was Variable.volatile): always False, with a UserWarning.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     ember.zeros(2).volatile
    False
    """
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


# ---- legacy creation spellings ---------------------------------------------------------------------
# (torch.range is registered from range_: a module-level `range` would hide the builtin here)
def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated in torch: start, start + step, ... up to and including end (float32 by
    default); torch.arange excludes end.

    >>> ember.range(1, 2, 0.5)
    tensor([1.0000, 1.5000, 2.0000])
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError(f"range: upper bound ({end}) and lower bound ({start}) inconsistent "
                           f"with step sign ({step})")
    dtype = to_dtype(dtype) if dtype is not None else get_default_dtype()
    n = int((end - start) / step) + 1
    result = _C.add(_C.mul(_C.arange(0, n, 1, float64), float(step)), float(start))
    result = result.to(dtype)
    if out is not None:
        from ._inplace_and_copy import _into
        return _into(result, out, "range")
    return result.requires_grad_(requires_grad) if requires_grad else result


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad=False):
    """A 0-d tensor of the default float dtype (not of the number's type: torch.tensor's).

    >>> ember.scalar_tensor(3)
    tensor(3.)
    """
    if isinstance(s, Tensor):
        s = s.item()
    if not isinstance(s, (builtins.int, builtins.float, builtins.bool)):
        raise TypeError(f"scalar_tensor(): argument 's' must be Number, not {type(s).__name__}")
    dtype = to_dtype(dtype) if dtype is not None else get_default_dtype()
    out = _C.full([], s, dtype)
    return out.requires_grad_(requires_grad) if requires_grad else out


def _new(self, *args, dtype=None, device=None, requires_grad=False):
    """new(*args, dtype=None, device=None, requires_grad=False) -> Tensor

    torch's legacy Tensor.new: new(*sizes) or new(Size) uninitialised, new(list or tuple)
    the data, new(tensor) an alias of it, new() empty; self's dtype unless told.

    >>> x = ember.tensor([1, 2])
    >>> x.new([5, 6])
    tensor([5, 6])
    >>> x.new(2, 3).shape
    ember.Size([2, 3])
    """
    from ._creation import tensor, empty
    from ._tensor import Size
    dtype = dtype or self.dtype
    if not args:
        return _C.zeros([0], dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype != dtype:
            raise TypeError(f"new(): expected a {dtype} tensor, got {args[0].dtype}")
        return args[0].detach()
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
        return tensor(args[0], dtype=dtype, requires_grad=requires_grad)
    return empty(*args, dtype=dtype, requires_grad=requires_grad)


# ---- nonzero_static, Tensor.where ---------------------------------------------------------------
def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's (n, ndim) indices cut or padded with fill_value to exactly `size` rows.

    >>> ember.nonzero_static(ember.tensor([0, 5, 0, 7]), size=3)
    tensor([[ 1],
            [ 3],
            [-1]])
    """
    _check(input, "nonzero_static")
    if isinstance(size, builtins.bool) or not isinstance(size, builtins.int) or size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be a non-negative int, got {size!r}")
    found = _C.nonzero(input)
    if found.shape[0] >= size:
        return found[:size]
    pad = _C.full([size - found.shape[0], found.shape[1]], fill_value, found.dtype)
    return _C.cat([found, pad], 0)


def _where(self, condition, y):
    """where(condition, y) -> Tensor

    self where condition holds, else y: ember.where(condition, self, y).

    >>> x = ember.tensor([1.0, -2.0, 3.0])
    >>> x.where(x > 0, ember.tensor(0.0))
    tensor([1., 0., 3.])
    """
    from . import where
    return where(condition, self, y)


FUNCTIONS = {
    "is_inference_mode_enabled": is_inference_mode_enabled, "is_inference": is_inference,
    "is_same_size": is_same_size, "is_signed": is_signed, "get_device": get_device,
    "range": range_, "scalar_tensor": scalar_tensor, "nonzero_static": nonzero_static,
    "layout": layout, "strided": strided, "jagged": jagged,
}
def _layout(self):
    """layout -> ember.layout

    The memory layout: always ember.strided (dense) in ember.

    >>> ember.zeros(2).layout
    ember.strided
    """
    return strided


def _const_data_ptr(self):
    """const_data_ptr() -> int

    The address of self's first element, as data_ptr() (torch's read-only spelling).

    >>> x = ember.zeros(2)
    >>> x.const_data_ptr() == x.data_ptr()
    True
    """
    return self.data_ptr()


def _is_distributed(self):
    """is_distributed() -> bool

    A legacy torch flag: always False.

    >>> ember.zeros(2).is_distributed()
    False
    """
    return False


def _is_nested(self):
    """is_nested -> bool

    Whether self is a nested tensor (ember.nested.nested_tensor): False for a dense tensor.

    >>> ember.zeros(2).is_nested, ember.nested.nested_tensor([ember.zeros(2)]).is_nested
    (False, True)
    """
    return False  # a nested tensor's class answers True


def _to_padded_tensor(self, padding, output_size=None):
    """to_padded_tensor(padding, output_size=None) -> Tensor

    self, a nested tensor, as a dense tensor: each component padded with `padding` up to the
    largest size of each dim, or to output_size (ember.nested.to_padded_tensor). A dense tensor
    raises, as torch's.

    >>> ember.nested.nested_tensor([[1.0], [2.0, 3.0]]).to_padded_tensor(0.0)
    tensor([[1., 0.],
            [2., 3.]])
    """
    raise RuntimeError("to_padded_tensor: expected a nested tensor (ember.nested), got a dense "
                       f"tensor of shape {tuple(self.shape)}")


METHODS = {
    "is_nested": property(_is_nested), "to_padded_tensor": _to_padded_tensor,
    "is_inference": is_inference, "is_same_size": is_same_size, "is_signed": is_signed,
    "dim_order": _dim_order, "module_load": _module_load, "new": _new,
    "as_subclass": _as_subclass,
    "nonzero_static": nonzero_static, "where": _where,
    "layout": property(_layout),
    "volatile": property(_volatile),
    "const_data_ptr": _const_data_ptr,
    "is_distributed": _is_distributed,
}
