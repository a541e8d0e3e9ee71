"""FakeData: random images, the same image for the same index every time."""
from .vision import VisionDataset


class FakeData(VisionDataset):
    """FakeData(size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
    target_transform=None, random_offset=0): ds[i] is (PIL image, int).

    As torchvision, sample i is drawn from a generator seeded with i + random_offset: the
    image is standard normal noise turned into a PIL image by ToPILImage, the target a class
    in [0, num_classes). Unlike torchvision, which reseeds torch's global RNG and restores it,
    a private ember.Generator is used, so the global RNG is never touched. The values differ
    from torchvision's (another random stream); the determinism per index is the same."""

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size, self.num_classes = size, num_classes
        self.image_size, self.random_offset = image_size, random_offset

    def __getitem__(self, index):
        import ember

        from ..transforms import functional as F

        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        g = ember.Generator()
        g.manual_seed(index + self.random_offset)
        img = ember.randn(*self.image_size, generator=g)
        target = int(ember.randint(0, self.num_classes, size=(1,), dtype=ember.long, generator=g)[0])
        img = F.to_pil_image(img)
        return self._transformed(img, target)

    def __len__(self):
        return self.size
