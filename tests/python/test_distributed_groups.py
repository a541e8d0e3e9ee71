"""ember.distributed beyond the basic collectives: subgroups (new_group, new_subgroups,
a rank outside a group), reduce/gather/scatter/all_to_all(_single), send/recv/isend/irecv,
batch_isend_irecv, monitored_barrier and the object collectives, each checked against
NumPy on 2 and 4 processes; bad inputs raise errors naming the op (all ranks raise, so
nothing hangs); the store keys are gone after destroy_process_group. One process launch
per rank count: this file is also the rank's program (python test_distributed_groups.py
RANK WORLD STORE)."""
import datetime
import os
import socket
import sys
import time
import warnings

import numpy as np
import pytest

import ember
import ember.distributed as dist
import _distributed_launch as launch
from _dist_worker import reduce_all, reduce_ops  # the NumPy model of a reduction

WAIT = 90  # seconds the ranks may take before the test fails instead of hanging
DTYPES = {"float32": (ember.float32, np.float32), "float64": (ember.float64, np.float64),
          "int32": (ember.int32, np.int32), "int64": (ember.int64, np.int64)}
BYTE_DTYPES = dict(DTYPES, uint8=(ember.uint8, np.uint8), bool=(ember.bool, np.bool_))


# ----------------------------------------------------------------- the rank's program

def data(rank, shape, np_dtype, seed):
    rng = np.random.default_rng(1000 * seed + rank)
    if np_dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(np_dtype, np.integer):
        return rng.integers(0 if np_dtype == np.uint8 else -4, 5, size=shape).astype(np_dtype)
    return rng.uniform(-2, 2, size=shape).astype(np_dtype)


