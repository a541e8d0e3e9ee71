"""torchvision under the drop-in runner: the torchvision names pytorch/examples import (mnist,
vae, dcgan, mnist_hogwild, mnist_forward_forward) resolve to ember.vision and work together
(datasets -> transforms -> DataLoader with workers -> save_image), in a child process run by
`python -m ember run`. The oracle is the data written here and Pillow reading the image back."""
import os
import subprocess
import sys
import textwrap

import numpy as np
from PIL import Image

SCRIPT = textwrap.dedent("""
    import sys
    import torch
    import torchvision
    import torchvision.datasets as dset
    import torchvision.transforms as transforms
    import torchvision.utils as vutils
    from torchvision import datasets
    from torchvision.datasets import MNIST
    from torchvision.transforms import Compose, ToTensor, Normalize, Lambda
    from torchvision.utils import save_image

    root, out = sys.argv[1], sys.argv[2]
    assert torchvision.__spec__.name == "ember.vision" and torch.__spec__.name == "ember"
    mnist = datasets.MNIST(root, train=True, download=True,
                           transform=transforms.Compose([transforms.ToTensor(),
                                                         transforms.Normalize((0.1307,), (0.3081,))]))
    flat = MNIST(root, train=False, transform=Compose([ToTensor(), Normalize((0.5,), (0.5,)),
                                                     Lambda(lambda x: torch.flatten(x))]))
    big = dset.MNIST(root=root, download=True, transform=transforms.Compose([
        transforms.Resize(64), transforms.CenterCrop(64), transforms.ToTensor(),
        transforms.Normalize((0.5,), (0.5,))]))
    fake = dset.FakeData(size=4, image_size=(3, 16, 16), transform=transforms.ToTensor())
    loader = torch.utils.data.DataLoader(mnist, batch_size=4, shuffle=True, num_workers=2)
    x, y = next(iter(loader))
    assert tuple(x.shape) == (4, 1, 28, 28) and x.dtype == torch.float32 and tuple(y.shape) == (4,)
    assert tuple(flat[0][0].shape) == (784,) and tuple(big[0][0].shape) == (1, 64, 64)
    vutils.save_image(big[0][0], out, normalize=True)
    save_image(fake[0][0].view(1, 3, 16, 16), out + ".fake.png")
    print("ok", len(mnist), len(flat))
""")


def test_examples_torchvision_names_under_drop_in(tmp_path):
    rng = np.random.default_rng(0)
    raw = tmp_path / "data" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for split, n in (("train", 8), ("t10k", 3)):
        for name, arr in ((f"{split}-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)),
                          (f"{split}-labels-idx1-ubyte", rng.integers(0, 10, (n,), dtype=np.uint8))):
            (raw / name).write_bytes(bytes([0, 0, 8, arr.ndim]) + np.asarray(arr.shape, ">u4").tobytes() + arr.tobytes())
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    out = tmp_path / "grid.png"
    env = dict(os.environ)
    env.pop("EMBER_AS_TORCH", None)
    proc = subprocess.run([sys.executable, "-m", "ember", "run", str(script), str(tmp_path / "data"), str(out)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", "8", "3"]
    img = Image.open(out)
    assert img.size == (64, 64) and img.mode == "RGB"
    assert Image.open(str(out) + ".fake.png").size == (16, 16)
