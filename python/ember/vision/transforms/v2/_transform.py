"""The v2 Transform: a v1 transform applied to the image inside a sample.

A v2 transform takes one input or several (an image with its label, a dict, nested tuples)
and returns the same structure. As torchvision's v2, the images are the PIL images of the
sample; when it holds none, the first tensor is the image and the other leaves (labels,
other tensors) pass through unchanged. Transforming several images of one sample with the
same random parameters is not supported yet (NotImplementedError).
"""
import ember

from ....nn import Module


def _is_pil(x):
    from PIL import Image

    return isinstance(x, Image.Image)


def _flatten(sample):
    """(leaves, rebuild): the leaves of nested tuples/lists/dicts and a function that puts new
    leaves back into the same structure."""
    if isinstance(sample, (tuple, list)):
        parts = [_flatten(x) for x in sample]
        leaves = [leaf for p in parts for leaf in p[0]]

        def rebuild(new):
            out, i = [], 0
            for p in parts:
                n = len(p[0])
                out.append(p[1](new[i:i + n]))
                i += n
            return type(sample)(out)
        return leaves, rebuild
    if isinstance(sample, dict):
        keys = list(sample)
        flat, rebuild_list = _flatten([sample[k] for k in keys])
        return flat, lambda new: dict(zip(keys, rebuild_list(new)))
    return [sample], lambda new: new[0]


def _image_positions(leaves):
    pil = [i for i, x in enumerate(leaves) if _is_pil(x)]
    if pil:
        return pil
    return [i for i, x in enumerate(leaves) if ember.is_tensor(x)][:1]


class Transform(Module):
    """Base of the v2 transforms: subclasses define _transform(image)."""

    def _transform(self, image):
        raise NotImplementedError(f"{type(self).__name__} should implement _transform")

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves, rebuild = _flatten(sample)
        positions = _image_positions(leaves)
        if len(positions) > 1:
            raise NotImplementedError(f"{type(self).__name__}: a sample with {len(positions)} images is not "
                                      "supported by ember's transforms.v2 yet (one image per sample)")
        for i in positions:
            leaves[i] = self._transform(leaves[i])
        return rebuild(leaves)


def wrap_v1(v1_class):
    """The v2 form of a v1 transform class: same arguments, applied to the sample's image."""
    is_module = issubclass(v1_class, Module)
    call = v1_class.forward if is_module else v1_class.__call__
    body = {"_transform": lambda self, image: call(self, image), "__doc__": v1_class.__doc__,
            "__module__": "ember.vision.transforms.v2", "__repr__": v1_class.__repr__}
    if not is_module:  # a plain v1 callable: Module's __init__ first, then the v1 arguments
        def __init__(self, *args, **kwargs):
            Module.__init__(self)
            v1_class.__init__(self, *args, **kwargs)
        body["__init__"] = __init__
    return type(v1_class.__name__, (Transform, v1_class), body)
