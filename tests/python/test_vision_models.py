"""ember.vision.models: torchvision's architectures, parameter names and forward passes.

torchvision cannot be installed beside torch 2.13 here. Its state_dict key lists are rebuilt
below from the documented architectures (and the counts torchvision's models have: resnet18
122 entries, resnet50 320, vgg16 32, mobilenet_v2 314), and a forward pass is checked against
the same architecture built in torch in this file, with parameters ported through NumPy.
"""
import numpy as np
import pytest
import torch
from torch import nn as tnn

import ember
from ember.vision import models


def _bn_keys(prefix):
    return [f"{prefix}.{k}" for k in ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")]


def _resnet_keys(block_counts, bottleneck):
    keys = ["conv1.weight"] + _bn_keys("bn1")
    convs = 3 if bottleneck else 2
    for li, n in enumerate(block_counts, 1):
        for b in range(n):
            p = f"layer{li}.{b}"
            for c in range(1, convs + 1):
                keys += [f"{p}.conv{c}.weight"] + _bn_keys(f"{p}.bn{c}")
            if b == 0 and (li > 1 or bottleneck):
                keys += [f"{p}.downsample.0.weight"] + _bn_keys(f"{p}.downsample.1")
    return keys + ["fc.weight", "fc.bias"]


@pytest.mark.parametrize("name,counts,bottleneck,total", [("resnet18", [2, 2, 2, 2], False, 122),
                                                          ("resnet50", [3, 4, 6, 3], True, 320)])
def test_resnet_state_dict_keys(name, counts, bottleneck, total):
    sd = getattr(models, name)().state_dict()
    assert sorted(sd) == sorted(_resnet_keys(counts, bottleneck)) and len(sd) == total
    assert tuple(sd["conv1.weight"].shape) == (64, 3, 7, 7)
    assert tuple(sd["fc.weight"].shape) == (1000, 2048 if bottleneck else 512)
    if bottleneck:
        assert tuple(sd["layer2.0.conv2.weight"].shape) == (128, 128, 3, 3)
        assert tuple(sd["layer4.0.downsample.0.weight"].shape) == (2048, 1024, 1, 1)


@pytest.fixture(scope="module")
def vgg11_bn():
    """One VGG for the whole file: its 120M classifier weights take seconds to initialise."""
    ember.manual_seed(0)
    return models.vgg11_bn(num_classes=5)


def _vgg_feature_keys(cfg, bn):
    keys, i, c_in, shapes = [], 0, 3, {}
    for v in cfg:
        if v == "M":
            i += 1
            continue
        keys += [f"features.{i}.weight", f"features.{i}.bias"]
        shapes[f"features.{i}.weight"] = (v, c_in, 3, 3)
        if bn:
            keys += _bn_keys(f"features.{i + 1}")
        i += 3 if bn else 2
        c_in = v
    return keys, shapes


def test_resnext_groups_and_widths():
    """ResNeXt-50 32x4d: the 3x3 conv of layer1 has width 64 * 4/64 * 32 = 128 split in 32
    groups (weight (128, 4, 3, 3)); keys are ResNet-50's."""
    sd = models.resnext50_32x4d().state_dict()
    assert sorted(sd) == sorted(_resnet_keys([3, 4, 6, 3], True))
    assert tuple(sd["layer1.0.conv2.weight"].shape) == (128, 4, 3, 3)
    assert tuple(sd["layer4.2.conv2.weight"].shape) == (1024, 32, 3, 3)
    assert models.resnet.Bottleneck(256, 64, base_width=128).conv2.weight.shape == (128, 128, 3, 3)  # wide: x2
    assert models.Wide_ResNet50_2_Weights.DEFAULT.url.endswith("wide_resnet50_2-95faca4d.pth")


def test_vgg_state_dict_keys(vgg11_bn):
    cfg_a = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
    keys, shapes = _vgg_feature_keys(cfg_a, True)
    classifier = [f"classifier.{j}.{p}" for j in (0, 3, 6) for p in ("weight", "bias")]
    sd = vgg11_bn.state_dict()
    assert sorted(sd) == sorted(keys + classifier)
    for k, s in shapes.items():
        assert tuple(sd[k].shape) == s
    assert tuple(sd["classifier.0.weight"].shape) == (4096, 25088)
    assert tuple(sd["classifier.6.weight"].shape) == (5, 4096)
    # without BatchNorm, and VGG16's configuration "D": 13 convs + 3 linears = 32 entries
    from ember.vision.models.vgg import cfgs, make_layers

    for cfg, bn in ((cfg_a, False), (cfgs["D"], False), (cfgs["D"], True)):
        want, _ = _vgg_feature_keys(cfg, bn)
        assert sorted("features." + k for k in make_layers(cfg, batch_norm=bn).state_dict()) == sorted(want)
    assert len(_vgg_feature_keys(cfgs["D"], False)[0]) + len(classifier) == 32
    # torchvision's init: N(0, 0.01) Linear weights, zero biases
    assert abs(float(vgg11_bn.classifier[0].weight[:256].std()) - 0.01) < 0.001
    assert float(vgg11_bn.classifier[0].bias.abs().max()) == 0


def test_mobilenet_v2_state_dict_keys():
    sd = models.mobilenet_v2().state_dict()
    assert len(sd) == 314
    keys = ["features.0.0.weight"] + _bn_keys("features.0.1")
    setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1]]
    idx = 1
    for t, _, n, _ in setting:
        for _ in range(n):
            p = f"features.{idx}.conv"
            parts = ([0, 1] if t != 1 else [0])
            for j in parts:
                keys += [f"{p}.{j}.0.weight"] + _bn_keys(f"{p}.{j}.1")
            last = len(parts)
            keys += [f"{p}.{last}.weight"] + _bn_keys(f"{p}.{last + 1}")
            idx += 1
    keys += ["features.18.0.weight"] + _bn_keys("features.18.1") + ["classifier.1.weight", "classifier.1.bias"]
    assert sorted(sd) == sorted(keys)
    assert tuple(sd["features.1.conv.0.0.weight"].shape) == (32, 1, 3, 3)  # depthwise
    assert tuple(sd["features.18.0.weight"].shape) == (1280, 320, 1, 1)


