"""One rank of a test_ddp_hooks.py test (a subprocess): Work.get_future, DDP comm hooks,
static_graph and join() with uneven inputs.

    python _ddp_hooks_worker.py MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS]

The model is one Linear layer, loss = ((model(x) - y) ** 2).sum() / 2, so that the test can
redo every step in NumPy: rank r's gradient is (e^T x, sum of e) with e = x W^T + b - y.
Writes what the test compares to OUT_FILE (.npz)."""
import numpy as np

import ember
import ember.distributed as dist
from ember import nn
from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
from ember.futures import Future

import _ddp_worker  # its start(): arguments and rendezvous

B, D_IN, D_OUT = 3, 4, 2
DTYPES = {"float32": ember.float32, "float64": ember.float64}


def batch(rank, step, b=B):
    """Rank `rank`'s batch `step` (the test regenerates it with the same seed)."""
    rng = np.random.default_rng(1000 * step + rank)
    return rng.standard_normal((b, D_IN)), rng.standard_normal((b, D_OUT))


def loss_of(model, x, y, dtype):
    out = model(ember.from_numpy(x).to(dtype))
    return ((out - ember.from_numpy(y).to(dtype)) ** 2).sum() / 2


def params(model):
    return {n: p.detach().numpy().copy() for n, p in model.named_parameters()}


def counting_sum_hook(state, bucket):
    """A custom hook: the SUM over the ranks (no division), recording the GradBucket API."""
    state["calls"] += 1
    state["index"].append(bucket.index())
    state["is_last"].append(bucket.is_last())
    state["grads_are_views"] = all(g.numel() == p.numel() for g, p in zip(bucket.gradients(), bucket.parameters()))
    state["numel"] = bucket.buffer().numel()
    fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
    return fut.then(lambda f: f.value()[0])


HOOKS = {"allreduce": default_hooks.allreduce_hook, "fp16": default_hooks.fp16_compress_hook,
         "bf16": default_hooks.bf16_compress_hook,
         "fp16_wrap": default_hooks.fp16_compress_wrapper(default_hooks.allreduce_hook),
         "bf16_wrap": default_hooks.bf16_compress_wrapper(default_hooks.allreduce_hook)}


def futures(rank, world, res):
    t = ember.arange(4, dtype=ember.float64) * (rank + 1)
    work = dist.all_reduce(t, async_op=True)
    fut = work.get_future()
    doubled = fut.then(lambda f: f.value()[0] * 2)
    res["value"] = fut.wait()[0].numpy().copy()
    res["doubled"] = doubled.wait().numpy().copy()
    res["same_tensor"] = np.array(fut.value()[0]._is_same(t))
    res["result"] = work.result()[0].numpy().copy()
    outs = [ember.zeros(2, dtype=ember.int64) for _ in range(world)]
    gathered = dist.all_gather(outs, ember.full((2,), rank, dtype=ember.int64), async_op=True).get_future()
    res["gathered"] = np.stack([o.numpy() for o in gathered.wait()])
    b = ember.full((3,), float(rank + 7))
    res["bcast"] = dist.broadcast(b, 1, async_op=True).get_future().wait()[0].numpy().copy()
    res["barrier"] = np.array(len(dist.barrier(async_op=True).get_future().wait()))
    for name, dt in (("f16", ember.float16), ("bf16", ember.bfloat16)):
        h = ember.tensor([0.1, 1.7, -3.3, 1000.0]).to(dt) * (rank + 1)
        dist.all_reduce(h)
        res["sum_" + name] = h.float().numpy().copy()
        h = ember.tensor([0.1, 1.7, -3.3, 1000.0]).to(dt) * (rank + 1)
        dist.all_reduce(h, op=dist.ReduceOp.AVG)
        res["avg_" + name] = h.float().numpy().copy()


def make_ddp(rank, opts, **kw):
    ember.manual_seed(100 + rank)  # different weights on every rank: DDP copies rank 0's
    model = nn.Linear(D_IN, D_OUT).to(DTYPES[opts.get("dtype", "float64")])
    if opts.get("extra"):
        model = _WithExtra(model)
    return model, nn.parallel.DistributedDataParallel(model, **kw)


class _WithExtra(nn.Module):
    """The Linear plus a layer that the loss never uses."""

    def __init__(self, lin):
        super().__init__()
        self.lin = lin
        self.extra = nn.Linear(D_IN, D_OUT).to(lin.weight.dtype)

    def forward(self, x):
        return self.lin(x)


