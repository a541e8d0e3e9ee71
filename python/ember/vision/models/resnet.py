"""ResNet (He et al. 2015) with torchvision's module names, so its state_dicts load by name."""
import ember

from ... import nn
from ._api import WeightsEnum, _build, _check_positive_int, _imagenet


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                     bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample, self.stride = downsample, stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (the stride, as torchvision's "ResNet V1.5"), 1x1 expand by 4."""

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample, self.stride = downsample, stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1,
                 width_per_group=64, replace_stride_with_dilation=None, norm_layer=None):
        if not (isinstance(block, type) and issubclass(block, nn.Module) and hasattr(block, "expansion")):
            raise TypeError(f"ResNet: block should be BasicBlock, Bottleneck or a block class with an "
                            f"expansion, got {block!r}")
        if not isinstance(layers, (list, tuple)) or len(layers) != 4 or \
                not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in layers):
            raise ValueError(f"ResNet: layers should be 4 positive ints (blocks per stage), got {layers!r}")
        _check_positive_int(num_classes, "num_classes", "ResNet")
        _check_positive_int(groups, "groups", "ResNet")
        _check_positive_int(width_per_group, "width_per_group", "ResNet")
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes, self.dilation = 64, 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, got "
                             f"{replace_stride_with_dilation}")
        self.groups, self.base_width = groups, width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        dilate = replace_stride_with_dilation
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=dilate[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=dilate[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=dilate[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:  # each block starts as the identity
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer, downsample, previous_dilation = self._norm_layer, None, self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(ember.flatten(self.avgpool(x), 1))

    def forward(self, x):
        return self._forward_impl(x)


_URL = "https://download.pytorch.org/models/"


def _weights(name, *files):
    """torchvision's <Model>_Weights enum: IMAGENET1K_V1, V2, ... for the checkpoint files in
    order, DEFAULT the last (an alias)."""
    members = [(f"IMAGENET1K_V{i}", _imagenet(_URL + f)) for i, f in enumerate(files, 1)]
    return WeightsEnum(name, members + [("DEFAULT", members[-1][1])], module=__name__,
                       qualname=name)


ResNet18_Weights = _weights("ResNet18_Weights", "resnet18-f37072fd.pth")
ResNet34_Weights = _weights("ResNet34_Weights", "resnet34-b627a593.pth")
ResNet50_Weights = _weights("ResNet50_Weights", "resnet50-0676ba61.pth", "resnet50-11ad3fa6.pth")
ResNet101_Weights = _weights("ResNet101_Weights", "resnet101-63fe2227.pth")
ResNet152_Weights = _weights("ResNet152_Weights", "resnet152-394f9c45.pth")
ResNeXt50_32X4D_Weights = _weights("ResNeXt50_32X4D_Weights", "resnext50_32x4d-7cdf4587.pth")
ResNeXt101_32X8D_Weights = _weights("ResNeXt101_32X8D_Weights", "resnext101_32x8d-8ba56ff5.pth")
Wide_ResNet50_2_Weights = _weights("Wide_ResNet50_2_Weights", "wide_resnet50_2-95faca4d.pth")
Wide_ResNet101_2_Weights = _weights("Wide_ResNet101_2_Weights", "wide_resnet101_2-32ee1156.pth")


# name: (block, blocks per stage, weights enum, what the variant changes)
_ARCHS = {
    "resnet18": (BasicBlock, [2, 2, 2, 2], ResNet18_Weights, {}),
    "resnet34": (BasicBlock, [3, 4, 6, 3], ResNet34_Weights, {}),
    "resnet50": (Bottleneck, [3, 4, 6, 3], ResNet50_Weights, {}),
    "resnet101": (Bottleneck, [3, 4, 23, 3], ResNet101_Weights, {}),
    "resnet152": (Bottleneck, [3, 8, 36, 3], ResNet152_Weights, {}),
    "resnext50_32x4d": (Bottleneck, [3, 4, 6, 3], ResNeXt50_32X4D_Weights,
                        dict(groups=32, width_per_group=4)),
    "resnext101_32x8d": (Bottleneck, [3, 4, 23, 3], ResNeXt101_32X8D_Weights,
                         dict(groups=32, width_per_group=8)),
    "wide_resnet50_2": (Bottleneck, [3, 4, 6, 3], Wide_ResNet50_2_Weights,
                        dict(width_per_group=64 * 2)),
    "wide_resnet101_2": (Bottleneck, [3, 4, 23, 3], Wide_ResNet101_2_Weights,
                         dict(width_per_group=64 * 2)),
}


def _resnet(name, weights, progress, kwargs):
    block, layers, enum, variant = _ARCHS[name]
    kwargs.update(variant)
    return _build(name, lambda **kw: ResNet(block, layers, **kw), enum, weights, progress, kwargs)


def resnet18(*, weights=None, progress=True, **kwargs):
    """ResNet-18: BasicBlock x [2, 2, 2, 2]."""
    return _resnet("resnet18", weights, progress, kwargs)


def resnet34(*, weights=None, progress=True, **kwargs):
    """ResNet-34: BasicBlock x [3, 4, 6, 3]."""
    return _resnet("resnet34", weights, progress, kwargs)


def resnet50(*, weights=None, progress=True, **kwargs):
    """ResNet-50: Bottleneck x [3, 4, 6, 3]."""
    return _resnet("resnet50", weights, progress, kwargs)


def resnet101(*, weights=None, progress=True, **kwargs):
    """ResNet-101: Bottleneck x [3, 4, 23, 3]."""
    return _resnet("resnet101", weights, progress, kwargs)


def resnet152(*, weights=None, progress=True, **kwargs):
    """ResNet-152: Bottleneck x [3, 8, 36, 3]."""
    return _resnet("resnet152", weights, progress, kwargs)


def resnext50_32x4d(*, weights=None, progress=True, **kwargs):
    """ResNeXt-50 32x4d: ResNet-50 with 32 groups of width 4 in each 3x3 conv."""
    return _resnet("resnext50_32x4d", weights, progress, kwargs)


def resnext101_32x8d(*, weights=None, progress=True, **kwargs):
    """ResNeXt-101 32x8d: ResNet-101 with 32 groups of width 8 in each 3x3 conv."""
    return _resnet("resnext101_32x8d", weights, progress, kwargs)


def wide_resnet50_2(*, weights=None, progress=True, **kwargs):
    """Wide ResNet-50-2: ResNet-50 with the 3x3 convs twice as wide."""
    return _resnet("wide_resnet50_2", weights, progress, kwargs)


def wide_resnet101_2(*, weights=None, progress=True, **kwargs):
    """Wide ResNet-101-2: ResNet-101 with the 3x3 convs twice as wide."""
    return _resnet("wide_resnet101_2", weights, progress, kwargs)
