"""FashionMNIST, read from the IDX files of Debian's dataset-fashion-mnist package."""
import os

from .. import _C
from .._dtype import float32, int64
from ..utils.data.dataset import Dataset, rows
from ._idx import IMAGES_MAGIC, LABELS_MAGIC, read_idx

DEFAULT_ROOT = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530  # of the training images scaled to [0, 1] (the values tutorials use)
_APT_HINT = "install it with `apt-get install dataset-fashion-mnist` (or pass root=...)"
_FILES = {True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
          False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def _find(root, stem):
    """root/stem, root/stem.gz, or the same under root/FashionMNIST/raw (torchvision's layout)."""
    for folder in (root, os.path.join(root, "FashionMNIST", "raw")):
        for name in (stem, stem + ".gz"):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return path
    return None


class FashionMNIST(Dataset):
    """Fashion-MNIST: 60000 training and 10000 test images of 28x28 grey pixels, 10 classes.

    FashionMNIST(root=None, train=True, transform=None, target_transform=None, download=False)
    reads `root` (default /usr/share/datasets/fashion-mnist, where Debian's dataset-fashion-mnist
    package puts it; torchvision's root/FashionMNIST/raw layout works too; files plain or .gz).

    .data is the uint8 (N, 28, 28) tensor and .targets the int64 (N,) tensor, as in torchvision.
    Unlike torchvision, which returns PIL images, ds[i] returns (image, label) with the image a
    float32 (1, 28, 28) tensor scaled to [0, 1] (what ToTensor() would give) and the label an int;
    `transform` then receives that tensor. For training, `tensors()` returns every image and label
    at once, and a DataLoader over this dataset (no transforms) batches it with index_select.

    ember never downloads: download=True loads the files when found (from `root`, else from the
    Debian package's folder) and raises RuntimeError when they are nowhere.
    """

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
               "Bag", "Ankle boot"]

    def __init__(self, root=None, train=True, transform=None, target_transform=None, download=False):
        root = DEFAULT_ROOT if root is None else os.path.expanduser(os.fspath(root))
        self.root, self.train = root, bool(train)
        self.transform, self.target_transform = transform, target_transform
        images_path, labels_path = self._paths(root, download)
        images = read_idx(images_path, IMAGES_MAGIC)
        labels = read_idx(labels_path, LABELS_MAGIC)
        _check(images, labels, images_path, labels_path)
        self.data = _C._from_numpy(images)
        self.targets = _C._from_numpy(labels)._to_dtype(int64)

    def _paths(self, root, download):
        stems = _FILES[self.train]
        paths = [_find(root, s) for s in stems]
        if None in paths and download:
            # Nothing can be downloaded here; the Debian package holds the same files.
            fallback = [_find(DEFAULT_ROOT, s) for s in stems]
            if None in fallback:
                raise RuntimeError(f"FashionMNIST: download=True: ember does not download datasets (no "
                                   f"network access); Fashion-MNIST not found in {root}: {_APT_HINT}")
            paths = fallback
        for stem, path in zip(stems, paths):
            if path is None:
                raise FileNotFoundError(f"Fashion-MNIST not found in {root}: {_APT_HINT}; "
                                        f"missing {stem} (or {stem}.gz)")
        return paths

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        img = self.data[index].unsqueeze(0)._to_dtype(float32).div_(255.0)
        target = int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def tensors(self, normalize=None):
        """(images float32 (N, 1, 28, 28) in [0, 1], labels int64 (N,)), new tensors.
        normalize: None or False for [0, 1]; True for (x - 0.2860) / 0.3530, the training set's
        mean and std; or a (mean, std) pair. Feed them to TensorDataset for fast training."""
        images = self.data.unsqueeze(1)._to_dtype(float32).div_(255.0)
        if normalize is True:
            normalize = (MEAN, STD)
        if normalize not in (None, False):
            mean, std = normalize
            images.sub_(float(mean)).div_(float(std))
        return images, self.targets.clone()

    def _batch_fetcher(self):
        if self.transform is not None or self.target_transform is not None \
                or type(self).__getitem__ is not FashionMNIST.__getitem__:
            return None
        data, targets = self.data, self.targets
        return lambda key: [rows(data, key).unsqueeze(1)._to_dtype(float32).div_(255.0), rows(targets, key)]

    def __repr__(self):
        lines = [f"Dataset {type(self).__name__}", f"    Number of datapoints: {len(self)}",
                 f"    Root location: {self.root}", f"    Split: {'Train' if self.train else 'Test'}"]
        if self.transform is not None:
            lines.append(f"    Transform: {self.transform!r}")
        if self.target_transform is not None:
            lines.append(f"    Target transform: {self.target_transform!r}")
        return "\n".join(lines)


def _check(images, labels, images_path, labels_path):
    if images.shape[1:] != (28, 28):
        raise ValueError(f"{images_path}: images of {images.shape[1]}x{images.shape[2]} pixels "
                         f"(Fashion-MNIST images are 28x28)")
    if labels.shape[0] != images.shape[0]:
        raise ValueError(f"{labels_path}: {labels.shape[0]} labels for the {images.shape[0]} images "
                         f"of {images_path}")
    if labels.size and labels.max() > 9:
        raise ValueError(f"{labels_path}: label {int(labels.max())} out of range (classes are 0..9)")
