"""3-d pooling (C++ ops, src/ops/pool.cpp), the *_with_indices forms torch.nn.functional
names separately, adaptive max pooling in 3-d, max unpooling and power-average (LP) pooling.
Unpooling and LP pooling are compositions of ember ops (a scatter; an average pool of x^p),
as torch's own functional.py composes LP pooling, so autograd comes for free.

    y, i = max_pool3d(x, 2, return_indices=True)
    max_unpool3d(y, i, 2)                     # zeros except each window's maximum
    lp_pool2d(x, 2, 3)                        # (sum over each 3x3 window of x^2) ^ (1/2)"""
import math

from .. import _C
from .._creation import zeros
from .._dtype import int64
from ._padding_conv import _adaptive_max, _check_tensors, _tuple, avg_pool1d, max_pool1d

__all__ = ["max_pool3d", "max_pool3d_with_indices", "max_pool1d_with_indices", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d"]


# ---- 3-d pooling and the *_with_indices forms --------------------------------------------------
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False) -> Tensor

    The max over kernel_size windows of (N, C, D, H, W) or (C, D, H, W); stride defaults to
    kernel_size.

    >>> ember.nn.functional.max_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
    """
    return _C.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False) -> (Tensor, Tensor)

    max_pool3d returning (values, indices); indices are flat over D * H * W.

    >>> ember.nn.functional.max_pool3d_with_indices(ember.arange(8.0).reshape(1, 2, 2, 2), 2)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    return _C.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, Tensor)

    max_pool1d that always returns (values, indices), indices into the last dim.

    >>> x = ember.tensor([[[1.0, 3.0, 2.0, 5.0]]])
    >>> ember.nn.functional.max_pool1d_with_indices(x, 2)
    (tensor([[[3., 5.]]]), tensor([[[1, 3]]]))
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None) -> Tensor

    Averages kernel_size windows of (N, C, D, H, W) or (C, D, H, W); stride defaults to
    kernel_size.

    >>> ember.nn.functional.avg_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[3.5000]]]])
    """
    return _C.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


