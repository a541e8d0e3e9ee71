"""DistributedDataParallel, DistributedSampler and the autograd hooks DDP is built on.

Multi-process tests start 2 or 4 ranks of _ddp_worker.py on loopback (file:// rendezvous in
tmp_path), each with a timeout, and compare what they saved against a single process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from ember import nn

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_ddp_worker.py")
sys.path.insert(0, HERE)
import _ddp_worker as W  # noqa: E402
import _distributed_launch as launch  # noqa: E402


def run_ranks(tmp_path, mode, world, timeout=60, worker=WORKER, **opts):
    """Runs `world` workers (of _ddp_worker.py unless told); returns (exit codes, [their
    saved arrays or None], their output)."""
    rdzv = tmp_path / "rdzv"
    rdzv.mkdir(exist_ok=True)
    outs = [tmp_path / f"{mode}{r}.npz" for r in range(world)]
    ranks = launch.run_ranks(lambda r: [worker, mode, r, world, rdzv, outs[r], json.dumps(opts)],
                             world, launch.worker_env(), timeout)
    results = [dict(np.load(o)) if o.exists() else None for o in outs]
    return [code for code, _ in ranks], results, [log for _, log in ranks]


def reference_train(init, world, steps):
    """One process, the same model and optimizer, on the concatenated batches."""
    model = W.Net().double()
    with ember.no_grad():
        for n, p in model.named_parameters():
            p.copy_(ember.from_numpy(init["init." + n]))
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for x, y in W.global_batches(world, steps):
        opt.zero_grad()
        nn.MSELoss()(model(ember.from_numpy(x)), ember.from_numpy(y)).backward()
        opt.step()
    return {n: p.detach().numpy() for n, p in model.named_parameters()}


def _names():
    return [n for n, _ in W.Net().named_parameters()]


# ---------------------------------------------------------------- DDP, several processes


@pytest.mark.parametrize("world,cap", [(1, None), (2, None), (4, None), (2, 1e-5)])
def test_ddp_matches_single_process(tmp_path, world, cap):
    codes, res, logs = run_ranks(tmp_path, "train", world, bucket_cap_mb=cap, steps=2)
    assert codes == [0] * world, logs
    r0 = res[0]
    if cap is None:
        assert int(r0["n_buckets"]) == 1
    else:  # 10 bytes: every parameter gets its own bucket
        assert int(r0["n_buckets"]) == 4
    ref = reference_train(r0, world, steps=2)
    for r in range(world):
        for n in _names():
            # construction broadcast rank 0's weights (each rank was seeded differently)
            np.testing.assert_array_equal(res[r]["init." + n], r0["init." + n])
            np.testing.assert_allclose(res[r]["final." + n], ref[n], rtol=1e-6, atol=1e-12)
        np.testing.assert_array_equal(res[r]["stat"], np.ones(3))  # rank 0's buffer
    assert r0["keys"].tolist() == ["module." + k for k in W.Net().state_dict()]


def test_ddp_no_sync_accumulates_then_averages(tmp_path):
    world = 2
    codes, res, logs = run_ranks(tmp_path, "no_sync", world)
    assert codes == [0] * world, logs
    (xa, ya), (xb, yb) = W.global_batches(world, 2)
    model = W.Net().double()
    with ember.no_grad():
        for n, p in model.named_parameters():
            p.copy_(ember.from_numpy(res[0]["init." + n]))
    per_rank = []
    for r in range(world):
        model.zero_grad()
        for x, y in ((xa, ya), (xb, yb)):
            nn.MSELoss()(model(W.local(x, r)), W.local(y, r)).backward()
        per_rank.append({n: p.grad.numpy().copy() for n, p in model.named_parameters()})
    for n in _names():
        # inside no_sync each rank keeps its own gradient ...
        assert not np.allclose(res[0]["local." + n], res[1]["local." + n])
        # ... and the next synchronized backward averages the accumulated sums
        want = sum(g[n] for g in per_rank) / world
        for r in range(world):
            np.testing.assert_allclose(res[r]["synced." + n], want, rtol=1e-6, atol=1e-12)


def test_ddp_gradient_as_bucket_view(tmp_path):
    codes, res, logs = run_ranks(tmp_path, "train", 2, as_view=True, steps=3)
    assert codes == [0, 0], logs
    ref = reference_train(res[0], 2, steps=3)
    for n in _names():
        np.testing.assert_allclose(res[1]["final." + n], ref[n], rtol=1e-6, atol=1e-12)


def test_ddp_unused_parameter_raises(tmp_path):
    codes, res, logs = run_ranks(tmp_path, "unused", 2, timeout=30, extra=True, pg_timeout=3)
    err = str(res[0]["error"])
    assert "extra.weight" in err and "find_unused_parameters=True" in err, err


def test_ddp_find_unused_parameters(tmp_path):
    codes, res, logs = run_ranks(tmp_path, "unused", 2, extra=True, unused=True)
    assert codes == [0, 0], logs
    for r in range(2):
        assert "error" not in res[r], res[r].get("error")
    # rank 0 did not use `extra`: it still gets the average (half of rank 1's gradient)
    g1 = res[1]["grad.extra.weight"]
    assert np.abs(g1).max() > 0
    np.testing.assert_allclose(res[0]["grad.extra.weight"], g1, rtol=1e-12)
    np.testing.assert_allclose(res[0]["grad.fc1.weight"], res[1]["grad.fc1.weight"], rtol=1e-12)


def test_ddp_rank_killed_others_raise(tmp_path):
    world = 3
    codes, res, logs = run_ranks(tmp_path, "killed", world, timeout=40, victim=1, pg_timeout=5)
    assert codes[1] == -9, logs
    for r in (0, 2):
        assert codes[r] == 3, logs[r]
        err = str(res[r]["error"])
        assert "all_reduce" in err or "broadcast" in err, err


# ---------------------------------------------------------------- DDP, one process


def test_ddp_needs_process_group():
    if ember.distributed.is_initialized():
        pytest.skip("a process group is initialized in this process")
    with pytest.raises(RuntimeError, match="init_process_group"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


def test_bucket_assignment_reverse_order():
    from ember.nn.parallel.distributed import _assign_buckets
    ps = [ember.zeros(n) for n in (10, 20, 30, 40)]  # 40, 80, 120, 160 bytes (float32)
    got = [[i for i, _ in members] for _, members in _assign_buckets(ps, [150])]
    assert got == [[3], [2, 1], [0]]
    got = [[i for i, _ in members] for _, members in _assign_buckets(ps, [100, 1000])]
    assert got == [[3], [2, 1, 0]]
    mixed = [ember.zeros(4), ember.zeros(4, dtype=ember.float64), ember.zeros(4)]
    got = [(str(dt), [i for i, _ in m]) for dt, m in _assign_buckets(mixed, [1 << 20])]
    assert sorted(got) == [("ember.float32", [2, 0]), ("ember.float64", [1])]


class _FakeDist:
    """A 2-rank 'process group' in one process: all_reduce doubles (two identical ranks)
    and logs, so the order of events inside backward can be checked."""

    def __init__(self, log):
        self.log = log

    def is_initialized(self):
        return True

    def get_world_size(self, group=None):
        return 2

    def get_rank(self, group=None):
        return 0

    def broadcast(self, t, src, group=None, async_op=False):
        pass

    def all_reduce(self, t, group=None, async_op=False):
        self.log.append(("launch", t.numel()))
        t.mul_(2)
        log = self.log

        class Work:
            def wait(self):
                log.append(("wait", t.numel()))
        return Work()


def test_ddp_launches_buckets_during_backward(monkeypatch):
    from ember.nn.parallel import distributed as ddp_mod
    log = []
    monkeypatch.setattr(ddp_mod, "_dist", lambda: _FakeDist(log))
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).double()
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e-5)  # one bucket per parameter
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(lambda q, name=name: log.append(("ready", name)))
    x = ember.randn(5, 3, dtype=ember.float64)
    ddp(x).pow(2).sum().backward()
    want = {n: p.grad.clone() for n, p in model.named_parameters()}
    # buckets in reverse parameter order, each launched as soon as its gradient is in,
    # i.e. before the gradients of earlier layers exist; the waits come at the very end
    events = log
    first_wait = next(k for k, e in enumerate(events) if e[0] == "wait")
    launches = [k for k, e in enumerate(events) if e[0] == "launch"]
    assert [events[k][1] for k in launches] == [2, 8, 4, 12]  # 2.bias, 2.weight, 0.bias, 0.weight
    assert launches[0] < events.index(("ready", "0.weight")) < first_wait
    assert all(e[0] == "wait" for e in events[first_wait:])
    # two identical ranks: the average is the local gradient
    model.zero_grad()
    model(x).pow(2).sum().backward()
    for n, p in model.named_parameters():
        np.testing.assert_allclose(want[n].numpy(), p.grad.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- autograd hooks (torch semantics)


def _hook_script(m):
    """The same program in ember and torch; returns what the hooks saw."""
    log = []
    x = m.ones(3, requires_grad=True)
    h = x.register_post_accumulate_grad_hook(lambda p: log.append(("post", p is x, p.grad.tolist())))
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    h.remove()
    (x * 1).sum().backward()
    # hooks run after the whole accumulation, in registration order
    p = m.nn.Parameter(m.ones(2))
    p.register_post_accumulate_grad_hook(lambda q: log.append(("a", type(q).__name__, q.grad.tolist())))
    p.register_post_accumulate_grad_hook(lambda q: log.append(("b", q.grad.tolist())))
    (p * p).sum().backward()
    # backward(inputs=...) runs them, autograd.grad does not (it leaves .grad alone)
    w = m.ones(2, requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda q: log.append(("w", q.grad.tolist())))
    (w * 3).sum().backward(inputs=[w])
    m.autograd.grad((w * 3).sum(), [w])
    # final callbacks: after every hook, in order, including one queued by a callback
    engine = m.autograd.Variable._execution_engine
    a, b = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)

    def cb():
        log.append("cb")
        engine.queue_callback(lambda: log.append("cb2"))

    def hk(q):
        log.append("hook")
        if log.count("hook") == 1:
            engine.queue_callback(cb)
    a.register_post_accumulate_grad_hook(hk)
    b.register_post_accumulate_grad_hook(hk)
    (a * b).sum().backward()
    # a failing backward drops its callbacks
    d = m.ones(2, requires_grad=True)

    def bad(q):
        engine.queue_callback(lambda: log.append("never"))
        raise ValueError("boom")
    d.register_post_accumulate_grad_hook(bad)
    with pytest.raises(ValueError, match="boom"):
        (d * 2).sum().backward()
    # queued from a non-leaf hook during autograd.grad
    c = m.ones(2, requires_grad=True)
    y = c * 2
    y.register_hook(lambda g: engine.queue_callback(lambda: log.append("grad-cb")))
    m.autograd.grad(y.sum(), [c])
    return log


def test_post_accumulate_grad_hook_like_torch():
    assert _hook_script(ember) == _hook_script(torch)


@pytest.mark.parametrize("lib", [ember, torch])
def test_post_accumulate_grad_hook_errors(lib):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        lib.ones(3).register_post_accumulate_grad_hook(lambda p: None)
    x.register_post_accumulate_grad_hook(lambda p: 5)
    with pytest.raises(TypeError):
        (x * 2).sum().backward()
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        lib.autograd.Variable._execution_engine.queue_callback(lambda: None)


def test_post_accumulate_grad_hook_no_leak():
    import gc
    import weakref
    p = ember.ones(3, requires_grad=True)
    r = weakref.ref(p)
    p.register_post_accumulate_grad_hook(lambda q: None)
    del p
    gc.collect()
    assert r() is None


# ---------------------------------------------------------------- DistributedSampler


def _torch_split(monkeypatch, n, perm, **kw):
    """torch's DistributedSampler indices when its randperm returns `perm`."""
    from torch.utils.data.distributed import DistributedSampler
    if perm is not None:
        monkeypatch.setattr(torch, "randperm", lambda k, generator=None: torch.tensor(perm))
    out = list(DistributedSampler(range(n), **kw))
    monkeypatch.undo()
    return out


