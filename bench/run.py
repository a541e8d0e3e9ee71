"""ember vs PyTorch vs NumPy, side by side in one run: `make bench`, or
    python bench/run.py [--quick] [--only NAME] [--threads N] [--alone [ROUNDS]]
Prints one table (time per call, ember's time over each peer's) and writes
bench/results.json and bench/results.png.

Adding a workload: a function decorated with @workload(name) that builds its inputs and
returns {library: callable}; a library that can't run it maps to Skip("why").
"""
import argparse
import json
import os
import platform
import statistics
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


def _settings(w, repeats, warmup, target):
    """Long workloads (a training epoch) set their own, smaller repeat count."""
    if w["repeats"]:
        return min(repeats, w["repeats"]), 0.0, 0.0
    return repeats, warmup, target


def _row(w, times, skipped, own_note=None):
    ratios = {p: times["ember"] / times[p] for p in LIBS
              if p != "ember" and "ember" in times and p in times}
    if OWN in times and "ember" in times:  # ember's time over its own on the reference input
        ratios["own"] = times["ember"] / times[OWN]
    notes = [w["note"]] if w["note"] else []
    if own_note:
        notes.append(own_note)
    if "ember" in skipped:
        notes.append(f"skipped: {skipped['ember']}")
    return {"name": w["name"], "times": times, "ratios": ratios, "flops": w["flops"],
            "bytes": w["bytes"], "skipped": skipped, "note": "; ".join(notes)}


def run_one(w, L, repeats, warmup, target):
    made = w["make"](L)
    skipped = {lib: str(fn) for lib, fn in made.items() if isinstance(fn, Skip)}
    runnable = {lib: fn for lib, fn in made.items() if not isinstance(fn, Skip)}
    repeats, warmup, target = _settings(w, repeats, warmup, target)
    times = measure(runnable, repeats=repeats, warmup=warmup, target=target,
                    warm_calls=w["warm_calls"]) if runnable else {}
    return _row(w, times, skipped)


# ------------------------------------------- --alone: each library in a process of its own


def child(index, lib, threads, repeats, warmup, target):
    """`run.py --child INDEX LIB`: time one library on workload INDEX in this process and print
    {"time": seconds} or {"skip": why} as the last line. The other libraries are imported (the
    workload builds their inputs too) but never run in the timed loop."""
    set_thread_env(threads)
    L, _ = import_libs(threads)
    w = WORKLOADS[index]
    fn = w["make"](L).get(lib, Skip("no such library"))
    if isinstance(fn, Skip):
        print(json.dumps({"skip": str(fn)}))
        return 0
    repeats, warmup, target = _settings(w, repeats, warmup, target)
    time.sleep(0.2)  # the setup may have run a peer's pool (a loss check): let it stop spinning
    t = measure({lib: fn}, repeats=repeats, warmup=warmup, target=target,
                warm_calls=w["warm_calls"])[lib]
    print(json.dumps({"time": t}))
    return 0


def run_alone(w, threads, rounds, quick):
    """Time each library in a fresh process of its own, `rounds` times, rotating which library
    goes first; the figure is the median over rounds of each process's median. With threads > 1
    ember also runs at one thread (in the `ember/own` column: its time at `threads` over its
    time at one; 0.59 is a 1.7x speed-up). Each process then holds only one busy pool, which the
    in-process table cannot give (docs/performance.md: the 2-thread noise of in-process pools)."""
    runs = [(lib, threads) for lib in LIBS] + [(OWN, 1)]  # at one thread: the workload's own OWN
    samples, skipped = {}, {}
    for r in range(rounds):
        k = r % len(runs)
        for key, n in runs[k:] + runs[:k]:
            if key in skipped:
                continue
            lib = "ember" if key == OWN and threads > 1 else key
            cmd = [sys.executable, os.path.abspath(__file__), "--child", str(WORKLOADS.index(w)),
                   lib, "--threads", str(n)] + (["--quick"] if quick else [])
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                raise RuntimeError(f"{w['name']} ({lib}, {n} threads) failed:\n{out.stderr}")
            res = json.loads(out.stdout.strip().splitlines()[-1])
            if "skip" in res:
                skipped[key] = res["skip"]
            else:
                samples.setdefault(key, []).append(res["time"])
    times = {key: statistics.median(s) for key, s in samples.items()}
    skipped.pop(OWN, None)
    own = "ember/own: ember at this thread count over ember at one thread" if threads > 1 else None
    row = _row(w, times, skipped, own)
    row["rounds"] = samples  # each process's median, in round order (results.json)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="run workloads whose name contains NAME (repeatable)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for every library (default 1; `make bench` adds a run on "
                         "all cores for the big-work rows)")
    ap.add_argument("--alone", type=int, nargs="?", const=3, metavar="ROUNDS",
                    help="time each library in a process of its own, ROUNDS times (default 3)")
    ap.add_argument("--child", nargs=2, metavar=("INDEX", "LIB"), help=argparse.SUPPRESS)
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--png", default=os.path.join(HERE, "results.png"))
    a = ap.parse_args()
    repeats, warmup, target = (3, 0.02, 0.02) if a.quick else (11, 0.2, 0.05)
    if a.child:
        return child(int(a.child[0]), a.child[1], a.threads, repeats, warmup, target)
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
          f"numpy {L['numpy'].__version__}; " + (
              f"each library alone in its process, {a.alone} rounds, median\n" if a.alone else
              f"{repeats} interleaved repeats, median\n"))

    t0 = time.monotonic()
    rows = []
    for w in chosen:
        rows.append(run_alone(w, a.threads, a.alone, a.quick) if a.alone
                    else run_one(w, L, repeats, warmup, target))
        print(f"  ran {w['name']}", file=sys.stderr, flush=True)
    print(table(rows))
    print(f"\n({time.monotonic() - t0:.0f} s)")

    with open(a.json, "w") as f:
        json.dump({"machine": info, "threads": a.threads, "numpy_threads": how, "alone": a.alone,
                   "quick": a.quick, "versions": {lib: L[lib].__version__ for lib in LIBS},
                   "rows": rows}, f, indent=1)
    try:
        chart(rows, a.png, a.threads)
    except ImportError as e:
        print(f"no chart ({e})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
