"""Workloads of ember.distributed (issue 7; imported by run.py to register them).

Each row runs in worker processes (bench/_dist_worker.py) that stay alive between calls, so
a call times the work, not process start-up or rendezvous: the harness sends a command to
every rank of a group and waits for all of them to answer. ember's peer is torch.distributed
on the same Gloo library, with the same ranks, data and model.

- Fashion-MNIST MLP epoch with 1 process (no DDP) and with 2 processes (DDP, batch 32 per
  rank, so the global batch stays 64); every process uses 1 thread, so 2 processes use 2
  cores. Samples/s = 60000 / the time shown.
- all_reduce (SUM, float32) of 1, 10 and 100 MB between 2 processes; GB/s is the size over
  the time of one all_reduce (what nccl-tests calls algorithm bandwidth).
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

from common import Skip, workload

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_dist_worker.py")
_GROUPS = {}  # (lib, world) -> Group


class Group:
    """`world` worker processes of one library, joined in one process group."""

    def __init__(self, lib, world):
        self.dir = tempfile.mkdtemp(prefix="ember-bench-dist-")
        rdzv = os.path.join(self.dir, "store") if lib == "torch" else self.dir
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        import ember
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
        env["PYTHONPATH"] = os.pathsep.join([pkg] + [p for p in [env.get("PYTHONPATH")] if p])
        self.procs = [subprocess.Popen([sys.executable, WORKER, lib, str(r), str(world), rdzv, "1"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
                      for r in range(world)]

    def __call__(self, command):
        for p in self.procs:
            p.stdin.write(command + "\n")
            p.stdin.flush()
        for p in self.procs:
            reply = p.stdout.readline()
            if reply.strip() != "ok":
                raise RuntimeError(f"bench worker failed on {command!r} (exit code {p.poll()})")

    def close(self):
        for p in self.procs:
            try:
                p.stdin.write("quit\n")
                p.stdin.close()
            except OSError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def _group(lib, world):
    if (lib, world) not in _GROUPS:
        _GROUPS[(lib, world)] = Group(lib, world)
    return _GROUPS[(lib, world)]


@atexit.register
def _close_all():
    for g in _GROUPS.values():
        g.close()
    _GROUPS.clear()


def _both(command, world):
    out = {}
    for lib in ("ember", "torch"):
        g = _group(lib, world)
        g("allreduce 4 1")  # joined and answering
        out[lib] = lambda g=g: g(command)
    out["numpy"] = Skip("no collectives")
    return out


def _epoch(world):
    if not os.path.isdir("/usr/share/datasets/fashion-mnist"):
        return {lib: Skip("dataset-fashion-mnist is not installed") for lib in ("ember", "torch", "numpy")}
    out = _both("epoch", world)
    out["numpy"] = Skip("no autograd")
    return out


@workload("DDP Fashion-MNIST MLP epoch, 1 process", repeats=3, warm_calls=1,
          note="no DDP (the baseline), 1 thread, batch 64; samples/s = 60000 / time")
def ddp_epoch_1(L):
    return _epoch(1)


@workload("DDP Fashion-MNIST MLP epoch, 2 processes", repeats=3, warm_calls=1,
          note="DistributedDataParallel, 1 thread each, batch 32 per rank; samples/s = 60000 / time")
def ddp_epoch_2(L):
    return _epoch(2)


def _allreduce(mb):
    return lambda L: _both(f"allreduce {mb * 1024 * 1024} 1", 2)


for _mb in (1, 10, 100):
    workload(f"all_reduce {_mb} MB f32, 2 processes", bytes=_mb * 1024 * 1024,
             repeats=5 if _mb == 100 else None,
             warm_calls=1, note="Gloo over loopback; a call includes ~0.1 ms of pipe round trip to the "
             "workers; GB/s = size / time")(_allreduce(_mb))
