"""Timing utilities for bench/run.py: thread setup, a workload registry, interleaved timing.

Rules the numbers follow (so a ratio in the table means what it says):
- every library runs with the same thread count, set before NumPy/torch are imported
  (the BLAS libraries read their environment at load time) and again through each API;
- each callable is warmed up first (caches, allocator pools, BLAS buffers, lazy init);
- the libraries take turns within every repeat, and who goes first rotates, so a slow
  phase of the machine (another process, frequency change) hits all of them alike;
- a repeat times a loop long enough (>= `target` seconds) for the clock to be exact;
  the reported figure is the median over repeats of the time per call;
- with more than one thread, each timed loop starts after a pause (`PAUSE`) in which the
  previous library's idle workers stop spinning: NumPy's OpenBLAS threads busy-wait about
  2^28 cycles (~0.1 s) after every call, OpenMP pools spin too, and on 2 cores those idle
  spinners took the cores from whichever library ran next (the ember rows of least squares
  d=1000 came out 2x slower than ember alone).
"""
import os
import statistics
import time

LIBS = ("ember", "torch", "numpy")
# A workload may also time ember on a reference input under this key (the edge-range rows:
# the same op on randn); the table then shows ember's time over that one as "ember/own".
OWN = "ember@reference"

# Environment variables that decide which BLAS kernels and how many threads run; printed with
# every result because they change the sgemm row by 2x (e.g. a forced OPENBLAS_CORETYPE).
ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS", "OMP_PROC_BIND", "OMP_WAIT_POLICY")


PAUSE = 0.0  # seconds before each timed loop; set_thread_env makes it 0.2 s for n > 1


def set_thread_env(n):
    """Call before importing numpy/torch/ember: their BLAS pools size themselves at load."""
    global PAUSE
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    PAUSE = 0.2 if n > 1 else 0.0


def import_libs(n):
    """Import the three libraries and pin each to n threads through its own API.
    Returns (modules, a sentence saying how NumPy's BLAS was limited)."""
    import numpy
    import torch

    import ember
    torch.set_num_threads(n)
    ember.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(n)
        how = f"threadpoolctl.threadpool_limits({n})"
    except ImportError:
        how = f"OPENBLAS_NUM_THREADS={n} before import (threadpoolctl is not installed)"
    return {"ember": ember, "torch": torch, "numpy": numpy}, how


# ---------------------------------------------------------------- the workload registry

WORKLOADS = []


class Skip(Exception):
    """Raised by a workload (or returned as a value) when a library cannot run it."""


def workload(name, flops=None, note="", repeats=None, warm_calls=3, bytes=None):
    """Register `fn(libs) -> {lib: callable or Skip}` as a workload.
    flops: floating-point operations per call, to report GFLOP/s besides time.
    bytes: memory traffic per call (bytes read + written), to report GB/s besides time.
    repeats / warm_calls: for workloads whose one call takes seconds (a training epoch):
    at most `repeats` timed calls per library, after `warm_calls` untimed ones."""
    def register(fn):
        WORKLOADS.append({"name": name, "make": fn, "flops": flops, "bytes": bytes,
                          "note": note, "repeats": repeats, "warm_calls": warm_calls})
        return fn
    return register


def data(L, *shape, dtype="float32", seed=0):
    """The same random values as an ember tensor, a torch tensor and a NumPy array, each
    allocated by its own library (so each gets its own allocator's alignment)."""
    np = L["numpy"]
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return {"numpy": a, "torch": L["torch"].tensor(a), "ember": L["ember"].tensor(a)}


def same_op(L, fn, *inputs):
    """{lib: callable} running fn(module, *inputs_of_that_lib), e.g. fn = lambda m, x: m.exp(x)."""
    return {lib: (lambda m=L[lib], args=tuple(x[lib] for x in inputs): fn(m, *args))
            for lib in LIBS}


# ---------------------------------------------------------------- timing


