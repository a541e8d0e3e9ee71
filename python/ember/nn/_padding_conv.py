"""Padding, 1-d convolution and pooling, transposed convolution and interpolation as
composites over ember ops (index_select, slice assignment, conv2d, the 2-d pools), so
autograd, double backward included, comes for free.

    pad(x, (1, 2), mode="reflect")            # index_select with a mirrored index
    conv_transpose2d(x, w, stride=2)          # zero-insertion + pad + conv2d, flipped kernel
    interpolate(x, scale_factor=2, mode="bilinear")"""
import math
import numbers
import warnings

from .. import _C
from .._creation import arange, full, tensor, zeros
from .._dtype import bool as bool_, float32, float64, int64, uint8

__all__ = [
    "pad", "conv1d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "interpolate",
    "upsample", "upsample_nearest", "upsample_bilinear",
]


def _tuple(x, n, name):
    """An int or a sequence of n ints as an n-tuple of ints."""
    t = tuple(x) if isinstance(x, (tuple, list)) else (x,) * n
    if not all(isinstance(v, numbers.Integral) for v in t):
        raise TypeError(f"{name}: expected an int or a sequence of {n} ints, got {x!r}")
    if len(t) != n:
        raise RuntimeError(f"{name}: expected a single integer or a list of {n} values to match "
                           f"the {n}-d operation, got {x!r}")
    return tuple(int(v) for v in t)


