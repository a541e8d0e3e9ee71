"""ember vs PyTorch vs NumPy, side by side in one run: `make bench`, or
    python bench/run.py [--quick] [--only NAME] [--threads N]
Prints one table (time per call, ember's time over each peer's) and writes
bench/results.json and bench/results.png.

Adding a workload: a function decorated with @workload(name) that builds its inputs and
returns {library: callable}; a library that can't run it maps to Skip("why").
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (ENV_VARS, LIBS, OWN, WORKLOADS, Skip, chart, data, import_libs, measure,  # noqa: E402
                    same_op, set_thread_env, table, workload)
import workloads_nn  # noqa: E402,F401  (registers the nn and training workloads)
import workloads_programs  # noqa: E402,F401  (registers the whole-program workloads)
import workloads_dist  # noqa: E402,F401  (registers the distributed workloads)
import workloads_linalg  # noqa: E402,F401  (registers the linalg workloads)
import workloads_fft  # noqa: E402,F401  (registers the fft workloads)
import workloads_cpp_extension  # noqa: E402,F401  (registers the C++ extension workloads)
import workloads_half  # noqa: E402,F401  (registers the bfloat16/float16 workloads)
import workloads_edge  # noqa: E402,F401  (registers the special-value elementwise workloads)
import workloads_training  # noqa: E402,F401  (registers the transformer/RNN/GAN training steps)
import workloads_compile  # noqa: E402,F401  (registers the ember.compile workloads)
import workloads_threads  # noqa: E402,F401  (registers the Python-threads workload)

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- workloads


@workload("tensor -> numpy, 1000x1000 f32", note="t.numpy() per call; a view, no copy")
def to_numpy_small(L):
    x = data(L, 1000, 1000)
    return {"ember": x["ember"].numpy, "torch": x["torch"].numpy, "numpy": Skip("is the target")}


@workload("tensor -> numpy, 10M f32", note="same time as 1000x1000 means no copy")
def to_numpy_big(L):
    x = data(L, 10_000_000)
    return {"ember": x["ember"].numpy, "torch": x["torch"].numpy, "numpy": Skip("is the target")}


@workload("a + b, 10 elements", note="per-op overhead (includes ~40 ns of harness call)")
def add_tiny(L):
    return same_op(L, lambda m, a, b: a + b, data(L, 10), data(L, 10, seed=1))


@workload("sin(x) ** 2, 1M f32")
def sin_square(L):
    return same_op(L, lambda m, x: m.sin(x) ** 2, data(L, 1_000_000))


@workload("add, 1M f32")
def add_big(L):
    return same_op(L, lambda m, a, b: a + b, data(L, 1_000_000), data(L, 1_000_000, seed=1))


@workload("exp, 1M f32")
def exp_big(L):
    return same_op(L, lambda m, x: m.exp(x), data(L, 1_000_000))


@workload("sgemm 2048x2048", flops=2 * 2048**3)
def sgemm(L):
    a, b = data(L, 2048, 2048), data(L, 2048, 2048, seed=1)
    out = same_op(L, lambda m, x, y: m.matmul(x, y), a, b)
    if not hasattr(L["ember"], "matmul"):
        out["ember"] = Skip("ember.matmul is not implemented yet")
    return out


# ---------------------------------------------------------------- the harness


def machine_info():
    model = platform.processor() or "?"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(),
            "env": {v: os.environ.get(v) for v in ENV_VARS}}


def run_one(w, L, repeats, warmup, target):
    made = w["make"](L)
    skipped = {lib: str(fn) for lib, fn in made.items() if isinstance(fn, Skip)}
    runnable = {lib: fn for lib, fn in made.items() if not isinstance(fn, Skip)}
    if w["repeats"]:  # long workloads (a training epoch) set their own, smaller count
        repeats, warmup, target = min(repeats, w["repeats"]), 0.0, 0.0
    times = measure(runnable, repeats=repeats, warmup=warmup, target=target,
                    warm_calls=w["warm_calls"]) if runnable else {}
    ratios = {p: times["ember"] / times[p] for p in LIBS
              if p != "ember" and "ember" in times and p in times}
    if OWN in times and "ember" in times:  # ember's time over its own on the reference input
        ratios["own"] = times["ember"] / times[OWN]
    notes = [w["note"]] if w["note"] else []
    if "ember" in skipped:
        notes.append(f"skipped: {skipped['ember']}")
    return {"name": w["name"], "times": times, "ratios": ratios, "flops": w["flops"],
            "bytes": w["bytes"], "skipped": skipped, "note": "; ".join(notes)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="run workloads whose name contains NAME (repeatable)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for every library (default 1; `make bench` adds a run on "
                         "all cores for the big-work rows)")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--png", default=os.path.join(HERE, "results.png"))
    a = ap.parse_args()
    if a.list:
        print("\n".join(w["name"] for w in WORKLOADS))
        return 0
    chosen = [w for w in WORKLOADS
              if not a.only or any(o.lower() in w["name"].lower() for o in a.only)]
    if not chosen:
        print(f"no workload matches {a.only}; try --list", file=sys.stderr)
        return 2

    set_thread_env(a.threads)  # before the imports: the BLAS pools size themselves at load
    L, how = import_libs(a.threads)
    info = machine_info()
    repeats, warmup, target = (3, 0.02, 0.02) if a.quick else (11, 0.2, 0.05)
    print(f"machine: {info['cpu']}, {info['cores']} cores; threads: {a.threads} for every "
          f"library (NumPy's BLAS: {how})")
    for v in ENV_VARS:
        print(f"  {v}={info['env'][v] if info['env'][v] is not None else '(unset)'}")
    load = os.getloadavg()[0]
    print(f"load average at start: {load:.1f}" + (
        f"  WARNING: more than {info['cores']} runnable processes; multi-threaded rows are "
        "unreliable (OpenMP threads wait on descheduled peers)" if load > info["cores"] else ""))
    info["loadavg"] = load
    print(f"versions: ember {L['ember'].__version__}, torch {L['torch'].__version__}, "
          f"numpy {L['numpy'].__version__}; {repeats} interleaved repeats, median\n")

    t0 = time.monotonic()
    rows = []
    for w in chosen:
        rows.append(run_one(w, L, repeats, warmup, target))
        print(f"  ran {w['name']}", file=sys.stderr, flush=True)
    print(table(rows))
    print(f"\n({time.monotonic() - t0:.0f} s)")

    with open(a.json, "w") as f:
        json.dump({"machine": info, "threads": a.threads, "numpy_threads": how,
                   "quick": a.quick, "versions": {lib: L[lib].__version__ for lib in LIBS},
                   "rows": rows}, f, indent=1)
    try:
        chart(rows, a.png, a.threads)
    except ImportError as e:
        print(f"no chart ({e})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
