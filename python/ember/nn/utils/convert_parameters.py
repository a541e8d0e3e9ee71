"""torch.nn.utils.convert_parameters: all parameters as one flat vector and back."""
from ... import _C
from ..._grad_mode import no_grad

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor (a copy).

    >>> m = ember.nn.Linear(2, 1)
    >>> ember.nn.utils.parameters_to_vector(m.parameters()).shape
    ember.Size([3])
    """
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive pieces of a 1-D vec into the parameters (in place).

    >>> m = ember.nn.Linear(2, 1)
    >>> ember.nn.utils.vector_to_parameters(ember.tensor([1.0, 2.0, 3.0]), m.parameters())
    >>> m.weight.tolist(), m.bias.tolist()
    ([[1.0, 2.0]], [3.0])
    """
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.dim() != 1 or vec.numel() != total:
        raise ValueError(f"vector_to_parameters: vec of shape {tuple(vec.shape)} does not hold "
                         f"the {total} parameter values")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
