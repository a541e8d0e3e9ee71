"""torch.nn.grad: the gradients of conv1d / conv2d / conv3d with respect to their input and
their weight, from the other operand and the output's gradient. A convolution is linear in
each operand, so each gradient is the backward of one convolution run on a zero operand of
the requested size (ember's conv backward kernels, via autograd.grad)."""
from .. import _C
from .. import _creation as _cr
from .._grad_mode import enable_grad

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _conv(nd):
    from . import functional as F
    return (F.conv1d, F.conv2d, F.conv3d)[nd - 1]


def _grad(out, x, g):
    from ..autograd import grad
    return grad(out, x, g)


def _size(name, size, like):
    size = [int(s) for s in size]
    if len(size) != like:
        raise ValueError(f"{name}: expected a size of {like} dims, got {size}")
    return size


def _input_grad(nd, input_size, weight, grad_output, stride, padding, dilation, groups):
    name = f"conv{nd}d_input"
    size = _size(name, input_size, nd + 2)
    with enable_grad():
        x = _cr.zeros(size, dtype=grad_output.dtype).requires_grad_()
        out = _conv(nd)(x, weight.detach(), None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"{name}: grad_output of shape {list(grad_output.shape)} does not "
                               f"match the convolution's output shape {list(out.shape)} for input "
                               f"size {size} and weight of shape {list(weight.shape)}")
        return _grad(out, x, grad_output)[0]


def _weight_grad(nd, input, weight_size, grad_output, stride, padding, dilation, groups):
    name = f"conv{nd}d_weight"
    size = _size(name, weight_size, nd + 2)
    with enable_grad():
        w = _cr.zeros(size, dtype=grad_output.dtype).requires_grad_()
        out = _conv(nd)(input.detach(), w, None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"{name}: grad_output of shape {list(grad_output.shape)} does not "
                               f"match the convolution's output shape {list(out.shape)} for input "
                               f"of shape {list(input.shape)} and weight size {size}")
        return _grad(out, w, grad_output)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d conv1d / d input, for an input of input_size."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d conv1d / d weight, for a weight of weight_size."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d conv2d / d input, for an input of input_size."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d conv2d / d weight, for a weight of weight_size."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d conv3d / d input, for an input of input_size."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d conv3d / d weight, for a weight of weight_size."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
