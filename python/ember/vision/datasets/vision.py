"""VisionDataset: the base class of every dataset here, as torchvision.datasets.VisionDataset."""
import os

from ...utils.data import Dataset


class StandardTransform:
    """Applies `transform` to the input and `target_transform` to the target."""

    def __init__(self, transform=None, target_transform=None):
        self.transform, self.target_transform = transform, target_transform

    def __call__(self, input, target):
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def __repr__(self):
        body = [self.__class__.__name__]
        if self.transform is not None:
            body.append(f"Transform: {self.transform!r}")
        if self.target_transform is not None:
            body.append(f"Target transform: {self.target_transform!r}")
        return "\n".join(body)


class VisionDataset(Dataset):
    """VisionDataset(root=None, transforms=None, transform=None, target_transform=None).
    `transforms` takes (input, target) together; it excludes the other two."""

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if isinstance(root, (str, os.PathLike)):
            root = os.path.expanduser(os.fspath(root))
        self.root = root
        has_transforms = transforms is not None
        has_separate = transform is not None or target_transform is not None
        if has_transforms and has_separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform, self.target_transform = transform, target_transform
        if has_separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} should implement __getitem__")

    def _transformed(self, input, target):
        """input through transform and target through target_transform, those that are set
        (how torchvision's datasets end __getitem__)."""
        return StandardTransform(self.transform, self.target_transform)(input, target)

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} should implement __len__")

    def extra_repr(self):
        return ""

    def __repr__(self):
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += [line for line in self.extra_repr().splitlines() if line]
        if self.transforms is not None:
            body += repr(self.transforms).splitlines()
        lines = [f"Dataset {self.__class__.__name__}"] + [" " * self._repr_indent + line for line in body]
        return "\n".join(lines)