def check(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    tol = {np.float32: 2e-6, np.float64: 1e-13}.get(want.dtype.type, 0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def raises(kind, text, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except kind as e:
        assert text in str(e), f"{text!r} not in {e}"
        return
    raise AssertionError(f"{fn.__name__} did not raise {kind.__name__} ({text})")


def t(a):
    return ember.from_numpy(np.array(a))


def groups_part(rank, world):
    # every rank calls new_group in the same order; ranks outside get NON_GROUP_MEMBER
    odd = [r for r in range(world) if r % 2 == 1]
    g = dist.new_group(odd)
    assert dist.get_process_group_ranks(dist.group.WORLD) == list(range(world))
    if rank % 2 == 0:
        assert g == dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
        x = ember.ones(3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert dist.all_reduce(x, group=g) is None
            assert dist.broadcast(x, src=1, group=g) is None
            assert dist.reduce(x, dst=1, group=g) is None
            assert dist.recv(x, src=1, group=g) == -1
        assert len(w) == 4 and "does not belong" in str(w[0].message)
        check(x, np.ones(3, np.float32))
        raises(ValueError, "not a member", dist.get_process_group_ranks, g)
    else:
        assert dist.get_world_size(g) == len(odd) and dist.get_rank(g) == odd.index(rank)
        assert dist.get_process_group_ranks(g) == odd
        assert dist.get_global_rank(g, dist.get_rank(g)) == rank
        assert dist.get_group_rank(g, rank) == odd.index(rank)
        raises(ValueError, "get_group_rank: global rank 0 is not part", dist.get_group_rank, g, 0)
        raises(ValueError, "get_global_rank: group rank 7", dist.get_global_rank, g, 7)
        x = t(data(rank, (4, 3), np.float64, 1))
        dist.all_reduce(x, group=g)
        check(x, np.sum([data(r, (4, 3), np.float64, 1) for r in odd], axis=0))
        y = t(data(rank, (5,), np.int64, 2))
        dist.broadcast(y, src=odd[-1], group=g)  # src: a global rank
        check(y, data(odd[-1], (5,), np.int64, 2))
        z = t(data(rank, (5,), np.int64, 3))
        dist.broadcast(z, group_src=0, group=g)
        check(z, data(odd[0], (5,), np.int64, 3))
        raises(ValueError, "broadcast: global rank 0 is not part", dist.broadcast, z, src=0, group=g)
    # the world's collectives still work between subgroup collectives
    w = ember.full((2,), float(rank))
    dist.all_reduce(w)
    check(w, np.full(2, sum(range(world)), np.float32))

    # new_subgroups: consecutive blocks; a collective in each block at the same time
    size = 2 if world >= 2 else 1
    cur, subs = dist.new_subgroups(size)
    assert len(subs) == world // size and dist.get_world_size(cur) == size
    members = list(range(rank - rank % size, rank - rank % size + size))
    assert dist.get_process_group_ranks(cur) == members
    x = t(data(rank, (3,), np.float32, 4))
    dist.all_reduce(x, op=dist.ReduceOp.MAX, group=cur)
    check(x, np.max([data(r, (3,), np.float32, 4) for r in members], axis=0))
    # rooted collectives in a subgroup: dst/src global, group_dst/group_src within it
    y = t(data(rank, (2, 2), np.int64, 5))
    dist.reduce(y, dst=members[1], group=cur)
    if rank == members[1]:
        check(y, np.sum([data(r, (2, 2), np.int64, 5) for r in members], axis=0))
    outs = [ember.zeros(2, 2, dtype=ember.int64) for _ in members] if rank == members[0] else None
    dist.gather(t(data(rank, (2, 2), np.int64, 6)), outs, group_dst=0, group=cur)
    if outs:
        for o, r in zip(outs, members):
            check(o, data(r, (2, 2), np.int64, 6))
    z = ember.zeros(3)
    dist.scatter(z, [ember.full((3,), float(r)) for r in members] if rank == members[1] else None,
                 src=members[1], group=cur)
    check(z, np.full(3, rank, np.float32))
    o = ember.zeros(2 * size)
    dist.all_to_all_single(o, ember.full((2 * size,), float(rank)), group=cur)
    check(o, np.repeat(np.array(members, np.float32), 2))
    if world == 4:
        cur2, subs2 = dist.new_subgroups_by_enumeration([[0, 3], [1]])
        assert (cur2 is None) == (rank == 2) and len(subs2) == 2
        if rank in (0, 3):
            v = ember.full((1,), float(rank + 1))
            dist.all_reduce(v, op=dist.ReduceOp.PRODUCT, group=cur2)
            check(v, np.array([4.0], np.float32))
        for s in subs2:
            dist.destroy_process_group(s)
    raises(ValueError, "new_subgroups", dist.new_subgroups, 3)
    raises(ValueError, "rank 0 has appeared in both", dist.new_subgroups_by_enumeration, [[0], [0, 1]])
    raises(ValueError, "new_group: rank 9 is out of range", dist.new_group, [0, 9])
    raises(ValueError, "appears twice", dist.new_group, [0, 0])
    # a destroyed group refuses work, naming the op
    dist.destroy_process_group(cur)
    raises(RuntimeError, "all_reduce: the process group was destroyed", dist.all_reduce, x, group=cur)
    if g != dist.GroupMember.NON_GROUP_MEMBER:
        dist.destroy_process_group(g)
    dist.destroy_process_group(g)  # twice, and on a non-member: nothing
    return subs


def rooted_part(rank, world):
    seed = 100
    for name, (edt, ndt) in DTYPES.items():
        for op in reduce_ops(name):
            seed += 1
            dst = seed % world
            mine = data(rank, (3, 4), ndt, seed)
            x = t(mine)
            dist.reduce(x, dst=dst, op=getattr(dist.ReduceOp, op))
            if rank == dst:
                check(x, reduce_all([data(r, (3, 4), ndt, seed) for r in range(world)], op, ndt))
            else:
                check(x, mine)  # untouched
    for name, (edt, ndt) in BYTE_DTYPES.items():
        seed += 1
        root = seed % world
        # gather into non-contiguous outputs
        mine = data(rank, (2, 3), ndt, seed)
        outs = [ember.zeros(3, 2, dtype=edt).t() for _ in range(world)] if rank == root else None
        dist.gather(t(mine), outs, dst=root)
        if rank == root:
            for r in range(world):
                check(outs[r], data(r, (2, 3), ndt, seed))
        # scatter from root into a non-contiguous output
        pieces = [data(100 + r, (2, 3), ndt, seed) for r in range(world)]
        out = ember.zeros(3, 2, dtype=edt).t()
        dist.scatter(out, [t(p) for p in pieces] if rank == root else None, src=root)
        check(out, pieces[rank])
    # async rooted collectives, several in flight
    a, b = ember.full((4,), float(rank)), ember.zeros(4)
    w1 = dist.reduce(a, dst=world - 1, async_op=True)
    w2 = dist.scatter(b, [ember.full((4,), float(r)) for r in range(world)] if rank == 0 else None, src=0,
                      async_op=True)
    w2.wait()
    w1.wait()
    if rank == world - 1:
        check(a, np.full(4, sum(range(world)), np.float32))
    check(b, np.full(4, rank, np.float32))
    # empty tensors
    e = ember.zeros(0)
    dist.reduce(e, dst=0)
    dist.gather(e, [ember.zeros(0) for _ in range(world)] if rank == 0 else None, dst=0)


def all_to_all_part(rank, world):
    for name, (edt, ndt) in BYTE_DTYPES.items():
        # equal splits along dim 0
        ins = [data(r, (2 * world, 3), ndt, 7) for r in range(world)]
        out = ember.zeros(2 * world, 3, dtype=edt)
        dist.all_to_all_single(out, t(ins[rank]))
        check(out, np.concatenate([ins[r][2 * rank:2 * rank + 2] for r in range(world)]))
    # unequal split sizes (some zero): rank r sends (r + j) % 3 rows to rank j
    split = [[(r + j) % 3 for j in range(world)] for r in range(world)]
    ins = [data(r, (sum(split[r]), 2), np.float64, 8) for r in range(world)]
    out_rows = [split[j][rank] for j in range(world)]
    out = ember.zeros(sum(out_rows), 2, dtype=ember.float64)
    dist.all_to_all_single(out, t(ins[rank]), output_split_sizes=out_rows, input_split_sizes=split[rank])
    want = [ins[j][sum(split[j][:rank]):sum(split[j][:rank + 1])] for j in range(world)]
    check(out, np.concatenate(want))
    # the output is the input itself (equal splits): the input is read before it is written
    same = t(np.arange(2.0 * world) + 10 * rank)
    dist.all_to_all_single(same, same)
    check(same, np.concatenate([np.arange(2.0 * rank, 2.0 * rank + 2) + 10 * r for r in range(world)]))
    # all_to_all: tensors of different sizes, non-contiguous outputs
    ins = [[data(10 * r + j, (j + 1, r + 1), np.int64, 9) for j in range(world)] for r in range(world)]
    outs = [ember.zeros(rank + 1, j + 1, dtype=ember.int64) if j % 2 else
            ember.zeros(j + 1, rank + 1, dtype=ember.int64).t() for j in range(world)]
    dist.all_to_all(outs, [t(x) for x in ins[rank]])
    for j in range(world):
        check(outs[j], ins[j][rank])


def p2p_part(rank, world):
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    # a ring with isend/irecv (posted in any order, nothing deadlocks)
    got = ember.zeros(3, 4, dtype=ember.float64)
    wr = dist.irecv(got, src=prv)
    ws = dist.isend(t(data(rank, (3, 4), np.float64, 11)), dst=nxt)
    ws.wait()
    wr.wait()
    check(got, data(prv, (3, 4), np.float64, 11))
    # tags: two messages, received in the other order; a non-contiguous recv target
    if rank == 0:
        dist.isend(ember.full((2,), 1.0), dst=1, tag=1)
        w = dist.isend(ember.full((2,), 2.0), dst=1, tag=2)
        w.wait(datetime.timedelta(seconds=10))
    elif rank == 1:
        b2, b1 = ember.zeros(2, 2).t()[0], ember.zeros(2)
        dist.recv(b2, src=0, tag=2)
        dist.recv(b1, src=0, tag=1)
        check(b1, np.full(2, 1.0, np.float32))
        check(b2, np.full(2, 2.0, np.float32))
    # recv from any rank returns the sender's global rank
    if rank == world - 1:
        seen = set()
        for _ in range(world - 1):
            b = ember.zeros(1, dtype=ember.int32)
            src = dist.recv(b, tag=5)
            assert int(b.item()) == src * 10, (src, b)
            seen.add(src)
        assert seen == set(range(world - 1))
    else:
        dist.send(ember.full((1,), rank * 10, dtype=ember.int32), dst=world - 1, tag=5)
    # batch_isend_irecv both ways round the ring
    a, b = ember.zeros(5, dtype=ember.int64), ember.zeros(5, dtype=ember.int64)
    ops = [dist.P2POp(dist.isend, ember.full((5,), rank, dtype=ember.int64), nxt),
           dist.P2POp(dist.isend, ember.full((5,), rank + 100, dtype=ember.int64), prv, tag=1),
           dist.P2POp(dist.irecv, a, prv), dist.P2POp(dist.irecv, b, nxt, tag=1)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    check(a, np.full(5, prv, np.int64))
    check(b, np.full(5, nxt + 100, np.int64))
    # in a subgroup, with group_dst / group_src
    cur, _ = dist.new_subgroups(2)
    me = dist.get_rank(cur)
    x = ember.full((2,), float(rank))
    if me == 0:
        dist.send(x, group_dst=1, group=cur)
    else:
        assert dist.recv(x, group_src=0, group=cur) == rank - 1  # a global rank
        check(x, np.full(2, rank - 1, np.float32))
    dist.destroy_process_group(cur)
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=10))
    dist.monitored_barrier(wait_all_ranks=True)


def objects_part(rank, world):
    objs = [{"rank": r, "payload": list(range(r * 7))} for r in range(world)]
    got = [None] * world
    dist.all_gather_object(got, objs[rank])
    assert got == objs
    lst = ["from", 1, {"x": (2, 3)}, None] if rank == 1 else [None] * 4
    dist.broadcast_object_list(lst, src=1)
    assert lst == ["from", 1, {"x": (2, 3)}, None]
    out = [None]
    dist.scatter_object_list(out, [("to", r, "x" * r * 50) for r in range(world)] if rank == 0 else None, src=0)
    assert out == [("to", rank, "x" * rank * 50)]
    gathered = [None] * world if rank == world - 1 else None
    dist.gather_object(("g", rank), gathered, dst=world - 1)
    if rank == world - 1:
        assert gathered == [("g", r) for r in range(world)]
    # send_object_list / recv_object_list (from any rank) round the ring
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    if rank % 2 == 0:
        dist.send_object_list([rank, {"k": "v" * rank}], dst=nxt)
        lst = [None, None]
        assert dist.recv_object_list(lst, src=prv) == prv
    else:
        lst = [None, None]
        assert dist.recv_object_list(lst) == prv
        dist.send_object_list([rank, {"k": "v" * rank}], dst=nxt)
    assert lst == [prv, {"k": "v" * prv}]
    cur, _ = dist.new_subgroups(2)
    got = [None, None]
    dist.all_gather_object(got, rank, group=cur)
    assert got == dist.get_process_group_ranks(cur)
    dist.destroy_process_group(cur)


def bad_inputs_part(rank, world):
    """Every rank makes the same mistake: all raise before anything is queued."""
    x = ember.zeros(4)
    raises(RuntimeError, "reduce: invalid dst rank", dist.reduce, x, dst=world)
    raises(RuntimeError, "scatter: invalid src rank", dist.scatter, x, None, src=world + 3)
    if rank == 0:
        raises(RuntimeError, "gather: argument `gather_list` has 1 tensors", dist.gather, x, [x], dst=0)
        raises(RuntimeError, "scatter: argument `scatter_list` has 1", dist.scatter, x, [x], src=0)
    else:
        raises(ValueError, "gather: argument `gather_list` must NOT be specified", dist.gather, x, [x], dst=0)
        raises(ValueError, "scatter: argument `scatter_list` must NOT", dist.scatter, x, [x], src=0)
    raises(RuntimeError, "gather: invalid tensor size in gather_list[1]", dist.gather, x,
           [ember.zeros(4), ember.zeros(5)] + [ember.zeros(4)] * (world - 2), dst=rank)
    raises(RuntimeError, "all_to_all_single: input_split_sizes sum to", dist.all_to_all_single,
           ember.zeros(4 * world), ember.zeros(4 * world), None, [1] * world)
    raises(RuntimeError, "all_to_all_single: output_split_sizes has 1 entries", dist.all_to_all_single,
           ember.zeros(4 * world), ember.zeros(4 * world), [4 * world], None)
    raises(RuntimeError, "cannot be split into", dist.all_to_all_single, ember.zeros(world + 1), ember.zeros(world + 1))
    raises(RuntimeError, "all_to_all: expected one tensor per rank", dist.all_to_all, [x], [x])
    raises(ValueError, "send: rank", dist.send, x, dst=rank)
    raises(RuntimeError, "recv: invalid src rank", dist.recv, x, src=world)
    raises(ValueError, "send: tag must be non-negative", dist.send, x, dst=(rank + 1) % world, tag=-1)
    raises(TypeError, "reduce: unsupported dtype int16", dist.reduce, ember.zeros(2, dtype=ember.int16), dst=0)
    raises(ValueError, "all_gather_object: object_list has 1 entries", dist.all_gather_object, [None], 1)


def monitored_failure_part(rank, world):
    """Last (it breaks its group): the highest ranks skip a monitored_barrier; rank 0 names them."""
    g = dist.new_group(list(range(world)))
    missing = [world - 1] if world == 2 else [world - 2, world - 1]
    if rank in missing:
        return
    t0 = time.monotonic()
    try:
        dist.monitored_barrier(g, timeout=datetime.timedelta(seconds=1), wait_all_ranks=world > 2)
    except RuntimeError as e:
        msg = str(e)
    else:
        raise AssertionError("monitored_barrier did not raise")
    assert time.monotonic() - t0 < 15
    if rank == 0:
        who = "rank 1" if world == 2 else "ranks 2, 3"
        assert f"monitored_barrier: {who} failed to pass monitored_barrier in 1000 ms" in msg, msg
    else:
        assert "monitored_barrier: rank 1 got no answer from rank 0" in msg, msg


def short_main(rank, world, store):
    """A redis rendezvous: a subgroup and the default group, both destroyed."""
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world, timeout=30)
    g = dist.new_group([1])
    x = ember.full((3,), float(rank))
    dist.all_reduce(x, group=g)  # a no-op on rank 0
    check(x, np.full(3, rank, np.float32))
    # a forked child (a DataLoader worker) dropping the groups neither hangs nor crashes
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            del g  # on rank 1 the last reference: ~ProcessGroup runs in the child
            code = 0 if not dist.is_initialized() else 2  # the child forgot the groups
        finally:
            os._exit(code)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.02)
    else:
        os.kill(pid, 9)
        raise AssertionError("the forked child hung")
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    dist.destroy_process_group()
    print(f"rank {rank}: done", flush=True)


def rank_main(rank, world, store):
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world, timeout=30)
    for part in (groups_part, rooted_part, all_to_all_part, p2p_part, objects_part, bad_inputs_part):
        part(rank, world)
        print(f"rank {rank}: {part.__name__} ok", flush=True)
    dist.barrier()
    monitored_failure_part(rank, world)
    dist.destroy_process_group()
    print(f"rank {rank}: done", flush=True)