# ---- the same architectures in torch, to compare forward passes ----------------------------------
class _TBasic(tnn.Module):
    def __init__(self, cin, c, stride):
        super().__init__()
        self.conv1, self.bn1 = tnn.Conv2d(cin, c, 3, stride, 1, bias=False), tnn.BatchNorm2d(c)
        self.conv2, self.bn2 = tnn.Conv2d(c, c, 3, 1, 1, bias=False), tnn.BatchNorm2d(c)
        self.downsample = None
        if stride != 1 or cin != c:
            self.downsample = tnn.Sequential(tnn.Conv2d(cin, c, 1, stride, bias=False), tnn.BatchNorm2d(c))

    def forward(self, x):
        out = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(out + (x if self.downsample is None else self.downsample(x)))


class _TResNet18(tnn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1, self.bn1 = tnn.Conv2d(3, 64, 7, 2, 3, bias=False), tnn.BatchNorm2d(64)
        self.maxpool = tnn.MaxPool2d(3, 2, 1)
        cin = 64
        for i, c in enumerate((64, 128, 256, 512), 1):
            stride = 1 if i == 1 else 2
            setattr(self, f"layer{i}", tnn.Sequential(_TBasic(cin, c, stride), _TBasic(c, c, 1)))
            cin = c
        self.fc = tnn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(tnn.functional.adaptive_avg_pool2d(x, 1), 1))


def _t_vgg11_bn(num_classes):
    layers, c_in = [], 3
    for v in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
        if v == "M":
            layers.append(tnn.MaxPool2d(2, 2))
        else:
            layers += [tnn.Conv2d(c_in, v, 3, padding=1), tnn.BatchNorm2d(v), tnn.ReLU()]
            c_in = v
    m = tnn.Module()
    m.features = tnn.Sequential(*layers)
    m.classifier = tnn.Sequential(tnn.Linear(25088, 4096), tnn.ReLU(), tnn.Dropout(), tnn.Linear(4096, 4096),
                                  tnn.ReLU(), tnn.Dropout(), tnn.Linear(4096, num_classes))
    m.forward = lambda x: m.classifier(torch.flatten(tnn.functional.adaptive_avg_pool2d(m.features(x), 7), 1))
    return m


