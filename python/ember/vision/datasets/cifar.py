"""CIFAR10 and CIFAR100 from the python pickle batches (cifar-10-batches-py/, cifar-100-python/).

The batches are plain dicts of a uint8 array and lists. They are read by a restricted
unpickler that builds only NumPy arrays, dtypes and the standard containers: a file that asks
for any other global raises pickle.UnpicklingError instead of running its code.
"""
import os
import pickle

import numpy as np

from .utils import check_integrity, download_and_extract_archive
from .vision import VisionDataset

# What a CIFAR batch (written by Python 2 or 3, NumPy 1 or 2) may name, and nothing else.
_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("copy_reg", "_reconstructor"), ("copyreg", "_reconstructor"),
    ("__builtin__", "object"), ("builtins", "object"),
}


class _BatchUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"CIFAR batch: global '{module}.{name}' is not allowed (a "
                                         "CIFAR batch holds only NumPy arrays, lists and strings)")
        module = {"numpy.core.multiarray": "numpy._core.multiarray", "copy_reg": "copyreg",
                  "__builtin__": "builtins"}.get(module, module)
        return super().find_class(module, name)


def _load_batch(path):
    with open(path, "rb") as f:
        try:
            entry = _BatchUnpickler(f, encoding="latin1").load()
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as e:
            raise RuntimeError(f"{path}: not a CIFAR python batch ({e})") from None
    if not isinstance(entry, dict):
        raise RuntimeError(f"{path}: not a CIFAR python batch (a {type(entry).__name__}, not a dict)")
    return entry


class CIFAR10(VisionDataset):
    """CIFAR10(root, train=True, transform=None, target_transform=None, download=False).

    .data is the uint8 NumPy array (N, 32, 32, 3) and .targets a list of ints, as in
    torchvision; ds[i] is (PIL RGB image, int). download=True fetches and md5-checks the
    archive, then unpacks it. Unlike torchvision, which md5-checks every batch file at each
    construction, existing batch files are only required to be present and well-formed."""

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [
        ["data_batch_1", "c99cafc152244af753f735de768cd75f"],
        ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
        ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
        ["data_batch_4", "634d18415352ddfa80567beed471001a"],
        ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"],
    ]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}
    _labels_key = "labels"

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = bool(train)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(f"{type(self).__name__}: dataset not found or corrupted in "
                               f"{os.path.join(self.root, self.base_folder)}. You can use download=True "
                               "to download it")
        data, targets = [], []
        for name, _ in (self.train_list if self.train else self.test_list):
            path = os.path.join(self.root, self.base_folder, name)
            entry = _load_batch(path)
            if "data" not in entry or self._labels_key not in entry:
                raise RuntimeError(f"{path}: a CIFAR batch needs the keys 'data' and "
                                   f"'{self._labels_key}' (found {sorted(entry)})")
            batch, labels = np.asarray(entry["data"], dtype=np.uint8), list(entry[self._labels_key])
            if batch.ndim != 2 or batch.shape[1] != 3 * 32 * 32 or batch.shape[0] != len(labels):
                raise RuntimeError(f"{path}: data of shape {batch.shape} and {len(labels)} labels "
                                   f"(expected (N, 3072) and N labels)")
            data.append(batch)
            targets.extend(int(t) for t in labels)
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self.targets = targets
        self._load_meta()

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path):
            raise RuntimeError(f"{path}: dataset metadata file not found or corrupted. You can use "
                               "download=True to download it")
        self.classes = list(_load_batch(path)[self.meta["key"]])
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    def __getitem__(self, index):
        from PIL import Image

        img, target = Image.fromarray(self.data[index]), self.targets[index]
        return self._transformed(img, target)

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        folder = os.path.join(self.root, self.base_folder)
        names = [name for name, _ in self.train_list + self.test_list]
        return all(check_integrity(os.path.join(folder, name)) for name in names)

    def download(self):
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR100: CIFAR10's API with 100 fine classes (targets are the 'fine_labels')."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}
    _labels_key = "fine_labels"
