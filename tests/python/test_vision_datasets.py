"""ember.vision.datasets: MNIST/FashionMNIST, CIFAR10/100, ImageFolder/DatasetFolder, FakeData
and the download helpers, on small files written here in torchvision's on-disk layouts.

torchvision cannot be installed beside torch 2.13 here, so the oracle is the data the test
wrote (NumPy arrays, Pillow images) and torchvision's documented behaviour (layout, class
attributes, (PIL image, int) samples, error types).
"""
import gzip
import hashlib
import os
import pickle
import tarfile

import numpy as np
import pytest
from PIL import Image

import ember
from ember.vision import datasets
from ember.vision.datasets import utils as dutils


def _write_idx(path, array, gz=False):
    magic = bytes([0, 0, 8, array.ndim])
    dims = np.asarray(array.shape, dtype=">u4").tobytes()
    raw = magic + dims + array.astype(np.uint8).tobytes()
    if gz:
        raw, path = gzip.compress(raw), path + ".gz"
    with open(path, "wb") as f:
        f.write(raw)


def _mnist_root(tmp_path, name="MNIST", n_train=5, n_test=3, gz=False, seed=0):
    rng = np.random.default_rng(seed)
    raw = tmp_path / name / "raw"
    raw.mkdir(parents=True)
    arrays = {}
    for split, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, (n,), dtype=np.uint8)
        _write_idx(str(raw / f"{split}-images-idx3-ubyte"), images, gz)
        _write_idx(str(raw / f"{split}-labels-idx1-ubyte"), labels, gz)
        arrays[split] = (images, labels)
    return arrays


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_layout_and_samples(tmp_path, gz):
    arrays = _mnist_root(tmp_path, gz=gz)
    for train, split in ((True, "train"), (False, "t10k")):
        ds = datasets.MNIST(str(tmp_path), train=train)
        images, labels = arrays[split]
        assert len(ds) == len(images) and ds.train is train
        assert ds.data.dtype == ember.uint8 and tuple(ds.data.shape) == images.shape
        assert ds.targets.dtype == ember.int64
        np.testing.assert_array_equal(ds.data.numpy(), images)
        np.testing.assert_array_equal(ds.targets.numpy(), labels)
        img, target = ds[1]
        assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (28, 28)
        assert type(target) is int and target == labels[1]
        np.testing.assert_array_equal(np.asarray(img), images[1])
    assert ds.classes[3] == "3 - three" and ds.class_to_idx["3 - three"] == 3
    with pytest.warns(UserWarning, match="test_data has been renamed data"):
        assert ds.test_data is ds.data
    with pytest.warns(UserWarning, match="train_labels has been renamed targets"):
        assert ds.train_labels is ds.targets
    assert ds.raw_folder == os.path.join(str(tmp_path), "MNIST", "raw")
    assert "Split: Test" in repr(ds) and "Number of datapoints: 3" in repr(ds)


def test_mnist_transforms_and_fashion(tmp_path):
    from ember.vision import transforms

    arrays = _mnist_root(tmp_path, name="FashionMNIST")
    ds = datasets.FashionMNIST(tmp_path, transform=transforms.ToTensor(), target_transform=lambda t: t + 100)
    x, y = ds[0]
    assert tuple(x.shape) == (1, 28, 28) and x.dtype == ember.float32
    np.testing.assert_allclose(x.numpy()[0], arrays["train"][0][0] / 255.0, rtol=1e-6)
    assert y == arrays["train"][1][0] + 100
    assert ds.classes[0] == "T-shirt/top" and len(ds.classes) == 10
    # a DataLoader batches the transformed samples
    xb, yb = next(iter(ember.utils.data.DataLoader(ds, batch_size=4)))
    assert tuple(xb.shape) == (4, 1, 28, 28) and tuple(yb.shape) == (4,)


def test_mnist_missing_and_corrupt(tmp_path):
    with pytest.raises(RuntimeError, match="MNIST: dataset not found.*download=True"):
        datasets.MNIST(str(tmp_path))
    _mnist_root(tmp_path)
    with open(tmp_path / "MNIST" / "raw" / "train-labels-idx1-ubyte", "wb") as f:
        f.write(b"\x00\x00\x08\x01" + (7).to_bytes(4, "big") + bytes(7))  # 7 labels for 5 images
    with pytest.raises(ValueError, match="7 labels for the 5 images"):
        datasets.MNIST(str(tmp_path))


def _gz_bytes(array):
    magic = bytes([0, 0, 8, array.ndim]) + np.asarray(array.shape, dtype=">u4").tobytes()
    return gzip.compress(magic + array.tobytes(), mtime=0)


