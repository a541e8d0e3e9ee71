"""DataLoader(num_workers=N): batches made in worker processes equal those of num_workers=0,
arrive in shared memory, errors and dead workers surface in the parent, workers shut down.

Every wait has a timeout (the loader's own dead-worker checks, and an alarm per test) so a bug
fails instead of hanging. Workers use fork (the default here) unless a test is about spawn.
"""
import collections
import gc
import os
import random
import signal
import time

import numpy as np
import pytest

import ember
import ember.utils.data as D

TIMEOUT = 20


@pytest.fixture(autouse=True)
def alarm(hang_alarm):
    """Every test here fails after 60 s instead of hanging (conftest.hang_alarm)."""


def flat(batch):
    """A batch as nested Python values (tensors -> lists), for comparisons."""
    if isinstance(batch, ember.Tensor):
        return ("T", str(batch.dtype), tuple(batch.shape), batch.tolist())
    if isinstance(batch, dict):
        return {k: flat(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(flat(b) for b in batch) if not hasattr(batch, "_fields") else \
            (type(batch).__name__,) + tuple(flat(b) for b in batch)
    return batch


def epoch(loader):
    return [flat(b) for b in loader]


def all_tensors(batch):
    if isinstance(batch, ember.Tensor):
        return [batch]
    if isinstance(batch, dict):
        batch = list(batch.values())
    if isinstance(batch, (list, tuple)):
        return [t for b in batch for t in all_tensors(b)]
    return []


def same_as_single_process(make, workers=(1, 2, 3), seed=None, **kw):
    """Builds loader = make(num_workers=n, **kw) for n = 0 and each n in workers and checks
    that two epochs give the same batches (seeding the global stream first if seed)."""
    def run(n):
        if seed is not None:
            ember.manual_seed(seed)
        k = {key: v for key, v in kw.items() if n or key != "multiprocessing_context"}
        loader = make(num_workers=n, **k)
        return epoch(loader) + ["--"] + epoch(loader), ember.rand(1).item()

    want, after = run(0)
    for n in workers:
        got, got_after = run(n)
        assert got == want, f"num_workers={n}"
        assert seed is None or got_after == after  # and the global stream is left in the same state
    return want


Point = collections.namedtuple("Point", "x y")


class Samples(D.Dataset):
    """A map-style dataset of structured samples (the per-sample path, not the fast path)."""

    def __init__(self, n=23):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": ember.full((3,), float(i)), "y": i, "p": Point(np.float32(i) / 2, [i, -i]),
                "name": f"s{i}"}


class Info(D.Dataset):
    """Each sample says which worker made it, and with which seed and thread count."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        w = D.get_worker_info()
        return (i, w.id, w.num_workers, w.seed, ember.get_num_threads(), getattr(w.dataset, "init_by", None),
                random.random(), ember.rand(1).item())


# ---------------------------------------------------------------- same batches as num_workers=0

@pytest.mark.parametrize("kw", [{}, {"shuffle": True}, {"shuffle": True, "drop_last": True},
                                {"batch_size": 7, "drop_last": True}])
def test_tensor_dataset_fast_path(kw):
    x = ember.randn(50, 3)
    y = ember.arange(50)
    kw = {"batch_size": 8, **kw}
    same_as_single_process(lambda **k: D.DataLoader(D.TensorDataset(x, y), **k), seed=3, **kw)
    g = lambda: ember.Generator().manual_seed(11)  # noqa: E731  (an explicit generator)
    same_as_single_process(lambda **k: D.DataLoader(D.TensorDataset(x, y), generator=g(), **k), **kw)
    for xb, yb in D.DataLoader(D.TensorDataset(x, y), num_workers=2, **kw):
        assert xb.is_shared() and yb.is_shared() and xb.is_contiguous()


def test_per_sample_dataset_dicts_tuples_and_strings():
    batches = same_as_single_process(lambda **k: D.DataLoader(Samples(), batch_size=5, shuffle=True, **k),
                                     seed=1)
    assert batches[0]["name"][0].startswith("s") and batches[0]["p"][0] == "Point"
    for b in D.DataLoader(Samples(), batch_size=5, num_workers=2):
        assert all(t.is_shared() for t in all_tensors(b))


def test_custom_collate_batch_sampler_and_no_batching():
    def collate(samples):  # a custom collate: tuples out, tensors made by ops
        return (ember.stack([s["x"] for s in samples]).sum(0), tuple(s["y"] for s in samples))

    same_as_single_process(lambda **k: D.DataLoader(Samples(), batch_size=4, collate_fn=collate, **k))
    same_as_single_process(lambda **k: D.DataLoader(Samples(), batch_sampler=[[3, 1], [0], [5, 6, 7]], **k),
                           workers=(2,))
    same_as_single_process(lambda **k: D.DataLoader(Samples(), batch_size=None, shuffle=True, **k), seed=5,
                           workers=(2,))
    # batch_size=None on a TensorDataset: the samples are views of the dataset's tensors; the
    # worker copies just them into shared memory (never the whole dataset storage).
    x = ember.arange(1000.0).reshape(100, 10)
    rows = list(D.DataLoader(D.TensorDataset(x), batch_size=None, num_workers=2))
    assert [r[0].tolist() for r in rows] == x.tolist()
    assert all(r[0].is_shared() and not r[0]._shares_storage(x) for r in rows)
    assert not x.is_shared()


def test_iterable_dataset_with_workers_matches_torch_order():
    class Stream(D.IterableDataset):
        def __iter__(self):
            w = D.get_worker_info()
            start, step = (0, 1) if w is None else (w.id, w.num_workers)
            return iter(range(start, 23, step))

    for bs, dl in [(4, False), (4, True), (None, False)]:
        got = epoch(D.DataLoader(Stream(), batch_size=bs, drop_last=dl, num_workers=2))
        # torch's order: worker 0's first batch, worker 1's first batch, ... then whoever is left.
        parts = [list(range(w, 23, 2)) for w in range(2)]
        if bs is None:
            chunks = [[[v] for v in p] for p in parts]
        else:
            chunks = [[p[i:i + bs] for i in range(0, len(p), bs) if not dl or i + bs <= len(p)] for p in parts]
        want, k = [], 0
        while any(chunks):
            if chunks[k % 2]:
                want.append(chunks[k % 2].pop(0))
            k += 1
        assert [g[3] if isinstance(g, tuple) else [g] for g in got] == want
    # Persistent workers restart their copies each epoch, also after an unfinished one.
    loader = D.DataLoader(Stream(), batch_size=4, num_workers=2, persistent_workers=True)
    first = epoch(loader)
    next(iter(loader))
    assert epoch(loader) == first and epoch(loader) == first


def test_worker_info_seeds_threads_and_init_fn():
    def init(worker_id):
        info = D.get_worker_info()
        assert info.id == worker_id
        object.__setattr__(info.dataset, "init_by", worker_id)  # the worker's own copy

    assert D.get_worker_info() is None
    ember.manual_seed(0)
    rows = [r for b in D.DataLoader(Info(), batch_size=3, num_workers=3, worker_init_fn=init) for r in zip(*b)]
    ids = [int(r[1]) for r in rows]
    assert ids == [0] * 3 + [1] * 3 + [2] * 3 + [0] * 3  # round robin, one batch per worker at a time
    seeds = {int(r[1]): int(r[3]) for r in rows}
    assert seeds[1] == seeds[0] + 1 and seeds[2] == seeds[0] + 2
    assert all(int(r[2]) == 3 and int(r[4]) == 1 and int(r[5]) == int(r[1]) for r in rows)
    # Per-worker streams differ, and the same global seed gives the same draws again.
    draws = [r[7].item() for r in rows]
    assert len(set(draws)) == len(draws)
    ember.manual_seed(0)
    again = [r[7].item() for b in D.DataLoader(Info(), batch_size=3, num_workers=3, worker_init_fn=init)
             for r in zip(*b)]
    assert again == draws
    with pytest.raises(RuntimeError, match="Cannot assign"):
        D._worker.WorkerInfo(id=0).id = 1


def test_persistent_workers_keep_processes_and_batches():
    x = ember.arange(40.0)
    same_as_single_process(lambda **k: D.DataLoader(D.TensorDataset(x), batch_size=6, shuffle=True,
                                                    persistent_workers=k["num_workers"] > 0, **k),
                           seed=2, workers=(2,))
    loader = D.DataLoader(D.TensorDataset(x), batch_size=6, num_workers=2, persistent_workers=True)
    it = iter(loader)
    next(it)  # leave an epoch unfinished: its outstanding batches are dropped at the reset
    pids = [w.pid for w in it._workers]
    assert [b[0].tolist() for b in loader][0] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert iter(loader) is it and [w.pid for w in it._workers] == pids
    workers = it._workers
    del loader, it
    gc.collect()
    for w in workers:
        w.join(TIMEOUT)
        assert not w.is_alive()


def test_spawn_context():
    x = ember.randn(30, 2)
    same_as_single_process(lambda **k: D.DataLoader(D.TensorDataset(x, ember.arange(30)), batch_size=4,
                                                    shuffle=True, **k),
                           seed=9, workers=(2,), multiprocessing_context="spawn")


# ---------------------------------------------------------------- errors and dead workers

class Failing(D.Dataset):
    def __init__(self, kind, at=9):
        self.kind, self.at = kind, at

    def __len__(self):
        return 16

    def __getitem__(self, i):
        if i == self.at:
            if self.kind == "value":
                raise ValueError(f"sample {i} is broken")
            if self.kind == "key":
                raise KeyError("missing-key")
            if self.kind == "exit":
                os._exit(3)
            if self.kind == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.kind == "sleep":
                time.sleep(1.5)
            if self.kind == "lambda":
                return lambda: i  # cannot be pickled
        return i


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class TwoArgs(Failing):
    def __getitem__(self, i):
        if i == 2:
            raise TwoArgError(1, 2)
        return i


def test_worker_exception_carries_its_traceback():
    loader = D.DataLoader(Failing("value"), batch_size=4, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1, 2, 3] and next(it).tolist() == [4, 5, 6, 7]
    with pytest.raises(ValueError) as info:
        next(it)
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process 0." in msg
    assert "Original Traceback" in msg and "sample 9 is broken" in msg and "__getitem__" in msg
    assert next(it).tolist() == [12, 13, 14, 15]  # the loader goes on, as torch's does
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(D.DataLoader(Failing("key"), batch_size=4, num_workers=2))
    with pytest.raises(RuntimeError, match="Caught TwoArgError in DataLoader worker process 0"):
        list(D.DataLoader(TwoArgs("none"), batch_size=4, num_workers=2))

    def bad_init(worker_id):
        raise ValueError(f"init of worker {worker_id} fails")

    with pytest.raises(ValueError, match="init of worker 0 fails"):
        list(D.DataLoader(Failing("none"), batch_size=4, num_workers=2, worker_init_fn=bad_init))
    with pytest.raises(Exception, match="while sending its batch"):
        list(D.DataLoader(Failing("lambda"), batch_size=4, num_workers=2, collate_fn=list))


@pytest.mark.parametrize("kind,code", [("exit", "exit code 3"), ("kill", "exit code -9 \\(killed by signal SIGKILL\\)")])
def test_dead_worker_raises_instead_of_hanging(kind, code):
    loader = D.DataLoader(Failing(kind), batch_size=4, num_workers=2)
    it = iter(loader)
    with pytest.raises(RuntimeError, match=f"DataLoader worker 0 \\(pid \\d+\\) exited unexpectedly with {code}"):
        for _ in it:
            pass
    for w in it._workers:  # the other worker was shut down too
        assert not w.is_alive()


def test_timeout():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        list(D.DataLoader(Failing("sleep", at=0), batch_size=4, num_workers=1, timeout=0.2))


# ---------------------------------------------------------------- shutdown and arguments

def own_memfds():
    """(fds, mappings) of ember's shared memory held by this process."""
    def is_memfd(fd):
        try:
            return os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:ember-shared")
        except OSError:  # (the fd listdir itself used)
            return False
    fds = sum(is_memfd(fd) for fd in os.listdir("/proc/self/fd"))
    with open("/proc/self/maps") as f:
        return fds, sum("memfd:ember-shared" in line for line in f)


def test_workers_stop_when_exhausted_or_collected():
    gc.collect()
    before = own_memfds()
    ds = D.TensorDataset(ember.arange(20))
    it = iter(D.DataLoader(ds, batch_size=4, num_workers=2))
    assert len(it) == 5 and len(list(it)) == 5
    for w in it._workers:
        assert not w.is_alive()
    it = iter(D.DataLoader(ds, batch_size=4, num_workers=2))
    next(it)
    workers = it._workers
    del it
    gc.collect()
    for w in workers:
        w.join(TIMEOUT)
        assert not w.is_alive()
    gc.collect()
    assert own_memfds() == before  # every batch's fd and mapping was released


def test_argument_checks_match_torch():
    ds = D.TensorDataset(ember.arange(4))
    with pytest.raises(ValueError, match="num_workers > 0"):
        D.DataLoader(ds, multiprocessing_context="fork")
    with pytest.raises(ValueError, match="valid start method"):
        D.DataLoader(ds, num_workers=1, multiprocessing_context="threads")
    with pytest.raises(TypeError, match="valid context object"):
        D.DataLoader(ds, num_workers=1, multiprocessing_context=3)
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    assert D.DataLoader(ds, num_workers=1, multiprocessing_context=ctx).multiprocessing_context is ctx
    loader = D.DataLoader(ds, batch_size=2, num_workers=1, prefetch_factor=1, pin_memory=True, timeout=5)
    assert [b[0].tolist() for b in loader] == [[0, 1], [2, 3]]
