"""Issue 16's capture rows: ember.compile against PyTorch eager and NumPy in one run
(imported by run.py to register them).

The `ember` column is the compiled program (replayed from its recording); each row's note
adds ember's eager time and the compiled/eager ratio (timed interleaved), the capture time
(ember's first recording call, its eager run included), and torch.compile's time per call
and its compile time (its first call). ember's capture time is the median of 5 captures, each a
fresh compile's first call (`_capture_time`).
"""
import time

from common import WORKLOADS, Skip, data, measure, workload
from workloads_programs import _checked, _linreg, _linreg_numpy


def _set_note(name, text):
    for w in WORKLOADS:
        if w["name"] == name:
            w["note"] = text


def _first_call(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _capture_time(capture_once, n=5):
    """Median of n captures, each a fresh compile's first (recording) call: one call on this
    shared machine varies 2-3x with the load, the median of a few much less."""
    ts = sorted(capture_once() for _ in range(n))
    return ts[n // 2]


def _per_call(fn, n=20):
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def _fmt(s):
    return f"{s * 1e6:.0f} us" if s < 1e-3 else (f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.1f} s")


def _torch_compiled(L, fn, args):
    """torch.compile(fn): (its first call's time, a callable), or (None, Skip) if it fails."""
    torch = L["torch"]
    try:
        import torch._dynamo
        torch._dynamo.reset()
        cf = torch.compile(fn)
        return _first_call(lambda: cf(*args)), cf
    except Exception as e:  # no compiler toolchain, ...
        return None, Skip(f"torch.compile failed: {type(e).__name__}: {str(e)[:120]}")


def _op_replay(E, fn, args, warm=2):
    """fn compiled with the kernel replay off (each step calls its op, as before Note [Kernel
    replay]): the note's kernel/op ratio compares the two replays in one run."""
    E._C._capture.set_kernel_replay(False)
    try:
        c = E.compile(fn)
        for _ in range(warm):
            c(*args)
    finally:
        E._C._capture.set_kernel_replay(True)
    return lambda: c(*args)


def _notes(name, compiled, eager, capture, t_compile, t_call, op_replay=None):
    """compiled/eager: ember's two callables, timed here interleaved (medians) for the ratio."""
    progs = {"compiled": compiled, "eager": eager}
    if op_replay is not None:
        progs["op replay"] = op_replay
    t = measure(progs, repeats=11, warmup=0.05, target=0.05)
    parts = [f"ember eager {_fmt(t['eager'])}, compiled/eager {t['compiled'] / t['eager']:.2f}",
             f"ember capture (first call, its eager run included; median of 5) {_fmt(capture)}"]
    if op_replay is not None:
        parts.insert(1, f"op-level replay {_fmt(t['op replay'])}, kernel/op replay "
                        f"{t['compiled'] / t['op replay']:.2f}")
    if t_compile is not None:
        parts.append(f"torch.compile {_fmt(t_call)}/call after {_fmt(t_compile)} compiling")
    else:
        parts.append(str(t_call))
    _set_note(name, "; ".join(parts))


LINREG = "ember.compile: linear regression, 100 samples, 100 epochs"


@workload(LINREG)
def linreg_compiled(L):
    np, E = L["numpy"], L["ember"]
    x = data(L, 100, 1)
    noise = np.random.default_rng(1).standard_normal((100, 1)).astype("float32")
    y_np = 2 * x["numpy"] + 1 + 0.1 * noise
    y = {"numpy": y_np, "torch": L["torch"].tensor(y_np), "ember": E.tensor(y_np)}
    w0, b0 = data(L, 1, 1, seed=2), data(L, 1, seed=3)
    fns = {lib: (lambda xx, yy, ww, bb, m=L[lib]: _linreg(m, xx, yy, ww, bb, read_loss=False))
           for lib in ("ember", "torch")}
    args = {lib: (x[lib], y[lib], w0[lib], b0[lib]) for lib in ("ember", "torch")}
    fns["ember"](*args["ember"])  # warm (first allocations); the capture is then comparable

    def capture_once():
        c = E.compile(fns["ember"])
        return _first_call(lambda: c(*args["ember"]))
    capture = _capture_time(capture_once)
    compiled = E.compile(fns["ember"])
    compiled(*args["ember"])
    assert E.compile.explain(compiled).graph_count == 1, str(E.compile.explain(compiled))
    progs = {"ember": lambda: compiled(*args["ember"]),
             "torch": lambda: fns["torch"](*args["torch"]),
             "numpy": lambda: _linreg_numpy(np, x["numpy"], y_np, w0["numpy"], b0["numpy"])}
    t_compile, tc = _torch_compiled(L, fns["torch"], args["torch"])
    t_call = tc if t_compile is None else _per_call(lambda: tc(*args["torch"]), 5)
    _notes(LINREG, lambda: compiled(*args["ember"]), lambda: fns["ember"](*args["ember"]), capture,
           t_compile, t_call, _op_replay(E, fns["ember"], args["ember"]))
    return _checked(L, LINREG, progs)


MLP = "ember.compile: MLP 784-128-10 Adam step, batch 100"


@workload(MLP)
def mlp_step_compiled(L):
    np = L["numpy"]
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((100, 784)).astype("float32")
    ys = rng.integers(0, 10, (100,))

    def make(m):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(784, 128), m.nn.ReLU(), m.nn.Linear(128, 10))
        opt = m.optim.Adam(model.parameters(), lr=1e-3)
        xb, yb = m.from_numpy(xs), m.from_numpy(ys)
        F = m.nn.functional

        def step(xb, yb):
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss
        return step, (xb, yb)
    def capture_once():
        s, a = make(L["ember"])
        c = L["ember"].compile(s)
        c(*a)  # first step: the optimizer creates its state (recorded again next call)
        return _first_call(lambda: c(*a))
    capture = _capture_time(capture_once)
    (es, ea), (ts, ta) = make(L["ember"]), make(L["torch"])
    compiled = L["ember"].compile(es)
    compiled(*ea)
    compiled(*ea)
    assert L["ember"].compile.explain(compiled).graph_count == 1, str(L["ember"].compile.explain(compiled))
    e2, e2a = make(L["ember"])
    t2, t2a = make(L["torch"])
    t_compile, tc = _torch_compiled(L, t2, t2a)
    t_call = tc if t_compile is None else _per_call(lambda: tc(*t2a), 20)
    e3, e3a = make(L["ember"])
    _notes(MLP, lambda: compiled(*ea), lambda: e2(*e2a), capture, t_compile, t_call,
           _op_replay(L["ember"], e3, e3a, warm=3))
    return {"ember": lambda: compiled(*ea), "torch": lambda: ts(*ta),
            "numpy": Skip("no autograd")}


SINCOS = "ember.compile: (sin(x)**2 + cos(x)**2).sum(), 1M f32"


@workload(SINCOS)
def sincos_compiled(L):
    x = data(L, 1_000_000)
    E, T = L["ember"], L["torch"]

    def f(m, x):
        return (m.sin(x) ** 2 + m.cos(x) ** 2).sum()
    f(E, x["ember"])  # warm (first allocations); the capture is then comparable

    def capture_once():
        c = E.compile(lambda x: f(E, x))
        return _first_call(lambda: c(x["ember"]))
    capture = _capture_time(capture_once)
    compiled = E.compile(lambda x: f(E, x))
    compiled(x["ember"])
    assert E.compile.explain(compiled).ops_per_graph == [["fused[sin,pow,cos,pow,add,sum]"]]
    t_compile, tc = _torch_compiled(L, lambda x: f(T, x), (x["torch"],))
    t_call = tc if t_compile is None else _per_call(lambda: tc(x["torch"]), 10)
    _notes(SINCOS, lambda: compiled(x["ember"]), lambda: f(E, x["ember"]), capture, t_compile, t_call)
    return {"ember": lambda: compiled(x["ember"]), "torch": lambda: f(T, x["torch"]),
            "numpy": lambda: (L["numpy"].sin(x["numpy"]) ** 2
                              + L["numpy"].cos(x["numpy"]) ** 2).sum()}
