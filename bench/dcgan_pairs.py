"""Issue 17's DCGAN row as paired ratios that survive a loaded machine: ember before
(EMBER_CONV_FOLD=0, the convolution routes without the batch-folded path), ember after (the
policy) and torch, each timing `steps` training steps of workloads_training.py's DCGAN per
repeat in one process, the order rotating; prints each repeat and the medians of the per-repeat
ember/torch ratios. EMBER_CONV_FOLD is read at every convolution, so one process runs both
routes (each on its own copy of the nets). Run with your build on PYTHONPATH:

    python bench/dcgan_pairs.py [repeats=9] [steps=2]
"""
import os
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads_training  # noqa: E402


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    libs = {"ember": ember, "torch": torch, "numpy": np}
    after, before = workloads_training.dcgan_step(libs), workloads_training.dcgan_step(libs)
    step = {"before": before["ember"], "after": after["ember"], "torch": after["torch"]}

    def timed(name):
        if name == "before":
            os.environ["EMBER_CONV_FOLD"] = "0"
        else:
            os.environ.pop("EMBER_CONV_FOLD", None)
        t0 = time.perf_counter()
        for _ in range(steps):
            step[name]()
        return (time.perf_counter() - t0) / steps

    names = list(step)
    for name in names:  # warm: primitives built, caches filled
        timed(name)
    ratios = {"before": [], "after": []}
    for r in range(repeats):
        order = names[r % 3:] + names[:r % 3]
        t = {name: timed(name) for name in (order[::-1] if r % 2 else order)}
        for name in ratios:
            ratios[name].append(t[name] / t["torch"])
        print(f"repeat {r}: " + ", ".join(f"{n} {t[n] * 1e3:.0f} ms" for n in names) +
              f"; ember/torch before {ratios['before'][-1]:.3f} after {ratios['after'][-1]:.3f}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"median ember/torch: before {statistics.median(ratios['before']):.3f}, "
          f"after {statistics.median(ratios['after']):.3f}")


if __name__ == "__main__":
    main()
