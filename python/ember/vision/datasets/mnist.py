"""MNIST and FashionMNIST in torchvision's on-disk layout: root/<ClassName>/raw/ holding the
IDX files (train-images-idx3-ubyte, ... plain or .gz), read by ember.datasets' IDX reader."""
import os
import warnings

import numpy as np

from ... import _C
from ..._dtype import int64
from ...datasets._idx import IMAGES_MAGIC, LABELS_MAGIC, read_idx
from .utils import check_integrity, download_and_extract_archive
from .vision import VisionDataset


class MNIST(VisionDataset):
    """MNIST(root, train=True, transform=None, target_transform=None, download=False).

    .data is the uint8 (N, 28, 28) tensor, .targets the int64 (N,) tensor; ds[i] is
    (PIL image of mode 'L', int label) before the transforms, as in torchvision.
    download=True fetches the four .gz files from the mirrors below (md5-checked) unless they
    are already in root/<ClassName>/raw."""

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
               "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = bool(train)
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError(f"{type(self).__name__}: dataset not found in {self.raw_folder}. "
                               "You can use download=True to download it")
        self.data, self.targets = self._load_data()

    # torchvision's old names, kept with its warnings
    @property
    def train_labels(self):
        warnings.warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self):
        warnings.warn("test_labels has been renamed targets")
        return self.targets

    @property
    def train_data(self):
        warnings.warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self):
        warnings.warn("test_data has been renamed data")
        return self.data

    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def _file(self, stem):
        """raw_folder/stem, else raw_folder/stem.gz, else None."""
        for name in (stem, stem + ".gz"):
            path = os.path.join(self.raw_folder, name)
            if check_integrity(path):
                return path
        return None

    def _stems(self, train=None):
        split = ("train" if self.train else "t10k") if train is None else train
        return f"{split}-images-idx3-ubyte", f"{split}-labels-idx1-ubyte"

    def _check_exists(self):
        return all(self._file(s) is not None for split in ("train", "t10k") for s in self._stems(split))

    def _load_data(self):
        images_path, labels_path = (self._file(s) for s in self._stems())
        images = read_idx(images_path, IMAGES_MAGIC)
        labels = read_idx(labels_path, LABELS_MAGIC)
        if labels.shape[0] != images.shape[0]:
            raise ValueError(f"{type(self).__name__}: {labels_path} holds {labels.shape[0]} labels for "
                             f"the {images.shape[0]} images of {images_path}")
        return _C._from_numpy(images), _C._from_numpy(labels)._to_dtype(int64)

    def download(self):
        """Fetch and unpack the raw files that are missing; RuntimeError naming every URL tried
        when a file cannot be fetched from any mirror."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            if self._file(filename[: -len(".gz")]) is not None:
                continue
            errors = []
            for mirror in self.mirrors:
                url = f"{mirror}{filename}"
                try:
                    download_and_extract_archive(url, download_root=self.raw_folder, filename=filename,
                                                 md5=md5)
                    break
                except RuntimeError as e:
                    errors.append(str(e))
            else:
                raise RuntimeError(f"{type(self).__name__}: error downloading {filename}:\n"
                                   + "\n".join(errors))

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        from PIL import Image

        img = Image.fromarray(np.ascontiguousarray(self.data[index].numpy()))
        target = int(self.targets[index])
        return self._transformed(img, target)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's 28x28 grey clothing images, 10 classes), MNIST's layout and API."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
               "Bag", "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST (28x28 grey images of 10 cursive Japanese characters), MNIST's layout and
    API."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]
