"""Pretrained weights: torchvision's weight enums (ResNet18_Weights.IMAGENET1K_V1, ...) and
their loading from torch hub's cache, $TORCH_HOME/hub/checkpoints (default ~/.cache/torch).

A checkpoint is read from that cache when present (ember.load reads PyTorch's files with the
restricted unpickler, weights_only=True), else downloaded with urllib; without network access
building a model with weights=... raises RuntimeError naming the URL and the cache path.
"""
import hashlib
import os
import re
import warnings
from enum import Enum

_HASH = re.compile(r"-([a-f0-9]{8,})\.")


class Weights:
    """Where a checkpoint lives and what it was trained for."""

    def __init__(self, url, meta=None):
        self.url, self.meta = url, dict(meta or {})

    def __eq__(self, other):
        return isinstance(other, Weights) and self.url == other.url

    def __hash__(self):
        return hash(self.url)

    def __repr__(self):
        return f"Weights(url={self.url!r})"


class WeightsEnum(Enum):
    """Base of the <Model>_Weights enums; members hold a Weights, DEFAULT is an alias."""

    @classmethod
    def verify(cls, obj):
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str):
            name = obj.replace(cls.__name__ + ".", "")
            if name not in cls.__members__:
                raise ValueError(f"{cls.__name__}: no weights named {obj!r} (known: "
                                 f"{', '.join(cls.__members__)})")
            return cls[name]
        raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received "
                        f"{obj.__class__.__name__}.")

    @property
    def url(self):
        return self.value.url

    @property
    def meta(self):
        return self.value.meta

    def get_state_dict(self, progress=True, check_hash=True):
        return load_state_dict_from_url(self.url, progress=progress, check_hash=check_hash)

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"


def _hub_dir():
    torch_home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    return os.path.join(os.path.expanduser(torch_home), "hub")


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=True):
    """The state_dict at `url`, read from model_dir (default: torch hub's checkpoints folder)
    if present, else downloaded there. check_hash compares the file's sha256 with the hex
    prefix in its name (resnet18-f37072fd.pth), as torch.hub does."""
    import ember

    from ..datasets.utils import download_url

    model_dir = model_dir or os.path.join(_hub_dir(), "checkpoints")
    filename = file_name or os.path.basename(url)
    cached = os.path.join(model_dir, filename)
    if not os.path.isfile(cached):
        try:
            download_url(url, model_dir, filename)
        except RuntimeError as e:
            raise RuntimeError(f"load_state_dict_from_url: could not download {url}; without network "
                               f"access, copy the checkpoint to {cached}") from e
    if check_hash:
        prefix = _HASH.search(filename)
        if prefix:
            with open(cached, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            if not digest.startswith(prefix.group(1)):
                want = prefix.group(1)
                raise RuntimeError(f"invalid hash value for {cached}: sha256 {digest[:len(want)]}... "
                                   f"(expected {want}...)")
    return ember.load(cached, map_location=map_location, weights_only=weights_only)


def _resolve(builder, enum, weights, kwargs):
    """The verified weights, honouring torchvision's legacy pretrained=True argument."""
    if "pretrained" in kwargs:
        pretrained = kwargs.pop("pretrained")
        warnings.warn(f"{builder}: the parameter 'pretrained' is deprecated, please use 'weights' instead.")
        if pretrained and weights is None:
            weights = enum.DEFAULT
    weights = enum.verify(weights)
    if weights is not None:
        classes = kwargs.setdefault("num_classes", weights.meta.get("num_classes", 1000))
        if classes != weights.meta.get("num_classes", 1000):
            raise ValueError(f"{builder}: the parameter 'num_classes' expected value "
                             f"{weights.meta.get('num_classes', 1000)} but got {classes} instead.")
    return weights


def _build(builder, model_fn, enum, weights, progress, kwargs):
    weights = _resolve(builder, enum, weights, kwargs)
    # The checkpoint first: a missing file fails before seconds are spent initialising weights.
    state = None if weights is None else weights.get_state_dict(progress=progress, check_hash=True)
    model = model_fn(**kwargs)
    if state is not None:
        model.load_state_dict(state)
    return model


def _imagenet(url):
    return Weights(url, {"num_classes": 1000, "dataset": "ImageNet-1K"})


def _check_positive_int(value, name, model):
    """Architecture arguments are checked before any weight is allocated: a bad one fails at
    once instead of after seconds of initialising a large layer."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{model}: {name} should be a positive int, got {value!r}")


def _check_probability(value, name, model):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{model}: {name} should be a probability in [0, 1], got {value!r}")
