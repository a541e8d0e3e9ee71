"""torch.nn.utils.memory_format. ember stores every tensor in one layout (row-major), so there
is no channels-last weight to convert to: both functions return the module unchanged (its
results are the same as torch's after the conversion, which changes strides, not values)."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def convert_conv2d_weight_memory_format(module, memory_format):
    """Returns `module` as it is (ember has no channels_last layout).

    >>> conv = ember.nn.Conv2d(1, 1, 1)
    >>> ember.nn.utils.convert_conv2d_weight_memory_format(conv, None) is conv
    True
    """
    return module


def convert_conv3d_weight_memory_format(module, memory_format):
    """Returns `module` as it is (ember has no channels_last_3d layout).

    >>> conv = ember.nn.Conv3d(1, 1, 1)
    >>> ember.nn.utils.convert_conv3d_weight_memory_format(conv, None) is conv
    True
    """
    return module