# ----------------------------------------------------------------- the tests

def run_ranks(world, store, *extra):
    outs = launch.run_ranks(lambda r: [os.path.abspath(__file__), r, world, store, *extra], world,
                            dict(os.environ, OMP_NUM_THREADS="1"), WAIT)
    for r, (code, out) in enumerate(outs):
        assert code == 0 and f"rank {r}: done" in out, f"rank {r} exited with {code}:\n{out}"


@pytest.mark.parametrize("world", [2, 4])
def test_groups_and_collectives_match_numpy(tmp_path, world):
    run_ranks(world, f"file://{tmp_path}/store")
    # every group removed the store keys it wrote once destroyed (the monitored_barrier
    # group whose members never all arrived included: they had all connected)
    left = os.listdir(f"{tmp_path}/store")
    assert left == [], left


def test_redis_store_keys_removed(redis_server):
    run_ranks(2, f"redis://127.0.0.1:{redis_server}", "short")
    with socket.create_connection(("127.0.0.1", redis_server), timeout=5) as c:
        c.sendall(b"*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n")
        assert c.recv(4096) == b"*0\r\n"  # no key left


# --- in this process, on a group of one: argument checks ---

@pytest.fixture
def group1(tmp_path):
    if dist.is_initialized():
        dist.destroy_process_group()
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/one", rank=0, world_size=1, timeout=10)
    yield
    dist.destroy_process_group()


