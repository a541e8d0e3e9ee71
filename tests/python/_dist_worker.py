"""One rank of a test_distributed.py scenario: python _dist_worker.py SCENARIO RANK WORLD INIT_METHOD.

Each rank makes its data from a seed and its rank, so every rank can compute what any
collective must return with NumPy and check its own result. Exits 0 when all checks pass;
prints a traceback and exits 1 otherwise (the test shows the output).
"""
import datetime
import os
import sys
import time

import numpy as np

import ember
import ember.distributed as dist

DTYPES = {"float32": (ember.float32, np.float32), "float64": (ember.float64, np.float64),
          "int64": (ember.int64, np.int64), "int32": (ember.int32, np.int32),
          "int8": (ember.int8, np.int8)}  # sums and products wrap in int8 as in NumPy
OPS = {"SUM": np.add, "MAX": np.maximum, "MIN": np.minimum, "PRODUCT": np.multiply,
       "BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}


def data(rank, shape, np_dtype, seed):
    rng = np.random.default_rng(1000 * seed + rank)
    if np.issubdtype(np_dtype, np.integer):
        return rng.integers(-4, 5, size=shape).astype(np_dtype)
    return rng.uniform(-2, 2, size=shape).astype(np_dtype)


def check(got, want, np_dtype):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    rtol = {np.float32: 2e-6, np.float64: 1e-13}.get(np_dtype, 0)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def reduce_all(arrays, op, np_dtype):
    out = arrays[0].copy()
    for a in arrays[1:]:
        out = OPS["SUM" if op == "AVG" else op](out, a).astype(np_dtype)
    if op == "AVG":
        out = (out / np_dtype(len(arrays))).astype(np_dtype)
    return out


def reduce_ops(dtype_name):
    """The ReduceOp names all_reduce and reduce are checked with on a dtype (AVG: not on ints;
    the bitwise ones on ints only)."""
    bitwise = ["BAND", "BOR", "BXOR"] if dtype_name.startswith("int") else []
    return [op for op in ["SUM", "AVG", "MAX", "MIN", "PRODUCT"]
            if not (op == "AVG" and dtype_name.startswith("int"))] + bitwise


def layouts(t):
    """The tensor itself and a transposed (non-contiguous) view of a copy."""
    yield t
    yield t.t().contiguous().t() if t.dim() == 2 else t


def collectives(rank, world):
    shape = (3, 5)
    seed = 0
    for name, (edt, ndt) in DTYPES.items():
        for op in reduce_ops(name):
            seed += 1
            mine = data(rank, shape, ndt, seed)
            want = reduce_all([data(r, shape, ndt, seed) for r in range(world)], op, ndt)
            for t in layouts(ember.tensor(mine)):
                dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                check(t, want, ndt)
                t.copy_(ember.tensor(mine))
        seed += 1
        for src in range(world):
            t = ember.tensor(data(rank, shape, ndt, seed))
            dist.broadcast(t, src=src)
            check(t, data(src, shape, ndt, seed), ndt)
        seed += 1
        mine = data(rank, shape, ndt, seed)
        every = [data(r, shape, ndt, seed) for r in range(world)]
        outs = [ember.zeros(shape, dtype=edt) for _ in range(world)]
        outs[-1] = ember.zeros((5, 3), dtype=edt).t()  # a non-contiguous output
        dist.all_gather(outs, ember.tensor(mine))
        for o, w in zip(outs, every):
            check(o, w, ndt)
        out = ember.zeros((world * 3, 5), dtype=edt)
        dist.all_gather_into_tensor(out, ember.tensor(mine))
        check(out, np.concatenate(every), ndt)
        stacked = ember.zeros((world, 3, 5), dtype=edt)
        dist.all_gather_into_tensor(stacked, ember.tensor(mine).t().contiguous().t())
        check(stacked, np.stack(every), ndt)
        for op in ["SUM", "MAX", "MIN", "PRODUCT"] + (["AVG"] if name.startswith("float") else []):
            seed += 1
            ins = [data(rank, shape, ndt, seed * 10 + j) for j in range(world)]
            want = reduce_all([data(r, shape, ndt, seed * 10 + rank) for r in range(world)], op, ndt)
            out = ember.zeros(shape, dtype=edt)
            dist.reduce_scatter(out, [ember.tensor(a) for a in ins], op=getattr(dist.ReduceOp, op))
            check(out, want, ndt)
            flat = ember.tensor(np.concatenate(ins))
            before = flat.numpy().copy()
            out = ember.zeros((5, 3), dtype=edt).t()  # non-contiguous output
            dist.reduce_scatter_tensor(out, flat, op=getattr(dist.ReduceOp, op))
            check(out, want, ndt)
            check(flat, before, ndt)  # the input is left as it was
    # bool / uint8 travel through broadcast and all_gather
    for edt, ndt in [(ember.bool, np.bool_), (ember.uint8, np.uint8)]:
        t = ember.tensor((np.arange(6) % (rank + 2) == 0).astype(ndt))
        dist.broadcast(t, src=0)
        check(t, (np.arange(6) % 2 == 0).astype(ndt), ndt)
        out = ember.zeros(world * 6, dtype=edt)
        dist.all_gather_into_tensor(out, ember.tensor((np.arange(6) % (rank + 2) == 0).astype(ndt)))
        check(out, np.concatenate([(np.arange(6) % (r + 2) == 0).astype(ndt) for r in range(world)]), ndt)
    # bool masks and uint8 through every reduction (as torch's Gloo); bitwise ops refuse floats
    for edt, ndt in [(ember.bool, np.bool_), (ember.uint8, np.uint8)]:
        for op in ["SUM", "MAX", "MIN", "PRODUCT", "BAND", "BOR", "BXOR"]:
            every = [(np.arange(7) * (r + 3) % 5).astype(ndt) for r in range(world)]
            t = ember.tensor(every[rank])
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            want = every[0]
            for a in every[1:]:
                want = OPS[op](want, a).astype(ndt)
            assert t.numpy().dtype == ndt and t.numpy().tolist() == want.tolist(), (op, t, want)
    for op in ["BAND", "BOR", "BXOR"]:
        try:
            dist.all_reduce(ember.ones(2), op=getattr(dist.ReduceOp, op))
        except TypeError as e:
            assert f"ReduceOp.{op} needs an integer or bool tensor, got float32" in str(e), str(e)
        else:
            raise AssertionError(f"all_reduce of float32 with {op} did not raise")
    # empty and 0-d tensors
    e = ember.zeros(0)
    dist.all_reduce(e)
    z = ember.tensor(float(rank + 1))
    dist.all_reduce(z)
    assert z.item() == world * (world + 1) / 2
    dist.barrier()
    print(f"rank {rank}: collectives ok")


def async_ops(rank, world):
    ts = [ember.full((1000 + i,), float(rank + i)) for i in range(6)]
    works = [dist.all_reduce(t, async_op=True) for t in ts[:5]]
    works.append(dist.broadcast(ts[5], src=world - 1, async_op=True))
    works.append(dist.barrier(async_op=True))
    for w in reversed(works):  # issue order is run order; waiting order does not matter
        assert w.wait() is True
        assert w.is_completed()
    for i, t in enumerate(ts[:5]):
        assert t.numpy().tolist() == [float(sum(range(world)) + world * i)] * (1000 + i), i
    assert (ts[5].numpy() == world - 1 + 5).all()
    # the caller computes while a big all_reduce runs
    big = ember.ones(2_000_000)
    w = dist.all_reduce(big, async_op=True)
    other = (ember.ones(1000) * 2).sum().item()
    w.wait()
    assert other == 2000.0 and big[0].item() == world and big[-1].item() == world
    assert dist.all_reduce(ember.ones(3)) is None
    # Work.wait(timeout): gives up while the peer is late, the work still completes
    if rank == 1:
        time.sleep(0.5)
    w = dist.all_reduce(ember.ones(3), async_op=True)
    if rank == 0:
        try:
            w.wait(timeout=datetime.timedelta(milliseconds=50))
        except RuntimeError as e:
            assert "all_reduce: Work.wait timed out" in str(e), str(e)
        else:
            raise AssertionError("Work.wait(timeout) did not time out")
    assert w.wait() is True and w.is_success()
    # a mix of sync and async collectives of many sizes, the same sequence on every rank
    rng = np.random.default_rng(7)
    pending = []
    for i in range(300):
        n = int(rng.integers(0, 3000))
        t = ember.full((n,), float(rank + i))
        if rng.random() < 0.6:
            pending.append((dist.all_reduce(t, async_op=True), t, i, n))
        else:
            dist.all_reduce(t)
            assert (t.numpy() == sum(range(world)) + world * i).all(), i
        if rng.random() < 0.2:
            for w, t, j, n in pending:
                w.wait()
                assert t.numpy().shape == (n,) and (t.numpy() == sum(range(world)) + world * j).all(), j
            pending.clear()
    for w, t, j, n in pending:
        w.wait()
        assert (t.numpy() == sum(range(world)) + world * j).all(), j
    print(f"rank {rank}: async ok")


def dead_peer(rank, world):
    x = ember.ones(100)
    dist.all_reduce(x)
    if rank == world - 1:
        os._exit(0)  # dies without a word: its sockets close
    t0 = time.time()
    try:
        for _ in range(100):  # the survivors keep calling: each must fail, none may hang
            dist.all_reduce(x)
    except RuntimeError as e:
        msg = str(e)
        assert "all_reduce" in msg and f"rank {rank} of {world}" in msg, msg
        print(f"rank {rank}: raised after {time.time() - t0:.2f}s: {msg}")
    else:
        raise AssertionError("all_reduce with a dead peer did not raise")
    w = dist.broadcast(x, src=0, async_op=True)
    try:
        w.wait()
    except RuntimeError as e:
        assert "broadcast" in str(e), str(e)
        assert w.is_completed() and not w.is_success()
    else:
        raise AssertionError("a collective after a failure did not raise")


def stuck_peer(rank, world):
    x = ember.ones(100)
    dist.all_reduce(x)
    if rank == world - 1:
        time.sleep(float(os.environ["TEST_DIST_TIMEOUT"]) + 1)  # alive but silent past the timeout
        os._exit(0)
    t0 = time.time()
    try:
        dist.all_reduce(x)
    except RuntimeError as e:
        assert "all_reduce" in str(e) and "within the timeout" in str(e), str(e)
        print(f"rank {rank}: raised after {time.time() - t0:.2f}s: {e}")
    else:
        raise AssertionError("all_reduce with a silent peer did not raise")
    os._exit(0)  # the stuck rank is not there to say goodbye


def simple(rank, world):
    assert dist.is_initialized()
    assert dist.get_rank() == rank and dist.get_world_size() == world, (dist.get_rank(), rank)
    x = ember.full((4,), float(rank))
    dist.all_reduce(x)
    assert x.numpy().tolist() == [float(sum(range(world)))] * 4
    y = ember.arange(5) * (rank + 1)
    dist.broadcast(y, src=0)
    assert y.numpy().tolist() == [0, 1, 2, 3, 4]
    print(f"rank {rank}: simple ok")


def main():
    scenario, rank, world, init_method = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    timeout = float(os.environ.get("TEST_DIST_TIMEOUT", "20"))
    if init_method == "prefix-store":  # a TCPStore that rank 0 serves, under a PrefixStore
        port = int(os.environ["EMBER_TEST_STORE_PORT"])
        tcp = dist.TCPStore("127.0.0.1", port, world, rank == 0)
        dist.init_process_group("gloo", store=dist.PrefixStore("job7", tcp), rank=rank, world_size=world,
                                timeout=timeout)
        run = os.environ.get("EMBER_RUN_ID", "default")
        assert tcp.check([f"job7/ember-{run}-0/ember-ready-{rank}"])  # the group's keys, prefixed
        assert not tcp.check([f"ember-{run}-0/ember-ready-{rank}"])
    elif init_method == "env://":
        dist.init_process_group("gloo", timeout=timeout)  # rank and world size from the env
    else:
        dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world, timeout=timeout)
    {"collectives": collectives, "async": async_ops, "dead": dead_peer, "stuck": stuck_peer,
     "simple": simple}[scenario](rank, world)
    dist.destroy_process_group()
    assert not dist.is_initialized()


if __name__ == "__main__":
    main()
