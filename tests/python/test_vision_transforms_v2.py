"""ember.vision.transforms.v2: the v2 calling convention (samples with labels and dicts) over
the v1 transforms. torchvision cannot be installed here: the oracle is the v1 transform on the
same image with the same seed, NumPy, and numbers computed by hand."""
import numpy as np
import pytest
from PIL import Image

import ember
from ember.vision import transforms as T
from ember.vision.transforms import v2


def _img(seed=0):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (10, 12, 3), dtype=np.uint8))


def test_to_image_to_dtype_normalize_pipeline():
    img = _img()
    a = np.asarray(img)
    pipeline = v2.Compose([v2.ToImage(), v2.ToDtype(ember.float32, scale=True), v2.Normalize([0.5] * 3, [0.25] * 3)])
    x = pipeline(img)
    np.testing.assert_allclose(x.numpy(), (a.transpose(2, 0, 1) / 255.0 - 0.5) / 0.25, rtol=1e-5, atol=1e-5)
    u = v2.ToImage()(img)
    assert u.dtype == ember.uint8 and np.array_equal(u.numpy(), a.transpose(2, 0, 1))
    assert np.array_equal(v2.ToImage()(a).numpy(), a.transpose(2, 0, 1))
    assert v2.ToDtype(ember.float32)(u).numpy().max() == a.max()  # scale=False keeps the values
    with pytest.raises(TypeError, match="ToDtype: expected a tensor image"):
        v2.ToDtype(ember.float32)(img)
    with pytest.raises(TypeError, match="a dict of dtypes per input type is not supported"):
        v2.ToDtype({ember.Tensor: ember.float32})


def test_samples_pass_labels_through():
    img = _img()
    x, y = v2.Compose([v2.ToImage(), v2.ToDtype(ember.float32, scale=True)])(img, 7)
    assert tuple(x.shape) == (3, 10, 12) and y == 7
    out = v2.RandomHorizontalFlip(p=1.0)({"image": img, "label": 3, "boxes": ember.zeros(2, 4)})
    assert out["label"] == 3 and out["image"].tobytes() == T.functional.hflip(img).tobytes()
    assert float(out["boxes"].abs().sum()) == 0  # a PIL image is present: tensors pass through
    t, mask = v2.Resize(5)(ember.rand(3, 10, 12), ember.ones(1, 10, 12))  # the first tensor is the image
    assert tuple(t.shape) == (3, 5, 6) and tuple(mask.shape) == (1, 10, 12)
    with pytest.raises(NotImplementedError, match="a sample with 2 images is not supported"):
        v2.RandomCrop(4)(img, _img(1))


def test_random_transforms_draw_as_v1():
    img = _img()
    ember.manual_seed(11)
    want = T.RandomResizedCrop(6)(img)
    ember.manual_seed(11)
    got = v2.RandomResizedCrop(6)(img)
    assert got.tobytes() == want.tobytes()
    assert v2.RandomApply([v2.Resize(4)], p=1.0)(img).size == (4, 4)
    assert v2.RandomApply([v2.Resize(4)], p=0.0)(img) is img
    assert v2.RandomChoice([v2.Resize(4), v2.Resize(6)], p=[0, 1])(img).size == (7, 6)
    assert v2.RandomOrder([v2.Grayscale(), v2.Resize(4)])(img).mode == "L"
    ember.manual_seed(3)
    want = T.RandAugment()(img)
    ember.manual_seed(3)
    got, label = v2.RandAugment()(img, 5)
    assert got.tobytes() == want.tobytes() and label == 5
    with pytest.raises(ValueError, match="Length of p doesn't match the number of transforms: 1 != 2"):
        v2.RandomChoice([v2.Resize(4), v2.Resize(6)], p=[1])


def test_lambda_types_and_reprs():
    out = v2.Lambda(lambda z: z * 2)({"image": ember.ones(1, 2, 2), "label": 3})
    assert float(out["image"].sum()) == 8 and out["label"] == 3
    only_int = v2.Lambda(lambda z: z + 1, int)((ember.ones(1), 3))
    assert only_int[1] == 4 and float(only_int[0].sum()) == 1
    assert repr(v2.Resize(4)) == "Resize(size=4, interpolation=bilinear, max_size=None, antialias=True)"
    assert v2.ToPILImage(mode="F")(ember.rand(1, 4, 4)).mode == "F"
    assert tuple(v2.ToTensor()(_img()).shape) == (3, 10, 12)
    with pytest.raises(TypeError, match="Argument lambd should be callable"):
        v2.Lambda(3)