@pytest.mark.parametrize("n", [0, 1, 5, 10, 11, 12, 13])
@pytest.mark.parametrize("world", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_split_like_torch(monkeypatch, n, world, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TDS

    from ember.utils.data import DistributedSampler
    for rank in range(world):
        kw = dict(num_replicas=world, rank=rank, drop_last=drop_last)
        e = DistributedSampler(range(n), shuffle=False, **kw)
        t = TDS(range(n), shuffle=False, **kw)
        assert list(e) == list(t) and len(e) == len(t)
        assert (e.num_samples, e.total_size) == (t.num_samples, t.total_size)
        # shuffled: the same split of ember's permutation as torch makes of its own
        es = DistributedSampler(range(n), shuffle=True, seed=3, **kw)
        es.set_epoch(2)
        perm = es._order(n).tolist()
        assert list(es) == _torch_split(monkeypatch, n, perm, shuffle=True, seed=3, **kw)


def test_distributed_sampler_epochs_and_ranks():
    from ember.utils.data import DistributedSampler
    data = range(20)
    s = [DistributedSampler(data, num_replicas=4, rank=r, seed=7) for r in range(4)]
    first = [list(x) for x in s]
    assert sorted(sum(first, [])) == list(range(20))  # disjoint and complete
    assert [list(x) for x in s] == first               # same epoch: same order
    for x in s:
        x.set_epoch(1)
    second = [list(x) for x in s]
    assert second != first and sorted(sum(second, [])) == list(range(20))
    other_seed = DistributedSampler(data, num_replicas=4, rank=0, seed=8)
    assert list(other_seed) != first[0]
    # in a DataLoader: batches of this rank's indices
    x = ember.arange(20)
    loader = ember.utils.data.DataLoader(ember.utils.data.TensorDataset(x), batch_size=2, sampler=s[1])
    assert sum((b[0].tolist() for b in loader), []) == second[1]


def test_distributed_sampler_errors():
    from ember.utils.data import DistributedSampler
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=2, rank=-1)
    if not ember.distributed.is_initialized():
        with pytest.raises(RuntimeError, match="init_process_group"):
            DistributedSampler(range(4))


# ---------------------------------------------------------------- the example, data-parallel


@pytest.mark.skipif(not os.path.isdir("/usr/share/datasets/fashion-mnist"),
                    reason="dataset-fashion-mnist is not installed")
def test_fashion_mnist_two_processes(tmp_path):
    import re
    png = tmp_path / "curves.png"
    p = subprocess.run([sys.executable, "-m", "ember.examples.fashion_mnist", "--nproc", "2", "--epochs", "2",
                        "--limit", "600", "--batch-size", "32", "--no-progress", "--plot", str(png)],
                       env=launch.worker_env(), capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("summary:") == 1 and "data-parallel on 2 processes (batch 16 each)" in p.stdout
    assert float(re.search(r"final test accuracy ([0-9.]+)", p.stdout).group(1)) > 0.5
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_fashion_mnist_batch_must_split(capsys):
    from ember.examples import fashion_mnist as fm
    with pytest.raises(SystemExit) as e:
        fm.main(["--nproc", "3", "--batch-size", "64"])
    assert e.value.code == 2 and "multiple of --nproc" in capsys.readouterr().err
