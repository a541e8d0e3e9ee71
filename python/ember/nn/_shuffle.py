"""pixel_shuffle, pixel_unshuffle and channel_shuffle: a reshape, a permute and a copy,
as torch's math kernels (ATen's PixelShuffle.cpp, ChannelShuffle.cpp)."""
__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _check_pixel_input(name, input, factor, what):
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): channel c*r^2 + i*r + j goes to pixel (i, j) of
    each r x r block.

    >>> ember.nn.functional.pixel_shuffle(ember.ones(1, 8, 2, 3), 2).shape
    ember.Size([1, 2, 4, 6])
    """
    r = upscale_factor
    _check_pixel_input("pixel_shuffle", input, r, "upscale_factor")
    *batch, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    nb = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle.

    >>> ember.nn.functional.pixel_unshuffle(ember.ones(1, 2, 4, 6), 2).shape
    ember.Size([1, 8, 2, 3])
    """
    r = downscale_factor
    _check_pixel_input("pixel_unshuffle", input, r, "downscale_factor")
    *batch, c, h, w = input.shape
    for size, name, d in ((h, "height", -2), (w, "width", -1)):
        if size % r != 0:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={size} is not divisible "
                               f"by {r}")
    nb = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """(N, C, *): channel g * (C / groups) + k moves to k * groups + g (ShuffleNet).
    native_channel_shuffle is the same function.

    >>> ember.nn.functional.channel_shuffle(ember.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c, *rest = input.shape
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(input.shape)


native_channel_shuffle = channel_shuffle