def _t_mobilenet_v2(num_classes):
    def cbr(cin, cout, k=3, s=1, g=1):
        return tnn.Sequential(tnn.Conv2d(cin, cout, k, s, (k - 1) // 2, groups=g, bias=False), tnn.BatchNorm2d(cout),
                              tnn.ReLU6())

    class IR(tnn.Module):
        def __init__(self, cin, cout, s, t):
            super().__init__()
            hid = cin * t
            layers = ([cbr(cin, hid, 1)] if t != 1 else []) + [cbr(hid, hid, 3, s, hid),
                                                               tnn.Conv2d(hid, cout, 1, bias=False), tnn.BatchNorm2d(cout)]
            self.conv, self.res = tnn.Sequential(*layers), s == 1 and cin == cout

        def forward(self, x):
            return x + self.conv(x) if self.res else self.conv(x)

    feats, cin = [cbr(3, 32, 3, 2)], 32
    for t, c, n, s in [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
                       [6, 320, 1, 1]]:
        for i in range(n):
            feats.append(IR(cin, c, s if i == 0 else 1, t))
            cin = c
    feats.append(cbr(320, 1280, 1))
    m = tnn.Module()
    m.features = tnn.Sequential(*feats)
    m.classifier = tnn.Sequential(tnn.Dropout(0.2), tnn.Linear(1280, num_classes))
    m.forward = lambda x: m.classifier(torch.flatten(tnn.functional.adaptive_avg_pool2d(m.features(x), 1), 1))
    return m


def _port(e_model, t_model):
    """Copy ember's parameters and buffers into the torch model by name (all names must match)."""
    e_sd = e_model.state_dict()
    t_sd = t_model.state_dict()
    assert sorted(e_sd) == sorted(t_sd)
    t_model.load_state_dict({k: torch.from_numpy(np.array(v.numpy())) for k, v in e_sd.items()})


def _randomize_bn(model, seed):
    """Non-trivial running statistics, so eval-mode BatchNorm is really tested."""
    g = np.random.default_rng(seed)
    for name, buf in model.state_dict().items():
        if name.endswith("running_mean"):
            buf.copy_(ember.from_numpy(g.normal(0, 0.1, buf.shape).astype(np.float32)))
        elif name.endswith("running_var"):
            buf.copy_(ember.from_numpy(g.uniform(0.5, 1.5, buf.shape).astype(np.float32)))


@pytest.mark.parametrize("name,t_build,size", [("resnet18", lambda: _TResNet18(10), 32),
                                               ("mobilenet_v2", lambda: _t_mobilenet_v2(7), 32),
                                               ("vgg11_bn", lambda: _t_vgg11_bn(5), 32)])
def test_forward_matches_torch(name, t_build, size, request):
    ember.manual_seed(0)
    if name == "vgg11_bn":
        e_model = request.getfixturevalue("vgg11_bn")
    else:
        e_model = getattr(models, name)(num_classes=10 if name == "resnet18" else 7)
    t_model = t_build()
    _randomize_bn(e_model, 1)
    _port(e_model, t_model)
    e_model.eval()
    t_model.eval()
    x = np.random.default_rng(2).standard_normal((1 if name == "mobilenet_v2" else 2, 3, size, size)).astype(np.float32)
    with ember.no_grad():
        out = e_model(ember.from_numpy(x)).numpy()
    with torch.no_grad():
        ref = t_model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_train_step_and_init():
    ember.manual_seed(0)
    m = models.resnet18(num_classes=3, zero_init_residual=True)
    assert float(m.layer1[0].bn2.weight.abs().sum()) == 0.0
    w = m.conv1.weight.numpy()
    fan_out = 64 * 7 * 7
    assert abs(w.std() - np.sqrt(2.0 / fan_out)) < 0.1 * np.sqrt(2.0 / fan_out)  # kaiming_normal_, fan_out
    assert float(m.bn1.weight.min()) == 1.0 and float(m.bn1.bias.abs().max()) == 0.0
    x = ember.randn(2, 3, 16, 16)
    loss = ember.nn.functional.cross_entropy(m(x), ember.tensor([0, 2]))
    loss.backward()
    assert m.conv1.weight.grad is not None and tuple(m.fc.weight.grad.shape) == (3, 512)


def test_weights_argument(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    from ember.vision.datasets import utils as dutils

    def offline(url, timeout=30):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(dutils, "_urlopen", offline)
    with pytest.raises(RuntimeError, match=r"https://download.pytorch.org/models/resnet18-f37072fd.pth.*"
                                           r"copy the checkpoint to .*hub/checkpoints/resnet18-f37072fd.pth"):
        models.resnet18(weights="IMAGENET1K_V1")
    with pytest.raises(RuntimeError, match="resnet18-f37072fd.pth"):
        with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
            models.resnet18(pretrained=True)
    with pytest.raises(ValueError, match="no weights named 'IMAGENET9K'"):
        models.resnet18(weights="IMAGENET9K")
    with pytest.raises(TypeError, match="expected ResNet18_Weights but received ResNet50_Weights"):
        models.resnet18(weights=models.ResNet50_Weights.DEFAULT)
    with pytest.raises(ValueError, match="'num_classes' expected value 1000 but got 10"):
        models.resnet18(weights=models.ResNet18_Weights.DEFAULT, num_classes=10)
    assert models.ResNet50_Weights.DEFAULT is models.ResNet50_Weights.IMAGENET1K_V2
    assert models.get_model("resnet18", num_classes=4).fc.out_features == 4
    assert "mobilenet_v2" in models.list_models() and models.list_models(include="resnet*")[0] == "resnet101"


def test_weights_from_hub_cache(tmp_path, monkeypatch):
    """A checkpoint in torch hub's cache (written here by ember.save from a torch model's
    parameters) loads by name."""
    import hashlib

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    t_model = _t_mobilenet_v2(1000)
    ckpt_dir = tmp_path / "hub" / "checkpoints"
    ckpt_dir.mkdir(parents=True)
    path = ckpt_dir / "mobilenet_v2-b0353104.pth"
    ember.save({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in t_model.state_dict().items()}, str(path))
    with pytest.raises(RuntimeError, match="invalid hash value"):  # our file is not torchvision's
        models.mobilenet_v2(weights="IMAGENET1K_V1")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
    monkeypatch.setattr(models.MobileNet_V2_Weights.IMAGENET1K_V1.value, "url",
                        f"https://download.pytorch.org/models/mobilenet_v2-{digest}.pth")
    path.rename(ckpt_dir / f"mobilenet_v2-{digest}.pth")
    m = models.mobilenet_v2(weights=models.MobileNet_V2_Weights.IMAGENET1K_V1)
    np.testing.assert_array_equal(m.classifier[1].weight.numpy(), t_model.classifier[1].weight.detach().numpy())


def test_bad_architecture_arguments_fail_before_allocating():
    from ember.vision.models.vgg import make_layers

    with pytest.raises(TypeError, match="VGG: features should be an nn.Module"):
        models.VGG([64, "M"])
    with pytest.raises(ValueError, match="VGG: num_classes should be a positive int, got 0"):
        models.VGG(make_layers([8, "M"]), num_classes=0)
    with pytest.raises(ValueError, match="make_layers: cfg should be a list of positive ints and 'M's"):
        make_layers([64, "X"])
    with pytest.raises(ValueError, match=r"ResNet: layers should be 4 positive ints .* got \[2, 2\]"):
        models.ResNet(models.resnet.BasicBlock, [2, 2])
    with pytest.raises(TypeError, match="ResNet: block should be BasicBlock, Bottleneck"):
        models.ResNet(3, [2, 2, 2, 2])
    with pytest.raises(ValueError, match=r"MobileNetV2: dropout should be a probability in \[0, 1\], got 1.5"):
        models.MobileNetV2(dropout=1.5)
    with pytest.raises(ValueError, match="resnet18: the parameter 'num_classes' expected value 1000"):
        models.resnet18(weights="DEFAULT", num_classes=3)
