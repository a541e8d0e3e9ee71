"""unfold (im2col) and fold (col2im) as compositions: one flat index of every kernel tap
at every block position, then index_select (unfold) or scatter_add (fold) along the
flattened, zero-padded spatial dim. Their gradients are each other's, through those ops."""
from .._creation import arange, zeros
from .._dtype import int64
from ._padding_conv import pad

__all__ = ["unfold", "fold"]


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _check(kernel, dilation, padding, stride):
    for name, v, low in (("kernel size", kernel, 1), ("stride", stride, 1),
                         ("dilation", dilation, 1)):
        if v[0] < low or v[1] < low:
            raise RuntimeError(f"{name} should be greater than zero, but got "
                               f"{name.split()[0]}_height: {v[0]} {name.split()[0]}_width: {v[1]}")
    if padding[0] < 0 or padding[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                           f"pad_width: {padding[1]}")


def _blocks(size, kernel, dilation, padding, stride):
    """The number of sliding blocks along each spatial dim."""
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                 for i in range(2))


def _tap_index(padded_w, kernel, dilation, stride, blocks):
    """(kh * kw * L,) flat positions in the padded (Hp * Wp) plane: tap (i, j) of block
    (y, x) reads row i * dh + y * sh, column j * dw + x * sw."""
    rows = (arange(kernel[0], dtype=int64) * dilation[0]).reshape(-1, 1, 1, 1) + \
        (arange(blocks[0], dtype=int64) * stride[0]).reshape(1, 1, -1, 1)
    cols = (arange(kernel[1], dtype=int64) * dilation[1]).reshape(1, -1, 1, 1) + \
        (arange(blocks[1], dtype=int64) * stride[1]).reshape(1, 1, 1, -1)
    return (rows * padded_w + cols).reshape(-1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) -> (N, C * kh * kw, L): every kernel-sized block as a column (im2col);
    channel c * kh * kw + i * kw + j holds tap (i, j) of channel c.

    >>> ember.nn.functional.unfold(ember.arange(9.0).reshape(1, 1, 3, 3), kernel_size=2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    if input.dim() not in (3, 4):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: {list(input.shape)}")
    k, d, p, s = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    _check(k, d, p, s)
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    blocks = _blocks((h, w), k, d, p, s)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, "
                           f"dilation={d}, padding={p}, calculated shape of the array of sliding "
                           f"blocks as {blocks}, but its components must be at least one.")
    if p != (0, 0):
        x = pad(x, (p[1], p[1], p[0], p[0]))
    idx = _tap_index(w + 2 * p[1], k, d, s, blocks)
    cols = x.reshape(n, c, x.shape[2] * x.shape[3]).index_select(2, idx)
    out = cols.reshape(n, c * k[0] * k[1], blocks[0] * blocks[1])
    return out if input.dim() == 4 else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C * kh * kw, L) -> (N, C, H, W): the columns summed back into the image (col2im),
    overlapping taps added.

    >>> ember.nn.functional.fold(ember.ones(1, 4, 4), output_size=(3, 3), kernel_size=2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    if input.dim() not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: {list(input.shape)}")
    o, k, d, p, s = (_pair(v) for v in (output_size, kernel_size, dilation, padding, stride))
    _check(k, d, p, s)
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, ckk, length = x.shape
    taps = k[0] * k[1]
    if ckk % taps != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={ckk} and kernel_size={k}.")
    blocks = _blocks(o, k, d, p, s)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given output_size={o}, kernel_size={k}, dilation={d}, padding={p}, "
                           f"stride={s}, calculated shape of the array of sliding blocks as "
                           f"{blocks}, but its components must be at least one.")
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={o}, kernel_size={k}, dilation={d}, padding={p}, "
                           f"stride={s}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    c = ckk // taps
    hp, wp = o[0] + 2 * p[0], o[1] + 2 * p[1]
    idx = _tap_index(wp, k, d, s, blocks).reshape(1, 1, -1).expand(n, c, taps * length)
    src = x.reshape(n, c, taps * length)
    img = zeros((n, c, hp * wp), dtype=x.dtype).scatter_add(2, idx.contiguous(), src)
    img = img.reshape(n, c, hp, wp)[:, :, p[0]:p[0] + o[0], p[1]:p[1] + o[1]]
    return img if input.dim() == 3 else img.squeeze(0)