def adaptive_avg_pool3d(input, output_size):
    """adaptive_avg_pool3d(input, output_size) -> Tensor

    Averages (N, C, D, H, W) or (C, D, H, W) into an output_size grid (an int or a triple).

    >>> ember.nn.functional.adaptive_avg_pool3d(ember.ones(1, 2, 4, 4, 4), 2).shape
    ember.Size([1, 2, 2, 2, 2])
    """
    return _C.adaptive_avg_pool3d(input, output_size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """adaptive_max_pool3d(input, output_size, return_indices=False) -> Tensor

    The max of (N, C, D, H, W) or (C, D, H, W) over an output_size grid (an int or a triple).

    >>> ember.nn.functional.adaptive_max_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[7.]]]])
    """
    return _adaptive_max("adaptive_max_pool3d", input, output_size, 3, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d_with_indices(input, output_size, return_indices=False) -> (Tensor, Tensor)

    adaptive_max_pool1d returning (values, indices) whatever return_indices says.

    >>> x = ember.tensor([[1.0, 5.0, 3.0, 4.0]])
    >>> ember.nn.functional.adaptive_max_pool1d_with_indices(x, 2)
    (tensor([[5., 4.]]), tensor([[1, 3]]))
    """
    return _adaptive_max("adaptive_max_pool1d", input, output_size, 1, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d_with_indices(input, output_size, return_indices=False) -> (Tensor, Tensor)

    adaptive_max_pool2d returning (values, indices); indices are flat over H * W.

    >>> x = ember.tensor([[[1.0, 5.0], [3.0, 4.0]]])
    >>> ember.nn.functional.adaptive_max_pool2d_with_indices(x, 1)
    (tensor([[[5.]]]), tensor([[[1]]]))
    """
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d_with_indices(input, output_size, return_indices=False) -> (Tensor, Tensor)

    adaptive_max_pool3d returning (values, indices); indices are flat over D * H * W.

    >>> x = ember.arange(8.0).reshape(1, 2, 2, 2)
    >>> ember.nn.functional.adaptive_max_pool3d_with_indices(x, 1)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    return _adaptive_max("adaptive_max_pool3d", input, output_size, 3, True)


# ---- max unpooling ----------------------------------------------------------------------------
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's default (n - 1) * stride + kernel - 2 * padding per dim, or output_size (its
    last nd entries) when it lies strictly within stride of that."""
    nd = len(kernel_size)
    default = [(input.size(-nd + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        sizes = default
    else:
        sizes = list(output_size)
        if len(sizes) == nd + 2:
            sizes = sizes[2:]
        if len(sizes) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(sizes)}'")
        for d in range(nd):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < sizes[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{lo} and {hi})')
    for d, n in enumerate(sizes):
        if n < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={n}")
    return [int(n) for n in sizes]


def _max_unpool(name, input, indices, kernel_size, stride, padding, output_size, nd):
    """Zeros of the unpooled size with input[..., j] written at flat position indices[..., j]
    of its plane (a scatter along the flattened spatial dims: the gradient is a gather)."""
    _check_tensors(name, input=input, indices=indices)
    k = _tuple(kernel_size, nd, name)
    s = k if stride is None else _tuple(stride, nd, name)
    p = _tuple(padding, nd, name)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}: input should be a {nd + 1}d or {nd + 2}d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions")
    sizes = _unpool_output_size(input, k, s, p, output_size)
    if not input.is_floating_point():
        raise NotImplementedError(f'"{name}" not implemented for {input.dtype} (torch\'s '
                                  f'max_unpool takes floating-point inputs only)')
    if indices.dtype != int64:
        raise RuntimeError(f"{name}: elements in indices should be type int64 but got: "
                           f"{indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{name}: expected shape of indices to be same as that of the input "
                           f"tensor ({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    lead = tuple(input.shape[:-nd])
    volume = math.prod(sizes)
    flat = indices.reshape(*lead, -1)
    if flat.numel() > 0:
        bad = (flat < 0) | (flat >= volume)
        if bool(bad.any()):
            raise RuntimeError(f"{name}: found an invalid max index: "
                               f"{int(flat[bad].reshape(-1)[0])} (output volumes are of size "
                               f"{'x'.join(str(n) for n in sizes)})")
    out = zeros(*lead, volume, dtype=input.dtype).scatter(-1, flat, input.reshape(*lead, -1))
    return out.reshape(*lead, *sizes)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    Puts each value back at the index max_pool1d(return_indices=True) gave it; zeros elsewhere.

    >>> F = ember.nn.functional
    >>> y, i = F.max_pool1d(ember.tensor([[1.0, 3.0, 2.0, 0.0]]), 2, return_indices=True)
    >>> F.max_unpool1d(y, i, 2)
    tensor([[0., 3., 2., 0.]])
    """
    return _max_unpool("max_unpool1d", input, indices, kernel_size, stride, padding,
                       output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    Puts each value back at the index max_pool2d(return_indices=True) gave it; zeros elsewhere.

    >>> F = ember.nn.functional
    >>> y, i = F.max_pool2d(ember.tensor([[[1.0, 3.0], [2.0, 0.0]]]), 2, return_indices=True)
    >>> F.max_unpool2d(y, i, 2)
    tensor([[[0., 3.],
             [0., 0.]]])
    """
    return _max_unpool("max_unpool2d", input, indices, kernel_size, stride, padding,
                       output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    Puts each value back at the index max_pool3d(return_indices=True) gave it; zeros elsewhere.

    >>> F = ember.nn.functional
    >>> y, i = F.max_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 2, return_indices=True)
    >>> F.max_unpool3d(y, i, 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    return _max_unpool("max_unpool3d", input, indices, kernel_size, stride, padding,
                       output_size, 3)


# ---- power-average pooling ----------------------------------------------------------------------
def _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode):
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, False)


def _avg_pool2d(input, kernel_size, stride, padding, ceil_mode):
    return _C.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, True, None)


_MAX = {1: max_pool1d, 2: _max_pool2d, 3: max_pool3d}
_AVG = {1: avg_pool1d, 2: _avg_pool2d, 3: avg_pool3d}


def _lp_pool(name, input, norm_type, kernel_size, stride, ceil_mode, nd):
    """(sum over each window of x^p)^(1/p), as torch: the window's average of x^p times its
    size; p = inf is the max of |x|. A negative window sum (odd p) gives 0, as torch's relu."""
    _check_tensors(name, input=input)
    k = _tuple(kernel_size, nd, name)
    if norm_type == math.inf:
        return _MAX[nd](input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -_MAX[nd](-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = _AVG[nd](input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    The p-norm (p = norm_type) of kernel_size windows of (N, C, L) or (C, L): (sum x^p)^(1/p).

    >>> ember.nn.functional.lp_pool1d(ember.tensor([[3.0, 4.0, 6.0, 8.0]]), 2, 2)
    tensor([[ 5., 10.]])
    """
    return _lp_pool("lp_pool1d", input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    The p-norm (p = norm_type) of kernel_size windows of (N, C, H, W) or (C, H, W).

    >>> ember.nn.functional.lp_pool2d(ember.ones(1, 1, 2, 2), 2, 2)
    tensor([[[[2.]]]])
    """
    return _lp_pool("lp_pool2d", input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    The p-norm (p = norm_type) of kernel_size windows of (N, C, D, H, W) or (C, D, H, W).

    >>> ember.nn.functional.lp_pool3d(ember.ones(1, 1, 2, 2, 2), 1, 2)
    tensor([[[[[8.]]]]])
    """
    return _lp_pool("lp_pool3d", input, norm_type, kernel_size, stride, ceil_mode, 3)
