"""torch.nn.utils.memory_format: lays the weights of a model's convolutions out in a memory format
(ember.channels_last for 2-d ones), recursively, in place. Values are unchanged; only strides."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """The weights of every Conv2d / ConvTranspose2d in `module` laid out as `memory_format`;
    returns `module`.

    >>> net = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.ReLU())
    >>> _ = ember.nn.utils.convert_conv2d_weight_memory_format(net, ember.channels_last)
    >>> net[0].weight.is_contiguous(memory_format=ember.channels_last)
    True
    """
    from .. import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The weights of every Conv3d / ConvTranspose3d in `module` laid out as `memory_format`;
    returns `module`.

    >>> conv = ember.nn.Conv3d(2, 4, 3)
    >>> _ = ember.nn.utils.convert_conv3d_weight_memory_format(conv, ember.channels_last_3d)
    >>> conv.weight.stride()
    (54, 1, 18, 6, 2)
    """
    from .. import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