def test_group_of_one(group1):
    x = ember.arange(6.0).reshape(2, 3)
    dist.reduce(x, dst=0, op=dist.ReduceOp.MAX)
    check(x, np.arange(6.0, dtype=np.float32).reshape(2, 3))
    outs = [ember.zeros(2, 3)]
    dist.gather(x, outs)
    check(outs[0], x.numpy())
    y = ember.zeros(3, 2).t()
    dist.scatter(y, [x])
    check(y, x.numpy())
    o = ember.zeros(6)
    dist.all_to_all_single(o, ember.arange(6.0), [6], [6])
    check(o, np.arange(6.0, dtype=np.float32))
    g = dist.new_group()
    assert dist.get_process_group_ranks(g) == [0] and dist.get_backend(g) == "gloo"
    lst = [None]
    dist.all_gather_object(lst, {"a": [1, 2]}, group=g)
    assert lst == [{"a": [1, 2]}]
    dist.monitored_barrier(g)
    dist.destroy_process_group(g)
    raises(RuntimeError, "barrier: the process group was destroyed", dist.barrier, group=g)
    dist.barrier()  # the default group lives on


def test_async_rooted_collectives_futures_hold_their_outputs(group1):
    """Work.get_future()/result() of reduce, gather, scatter, all_to_all(_single): the
    tensors the collective wrote, as torch's."""
    x = ember.arange(4.0)
    assert dist.reduce(x, dst=0, async_op=True).get_future().wait() == [x]
    outs = [ember.zeros(4)]
    assert dist.gather(x, outs, async_op=True).get_future().wait() == outs
    y = ember.zeros(4)
    assert dist.scatter(y, [x], async_op=True).result() == [y]
    check(y, np.arange(4.0, dtype=np.float32))
    o = ember.zeros(4)
    fut = dist.all_to_all_single(o, x, async_op=True).get_future()
    assert fut.wait() == [o]
    lo = [ember.zeros(4)]
    assert dist.all_to_all(lo, [x], async_op=True).get_future().wait() == lo
    check(lo[0], np.arange(4.0, dtype=np.float32))


