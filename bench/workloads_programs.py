"""Whole-program workloads of issue 5 (imported by run.py to register them).

Each callable runs a complete small program once, from the same initial values in every
library: a training loop, a gradient, a copy. ember and PyTorch run the same code (written
once as a function of the module `m`); NumPy runs the hand-written gradients that the
original documents give for it.

Every make function runs each library's program once and compares the results with
PyTorch's (NumPy's where PyTorch is the one missing): a library whose result differs is
shown as skipped with the difference, so a row never times a wrong program silently.
"""
from common import LIBS, Skip, data, workload


def _as_numpy(v):
    return v.detach().numpy() if hasattr(v, "detach") else v


def _checked(L, name, progs, rtol=1e-3, atol=1e-3):
    """Run each program once; replace one whose result differs from the reference by Skip.

    progs: {lib: callable returning a tuple of tensors/arrays/floats, or Skip}.
    Tolerances are loose (float32 results of long loops, summed in different orders);
    atol is scaled by the largest reference value so it does not depend on units."""
    np = L["numpy"]
    ref_lib = "torch" if not isinstance(progs.get("torch"), Skip) else "numpy"
    ref = [np.asarray(_as_numpy(v), dtype="float64") for v in progs[ref_lib]()]
    out = {}
    for lib, fn in progs.items():
        if isinstance(fn, Skip) or lib == ref_lib:
            out[lib] = fn
            continue
        got = [np.asarray(_as_numpy(v), dtype="float64") for v in fn()]
        for i, (g, r) in enumerate(zip(got, ref)):
            scale = float(np.abs(r).max()) if r.size else 1.0
            if g.shape != r.shape or not np.allclose(g, r, rtol=rtol, atol=atol * scale):
                why = (f"max |diff| {np.abs(g - r).max():.3g}, max |{ref_lib}| {scale:.3g}"
                       if g.shape == r.shape else f"shape {g.shape}, {ref_lib}'s {r.shape}")
                out[lib] = Skip(f"WRONG RESULT: output {i} differs from {ref_lib}'s ({why})")
                break
        else:
            out[lib] = fn
    assert not isinstance(out[ref_lib], Skip), name
    return out


# ---------------------------------------------------------------- linear regression


def _sgd_step(m, params, lr):
    """The programs' hand-written SGD step under no_grad: p -= lr * p.grad for every
    parameter, then every grad zeroed."""
    with m.no_grad():
        for p in params:
            p -= lr * p.grad
        for p in params:
            p.grad.zero_()


def _linreg(m, x, y, w0, b0, epochs=100, lr=0.1, read_loss=True):
    """MiniTorch's linear regression: a Linear(1, 1) as two leaf tensors, full-batch MSE,
    backward, manual SGD under no_grad. read_loss=False returns the loss as a tensor (what
    ember.compile's row needs: reading a value into Python ends a recording)."""
    w = w0.clone().requires_grad_(True)
    b = b0.clone().requires_grad_(True)
    for _ in range(epochs):
        loss = ((x.mm(w) + b - y) ** 2).mean()
        loss.backward()
        _sgd_step(m, (w, b), lr)
    return (loss.item() if read_loss else loss), w, b


def _linreg_numpy(np, x, y, w0, b0, epochs=100, lr=0.1):
    """The same program with the MSE gradients written by hand."""
    w, b = w0.copy(), b0.copy()
    n = x.shape[0]
    for _ in range(epochs):
        r = x.dot(w) + b - y
        loss = np.square(r).mean()
        grad_r = (2.0 / n) * r
        w -= lr * x.T.dot(grad_r)
        b -= lr * grad_r.sum(0)
    return loss, w, b


@workload("linear regression, 100 samples, 100 epochs (autograd + SGD)",
          note="y = 2x + 1 + noise, Linear(1, 1), MSE, lr 0.1, f32; NumPy: gradients by hand")