def _check_tensors(fn, **args):
    """TypeError naming fn and the argument, as torch's binding, for a non-Tensor argument."""
    from .._tensor import Tensor
    for name, x in args.items():
        if not isinstance(x, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")


# ---- pad -------------------------------------------------------------------------------------
_NON_CONSTANT_HELP = ("Supported combinations for non-constant padding:\n"
                      "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                      "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                      "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _check_pad(input, pad):
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    for i, p in enumerate(pad):
        if not isinstance(p, numbers.Integral) or isinstance(p, bool):
            raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but found "
                            f"element of type {type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    # (dim, before, after) from the last dim backwards, as torch reads the pairs
    return [(input.dim() - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1]))
            for i in range(len(pad) // 2)]


def _pad_constant(input, pads, value):
    """A new tensor full of `value`, the (cropped) input assigned into its middle: the slice
    assignment is differentiable, and negative pads crop."""
    shape, dst, src = list(input.shape), [slice(None)] * input.dim(), [slice(None)] * input.dim()
    for dim, lo, hi in pads:
        n = shape[dim]
        shape[dim] = n + lo + hi
        if shape[dim] < 0:
            raise RuntimeError(f"pad: the input size {n}, plus negative padding {lo} and {hi} "
                               f"resulted in a negative output size, which is invalid. Check "
                               f"dimension {dim} of your input.")
        dst[dim] = slice(max(lo, 0), max(lo, 0) + max(n + min(lo, 0) + min(hi, 0), 0))
        src[dim] = slice(max(-lo, 0), max(n - max(-hi, 0), max(-lo, 0)))
    out = full(shape, 0 if value is None else value, dtype=input.dtype)
    out[tuple(dst)] = input[tuple(src)]
    return out


def _pad_index(n, lo, hi, mode):
    """Source indices along a dim of size n padded by (lo, hi); negative pads crop."""
    if mode == "circular":  # torch crops first, then wraps around the cropped part
        start, m = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        return arange(-max(lo, 0), m + max(hi, 0), dtype=int64).remainder(max(m, 1)) + start
    i = arange(-lo, n + hi, dtype=int64)
    if mode == "replicate":
        return i.clamp(0, n - 1)
    return (n - 1) - ((n - 1) - i.abs()).abs()  # reflect: mirror at 0 and at n - 1


def _pad_non_constant(input, pads, mode):
    nd = len(pads)
    if input.dim() not in (nd + 1, nd + 2) or nd > 3:
        raise NotImplementedError(f"Padding size {2 * nd} is not supported for "
                                  f"{input.dim()}D input tensor.\n{_NON_CONSTANT_HELP}")
    if input.dtype == bool_ and mode != "circular":
        raise NotImplementedError(f"pad: mode '{mode}' is not implemented for 'Bool'")
    if any(s == 0 for s in input.shape[input.dim() - nd - 1:]):
        raise RuntimeError(f"pad: expected a {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                           f"possibly 0 batch size and other non-zero dimensions for input, but "
                           f"got: {list(input.shape)}")
    for dim, lo, hi in pads:
        n = input.size(dim)
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"pad: padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} "
                               f"of input {list(input.shape)}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + lo + hi <= 0:
            raise RuntimeError(f"pad: input (size {n} at dim {dim}) is too small. Calculated "
                               f"output size: {n + lo + hi}")
    for dim, lo, hi in pads:
        if lo or hi:
            input = input.index_select(dim, _pad_index(input.size(dim), lo, hi, mode))
    return input


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: `pad` holds (before, after) pairs from the last dim backwards.
    constant: negative pads crop; reflect: pads < size; circular: pads <= size.

    >>> ember.nn.functional.pad(ember.tensor([[1.0, 2.0]]), (1, 2), value=9.0)
    tensor([[9., 1., 2., 9., 9.]])
    >>> ember.nn.functional.pad(ember.tensor([[[1.0, 2.0, 3.0]]]), (2, 0), mode="reflect")
    tensor([[[3., 2., 1., 2., 3.]]])
    """
    pads = _check_pad(input, pad)
    if mode == "constant":
        return _pad_constant(input, pads, value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _pad_non_constant(input, pads, mode)


# ---- 1-d convolution and pooling through the 2-d ops ------------------------------------------
def _check_1d(name, input, what="input"):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) {what} to {name}, but got "
                           f"input of size: {list(input.shape)}")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    1-d convolution (cross-correlation) of (N, C, L) with a (O, C/groups, K) weight; computed as
    conv2d on (N, C, 1, L) with a (O, C/g, 1, K) kernel.

    >>> x = ember.tensor([[[1.0, 3.0, 2.0, 5.0]]])
    >>> ember.nn.functional.conv1d(x, ember.tensor([[[1.0, -1.0]]]))
    tensor([[[-2.,  1., -3.]]])
    """
    _check_1d("conv1d", input)
    if weight.dim() != 3:
        raise RuntimeError(f"conv1d: expected a 3D weight (out_channels, in_channels/groups, "
                           f"kernel_size), but got weight of size {list(weight.shape)}")
    if input.size(-2) != weight.size(1) * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.size(1) * groups} channels, "
                           f"but got {input.size(-2)} channels instead")
    padding = padding if isinstance(padding, str) else (0,) + _tuple(padding, 1, "conv1d")
    out = _C.conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias,
                    (1,) + _tuple(stride, 1, "conv1d"), padding,
                    (1,) + _tuple(dilation, 1, "conv1d"), groups)
    return out.squeeze(-2)