def test_mnist_download_from_local_mirror(tmp_path, monkeypatch):
    """download=True over file:// URLs: files fetched, md5-checked, decompressed into raw/."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    rng = np.random.default_rng(1)
    resources = []
    for split, n in (("train", 4), ("t10k", 2)):
        for kind, arr in (("images-idx3", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)),
                          ("labels-idx1", rng.integers(0, 10, (n,), dtype=np.uint8))):
            name = f"{split}-{kind}-ubyte.gz"
            data = _gz_bytes(arr)
            (mirror / name).write_bytes(data)
            resources.append((name, hashlib.md5(data).hexdigest()))
    monkeypatch.setattr(datasets.MNIST, "mirrors", ["file:///nonexistent/", mirror.as_uri() + "/"])
    monkeypatch.setattr(datasets.MNIST, "resources", resources)
    root = tmp_path / "data"
    ds = datasets.MNIST(str(root), train=False, download=True)
    assert len(ds) == 2
    assert os.path.isfile(root / "MNIST" / "raw" / "t10k-images-idx3-ubyte")
    # a wrong checksum is an error that names the file and both digests
    monkeypatch.setattr(datasets.MNIST, "resources", [(resources[0][0], "0" * 32)] + resources[1:])
    with pytest.raises(RuntimeError, match="corrupted: md5"):
        datasets.MNIST(str(tmp_path / "data2"), download=True)


def test_download_unreachable_names_url(tmp_path, monkeypatch):
    def offline(url, timeout=30):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(dutils, "_urlopen", offline)
    with pytest.raises(RuntimeError, match="ossci-datasets.s3.amazonaws.com/mnist/train-images-idx3-ubyte.gz"):
        datasets.MNIST(str(tmp_path), download=True)
    with pytest.raises(RuntimeError, match=r"https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"):
        datasets.CIFAR10(str(tmp_path), download=True)
    assert not any(p.name.endswith(".partial") for p in tmp_path.rglob("*"))


def _cifar_root(tmp_path, folder, train_files, test_files, meta_name, meta_key, labels_key, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    base = tmp_path / folder
    base.mkdir(parents=True, exist_ok=True)
    written = {}
    for name in train_files + test_files:
        data = rng.integers(0, 256, (3, 3072), dtype=np.uint8)
        labels = rng.integers(0, n_classes, 3).tolist()
        with open(base / name, "wb") as f:
            pickle.dump({"batch_label": name, "data": data, labels_key: labels, "filenames": ["a", "b", "c"]}, f)
        written[name] = (data, labels)
    with open(base / meta_name, "wb") as f:
        pickle.dump({meta_key: [f"class{i}" for i in range(n_classes)]}, f)
    return written


def test_cifar10_batches(tmp_path):
    train_files = [f"data_batch_{i}" for i in range(1, 6)]
    written = _cifar_root(tmp_path, "cifar-10-batches-py", train_files, ["test_batch"], "batches.meta",
                          "label_names", "labels", 10)
    ds = datasets.CIFAR10(str(tmp_path), train=True)
    assert len(ds) == 15 and ds.data.shape == (15, 32, 32, 3) and ds.data.dtype == np.uint8
    want = np.vstack([written[n][0] for n in train_files]).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(ds.data, want)
    assert ds.targets == sum((written[n][1] for n in train_files), [])
    img, target = ds[4]
    assert img.mode == "RGB" and img.size == (32, 32) and type(target) is int
    np.testing.assert_array_equal(np.asarray(img), want[4])
    assert ds.classes == [f"class{i}" for i in range(10)] and ds.class_to_idx["class2"] == 2
    test = datasets.CIFAR10(str(tmp_path), train=False)
    assert len(test) == 3 and test.targets == written["test_batch"][1]


def test_cifar100_fine_labels(tmp_path):
    written = _cifar_root(tmp_path, "cifar-100-python", ["train"], ["test"], "meta", "fine_label_names",
                          "fine_labels", 100)
    ds = datasets.CIFAR100(str(tmp_path))
    assert len(ds) == 3 and ds.targets == written["train"][1] and len(ds.classes) == 100


def test_cifar_restricted_unpickler_refuses_code(tmp_path):
    _cifar_root(tmp_path, "cifar-10-batches-py", [f"data_batch_{i}" for i in range(1, 6)], ["test_batch"],
                "batches.meta", "label_names", "labels", 10)

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    with open(tmp_path / "cifar-10-batches-py" / "data_batch_1", "wb") as f:
        pickle.dump({"data": Evil(), "labels": []}, f)
    with pytest.raises(RuntimeError, match="not allowed"):
        datasets.CIFAR10(str(tmp_path))
    assert not (tmp_path / "pwned").exists()
    with pytest.raises(RuntimeError, match="CIFAR10: dataset not found or corrupted"):
        datasets.CIFAR10(str(tmp_path / "elsewhere"))


def test_cifar_download_extracts_archive(tmp_path, monkeypatch):
    src = tmp_path / "src"
    _cifar_root(src, "cifar-10-batches-py", [f"data_batch_{i}" for i in range(1, 6)], ["test_batch"],
                "batches.meta", "label_names", "labels", 10)
    archive = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    monkeypatch.setattr(datasets.CIFAR10, "url", archive.as_uri())
    monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", dutils.calculate_md5(str(archive)))
    ds = datasets.CIFAR10(str(tmp_path / "root"), train=False, download=True)
    assert len(ds) == 3


def test_extract_archive_refuses_escaping_members(tmp_path):
    evil = tmp_path / "evil.tar"
    payload = tmp_path / "payload.txt"
    payload.write_text("x")
    with tarfile.open(evil, "w") as tar:
        tar.add(payload, arcname="../escaped.txt")
    with pytest.raises(tarfile.OutsideDestinationError):
        dutils.extract_archive(str(evil), str(tmp_path / "out"))
    assert not (tmp_path / "escaped.txt").exists()
    with pytest.raises(RuntimeError, match="extract_archive: .*unsupported archive type"):
        dutils.extract_archive(str(payload))
    fd = os.open(payload, os.O_RDONLY)  # an int is not a path (open() would close the descriptor)
    try:
        for call in (lambda: dutils.check_integrity(fd), lambda: dutils.calculate_md5(fd),
                     lambda: datasets.folder.pil_loader(fd)):
            with pytest.raises(TypeError, match="expected a path"):
                call()
        os.fstat(fd)
    finally:
        os.close(fd)


def _image_tree(tmp_path):
    rng = np.random.default_rng(0)
    for cls, names in (("cat", ["b.png", "a.jpg", "notes.txt"]), ("dog", ["c.png"]), ("emu", ["sub/d.bmp"])):
        for name in names:
            path = tmp_path / cls / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".txt"):
                path.write_text("not an image")
            else:
                Image.fromarray(rng.integers(0, 256, (6, 5), dtype=np.uint8)).save(path)
    return tmp_path


def test_image_folder(tmp_path):
    root = _image_tree(tmp_path)
    ds = datasets.ImageFolder(str(root))
    assert ds.classes == ["cat", "dog", "emu"] and ds.class_to_idx == {"cat": 0, "dog": 1, "emu": 2}
    names = [os.path.relpath(p, root) for p, _ in ds.samples]
    assert names == ["cat/a.jpg", "cat/b.png", "dog/c.png", os.path.join("emu", "sub", "d.bmp")]
    assert ds.targets == [0, 0, 1, 2] and ds.imgs == ds.samples
    img, target = ds[2]
    assert img.mode == "RGB" and img.size == (5, 6) and target == 1
    grey = np.asarray(Image.open(root / "dog" / "c.png"))
    np.testing.assert_array_equal(np.asarray(img)[:, :, 0], grey)


def test_dataset_folder_loader_and_errors(tmp_path):
    root = _image_tree(tmp_path)
    ds = datasets.DatasetFolder(str(root), loader=lambda p: os.path.basename(p), extensions=(".txt",),
                                allow_empty=True)
    assert [s for s, _ in ds] == ["notes.txt"]
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes dog, emu"):
        datasets.DatasetFolder(str(root), loader=str, extensions=".txt")
    with pytest.raises(ValueError, match="Both extensions and is_valid_file"):
        datasets.DatasetFolder(str(root), loader=str)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        datasets.ImageFolder(str(tmp_path / "empty"))
    only_png = datasets.ImageFolder(str(root), is_valid_file=lambda p: p.endswith(".png"), allow_empty=True)
    assert len(only_png) == 2


def test_fakedata_deterministic_per_index():
    from ember.vision import transforms

    ds = datasets.FakeData(size=4, image_size=(3, 6, 5), num_classes=7, transform=transforms.ToTensor())
    x1, y1 = ds[2]
    x2, y2 = ds[2]
    assert tuple(x1.shape) == (3, 6, 5) and 0 <= y1 < 7 and type(y1) is int
    np.testing.assert_array_equal(x1.numpy(), x2.numpy())
    assert y1 == y2
    assert not np.array_equal(ds[1][0].numpy(), x1.numpy())
    shifted = datasets.FakeData(size=4, image_size=(3, 6, 5), random_offset=1, transform=transforms.ToTensor())
    np.testing.assert_array_equal(shifted[1][0].numpy(), x1.numpy())
    ember.manual_seed(123)
    ds[3]
    after = ember.rand(3)
    ember.manual_seed(123)
    np.testing.assert_array_equal(ember.rand(3).numpy(), after.numpy())  # the global RNG is untouched
    assert len(ds) == 4 and isinstance(datasets.FakeData(size=1)[0][0], Image.Image)
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ds[4]