def linear_regression(L):
    np = L["numpy"]
    x = data(L, 100, 1)
    noise = np.random.default_rng(1).standard_normal((100, 1)).astype("float32")
    y_np = 2 * x["numpy"] + 1 + 0.1 * noise
    y = {"numpy": y_np, "torch": L["torch"].tensor(y_np), "ember": L["ember"].tensor(y_np)}
    w0, b0 = data(L, 1, 1, seed=2), data(L, 1, seed=3)
    progs = {lib: (lambda m=L[lib], lib=lib: _linreg(m, x[lib], y[lib], w0[lib], b0[lib]))
             for lib in ("ember", "torch")}
    progs["numpy"] = lambda: _linreg_numpy(np, x["numpy"], y_np, w0["numpy"], b0["numpy"])
    return _checked(L, "linear regression", progs)


# ---------------------------------------------------------------- two-layer net

# "Learning PyTorch with examples" (the N=64 version): a ReLU net fit to random data.
N, D_IN, H, D_OUT, STEPS = 64, 1000, 100, 10, 500
TWO_LAYER_FLOPS = STEPS * (4 * N * D_IN * H + 6 * N * H * D_OUT)  # the five matmuls


def _two_layer_explicit(m, x, y, w1, w2, lr=1e-6):
    """The tutorial's "Tensors" program: forward and backward written by hand."""
    w1, w2 = w1.clone(), w2.clone()
    for _ in range(STEPS):
        h = x.mm(w1)
        h_relu = h.clamp(min=0)
        y_pred = h_relu.mm(w2)
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.t().mm(grad_y_pred)
        grad_h_relu = grad_y_pred.mm(w2.t())
        grad_h = grad_h_relu.clone()
        grad_h[h < 0] = 0
        grad_w1 = x.t().mm(grad_h)
        w1 -= lr * grad_w1
        w2 -= lr * grad_w2
    return loss, w1, w2


def _two_layer_numpy(np, x, y, w1, w2, lr=1e-6):
    """The tutorial's "Warm-up: numpy" program."""
    w1, w2 = w1.copy(), w2.copy()
    for _ in range(STEPS):
        h = x.dot(w1)
        h_relu = np.maximum(h, 0)
        y_pred = h_relu.dot(w2)
        loss = np.square(y_pred - y).sum()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.T.dot(grad_y_pred)
        grad_h_relu = grad_y_pred.dot(w2.T)
        grad_h = grad_h_relu.copy()
        grad_h[h < 0] = 0
        grad_w1 = x.T.dot(grad_h)
        w1 -= lr * grad_w1
        w2 -= lr * grad_w2
    return loss, w1, w2


def _two_layer_autograd(m, x, y, w1, w2, lr=1e-6):
    """The tutorial's "Tensors and autograd" program."""
    w1 = w1.clone().requires_grad_(True)
    w2 = w2.clone().requires_grad_(True)
    for t in range(STEPS):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            last = loss.item()  # the tutorial prints it here
        loss.backward()
        _sgd_step(m, (w1, w2), lr)
    return last, w1, w2


def _two_layer(L, dtype, program):
    x, y = data(L, N, D_IN, dtype=dtype), data(L, N, D_OUT, dtype=dtype, seed=1)
    w1, w2 = data(L, D_IN, H, dtype=dtype, seed=2), data(L, H, D_OUT, dtype=dtype, seed=3)
    progs = {lib: (lambda m=L[lib], lib=lib: program(m, x[lib], y[lib], w1[lib], w2[lib]))
             for lib in ("ember", "torch")}
    np = L["numpy"]
    progs["numpy"] = lambda: _two_layer_numpy(np, x["numpy"], y["numpy"], w1["numpy"], w2["numpy"])
    # the loss falls from ~1e7 to ~1e-3 over 500 steps: compare weights, and the loss loosely
    return _checked(L, f"two-layer {dtype}", progs, rtol=1e-2, atol=1e-3)


_TWO_LAYER = f"two-layer net N={N} D_in={D_IN} H={H} D_out={D_OUT}, {STEPS} it"
_TWO_LAYER_NOTE = "'Learning PyTorch with examples'; GF/s counts the five matmuls"


@workload(f"{_TWO_LAYER}, explicit backprop f64", flops=TWO_LAYER_FLOPS, repeats=9,
          warm_calls=1, note=_TWO_LAYER_NOTE)