def test_argument_checks(group1):
    x = ember.zeros(3)
    raises(ValueError, "give either dst or group_dst", dist.reduce, x, dst=0, group_dst=0)
    raises(ValueError, "reduce: missing the destination rank", dist.reduce, x)
    raises(ValueError, "recv: rank 0 cannot receive from itself", dist.recv, x, src=0)
    raises(RuntimeError, "gather: argument `gather_list` has 0 tensors", dist.gather, x, [], dst=0)
    raises(TypeError, "tag must be an int", dist.send, x, dst=0, tag="a")
    raises(ValueError, "P2POp: op must be", dist.P2POp, dist.send, x, 0)
    raises(ValueError, "batch_isend_irecv: the list of P2POp is empty", dist.batch_isend_irecv, [])
    raises(ValueError, "new_group: use_local_synchronization", dist.new_group, [0], use_local_synchronization=True)
    raises(ValueError, "new_group: unknown backend", dist.new_group, [0], backend="nccl")
    raises(TypeError, "new_group: ranks must be a list of ints", dist.new_group, "0")
    raises(ValueError, "scatter_object_list: scatter_object_output_list has 0", dist.scatter_object_list, [], [1])
    raises(ValueError, "gather_object: argument `object_gather_list` must be specified", dist.gather_object, 1)
    raises(ValueError, "monitored_barrier: timeout must be positive", dist.monitored_barrier, timeout=0)
    raises(TypeError, "all_to_all_single: output_split_sizes must be a list", dist.all_to_all_single, x, x, "a")
    raises(ValueError, "all_to_all: output_tensor_list[0] has dtype int64", dist.all_to_all,
           [ember.zeros(1, dtype=ember.int64)], [x])
    raises(RuntimeError, "several elements in one memory location", dist.recv, ember.zeros(1).expand(3), src=None)


def test_before_init():
    if dist.is_initialized():
        dist.destroy_process_group()
    raises(ValueError, "new_group: the default process group has not been initialized", dist.new_group, [0])


if __name__ == "__main__":
    (short_main if sys.argv[4:] == ["short"] else rank_main)(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
