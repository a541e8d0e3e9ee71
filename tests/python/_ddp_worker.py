"""One rank of a DistributedDataParallel test (run by test_ddp.py as a subprocess):

    python _ddp_worker.py MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS]

Writes a NumPy .npz of what the test compares to OUT_FILE. The data are the same on every
rank (NumPy seed 0); rank r takes rows r*B .. (r+1)*B-1 of each global batch.
"""
import json
import os
import sys

import numpy as np

import ember
import ember.distributed as dist
from ember import nn

B = 4          # rows per rank and step
D_IN, D_HID, D_OUT = 5, 7, 3


class Net(nn.Module):
    """A small MLP plus an unused-by-default extra layer and a buffer."""

    def __init__(self, with_extra=False):
        super().__init__()
        self.fc1 = nn.Linear(D_IN, D_HID)
        self.fc2 = nn.Linear(D_HID, D_OUT)
        if with_extra:
            self.extra = nn.Linear(D_IN, D_OUT)
        self.register_buffer("stat", ember.zeros(3, dtype=ember.float64))

    def forward(self, x, use_extra=False):
        y = self.fc2(ember.relu(self.fc1(x)))
        return y + self.extra(x) if use_extra else y


def global_batches(world, steps):
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((world * B, D_IN)), rng.standard_normal((world * B, D_OUT)))
            for _ in range(steps)]


def local(a, rank):
    return ember.from_numpy(np.ascontiguousarray(a[rank * B:(rank + 1) * B]))


def params(model):
    return {n: p.detach().numpy().copy() for n, p in model.named_parameters()}


def start():
    """Parses MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS] and joins the group; returns
    (mode, rank, world, out, opts). Shared with _ddp_hooks_worker.py."""
    mode, rank, world, rdzv, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    opts = json.loads(sys.argv[6]) if len(sys.argv) > 6 else {}
    ember.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + rdzv, rank=rank, world_size=world,
                            timeout=float(opts.get("pg_timeout", 20)))
    return mode, rank, world, out, opts


def main():
    mode, rank, world, out, opts = start()
    ember.manual_seed(100 + rank)  # different initial weights on every rank
    model = Net(with_extra=opts.get("extra", False)).double()
    model.stat.fill_(float(rank + 1))
    ddp = nn.parallel.DistributedDataParallel(
        model, bucket_cap_mb=opts.get("bucket_cap_mb"), find_unused_parameters=opts.get("unused", False),
        gradient_as_bucket_view=opts.get("as_view", False))
    res = {"n_buckets": np.array(len(ddp._buckets)), "stat": model.stat.numpy().copy(),
           "keys": np.array(list(ddp.state_dict()))}
    res.update({"init." + k: v for k, v in params(model).items()})
    loss_fn = nn.MSELoss()
    if mode == "train":
        opt = ember.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
        for step, (x, y) in enumerate(global_batches(world, opts.get("steps", 2))):
            opt.zero_grad()
            loss_fn(ddp(local(x, rank)), local(y, rank)).backward()
            opt.step()
        res.update({"final." + k: v for k, v in params(model).items()})
    elif mode == "no_sync":
        (xa, ya), (xb, yb) = global_batches(world, 2)
        with ddp.no_sync():
            loss_fn(ddp(local(xa, rank)), local(ya, rank)).backward()
        res.update({"local." + n: p.grad.numpy().copy() for n, p in model.named_parameters()})
        loss_fn(ddp(local(xb, rank)), local(yb, rank)).backward()
        res.update({"synced." + n: p.grad.numpy().copy() for n, p in model.named_parameters()})
    elif mode == "unused":
        # rank 0 leaves `extra` out of its loss; the others use it
        x, y = global_batches(world, 1)[0]
        try:
            loss_fn(ddp(local(x, rank), use_extra=rank != 0), local(y, rank)).backward()
            res.update({"grad." + n: (p.grad.numpy().copy() if p.grad is not None else np.array(np.nan))
                        for n, p in model.named_parameters()})
        except RuntimeError as e:
            res["error"] = np.array(str(e))
    elif mode == "killed":
        # train until rank `victim` kills itself at step 3; the others must raise
        opt = ember.optim.SGD(ddp.parameters(), lr=0.01)
        x, y = global_batches(world, 1)[0]
        try:
            for step in range(1000):
                if rank == opts["victim"] and step == 3:
                    os.kill(os.getpid(), 9)
                opt.zero_grad()
                loss_fn(ddp(local(x, rank)), local(y, rank)).backward()
                opt.step()
            res["error"] = np.array("no error")
        except RuntimeError as e:
            res["error"] = np.array(str(e))
            np.savez(out, **res)
            os._exit(3)  # the group is broken: do not wait for peers at exit
    np.savez(out, **res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
