"""VGG (Simonyan & Zisserman 2014) with torchvision's module names (features.N, classifier.N)."""
import ember

from ... import nn
from ._api import WeightsEnum, _build, _check_positive_int, _check_probability, _imagenet


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        if not isinstance(features, nn.Module):
            raise TypeError(f"VGG: features should be an nn.Module (e.g. make_layers(cfg)), got "
                            f"{type(features).__name__}")
        _check_positive_int(num_classes, "num_classes", "VGG")
        _check_probability(dropout, "dropout", "VGG")
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        return self.classifier(ember.flatten(self.avgpool(self.features(x)), 1))


def make_layers(cfg, batch_norm=False):
    """3x3 convs (+ BatchNorm) + ReLU for the numbers of cfg, 2x2 max pools for its 'M's."""
    def valid(v):
        return v == "M" or (isinstance(v, int) and not isinstance(v, bool) and v > 0)

    if not isinstance(cfg, (list, tuple)) or not all(valid(v) for v in cfg):
        raise ValueError(f"make_layers: cfg should be a list of positive ints and 'M's, got {cfg!r}")
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        conv = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
        norm = [nn.BatchNorm2d(v)] if batch_norm else []
        layers += [conv, *norm, nn.ReLU(inplace=True)]
        in_channels = v
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}

_URL = "https://download.pytorch.org/models/"


def _enum(name, file):
    return WeightsEnum(name, {"IMAGENET1K_V1": _imagenet(_URL + file), "DEFAULT": _imagenet(_URL + file)})


VGG11_Weights = _enum("VGG11_Weights", "vgg11-8a719046.pth")
VGG11_BN_Weights = _enum("VGG11_BN_Weights", "vgg11_bn-6002323d.pth")
VGG13_Weights = _enum("VGG13_Weights", "vgg13-19584684.pth")
VGG13_BN_Weights = _enum("VGG13_BN_Weights", "vgg13_bn-abd245e5.pth")
VGG16_Weights = _enum("VGG16_Weights", "vgg16-397923af.pth")
VGG16_BN_Weights = _enum("VGG16_BN_Weights", "vgg16_bn-6c64b313.pth")
VGG19_Weights = _enum("VGG19_Weights", "vgg19-dcbb9e9d.pth")
VGG19_BN_Weights = _enum("VGG19_BN_Weights", "vgg19_bn-c79401a0.pth")


def _vgg(name, cfg, batch_norm, enum, weights, progress, kwargs):
    def model(**kw):
        if weights is not None:
            kw["init_weights"] = False
        return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kw)

    return _build(name, model, enum, weights, progress, kwargs)


def vgg11(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg11", "A", False, VGG11_Weights, weights, progress, kwargs)


def vgg11_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg11_bn", "A", True, VGG11_BN_Weights, weights, progress, kwargs)


def vgg13(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg13", "B", False, VGG13_Weights, weights, progress, kwargs)


def vgg13_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg13_bn", "B", True, VGG13_BN_Weights, weights, progress, kwargs)


def vgg16(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg16", "D", False, VGG16_Weights, weights, progress, kwargs)


def vgg16_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg16_bn", "D", True, VGG16_BN_Weights, weights, progress, kwargs)


def vgg19(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg19", "E", False, VGG19_Weights, weights, progress, kwargs)


def vgg19_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg19_bn", "E", True, VGG19_BN_Weights, weights, progress, kwargs)