def _loop(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return time.perf_counter() - t0


def calibrate(fn, target):
    """How many calls make one repeat last at least `target` seconds."""
    number = 1
    while True:
        t = _loop(fn, number)
        if t >= target or number >= 1 << 24:
            return number
        number = max(number * 2, int(number * target / max(t, 1e-9) * 1.2))


def measure(callables, repeats=11, warmup=0.05, target=0.05, warm_calls=3):
    """Median seconds per call for each {lib: callable}, timed interleaved.

    Warm-up runs each callable `warm_calls` times, then for about `warmup` seconds."""
    names = list(callables)
    numbers = {}
    for lib in names:
        fn = callables[lib]
        for _ in range(warm_calls):
            fn()
        end = time.perf_counter() + warmup
        while time.perf_counter() < end:
            fn()
        numbers[lib] = calibrate(fn, target)
    samples = {lib: [] for lib in names}
    for r in range(repeats):
        k = r % len(names)
        for lib in names[k:] + names[:k]:  # rotate who goes first
            if PAUSE:
                time.sleep(PAUSE)  # let the previous library's idle threads stop spinning
            samples[lib].append(_loop(callables[lib], numbers[lib]) / numbers[lib])
    return {lib: statistics.median(s) for lib, s in samples.items()}


# ---------------------------------------------------------------- formatting


def fmt_time(seconds):
    us = seconds * 1e6
    if us < 10:
        return f"{us:.3f} us"
    if us < 10_000:
        return f"{us:.1f} us"
    return f"{us / 1000:.2f} ms"


def fmt_cell(seconds, flops=None, nbytes=None):
    if seconds is None:
        return "-"
    if flops:
        return f"{fmt_time(seconds)} ({flops / seconds / 1e9:.0f} GF/s)"
    if nbytes:
        return f"{fmt_time(seconds)} ({nbytes / seconds / 1e9:.1f} GB/s)"
    return fmt_time(seconds)


def table(rows, libs=LIBS):
    """Plain-text table: time per call of each library, then ember's time over each peer's."""
    peers = [p for p in libs if p != "ember"]
    own = any(r["ratios"].get("own") for r in rows)
    head = ["workload"] + list(libs) + [f"ember/{p}" for p in peers] + (["ember/own"] if own else [])
    body = []
    for r in rows:
        cells = [r["name"]] + [fmt_cell(r["times"].get(lib), r["flops"], r.get("bytes"))
                               for lib in libs]
        cells += [f"{r['ratios'][p]:.2f}" if r["ratios"].get(p) else "-"
                  for p in peers + (["own"] if own else [])]
        body.append(cells)
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    line = lambda cells: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    out = [line(head), "  ".join("-" * w for w in widths)] + [line(c) for c in body]
    notes = [f"  {r['name']}: {r['note']}" for r in rows if r.get("note")]
    return "\n".join(out + (["notes:"] + notes if notes else []))


def chart(rows, path, threads, libs=LIBS):
    """Bar chart of ember's time over each peer's (log scale; below 1 = ember faster)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    peers = [p for p in libs if p != "ember"]
    rows = [r for r in rows if any(r["ratios"].get(p) for p in peers)]
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.6))
    h = 0.8 / len(peers)
    for i, p in enumerate(peers):
        ys = [j + (i - (len(peers) - 1) / 2) * h for j in range(len(rows))]
        vals = [r["ratios"].get(p) or 0 for r in rows]
        bars = ax.barh(ys, vals, height=h, label=f"ember / {p}")
        for b, v in zip(bars, vals):
            if v:
                ax.text(v, b.get_y() + b.get_height() / 2, f" {v:.2f}", va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["name"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("ember time / peer time (log scale; < 1 means ember is faster)")
    ax.legend(loc="best")
    ax.set_title(f"ember vs PyTorch and NumPy, {threads} thread(s) each, median of interleaved "
                 "repeats", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
