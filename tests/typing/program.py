"""A typed program using each of ember's namespaces, checked by mypy (tests/python/test_typing.py):
it must type-check cleanly, and the same program with a wrong keyword or a misspelled attribute
must not. It is also run, so every line is real ember usage."""
import io

import ember
import ember.autograd
import ember.distributions as D
import ember.fft
import ember.linalg
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
import ember.special
from ember.optim.lr_scheduler import StepLR
from ember.utils.data import DataLoader, TensorDataset


def make_data(n: int) -> tuple[ember.Tensor, ember.Tensor]:
    x: ember.Tensor = ember.randn(n, 4)
    y: ember.Tensor = ember.randint(0, 3, (n,))
    return x, y


def train(epochs: int) -> float:
    x, y = make_data(32)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    nn.init.zeros_(model[0].bias)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = StepLR(opt, step_size=2, gamma=0.5)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    last = 0.0
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            loss: ember.Tensor = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            last = loss.item()
        sched.step()
    return last


def tensors() -> None:
    a = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    b: ember.Tensor = a.matmul(a.T).add(1.0)
    c = ember.cat([a, a], dim=0).sum(dim=1, keepdim=True)
    assert b.shape == (2, 2) and c.shape == (4, 1)
    assert a.isclose(a).all().item()
    with ember.no_grad():
        d = ember.zeros_like(a).fill_(2.0)
    print(d.dtype, a.real.shape, ember.where(a > 2, a, d).tolist())


def namespaces() -> None:
    m = ember.eye(3) * 2.0 + ember.ones(3, 3)
    sol = ember.linalg.solve(m, ember.ones(3, 1))
    spectrum = ember.fft.rfft(ember.linspace(0.0, 1.0, 8))
    erf = ember.special.erf(ember.tensor([0.5]))
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    (g,) = ember.autograd.grad((w * w).sum(), [w])
    normal = D.Normal(ember.zeros(2), ember.ones(2))
    sample = normal.sample((5,))
    buf = io.BytesIO()
    ember.save({"w": w.detach()}, buf)
    buf.seek(0)
    loaded = ember.load(buf)
    print(sol.shape, spectrum.shape, erf, g, sample.shape, normal.log_prob(sample).shape,
          sorted(loaded))


if __name__ == "__main__":
    tensors()
    namespaces()
    print(f"final loss {train(3):.3f}")
