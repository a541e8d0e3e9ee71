"""ember.vision.transforms.RandAugment / TrivialAugmentWide. torchvision cannot be installed
here: each op is checked against the functional call torchvision's _apply_op makes (itself
checked against Pillow in test_vision_transforms.py), the magnitude tables against torch's
linspace (to float32 rounding), and the random draws against ember's RNG replayed with the same seed."""
import math

import numpy as np
import pytest
import torch
from PIL import Image

import ember
from ember.vision import transforms as T
from ember.vision.transforms import autoaugment as A
from ember.vision.transforms import functional as F


def _img(seed=0):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (16, 20, 3), dtype=np.uint8))


def test_apply_op_is_the_functional_call():
    img = _img()
    N = T.InterpolationMode.NEAREST
    cases = {
        "ShearX": F.affine(img, 0.0, [0, 0], 1.0, [math.degrees(math.atan(0.2)), 0.0], N, None, [0, 0]),
        "ShearY": F.affine(img, 0.0, [0, 0], 1.0, [0.0, math.degrees(math.atan(0.2))], N, None, [0, 0]),
        "TranslateX": F.affine(img, 0.0, [0, 0], 1.0, [0.0, 0.0], N, None),
        "Rotate": F.rotate(img, 0.2, N),
        "Brightness": F.adjust_brightness(img, 1.2), "Color": F.adjust_saturation(img, 1.2),
        "Contrast": F.adjust_contrast(img, 1.2), "Sharpness": F.adjust_sharpness(img, 1.2),
        "Solarize": F.solarize(img, 255.0 * 0.2), "AutoContrast": F.autocontrast(img),
        "Equalize": F.equalize(img), "Invert": F.invert(img), "Identity": img,
    }
    for name, want in cases.items():
        assert A._apply_op(img, name, 0.2, N, None).tobytes() == want.tobytes(), name
    assert A._apply_op(img, "Posterize", 3.0, N, None).tobytes() == F.posterize(img, 3).tobytes()
    with pytest.raises(ValueError, match="The provided operator Blur is not recognized"):
        A._apply_op(img, "Blur", 0.2, N, None)


def test_magnitude_tables_match_torch():
    space = T.RandAugment()._augmentation_space(31, (16, 20))
    np.testing.assert_allclose(space["Rotate"][0].numpy(), torch.linspace(0.0, 30.0, 31).numpy(), rtol=1e-6)
    np.testing.assert_allclose(space["TranslateX"][0].numpy(), torch.linspace(0.0, 150.0 / 331.0 * 20, 31).numpy(),
                               rtol=1e-6)
    posterize = (8 - (torch.arange(31) / ((31 - 1) / 4)).round().int()).numpy()
    np.testing.assert_array_equal(space["Posterize"][0].numpy(), posterize)
    wide = T.TrivialAugmentWide()._augmentation_space(31)
    np.testing.assert_allclose(wide["ShearX"][0].numpy(), torch.linspace(0.0, 0.99, 31).numpy(), rtol=1e-6)
    assert list(space) == list(wide) and len(space) == 14


def test_rand_augment_replays_its_draws():
    img = _img()
    ember.manual_seed(5)
    out = T.RandAugment(num_ops=2, magnitude=9)(img)
    ember.manual_seed(5)
    space = T.RandAugment()._augmentation_space(31, (16, 20))
    want = img
    for _ in range(2):
        name = list(space)[int(ember.randint(14, (1,)).item())]
        mags, signed = space[name]
        m = float(mags[9].item()) if mags.ndim > 0 else 0.0
        if signed and int(ember.randint(2, (1,)).item()):
            m = -m
        want = A._apply_op(want, name, m, T.InterpolationMode.NEAREST, None)
    assert out.tobytes() == want.tobytes()
    x = ember.from_numpy(np.asarray(img).transpose(2, 0, 1).copy())
    for seed in range(6):  # tensor images through every kind of op the draws pick
        ember.manual_seed(seed)
        y = T.RandAugment(num_ops=3, fill=0)(x)
        assert y.dtype == ember.uint8 and tuple(y.shape) == (3, 16, 20)
        ember.manual_seed(seed)
        assert T.TrivialAugmentWide()(img).size == (20, 16)
    with pytest.raises(ValueError, match=r"RandAugment: magnitude should be an int in \[0, 31\), got 31"):
        T.RandAugment(magnitude=31)
    with pytest.raises(ValueError, match="TrivialAugmentWide: num_magnitude_bins should be an int >= 2, got 1"):
        T.TrivialAugmentWide(num_magnitude_bins=1)