def _check_pool_size(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch's pool output length, which must be positive (a RuntimeError, as torch's)."""
    k, s = _tuple(kernel_size, 1, name)[0], _tuple(stride, 1, name)[0]
    p, d = _tuple(padding, 1, name)[0], _tuple(dilation, 1, name)[0]
    if k <= 0 or s <= 0 or d <= 0 or p < 0 or 2 * p > k:
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be positive and "
                           f"padding at most half the kernel, got kernel_size={k}, stride={s}, "
                           f"padding={p}, dilation={d}")
    n = input.size(-1)
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:  # the last window must start inside the input
        out -= 1
    if out <= 0:
        raise RuntimeError(f"{name}(): Invalid computed output size: {out} (input of size "
                           f"{list(input.shape)}, kernel_size={k}, padding={p}, dilation={d})")


def _as_pool2d(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    """A 1-d pool's arguments, checked (stride defaults to kernel_size), as the 2-d pool's on
    input.unsqueeze(-2): kernel, stride, padding and dilation with a leading H of 1 (pad 0)."""
    _check_1d(name, input)
    stride = kernel_size if stride is None or stride == () or stride == [] else stride
    _check_pool_size(name, input, kernel_size, stride, padding, dilation, ceil_mode)
    return ((1,) + _tuple(kernel_size, 1, name), (1,) + _tuple(stride, 1, name),
            (0,) + _tuple(padding, 1, name), (1,) + _tuple(dilation, 1, name))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False) -> Tensor

    The maximum over sliding windows along the last dim of (N, C, L) or (C, L).

    >>> x = ember.tensor([[[1.0, 3.0, 2.0, 5.0]]])
    >>> ember.nn.functional.max_pool1d(x, 2)
    tensor([[[3., 5.]]])
    """
    k, s, p, d = _as_pool2d("max_pool1d", input, kernel_size, stride, padding, dilation,
                            ceil_mode)
    out = _C.max_pool2d(input.unsqueeze(-2), k, s, p, d, ceil_mode, return_indices)
    if return_indices:  # with H = 1 the flat index into H * W is the index into L
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True) -> Tensor

    The mean over sliding windows along the last dim of (N, C, L) or (C, L).

    >>> x = ember.tensor([[[1.0, 3.0, 2.0, 5.0]]])
    >>> ember.nn.functional.avg_pool1d(x, 2)
    tensor([[[2.0000, 3.5000]]])
    """
    k, s, p, _ = _as_pool2d("avg_pool1d", input, kernel_size, stride, padding, 1, ceil_mode)
    out = _C.avg_pool2d(input.unsqueeze(-2), k, s, p, ceil_mode, count_include_pad, None)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool1d(input, output_size) -> Tensor

    Average pooling whose windows are chosen so the last dim becomes output_size.

    >>> x = ember.tensor([[[1.0, 3.0, 2.0, 5.0]]])
    >>> ember.nn.functional.adaptive_avg_pool1d(x, 1)
    tensor([[[2.7500]]])
    """
    _check_1d("adaptive_avg_pool1d", input)
    size = _tuple(output_size, 1, "adaptive_avg_pool1d")
    return _C.adaptive_avg_pool2d(input.unsqueeze(-2), (1,) + size).squeeze(-2)