def two_layer_f64(L):
    return _two_layer(L, "float64", _two_layer_explicit)


@workload(f"{_TWO_LAYER}, explicit backprop f32", flops=TWO_LAYER_FLOPS, repeats=9,
          warm_calls=1, note=_TWO_LAYER_NOTE)
def two_layer_f32(L):
    return _two_layer(L, "float32", _two_layer_explicit)


@workload(f"{_TWO_LAYER}, autograd f32", flops=TWO_LAYER_FLOPS, repeats=9, warm_calls=1,
          note=_TWO_LAYER_NOTE + "; NumPy runs its hand-written f32 program (no autograd)")
def two_layer_autograd(L):
    return _two_layer(L, "float32", _two_layer_autograd)


# ---------------------------------------------------------------- least squares gradient


def _lsq_grad(A, y, x):
    """d/dx ||y - A x||^2 by autograd; x is a leaf whose .grad is reset each call."""
    x.grad = None
    (y - A @ x).pow(2).sum().backward()
    return (x.grad,)


def _lsq_workload(d):
    @workload(f"least squares grad, d={d}, A ({10 * d}, {d}) f32", bytes=2 * 10 * d * d * 4,
              note="x.grad of ||y - A x||^2; NumPy: -2 A^T (y - A x) by hand; "
                   "GB/s counts two passes over A (A x, then A^T r)")
    def make(L):
        np = L["numpy"]
        A, y = data(L, 10 * d, d), data(L, 10 * d, seed=1)
        x = data(L, d, seed=2)
        for lib in ("ember", "torch"):
            x[lib].requires_grad_(True)
        progs = {lib: (lambda lib=lib: _lsq_grad(A[lib], y[lib], x[lib]))
                 for lib in ("ember", "torch")}
        An, yn, xn = A["numpy"], y["numpy"], x["numpy"]
        progs["numpy"] = lambda: (-2 * An.T.dot(yn - An.dot(xn)),)
        return _checked(L, f"least squares d={d}", progs)
    return make


for _d in (10, 100, 1000, 3000):
    _lsq_workload(_d)


# ---------------------------------------------------------------- copy bandwidth

COPY_N = 64 * 2**20  # float32 elements: 256 MB


@workload("copy bandwidth, 256 MB f32", bytes=2 * 4 * COPY_N,
          note="y.copy_(x) / np.copyto(y, x) into an existing y; GB/s counts read + write")
def copy_bandwidth(L):
    np = L["numpy"]
    x = data(L, COPY_N)
    y = {lib: L[lib].empty_like(x[lib]) for lib in LIBS}
    progs = {lib: (lambda lib=lib: (y[lib].copy_(x[lib]),)) for lib in ("ember", "torch")}
    progs["numpy"] = lambda: (np.copyto(y["numpy"], x["numpy"]), y["numpy"])[1:]
    return _checked(L, "copy", progs, rtol=0, atol=0)


# ---------------------------------------------------------------- import time


def _cold_import(module):
    """Seconds to `import module` in a fresh interpreter (inside it, so the interpreter's own
    start-up is not counted), and its resident memory after the import."""
    import subprocess
    import sys
    # (VmRSS, not ru_maxrss: Linux carries the parent's peak across fork and exec)
    code = (f"import time; t = time.perf_counter(); import {module}; "
            f"t = time.perf_counter() - t; "
            f"rss = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS')][0]; "
            f"print(t, rss)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, rss_kb = out.stdout.split()
    _cold_import.rss_mb[module] = int(rss_kb) / 1024
    return float(seconds)


_cold_import.rss_mb = {}


@workload("python -c 'import <lib>', a fresh process", repeats=5, warm_calls=1,
          note="wall time of the whole process (interpreter start-up included); the import "
               "statement's own time and the resident MB are printed to stderr")
def import_time(L):
    def make(module):
        def run():
            t = _cold_import(module)
            print(f"    import {module}: {t * 1e3:.0f} ms, {_cold_import.rss_mb[module]:.0f} MB resident",
                  file=__import__("sys").stderr)
            return t
        return run
    return {lib: make(lib) for lib in LIBS}
