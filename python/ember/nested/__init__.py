"""torch.nested: tensors made of tensors of different lengths (a batch of sequences), in the
strided layout (docs/nested.md). A nested tensor is a Tensor: `is_nested` is True, ember's
functions, Tensor methods and nn layers take it through the __torch_function__ protocol, and
the ops torch 2.13 runs on strided nested tensors run here (_ops.py), with their gradients
reaching the components. Built on ember's Tensor ops in Python; no C++ of its own."""
from .._tensor import Tensor
from .._tensor_attributes import jagged, strided
from ._nested_tensor import from_components, is_nested
from . import _ops, _shape_ops  # noqa: F401  (_shape_ops registers its handlers)

__all__ = ["to_padded_tensor", "as_nested_tensor", "nested_tensor", "nested_tensor_from_jagged",
           "narrow", "masked_select"]


def _components(what, tensor_list, dtype):
    """tensor_list's entries as tensors of one dim count and dtype (torch's checks)."""
    import ember
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError(f"{what}: only lists (List[Tensor] and List[List...[Scalar]]) are "
                        f"accepted, got {type(tensor_list).__name__}")
    comps = [t if isinstance(t, Tensor) else ember.tensor(t) for t in tensor_list]
    if any(is_nested(t) for t in comps):
        raise RuntimeError(f"{what}: a component cannot itself be a nested tensor")
    for i, c in enumerate(comps[1:], 1):
        if c.dim() != comps[0].dim():
            raise RuntimeError(f"{what}: all tensors given must have the same dimension. Found "
                               f"dimension {c.dim()} for Tensor at index {i} and dimension "
                               f"{comps[0].dim()} for Tensor at index 0.")
    dtype = dtype if dtype is not None else (comps[0].dtype if comps else None)
    return [c if c.dtype == dtype else c.to(dtype) for c in comps], dtype


def _check_layout(what, layout, device):
    if device is not None:
        from .._device import tensor_to_device
        tensor_to_device(device, what)
    if layout is not None and layout is not strided:
        if layout is jagged:
            raise NotImplementedError(f"{what}: layout=ember.jagged is not implemented in ember "
                                      "(only the strided layout, the default)")
        raise RuntimeError(f"{what}: expected layout=ember.strided or ember.jagged, got "
                           f"{layout}")


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
    pin_memory=False) -> Tensor

    A nested tensor holding copies of tensor_list's tensors (or nested lists of numbers), all
    of one dim count; with requires_grad it is a leaf whose .grad is nested.

    >>> nt = ember.nested.nested_tensor([ember.ones(2), ember.ones(3)])
    >>> nt.is_nested, nt.dim(), nt.size(0)
    (True, 2, 2)
    >>> nt.to_padded_tensor(0.0)
    tensor([[1., 1., 0.],
            [1., 1., 1.]])
    """
    _check_layout("nested_tensor", layout, device)
    comps, dtype = _components("nested_tensor", tensor_list, dtype)
    if requires_grad and comps and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("nested_tensor: only Tensors of floating point and complex dtype can "
                           "require gradients")
    out = from_components([c.detach() for c in comps], dtype=dtype)  # ember.cat: a copy
    return out.requires_grad_() if requires_grad else out


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """as_nested_tensor(ts, dtype=None, device=None, layout=None) -> Tensor

    A nested tensor from a list of tensors, or from a tensor (its slices along dim 0), keeping
    the autograd graph: gradients reach the tensors it was made of.

    >>> x = ember.ones(2, 3, requires_grad=True)
    >>> nt = ember.nested.as_nested_tensor([x, ember.zeros(1, 3)])
    >>> nt.to_padded_tensor(0.0).sum().backward()
    >>> x.grad.sum()
    tensor(6.)
    """
    _check_layout("as_nested_tensor", layout, device)
    if is_nested(ts):
        if dtype is None or dtype == ts.dtype:
            return ts
        return ts.to(dtype)
    if isinstance(ts, Tensor):
        if ts.dim() < 2:
            raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim() > 1")
        ts = list(ts.unbind(0))
    elif not (isinstance(ts, (list, tuple)) and all(isinstance(t, Tensor) for t in ts)):
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list / "
                        f"tuple of tensors, got {type(ts).__name__}")
    comps, dtype = _components("as_nested_tensor", ts, dtype)
    return from_components(comps, dtype=dtype)


def to_padded_tensor(input, padding, output_size=None):
    """to_padded_tensor(input, padding, output_size=None) -> Tensor

    A dense tensor of input's components, each padded with `padding` up to the largest size of
    each dim (or to output_size, which may only be larger); differentiable.

    >>> nt = ember.nested.nested_tensor([ember.ones(1, 2), ember.ones(2, 1)])
    >>> ember.nested.to_padded_tensor(nt, -1.0)
    tensor([[[ 1.,  1.],
             [-1., -1.]],
    <BLANKLINE>
            [[ 1., -1.],
             [ 1., -1.]]])
    """
    if not is_nested(input):
        raise RuntimeError("to_padded_tensor: expected a nested tensor (ember.nested), got a "
                           "dense tensor" if isinstance(input, Tensor) else
                           f"to_padded_tensor: expected a nested tensor, got "
                           f"{type(input).__name__}")
    return _ops.to_padded_tensor(None, "to_padded_tensor", input, padding, output_size)


def narrow(tensor, dim, start, length, layout=strided):
    """narrow(tensor, dim, start, length, layout=ember.strided) -> Tensor

    Components start .. start+length-1 of a nested tensor (dim 0 only in the strided layout, as
    torch's), a view of its buffer.

    >>> nt = ember.nested.nested_tensor([[1.0], [2.0, 3.0], [4.0]])
    >>> ember.nested.narrow(nt, 0, 1, 2).to_padded_tensor(0.0)
    tensor([[2., 3.],
            [4., 0.]])
    """
    if layout is not strided:
        _check_layout("narrow", layout, None)
    if not is_nested(tensor):
        raise RuntimeError("narrow: building a nested tensor from a dense one needs "
                           "layout=ember.jagged, which ember does not implement")
    return tensor.narrow(dim, start, length)


def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None,
                              min_seqlen=None, max_seqlen=None):
    """nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None, ...)

    Not implemented in ember: the jagged layout (values + offsets) is not supported; a strided
    nested tensor of the same components comes from nested_tensor or as_nested_tensor.

    >>> ember.nested.nested_tensor_from_jagged(ember.zeros(3, 2), ember.tensor([0, 1, 3]))
    Traceback (most recent call last):
    NotImplementedError: nested_tensor_from_jagged: the jagged layout is not implemented in \
ember; build a strided nested tensor with ember.nested.nested_tensor or as_nested_tensor
    """
    raise NotImplementedError("nested_tensor_from_jagged: the jagged layout is not implemented "
                              "in ember; build a strided nested tensor with "
                              "ember.nested.nested_tensor or as_nested_tensor")


nested_tensor_from_jagged._ember_not_implemented = True


def masked_select(tensor, mask):
    """masked_select(tensor, mask) -> Tensor

    Not implemented in ember: it returns a jagged-layout nested tensor.

    >>> ember.nested.masked_select(ember.ones(2, 2), ember.ones(2, 2, dtype=ember.bool))
    Traceback (most recent call last):
    NotImplementedError: nested.masked_select: returns a jagged-layout nested tensor, which \
ember does not implement
    """
    raise NotImplementedError("nested.masked_select: returns a jagged-layout nested tensor, "
                              "which ember does not implement")


masked_select._ember_not_implemented = True