def _adaptive_windows(n, o):
    """(o, k) source indices of torch's adaptive windows [floor(i*n/o), ceil((i+1)*n/o)) along a
    dim of size n, each padded to the longest length k by repeating its last index."""
    i = arange(o, dtype=int64)  # tensors, not Python lists: a huge o fails to allocate, fast
    starts = (i * n) // o
    ends = -((-(i + 1) * n) // o)
    k = int((ends - starts).max())
    idx = starts.unsqueeze(1) + arange(k, dtype=int64).unsqueeze(0)
    return idx.minimum(ends.unsqueeze(1) - 1)


def _adaptive_max(name, input, output_size, nd, return_indices):
    """Gathers every window along each spatial dim (a repeated element leaves the max
    unchanged), then takes the max over the flattened window; the index is flat in the
    input's spatial dims, as torch's."""
    if input.dim() not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[-nd:]):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor with non-zero "
                           f"spatial sizes, but got input of size: {list(input.shape)}")
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nd
    if len(sizes) != nd:
        raise ValueError(f"{name}(): output_size must have {nd} elements, got {output_size!r}")
    lead = input.dim() - nd
    in_sizes = list(input.shape[lead:])
    if any(o is not None and (not isinstance(o, numbers.Integral) or isinstance(o, bool))
           for o in sizes):
        raise TypeError(f"{name}(): argument 'output_size' must be a tuple of ints (or None), "
                        f"got {output_size!r}")
    sizes = [n if o is None else int(o) for n, o in zip(in_sizes, sizes)]
    if any(o <= 0 for o in sizes):
        raise RuntimeError(f"{name}(): elements of output_size must be greater than 0, got "
                           f"{tuple(sizes)}")
    x, windows = input, []
    for i, (n, o) in enumerate(zip(in_sizes, sizes)):
        idx = _adaptive_windows(n, o)
        windows.append(idx)
        d = lead + 2 * i
        x = x.index_select(d, idx.reshape(-1)).unflatten(d, tuple(idx.shape))
    # (..., o1, k1[, o2, k2]) -> (..., o1[, o2], k1[*k2])
    perm = list(range(lead)) + [lead + 2 * i for i in range(nd)] + \
        [lead + 2 * i + 1 for i in range(nd)]
    x = x.permute(*perm).flatten(lead + nd)
    values, arg = x.max(-1)
    if not return_indices:
        return values
    flat = zeros(*sizes, dtype=int64)
    for i, idx in enumerate(windows):  # the source index along dim i of each chosen element
        k_rest = math.prod(w.size(1) for w in windows[i + 1:])
        a = arg.floor_divide(k_rest).remainder(idx.size(1))
        view = [1] * (arg.dim() - nd) + [sizes[i] if j == i else 1 for j in range(nd)]
        row = (arange(sizes[i], dtype=int64) * idx.size(1)).reshape(view)
        src = idx.reshape(-1).index_select(0, (row + a).reshape(-1)).reshape(a.shape)
        flat = flat * in_sizes[i] + src
    return values, flat


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool1d(input, output_size, return_indices=False) -> Tensor

    The max of (N, C, L) or (C, L) over output_size bins; with return_indices, also their
    indices.

    >>> ember.nn.functional.adaptive_max_pool1d(ember.tensor([[1.0, 5.0, 3.0, 4.0]]), 2)
    tensor([[5., 4.]])
    """
    return _adaptive_max("adaptive_max_pool1d", input, output_size, 1, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """adaptive_max_pool2d(input, output_size, return_indices=False) -> Tensor

    The max of (N, C, H, W) or (C, H, W) over an output_size grid (an int or a pair).

    >>> ember.nn.functional.adaptive_max_pool2d(ember.tensor([[[1.0, 5.0], [3.0, 4.0]]]), 1)
    tensor([[[5.]]])
    """
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2, return_indices)


# ---- transposed convolution --------------------------------------------------------------------
def _flip(x, dims):
    for d in dims:
        x = x.index_select(d, arange(x.size(d) - 1, -1, -1, dtype=int64))
    return x


def _conv_transpose(name, input, weight, bias, stride, padding, output_padding, groups,
                    dilation, nd):
    """conv_transpose = conv of the input with (stride - 1) zeros between its elements, padded
    by dilation * (k - 1) - padding (+ output_padding after), with the kernel flipped
    spatially and its in/out channel axes swapped per group.  out = (n - 1) * stride
    - 2 * padding + dilation * (k - 1) + output_padding + 1."""
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if weight.dim() != nd + 2:
        raise RuntimeError(f"{name}: expected a {nd + 2}D weight (in_channels, out_channels/"
                           f"groups, *kernel_size), but got weight of size {list(weight.shape)}")
    if groups <= 0 or weight.size(0) % groups:
        raise RuntimeError(f"{name}: groups={groups} must be positive and divide the weight's "
                           f"first dim {weight.size(0)}")
    if input.size(-nd - 1) != weight.size(0):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.size(0)} channels, but got "
                           f"{input.size(-nd - 1)} channels instead")
    s, p = _tuple(stride, nd, name), _tuple(padding, nd, name)
    op, d = _tuple(output_padding, nd, name), _tuple(dilation, nd, name)
    if any(v <= 0 for v in s + d) or any(v < 0 for v in p + op):
        raise RuntimeError(f"{name}: stride and dilation must be positive and padding and "
                           f"output_padding non-negative, got stride={s}, padding={p}, "
                           f"output_padding={op}, dilation={d}")
    if any(o >= st and o >= dl for o, st, dl in zip(op, s, d)):
        raise RuntimeError(f"{name}: output padding must be smaller than either stride or "
                           f"dilation, but got output_padding={op}, stride={s}, dilation={d}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    if nd == 1:  # through the 2-d path on (N, C, 1, L)
        x, weight = x.unsqueeze(-2), weight.unsqueeze(-2)
        s, p, op, d = (1,) + s, (0,) + p, (0,) + op, (1,) + d
    if (x.dtype in (float32, float64) and weight.dtype == x.dtype and x.numel() > 0
            and all(o < st for o, st in zip(op, s))):
        # conv's adjoint in C++ (src/ops/conv.cpp): no zero-stuffed input, no flipped copy.
        adjoint = _C._conv_transpose3d if nd == 3 else _C._conv_transpose2d
        out = adjoint(x, weight, s, p, op, groups, d)
        if bias is not None:
            if bias.dim() != 1 or bias.shape[0] != out.shape[1]:
                raise RuntimeError(f"{name}: given weight of shape {list(weight.shape)}, expected "
                                   f"bias to be 1-d with {out.shape[1]} elements, but got bias of "
                                   f"shape {list(bias.shape)}")
            out = out + bias.reshape((1, -1) + (1,) * (out.dim() - 2))
    else:
        out = _zero_stuffed_conv(x, weight, bias, s, p, op, groups, d)
    if nd == 1:
        out = out.squeeze(-2)
    return out if batched else out.squeeze(0)


def _zero_stuffed_conv(x, weight, bias, s, p, op, groups, d):
    """conv_transpose as a conv2d (conv3d) over x with (stride - 1) zeros between its elements:
    the path for integer dtypes, empty inputs and output_padding >= stride (allowed below
    dilation)."""
    k = tuple(weight.shape[2:])
    if any(st > 1 for st in s):  # (stride - 1) zeros between neighbours
        big = zeros(*x.shape[:2], *[(n - 1) * st + 1 for n, st in zip(x.shape[2:], s)],
                    dtype=x.dtype)
        big[(slice(None), slice(None)) + tuple(slice(None, None, st) for st in s)] = x
        x = big
    pads = []
    for kk, dd, pp, oo in reversed(list(zip(k, d, p, op))):
        pads += [dd * (kk - 1) - pp, dd * (kk - 1) - pp + oo]
    x = pad(x, pads)
    g = groups
    cin, cout_g = weight.size(0), weight.size(1)
    w = weight.reshape(g, cin // g, cout_g, *k).transpose(1, 2).reshape(g * cout_g, cin // g, *k)
    conv = _C.conv3d if weight.dim() == 5 else _C.conv2d
    return conv(x, _flip(w, range(2, w.dim())), bias, 1, 0, d, g)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The adjoint of conv1d (its input gradient); weight is (in_channels, out_channels / groups, K).

    >>> ember.nn.functional.conv_transpose1d(ember.tensor([[[1.0, 2.0]]]),
    ...                                      ember.tensor([[[1.0, 1.0]]]))
    tensor([[[1., 3., 2.]]])
    """
    return _conv_transpose("conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The adjoint of conv2d (its input gradient); weight is (in_channels, out_channels / groups,
    kH, kW).

    >>> ember.nn.functional.conv_transpose2d(ember.ones(1, 2, 3, 3), ember.ones(2, 4, 2, 2)).shape
    ember.Size([1, 4, 4, 4])
    """
    return _conv_transpose("conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation, 2)


# ---- interpolation -----------------------------------------------------------------------------
_LINEAR_NDIM = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def _output_sizes(input, size, scale_factor, recompute_scale_factor):
    """(output sizes, scales handed to the kernel or None per dim), as torch derives them."""
    nd = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (tuple, list)):
            if len(size) != nd:
                raise ValueError(f"Input and output must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of "
                                 f"{spatial} and output size of {size}. Please provide input "
                                 f"tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            return [int(s) for s in size], [None] * nd
        return [int(size)] * nd, [None] * nd
    if isinstance(scale_factor, (tuple, list)):
        if len(scale_factor) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of {spatial} "
                             f"and scale_factor of shape {scale_factor}. Please provide input "
                             f"tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * nd
    sizes = [math.floor(n * s) for n, s in zip(spatial, scales)]
    return sizes, [None] * nd if recompute_scale_factor else scales


def _index_dtype(input):
    return float64 if input.dtype == float64 else float32


def _nearest_1d(x, dim, out, scale, exact):
    """out[j] = in[min(floor((j [+ 0.5]) * s), n - 1)], s = 1/scale_factor or n/out, in
    float32 as torch's kernel computes it."""
    n = x.size(dim)
    s = 1.0 / scale if scale else n / out
    j = arange(out, dtype=float32)
    src = ((j + 0.5) if exact else j).mul(s).floor().long().clamp(max=n - 1)
    return x.index_select(dim, src)


