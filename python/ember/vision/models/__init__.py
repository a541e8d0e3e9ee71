"""ember.vision.models: torchvision's ResNet, VGG and MobileNetV2 with its parameter names, so
a torchvision state_dict loads by name. weights=None builds the model with torchvision's
initialisation; weights=... loads the checkpoint from torch hub's cache (see _api.py)."""
from ._api import Weights, WeightsEnum
from .mobilenetv2 import MobileNet_V2_Weights, MobileNetV2, mobilenet_v2
from .resnet import (ResNet, ResNet18_Weights, ResNet34_Weights, ResNet50_Weights,
                     ResNet101_Weights, ResNet152_Weights, ResNeXt50_32X4D_Weights,
                     ResNeXt101_32X8D_Weights, Wide_ResNet50_2_Weights, Wide_ResNet101_2_Weights,
                     resnet18, resnet34, resnet50, resnet101, resnet152, resnext50_32x4d,
                     resnext101_32x8d, wide_resnet50_2, wide_resnet101_2)
from .vgg import (VGG, VGG11_BN_Weights, VGG11_Weights, VGG13_BN_Weights, VGG13_Weights,
                  VGG16_BN_Weights, VGG16_Weights, VGG19_BN_Weights, VGG19_Weights, vgg11, vgg11_bn,
                  vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn)

_BUILDERS = {f.__name__: f for f in (
    resnet18, resnet34, resnet50, resnet101, resnet152, resnext50_32x4d, resnext101_32x8d,
    wide_resnet50_2, wide_resnet101_2, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19,
    vgg19_bn, mobilenet_v2)}


def list_models(module=None, include=None, exclude=None):
    """The names of the model builders, sorted (include/exclude: fnmatch patterns)."""
    import fnmatch

    names = sorted(_BUILDERS)
    if include is not None:
        patterns = [include] if isinstance(include, str) else include
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in patterns)]
    if exclude is not None:
        patterns = [exclude] if isinstance(exclude, str) else exclude
        names = [n for n in names if not any(fnmatch.fnmatch(n, p) for p in patterns)]
    return names


def get_model_builder(name):
    name = name.lower()
    if name not in _BUILDERS:
        raise ValueError(f"Unknown model {name}")
    return _BUILDERS[name]


def get_model(name, **config):
    """get_model('resnet18', weights=None, num_classes=10)."""
    return get_model_builder(name)(**config)


__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "ResNet", "ResNet18_Weights", "ResNet34_Weights",
           "ResNet50_Weights", "ResNet101_Weights", "ResNet152_Weights", "ResNeXt50_32X4D_Weights",
           "ResNeXt101_32X8D_Weights", "VGG", "VGG11_BN_Weights", "VGG11_Weights",
           "VGG13_BN_Weights", "VGG13_Weights", "VGG16_BN_Weights", "VGG16_Weights",
           "VGG19_BN_Weights", "VGG19_Weights", "Weights", "WeightsEnum", "get_model",
           "get_model_builder", "list_models", "mobilenet_v2", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d", "wide_resnet50_2",
           "wide_resnet101_2", "Wide_ResNet50_2_Weights", "Wide_ResNet101_2_Weights", "vgg11",
           "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]
