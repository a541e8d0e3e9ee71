"""make_grid and save_image, as torchvision.utils."""
import math

import ember

from ..nn import functional as nnF


def _normalize(t, value_range, scale_each):
    """t (N, C, H, W) clamped to value_range (default: its min and max, per image when
    scale_each) and shifted and scaled to [0, 1]."""
    if value_range is not None:
        low, high = float(value_range[0]), float(value_range[1])
        return t.clamp(min=low, max=high).sub_(low).div_(max(high - low, 1e-5))
    if scale_each:
        low = t.amin(dim=(1, 2, 3), keepdim=True)
        high = t.amax(dim=(1, 2, 3), keepdim=True)
    else:
        low, high = t.amin(), t.amax()
    return t.sub(low).div_(high.sub(low).clamp_(min=1e-5))


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """A (3, H', W') image of the batch (N, C, H, W) (or list of (C, H, W)) laid out nrow per row
    with `padding` pixels of pad_value around each. One-channel images become three."""
    if not ember.is_tensor(tensor):
        if isinstance(tensor, list):
            for t in tensor:
                if not ember.is_tensor(t):
                    raise TypeError(f"make_grid: tensor or list of tensors expected, got a list "
                                    f"containing {type(t)}")
        else:
            raise TypeError(f"make_grid: tensor or list of tensors expected, got {type(tensor)}")
    if isinstance(tensor, list):
        tensor = ember.stack(tensor, dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.size(0) == 1:
            tensor = ember.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() != 4:
        raise ValueError(f"make_grid: expected a 2-d, 3-d or 4-d tensor (or a list of 3-d ones), got "
                         f"shape {list(tensor.shape)}")
    if tensor.size(1) == 1:
        tensor = ember.cat((tensor, tensor, tensor), 1)
    if normalize is True:
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("make_grid: value_range has to be a tuple (min, max) if specified. min and max "
                            "are numbers")
        tensor = _normalize(tensor, value_range, scale_each)
    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    nmaps, channels, h, w = tensor.shape
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    if ymaps * xmaps > nmaps:  # blank cells after the last image
        blank = tensor.new_full((ymaps * xmaps - nmaps, channels, h, w), pad_value)
        tensor = ember.cat((tensor, blank), 0)
    # Each cell is an image with `padding` pixels above and to its left; the grid gets the same
    # padding below and to its right.
    cells = nnF.pad(tensor, [padding, 0, padding, 0], value=float(pad_value))
    ch, cw = h + padding, w + padding
    grid = cells.reshape(ymaps, xmaps, channels, ch, cw).permute(2, 0, 3, 1, 4).reshape(channels, ymaps * ch,
                                                                                       xmaps * cw)
    return nnF.pad(grid, [0, padding, 0, padding], value=float(pad_value))


def save_image(tensor, fp, format=None, **kwargs):
    """Save make_grid(tensor, **kwargs) as an 8-bit image file (format from fp's suffix)."""
    from PIL import Image

    grid = make_grid(tensor, **kwargs)
    ndarr = grid.detach().mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(ember.uint8).numpy()
    Image.fromarray(ndarr).save(fp, format=format)
