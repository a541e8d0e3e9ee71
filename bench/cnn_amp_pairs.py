"""Issue 15's CNN row as alternating pairs: full Fashion-MNIST epochs of the CNN in float32 and
under autocast(bfloat16), alternating in one process (the order flips every pair), ember on one
thread, the same epoch as workloads_nn.py's `_epoch` (Adam, batch 64, shuffled batches, one
short untimed pass first). Prints each epoch's thread CPU time, wall time and load average, and
the medians of the per-pair bf16 / float32 ratios. Run with your build on PYTHONPATH:

    OMP_NUM_THREADS=1 python bench/cnn_amp_pairs.py [label] [pairs=4]
"""
import json
import os
import sys
import time

import numpy as np

import ember
from ember.examples import fashion_mnist as fm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads_nn import _batches  # noqa: E402


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "ember"
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    ember.set_num_threads(1)
    x, y = fm.load_data(ember)[0]
    runs = {}
    for amp in (None, "bf16"):
        ember.manual_seed(0)
        model = fm.build_model(ember, "cnn")
        opt = ember.optim.Adam(model.parameters(), lr=1e-3)
        fm.train_epoch(ember, model, opt, _batches(ember, x[:2000], y[:2000], 64), amp=amp)
        runs[amp] = (model, opt)
    res = {"f32": [], "bf16": []}
    for p in range(pairs):
        for amp in ((None, "bf16") if p % 2 == 0 else ("bf16", None)):
            model, opt = runs[amp]
            load = os.getloadavg()[0]
            c0, w0 = time.thread_time(), time.perf_counter()
            fm.train_epoch(ember, model, opt, _batches(ember, x, y, 64), amp=amp)
            res["f32" if amp is None else "bf16"].append(
                (time.thread_time() - c0, time.perf_counter() - w0, load))
    cpu = [b[0] / f[0] for f, b in zip(res["f32"], res["bf16"])]
    wall = [b[1] / f[1] for f, b in zip(res["f32"], res["bf16"])]
    print(label, json.dumps(res))
    print(f"{label}: bf16 / f32 CPU time {[round(r, 3) for r in cpu]} median {np.median(cpu):.3f}"
          f" | wall {[round(r, 3) for r in wall]} median {np.median(wall):.3f}"
          f" | f32 CPU {np.median([r[0] for r in res['f32']]):.2f} s,"
          f" bf16 CPU {np.median([r[0] for r in res['bf16']]):.2f} s"
          f" | load {[round(r[2], 2) for r in res['f32'] + res['bf16']]}")


if __name__ == "__main__":
    main()
