"""ToImage, ToDtype and ToPureTensor, and v2's Compose, Lambda and random containers."""
import numpy as np

import ember

from .. import functional as F
from .._functional_tensor import convert_image_dtype
from ._transform import Transform, _flatten, _is_pil


class ToImage(Transform):
    """PIL image or (H, W, C) ndarray -> (C, H, W) tensor of the same dtype (not rescaled)."""

    def _transform(self, image):
        if _is_pil(image):
            return F.pil_to_tensor(image)
        if isinstance(image, np.ndarray):
            arr = image[:, :, None] if image.ndim == 2 else image
            return ember.from_numpy(np.array(arr.transpose(2, 0, 1), order="C"))
        return image

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves, rebuild = _flatten(sample)
        for i, x in enumerate(leaves):  # ndarrays are images for ToImage
            if isinstance(x, np.ndarray) and x.ndim in (2, 3):
                leaves[i] = self._transform(x)
                return rebuild(leaves)
        return super().forward(*inputs)


class ToDtype(Transform):
    """ToDtype(dtype, scale=False): the image converted to dtype; scale=True also rescales the
    values to the dtype's range (uint8 255 -> float 1.0), as convert_image_dtype."""

    def __init__(self, dtype, scale=False):
        super().__init__()
        if isinstance(dtype, dict):
            raise TypeError("ToDtype: a dict of dtypes per input type is not supported by ember yet; pass one "
                            "dtype for the image")
        self.dtype, self.scale = dtype, scale

    def _transform(self, image):
        if not ember.is_tensor(image):
            raise TypeError(f"ToDtype: expected a tensor image (use ToImage first), got {type(image).__name__}")
        return convert_image_dtype(image, self.dtype) if self.scale else image.to(self.dtype)


class ToPureTensor(Transform):
    """Image tensors become plain tensors: they are already plain in ember, so this passes them."""

    def _transform(self, image):
        return image


class Compose:
    """Apply the transforms one after another to the whole sample."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        self.transforms = transforms

    def __call__(self, *inputs):
        unpack = len(inputs) > 1
        for t in self.transforms:
            out = t(*inputs)
            inputs = out if unpack else (out,)
        return out if self.transforms else (inputs if unpack else inputs[0])

    def __repr__(self):
        return self.__class__.__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class RandomApply(Compose):
    def __init__(self, transforms, p=0.5):
        super().__init__(transforms)
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def __call__(self, *inputs):
        if float(ember.rand(1).item()) >= self.p:
            return inputs if len(inputs) > 1 else inputs[0]
        return super().__call__(*inputs)


class RandomChoice(Compose):
    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        total = sum(p) if p is not None else len(transforms)
        self.p = [w / total for w in p] if p is not None else [1.0 / len(transforms)] * len(transforms)

    def __call__(self, *inputs):
        idx = int(ember.multinomial(ember.tensor(self.p), 1).item())
        return self.transforms[idx](*inputs)


class RandomOrder(Compose):
    def __call__(self, *inputs):
        unpack = len(inputs) > 1
        for i in ember.randperm(len(self.transforms)).tolist():
            out = self.transforms[i](*inputs)
            inputs = out if unpack else (out,)
        return inputs if unpack else inputs[0]


class Lambda(Transform):
    """Lambda(lambd, *types): lambd applied to every leaf of the given types (default: tensors
    and PIL images)."""

    def __init__(self, lambd, *types):
        super().__init__()
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd, self.types = lambd, types

    def forward(self, *inputs):
        from PIL import Image

        types = self.types or (ember.Tensor, Image.Image)
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves, rebuild = _flatten(sample)
        return rebuild([self.lambd(x) if isinstance(x, types) else x for x in leaves])
