"""ember.vision.ops.misc's blocks (FrozenBatchNorm2d, SqueezeExcitation, MLP, Permute) against
the formulas torchvision gives them, computed with torch; KMNIST's layout; the data classes
are Generic as torch's (timm subclasses Sampler[List[...]])."""
import typing

import numpy as np
import pytest
import torch

import ember
from ember.vision.ops import misc


def test_frozen_batch_norm_is_eval_batch_norm():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    stats = {k: rng.random(3).astype(np.float32) + 0.5 for k in
             ("weight", "bias", "running_mean", "running_var")}
    f = misc.FrozenBatchNorm2d(3, eps=1e-3)
    f.load_state_dict({**{k: ember.tensor(v) for k, v in stats.items()},
                       "num_batches_tracked": ember.tensor(7)})  # a BatchNorm2d's keys load
    bn = torch.nn.BatchNorm2d(3, eps=1e-3).eval()
    with torch.no_grad():
        for k, v in stats.items():
            getattr(bn, k).copy_(torch.tensor(v))
    np.testing.assert_allclose(f(ember.tensor(x)).numpy(), bn(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert repr(f) == "FrozenBatchNorm2d(3, eps=0.001)"
    assert [n for n, _ in f.named_parameters()] == []
    assert sorted(n for n, _ in f.named_buffers()) == sorted(stats)


def test_squeeze_excitation_mlp_permute():
    ember.manual_seed(0)
    se = misc.SqueezeExcitation(4, 2)
    x = ember.randn(2, 4, 3, 3)
    ref = ember.sigmoid(se.fc2(ember.relu(se.fc1(x.mean((2, 3), keepdim=True))))) * x
    np.testing.assert_allclose(se(x).numpy(), ref.numpy(), rtol=1e-6)
    mlp = misc.MLP(4, [8, 6, 2], norm_layer=ember.nn.LayerNorm, dropout=0.0)
    assert [type(m).__name__ for m in mlp] == ["Linear", "LayerNorm", "ReLU", "Dropout", "Linear",
                                               "LayerNorm", "ReLU", "Dropout", "Linear", "Dropout"]
    assert mlp(ember.ones(5, 4)).shape == (5, 2)
    assert misc.Permute([0, 2, 3, 1])(x).shape == (2, 3, 3, 4)


def test_kmnist_reads_the_mnist_layout(tmp_path):
    import gzip
    raw = tmp_path / "KMNIST" / "raw"
    raw.mkdir(parents=True)
    imgs = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    for split in ("train", "t10k"):
        with gzip.open(raw / f"{split}-images-idx3-ubyte.gz", "wb") as f:
            f.write(np.array([0x803, 2, 28, 28], dtype=">i4").tobytes() + imgs.tobytes())
        with gzip.open(raw / f"{split}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(np.array([0x801, 2], dtype=">i4").tobytes() + bytes([3, 9]))
    ds = ember.vision.datasets.KMNIST(str(tmp_path), train=False)
    assert len(ds) == 2 and ds[1][1] == 9 and ds.classes[3] == "tsu"
    assert np.array_equal(np.asarray(ds[0][0]), imgs[0])


@pytest.mark.parametrize("name", ["Dataset", "IterableDataset", "Sampler", "DataLoader", "Subset",
                                  "ConcatDataset", "StackDataset", "DistributedSampler"])
def test_data_classes_are_generic_like_torch(name):
    ours, theirs = getattr(ember.utils.data, name), getattr(torch.utils.data, name)
    assert len(ours.__parameters__) == len(theirs.__parameters__)
    ours[typing.List[int]]  # subscriptable, as timm's Sampler[List[Tuple[Any, int]]] needs
