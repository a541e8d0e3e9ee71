"""Fractional max pooling (Graham, 2014), as torch: each (image, channel) plane draws one
sample u in [0, 1) per spatial dim (or takes it from _random_samples), and output i's window
starts at int((i + u) * alpha) - int(u * alpha), alpha = (in - k) / (out - 1) computed in the
input's dtype, the last window at in - k. The windows are then gathered and reduced with a
max: a composition of ember ops (gather, max), so the gradient comes for free.

    y = fractional_max_pool2d(x, 3, output_size=(13, 12))
    y, i = fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)"""
import math
import numbers

from .. import _C
from .._creation import arange, full, rand
from .._dtype import int64
from ._padding_conv import _check_tensors, _tuple

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]

_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}
# which of a plane's samples each spatial dim uses (torch's kernels: 2-d takes W from sample
# 0 and H from sample 1; 3-d takes T, H, W from samples 0, 1, 2)
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _starts(sample, n_in, n_out, k):
    """(N, C, n_out) int64 window starts along one dim, from (N, C) samples."""
    last = full((*sample.shape, 1), n_in - k, dtype=int64)
    if n_out <= 1:
        return last[..., :max(n_out, 0)]
    alpha = full((), n_in - k, dtype=sample.dtype) / (n_out - 1)
    i = arange(n_out - 1, dtype=sample.dtype)
    u = sample.unsqueeze(-1)
    seq = ((i + u) * alpha).long() - (u * alpha).long()  # long() truncates, as torch's int cast
    return _C.cat([seq, last], -1)


def _output_size(name, input, output_size, output_ratio, nd):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _tuple(output_size, nd, name)
    ratio = ((output_ratio,) * nd if isinstance(output_ratio, numbers.Real)
             else tuple(output_ratio))
    if len(ratio) != nd:
        raise ValueError(f"{name} requires output_ratio to either be a single number or a tuple "
                         f"of {nd} numbers, got {output_ratio!r}")
    return tuple(int(input.size(-nd + i) * r) for i, r in enumerate(ratio))


def _fractional_max(name, input, kernel_size, output_size, output_ratio, samples, nd):
    _check_tensors(name, input=input)
    if samples is not None:
        _check_tensors(name, _random_samples=samples)
    if input.dim() not in (nd + 1, nd + 2) or any(n == 0 for n in input.shape[-nd - 1:]):
        raise RuntimeError(f"{name}: expected {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                           f"non-zero sizes except the batch, but got input of size "
                           f"{list(input.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"{name}: not implemented for {input.dtype}")
    k = _tuple(kernel_size, nd, name)
    out = _output_size(name, input, output_size, output_ratio, nd)
    x = input if input.dim() == nd + 2 else input.unsqueeze(0)
    n, c, sizes = x.size(0), x.size(1), tuple(x.shape[2:])
    for i in range(nd):
        if k[i] <= 0 or out[i] <= 0:
            raise RuntimeError(f"{name}: kernel_size and output_size must be greater than zero, "
                               f"but got kernel_size={k} and output_size={out}")
        # torch's rule: windows may end at the last element in 2-d, before it in 3-d
        fits = out[i] + k[i] - 1 <= sizes[i] if nd == 2 else out[i] + k[i] - 1 < sizes[i]
        if not fits:
            raise RuntimeError(f"{name}: pool {_DIM_NAMES[nd][i]} {k[i]} too large relative to "
                               f"input {_DIM_NAMES[nd][i]} {sizes[i]} (output_size={out})")
    if samples is None:
        samples = rand(n, c, nd, dtype=input.dtype)
    if samples.dim() != 3 or tuple(samples.shape) != (n, c, nd):
        raise RuntimeError(f"{name}: expected _random_samples of shape {(n, c, nd)}, but got "
                           f"{list(samples.shape)}")
    if samples.dtype != input.dtype:
        raise RuntimeError(f"{name}: expected _random_samples to have the same dtype as input "
                           f"({input.dtype}), but got {samples.dtype}")
    # flat index into each plane of every window element: (N, C, *out, *k), then flattened
    flat = None
    for i in range(nd):
        starts = _starts(samples[..., _SAMPLE_OF_DIM[nd][i]], sizes[i], out[i], k[i])
        pos = starts.unsqueeze(-1) + arange(k[i], dtype=int64)  # (N, C, out_i, k_i)
        shape = ([n, c] + [out[j] if j == i else 1 for j in range(nd)]
                 + [k[j] if j == i else 1 for j in range(nd)])
        pos = pos.reshape(shape)
        flat = pos if flat is None else flat * sizes[i] + pos
    windows, taps = math.prod(out), math.prod(k)
    flat = flat.expand(n, c, *out, *k).reshape(n, c, windows, taps)
    values = x.reshape(n, c, -1).gather(2, flat.reshape(n, c, -1)).reshape(n, c, windows, taps)
    best, arg = values.max(-1)
    indices = flat.gather(3, arg.unsqueeze(-1)).reshape(n, c, *out)
    best = best.reshape(n, c, *out)
    if input.dim() == nd + 1:
        best, indices = best.squeeze(0), indices.squeeze(0)
    return best, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None) -> (Tensor, Tensor)

    fractional_max_pool2d returning (values, indices); indices are flat over H * W.

    >>> x = ember.arange(16.0).reshape(1, 4, 4)
    >>> ember.nn.functional.fractional_max_pool2d_with_indices(x, 2, output_size=2)[1]
    tensor([[[ 5,  7],
             [13, 15]]])
    """
    return _fractional_max("fractional_max_pool2d", input, kernel_size, output_size,
                           output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None) -> Tensor

    Max over pseudo-randomly placed kernel_size windows that give output_size (or input size *
    output_ratio) for (N, C, H, W) or (C, H, W).

    >>> x = ember.arange(16.0).reshape(1, 4, 4)
    >>> ember.nn.functional.fractional_max_pool2d(x, 2, output_size=2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    out = _fractional_max("fractional_max_pool2d", input, kernel_size, output_size,
                          output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None) -> (Tensor, Tensor)

    fractional_max_pool3d returning (values, indices); indices are flat over D * H * W.

    >>> x = ember.arange(27.0).reshape(1, 3, 3, 3)
    >>> ember.nn.functional.fractional_max_pool3d_with_indices(x, 2, output_size=1)
    (tensor([[[[26.]]]]), tensor([[[[26]]]]))
    """
    return _fractional_max("fractional_max_pool3d", input, kernel_size, output_size,
                           output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None) -> Tensor

    The 3-d form of fractional_max_pool2d, over (N, C, D, H, W) or (C, D, H, W).

    >>> x = ember.ones(1, 1, 4, 4, 4)
    >>> ember.nn.functional.fractional_max_pool3d(x, 2, output_ratio=0.5).shape
    ember.Size([1, 1, 2, 2, 2])
    """
    out = _fractional_max("fractional_max_pool3d", input, kernel_size, output_size,
                          output_ratio, _random_samples, 3)
    return out if return_indices else out[0]