def _linear_1d(x, dim, out, scale, align_corners):
    """Lerp between the two neighbours of the source coordinate: align_corners maps the
    corner pixels' centres onto each other, otherwise pixel areas (src clamped at 0)."""
    n = x.size(dim)
    dt = _index_dtype(x)
    j = arange(out, dtype=dt)
    if align_corners:
        src = j * ((n - 1) / (out - 1) if out > 1 else 0.0)
    else:
        s = 1.0 / scale if scale else n / out
        src = ((j + 0.5) * s - 0.5).clamp(min=0)
    i0 = src.long().clamp(max=n - 1)
    i1 = (i0 + 1).clamp(max=n - 1)
    lam1 = (src - i0.to(dt)).clamp(0, 1)
    shape = [1] * x.dim()
    shape[dim] = out
    lam1 = lam1.to(x.dtype).reshape(shape)
    return x.index_select(dim, i0) * (1 - lam1) + x.index_select(dim, i1) * lam1


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate for modes nearest, nearest-exact, linear, bilinear,
    trilinear and area, separably one spatial dim after the other.

    >>> x = ember.tensor([[[0.0, 2.0]]])
    >>> ember.nn.functional.interpolate(x, scale_factor=2, mode="linear", align_corners=True)
    tensor([[[0.0000, 0.6667, 1.3333, 2.0000]]])
    """
    modes = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "area", "bicubic")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if input.dim() not in (3, 4, 5) or mode not in modes:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: nearest | linear | bilinear | "
                                  f"bicubic | trilinear | area | nearest-exact (got {mode})")
    nd = input.dim() - 2
    if mode in _LINEAR_NDIM and _LINEAR_NDIM[mode] != nd:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_LINEAR_NDIM[mode] + 2}D input")
    if antialias or mode == "bicubic":
        raise NotImplementedError(f"interpolate: mode={mode!r} with antialias={antialias} is not "
                                  "supported by ember yet")
    if not input.is_floating_point() and (mode not in ("nearest", "nearest-exact")
                                          or input.dtype != uint8):
        raise NotImplementedError(f"interpolate: mode={mode!r} is not implemented for "
                                  f"{input.dtype}")
    sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    spatial = list(input.shape[2:])
    if any(n <= 0 for n in spatial) or any(o <= 0 for o in sizes):
        raise RuntimeError(f"interpolate: input and output sizes should be greater than 0, but "
                           f"got input {tuple(spatial)} and output {tuple(sizes)}")
    if mode == "area":
        if nd == 1:
            return adaptive_avg_pool1d(input, sizes)
        if nd == 2:
            return _C.adaptive_avg_pool2d(input, tuple(sizes))
        raise NotImplementedError("interpolate: mode='area' on 5D input is not supported by "
                                  "ember yet")
    x = input
    for i, (out, scale) in enumerate(zip(sizes, scales)):
        if mode.startswith("nearest"):
            x = _nearest_1d(x, 2 + i, out, scale, mode == "nearest-exact")
        else:
            x = _linear_1d(x, 2 + i, out, scale, align_corners)
    return x


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  f"instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None) -> Tensor

    Deprecated alias of interpolate (torch warns that it is; so does ember).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.nn.functional.upsample(ember.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """upsample_nearest(input, size=None, scale_factor=None) -> Tensor

    Deprecated: interpolate(input, size, scale_factor, mode="nearest").

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.nn.functional.upsample_nearest(ember.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """upsample_bilinear(input, size=None, scale_factor=None) -> Tensor

    Deprecated: interpolate(input, size, scale_factor, mode="bilinear", align_corners=True).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     y = ember.nn.functional.upsample_bilinear(ember.tensor([[[[0.0, 3.0]]]]), None, 2)
    >>> y
    tensor([[[[0., 1., 2., 3.],
              [0., 1., 2., 3.]]]])
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