def hook(rank, world, opts, res):
    dtype = DTYPES[opts.get("dtype", "float64")]
    model, ddp = make_ddp(rank, opts)
    state = {"calls": 0, "index": [], "is_last": []}
    name = opts["hook"]
    if name == "custom":
        ddp.register_comm_hook(state, counting_sum_hook)
    elif name != "none":
        ddp.register_comm_hook(None, HOOKS[name])
    res.update({"init." + k: v for k, v in params(model).items()})
    x, y = batch(rank, 0)
    loss_of(ddp, x, y, dtype).backward()
    res.update({"grad." + n: p.grad.numpy().copy() for n, p in model.named_parameters()})
    with ddp.no_sync():  # this rank's own gradient, as ember computes it
        for p in model.parameters():
            p.grad = None
        loss_of(ddp, x, y, dtype).backward()
    res.update({"local." + n: p.grad.numpy().copy() for n, p in model.named_parameters()})
    if name == "custom":
        res.update(calls=np.array(state["calls"]), index=np.array(state["index"]),
                   is_last=np.array(state["is_last"]), views=np.array(state["grads_are_views"]),
                   numel=np.array(state["numel"]))


def train(ddp, model, rank, steps, opts, res, prefix):
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        x, y = batch(rank, step)
        opt.zero_grad()
        loss_of(ddp, x, y, ember.float64).backward()
        opt.step()
    res.update({prefix + k: v for k, v in params(model).items()})


def static(rank, world, opts, res):
    for tag, kw, extra in (("plain", {}, False), ("static", {"static_graph": True}, False),
                           ("unused", {"find_unused_parameters": True}, True),
                           ("static_unused", {"static_graph": True}, True)):
        model, ddp = make_ddp(rank, dict(opts, extra=extra), **kw)
        train(ddp, model, rank, 3, opts, res, tag + ".")
        if extra:
            res[tag + ".extra_grad_none"] = np.array(model.extra.weight.grad is None)


def join(rank, world, opts, res):
    model, ddp = make_ddp(rank, opts)
    if opts.get("hook"):
        ddp.register_comm_hook(None, HOOKS[opts["hook"]])
    res.update({"init." + k: v for k, v in params(model).items()})
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    n_batches = opts["batches"][rank]
    try:
        with ddp.join(divide_by_initial_world_size=opts.get("divide_initial", True),
                      throw_on_early_termination=opts.get("throw", False)):
            for step in range(n_batches):
                x, y = batch(rank, step)
                opt.zero_grad()
                loss_of(ddp, x, y, ember.float64).backward()
                opt.step()
    except RuntimeError as e:
        res["error"] = np.array(str(e))
    res.update({"final." + k: v for k, v in params(model).items()})


def errors(rank, world, opts, res):
    model, ddp = make_ddp(rank, opts)
    caught = {}
    try:
        ddp.register_comm_hook(None, 3)
    except TypeError as e:
        caught["not_callable"] = str(e)
    ddp.register_comm_hook(None, lambda state, bucket: bucket.buffer())  # not a Future
    try:
        ddp.register_comm_hook(None, default_hooks.allreduce_hook)
    except RuntimeError as e:
        caught["twice"] = str(e)
    x, y = batch(rank, 0)
    try:
        loss_of(ddp, x, y, ember.float64).backward()
    except RuntimeError as e:
        caught["not_future"] = str(e)

    def annotated(state, bucket: int) -> Future:
        return None
    try:
        make_ddp(rank, opts)[1].register_comm_hook(None, annotated)
    except ValueError as e:
        caught["annotation"] = str(e)
    # static_graph: the parameters unused in the first step must stay unused
    model, ddp = make_ddp(rank, dict(opts, extra=True), static_graph=True)
    loss_of(ddp, x, y, ember.float64).backward()
    model.forward = lambda inp: model.lin(inp) + model.extra(inp)
    try:
        loss_of(ddp, x, y, ember.float64).backward()
    except RuntimeError as e:
        caught["static_changed"] = str(e)
    res.update({k: np.array(v) for k, v in caught.items()})


def main():
    mode, rank, world, out, opts = _ddp_worker.start()
    res = {}
    {"futures": lambda: futures(rank, world, res), "hook": lambda: hook(rank, world, opts, res),
     "static": lambda: static(rank, world, opts, res), "join": lambda: join(rank, world, opts, res),
     "errors": lambda: errors(rank, world, opts, res)}[mode]()
    np.savez(out, **res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
