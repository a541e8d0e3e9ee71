"""Workloads of ember.nn and training (issue 4's rows; imported by run.py to register them).

The training rows run the same model from the same initial weights on the same batches in
ember and PyTorch: the code is ember.examples.fashion_mnist's, with `lib` either library.
Batches are made by indexing the in-memory images with a shuffled index (x[idx]) in both
libraries, so the rows compare the frameworks' compute, not their DataLoaders.
"""
from common import LIBS, Skip, data, workload


class _Lazy:
    """ember.examples.fashion_mnist, imported at first use: run.py must set the thread
    environment before ember, NumPy or torch are imported."""

    def __getattr__(self, name):
        from ember.examples import fashion_mnist
        return getattr(fashion_mnist, name)


fm = _Lazy()


def _per_lib(L, fn, numpy=Skip("no autograd; not written by hand")):
    out = {lib: fn(L[lib]) for lib in LIBS if lib != "numpy"}
    out["numpy"] = numpy
    return out


@workload("a + b, 10 elements, requires_grad", note="records the autograd node")
def add_tiny_grad(L):
    a, b = data(L, 10), data(L, 10, seed=1)
    for lib in ("ember", "torch"):
        a[lib].requires_grad_(True)
    return {"ember": lambda: a["ember"] + b["ember"], "torch": lambda: a["torch"] + b["torch"],
            "numpy": Skip("no autograd")}


@workload("nn.Linear(10, 10) forward, (1, 10)", note="per-layer overhead: module call + addmm")
def linear_tiny(L):
    x = data(L, 1, 10)

    def make(m):
        layer = m.nn.Linear(10, 10)
        return lambda: layer(x[m.__name__])
    return _per_lib(L, make, numpy=Skip("no module"))


def _models(L, kind):
    """The same model (same initial weights) in ember and torch."""
    L["ember"].manual_seed(0)
    models = {"ember": fm.build_model(L["ember"], kind)}
    models["torch"] = fm.build_model(L["torch"], kind)
    fm.copy_parameters(models["ember"], models["torch"], L["torch"])
    return models


def _batches(m, x, y, batch_size, seed=0):
    """Shuffled (x[idx], y[idx]) batches, made the same way in each library."""
    import numpy as np
    perm = np.random.default_rng(seed).permutation(x.shape[0])
    idx = m.from_numpy(perm)
    for i in range(0, x.shape[0], batch_size):
        j = idx[i:i + batch_size]
        yield x[j], y[j]


@workload("MLP 784-128-10, batch 100, Adam, 100 steps",
          note="forward + cross_entropy + backward + Adam step, random data")
def mlp_adam_steps(L):
    np = L["numpy"]
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((100, 100, 784)).astype("float32")
    ys = rng.integers(0, 10, (100, 100))

    def make(m):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(784, 128), m.nn.ReLU(), m.nn.Linear(128, 10))
        opt = m.optim.Adam(model.parameters(), lr=1e-3)
        batches = [(m.from_numpy(xs[i]), m.from_numpy(ys[i])) for i in range(100)]
        F = m.nn.functional

        def run():
            for xb, yb in batches:
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
        return run
    return _per_lib(L, make)


def _epoch(L, kind, amp=None):
    """One epoch of model `kind` in each library; amp='bf16' runs the forward pass and the loss
    under autocast('cpu', bfloat16) in both (workloads_half.py's row)."""
    split = {}
    for lib in ("ember", "torch"):
        split[lib] = fm.load_data(L[lib])[0]
    models = _models(L, kind)
    out = {}
    for lib in ("ember", "torch"):
        m, model, (x, y) = L[lib], models[lib], split[lib]
        opt = m.optim.Adam(model.parameters(), lr=1e-3)
        # one short untimed pass: allocator pools, BLAS buffers, lazy init
        fm.train_epoch(m, model, opt, _batches(m, x[:2000], y[:2000], 64), amp=amp)
        out[lib] = (lambda m=m, model=model, opt=opt, x=x, y=y:
                    fm.train_epoch(m, model, opt, _batches(m, x, y, 64), amp=amp))
    out["numpy"] = Skip("no autograd")
    return out


@workload("Fashion-MNIST epoch, MLP 784-256-128-10, batch 64", repeats=3, warm_calls=0,
          note="60000 images, Adam; seconds per epoch")
def epoch_mlp(L):
    return _epoch(L, "mlp")


@workload("Fashion-MNIST epoch, CNN (2 conv+pool, 2 linear), batch 64", repeats=3, warm_calls=0,
          note="60000 images, Adam; seconds per epoch")
def epoch_cnn(L):
    return _epoch(L, "cnn")
