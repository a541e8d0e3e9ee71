"""ember.distributed on Gloo: 2 and 4 processes on loopback (the ranks run
_dist_worker.py), file://, env:// and redis:// rendezvous (tcp://: test_tcp_store.py), every collective checked against
NumPy, async Work, failures (a rank that dies), and argument checks (in this process,
on a group of one)."""
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import ember
import ember.distributed as dist
import _distributed_launch as launch

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_dist_worker.py")
WAIT = 60  # seconds any subprocess may take before the test fails instead of hanging


def run_ranks(scenario, world, init_method, env=None, timeout_s=20, per_rank_env=None):
    """Starts `world` worker processes and returns their (returncode, output) by rank."""
    def rank_env(rank):
        e = dict(os.environ, TEST_DIST_TIMEOUT=str(timeout_s), OMP_NUM_THREADS="1", **(env or {}))
        if per_rank_env:
            e.update(per_rank_env(rank))
        return e
    return launch.run_ranks(lambda r: [WORKER, scenario, r, world, init_method], world, rank_env, WAIT)


def assert_all_ok(results):
    for rank, (code, out) in enumerate(results):
        assert code == 0, f"rank {rank} exited with {code}:\n{out}"




@pytest.mark.parametrize("world", [2, 4])
def test_collectives_match_numpy(tmp_path, world):
    assert_all_ok(run_ranks("collectives", world, f"file://{tmp_path}/store"))


@pytest.mark.parametrize("world", [2, 4])
def test_async_work_and_several_in_flight(tmp_path, world):
    assert_all_ok(run_ranks("async", world, f"file://{tmp_path}/store"))


@pytest.mark.parametrize("world", [2, 3])
def test_dead_rank_makes_the_others_raise(tmp_path, world):
    t0 = time.monotonic()
    results = run_ranks("dead", world, f"file://{tmp_path}/store", timeout_s=5)
    assert_all_ok(results)
    for code, out in results[:-1]:
        assert "raised after" in out, out
    # the dead rank's neighbours name it
    named = re.compile(rf"ranks? (\d+, )*{world - 1}(, \d+)* closed the connection")
    assert any(named.search(out) for _, out in results), results
    assert time.monotonic() - t0 < 30


def test_silent_rank_times_out(tmp_path):
    t0 = time.monotonic()
    results = run_ranks("stuck", 2, f"file://{tmp_path}/store", timeout_s=2)
    assert_all_ok(results)
    assert "raised after" in results[0][1]
    seconds = float(results[0][1].split("raised after ")[1].split("s")[0])
    assert 1.5 < seconds < 10, results[0][1]
    assert time.monotonic() - t0 < 30


def test_env_rendezvous_through_file(tmp_path):
    env = {"WORLD_SIZE": "2", "EMBER_RENDEZVOUS": f"file://{tmp_path}/rdzv", "EMBER_RUN_ID": "run-a",
           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}
    assert_all_ok(run_ranks("simple", 2, "env://", env=env, per_rank_env=lambda r: {"RANK": str(r)}))
    # A second run reusing the folder with another run id does not see the first run's keys.
    env["EMBER_RUN_ID"] = "run-b"
    assert_all_ok(run_ranks("simple", 2, "env://", env=env, per_rank_env=lambda r: {"RANK": str(r)}))


def test_redis_rendezvous(redis_server):
    port = redis_server
    assert_all_ok(run_ranks("simple", 2, f"redis://127.0.0.1:{port}", env={"EMBER_RUN_ID": "r1"}))
    # env:// with EMBER_RENDEZVOUS naming the redis server; a new run id, same server.
    env = {"WORLD_SIZE": "2", "EMBER_RENDEZVOUS": f"redis://127.0.0.1:{port}", "EMBER_RUN_ID": "r2"}
    assert_all_ok(run_ranks("simple", 2, "env://", env=env, per_rank_env=lambda r: {"RANK": str(r)}))


# --- in this process: before init, and argument checks on a group of one ---

@pytest.fixture(autouse=True)
def no_default_group():
    # Another test file may have left a group behind; these tests need none.
    if dist.is_initialized():
        dist.destroy_process_group()
    yield


def test_before_init():
    assert dist.is_available() and not dist.is_initialized()
    with pytest.raises(ValueError, match="all_reduce.*not been initialized"):
        dist.all_reduce(ember.ones(3))
    with pytest.raises(ValueError, match="get_rank"):
        dist.get_rank()
    with pytest.raises(ValueError, match="barrier"):
        dist.barrier()


def test_init_errors(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="backend"):
        dist.init_process_group("nccl", init_method=f"file://{tmp_path}", rank=0, world_size=1)
    with pytest.raises(ValueError, match="rank 3 is out of range"):
        dist.init_process_group("gloo", init_method=f"file://{tmp_path}", rank=3, world_size=2)
    with pytest.raises(ValueError, match="unsupported rendezvous"):
        dist.init_process_group("gloo", init_method="udp://127.0.0.1:1", rank=0, world_size=1)
    with pytest.raises(ValueError, match="tcp:// needs host:port"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1", rank=0, world_size=1)
    monkeypatch.delenv("RANK", raising=False)
    with pytest.raises(ValueError, match="RANK"):
        dist.init_process_group("gloo", init_method="env://", world_size=1)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.delenv("EMBER_RENDEZVOUS", raising=False)
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    with pytest.raises(ValueError, match="MASTER_ADDR"):
        dist.init_process_group("gloo")
    # A peer that never comes: the rendezvous gives up after the timeout.
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="rank 0 of 2 could not connect"):
        dist.init_process_group("gloo", init_method=f"file://{tmp_path}/lonely", rank=0, world_size=2, timeout=1)
    assert time.monotonic() - t0 < 15
    assert not dist.is_initialized()


@pytest.fixture
def group1(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/g1", rank=0, world_size=1, timeout=10)
    yield
    dist.destroy_process_group()


def test_group_of_one(group1):
    assert dist.get_rank() == 0 and dist.get_world_size() == 1 and dist.get_backend() == "gloo"
    x = ember.arange(6.0).reshape(2, 3)
    dist.all_reduce(x, op=dist.ReduceOp.AVG)
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
    out = [ember.zeros(2, 3)]
    dist.all_gather(out, x)
    np.testing.assert_array_equal(out[0].numpy(), x.numpy())
    # parameters (leaves that require grad) are written in place, outside autograd
    w = ember.ones(3, 2, requires_grad=True)
    dist.broadcast(w, src=0)
    dist.all_reduce(w.t(), op=dist.ReduceOp.MAX)
    assert w.requires_grad and w.grad_fn is None and w.is_leaf
    with pytest.raises(ValueError, match="twice"):
        dist.init_process_group("gloo", init_method="file:///nonexistent", rank=0, world_size=1)
    # A forked child (a DataLoader worker) has no communication thread: it has no group.
    pid = os.fork()
    if pid == 0:
        os._exit(0 if not dist.is_initialized() else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert dist.is_initialized()


def test_argument_checks(group1):
    f, i = ember.ones(4), ember.ones(4, dtype=ember.int64)
    with pytest.raises(TypeError, match="all_reduce: unsupported dtype int16"):  # as torch's Gloo
        dist.all_reduce(ember.ones(3, dtype=ember.int16))
    with pytest.raises(TypeError, match="all_reduce: ReduceOp.AVG needs a floating"):
        dist.all_reduce(i, op=dist.ReduceOp.AVG)
    with pytest.raises(TypeError, match="all_reduce.*Tensor"):
        dist.all_reduce([1.0])
    with pytest.raises(TypeError, match="all_reduce: op"):
        dist.all_reduce(f, op="sum")
    with pytest.raises(RuntimeError, match="broadcast: invalid src rank 1"):
        dist.broadcast(f, src=1)
    with pytest.raises(RuntimeError, match="broadcast: invalid src rank -1"):
        dist.broadcast(f, src=-1)
    with pytest.raises(RuntimeError, match=r"all_gather: invalid tensor size.*\(expected \(4,\), got \(3,\)\)"):
        dist.all_gather([ember.zeros(3)], f)
    with pytest.raises(ValueError, match="all_gather: tensor_list\\[0\\] has dtype int64"):
        dist.all_gather([ember.zeros(4, dtype=ember.int64)], f)
    with pytest.raises(RuntimeError, match="all_gather: the output list has 2 tensors"):
        dist.all_gather([ember.zeros(4), ember.zeros(4)], f)
    with pytest.raises(RuntimeError, match="all_gather_into_tensor: the output of shape \\(5,\\)"):
        dist.all_gather_into_tensor(ember.zeros(5), f)
    with pytest.raises(ValueError, match="all_gather_into_tensor: output has dtype float64"):
        dist.all_gather_into_tensor(ember.zeros(4, dtype=ember.float64), f)
    with pytest.raises(RuntimeError, match="reduce_scatter: the input list has 2"):
        dist.reduce_scatter(ember.zeros(4), [f, f])
    with pytest.raises(RuntimeError, match="reduce_scatter_tensor: the input of shape \\(4,\\)"):
        dist.reduce_scatter_tensor(ember.zeros(2), f)
    with pytest.raises(TypeError, match="reduce_scatter_tensor: unsupported dtype int16"):
        dist.reduce_scatter_tensor(ember.zeros(4, dtype=ember.int16), ember.zeros(4, dtype=ember.int16))
    with pytest.raises(TypeError, match="all_reduce: ReduceOp.BXOR needs an integer or bool tensor"):
        dist.all_reduce(f, op=dist.ReduceOp.BXOR)
    with pytest.raises(RuntimeError, match="all_reduce: the output tensor of shape \\(3, 4\\) has several"):
        dist.all_reduce(ember.ones(1, 4).expand(3, 4))
    # nothing above reached Gloo: the group still works
    x = ember.ones(3)
    dist.all_reduce(x)
    assert x.numpy().tolist() == [1.0, 1.0, 1.0]


# ---- torch's names: FileStore as a key-value store, GroupMember, ProcessGroup ---------------
def test_file_store_api_as_torch(tmp_path):
    import datetime
    import torch.distributed as tdist
    stores = [dist.FileStore(str(tmp_path / "e"), 1), tdist.FileStore(str(tmp_path / "t"), 1)]
    seen = []
    for s in stores:
        base = s.num_keys()  # torch's FileStore counts one key of its own
        s.set("a", "1")
        s.set("b", b"\x00\xff")
        got = [s.get("a"), s.get("b"), s.add("n", 3), s.add("n", -5), s.get("n"),
               s.check(["a", "n"]), s.check(["a", "zz"]), s.num_keys() - base,
               s.compare_set("a", "1", "2"), s.compare_set("a", "1", "3"),
               s.compare_set("new", "", "v"), s.delete_key("a"), s.num_keys() - base]
        s.append("b", "x")
        got += [s.get("b"), s.multi_get(["n", "new"])]
        s.multi_set(["p", "q"], ["1", b"2"])
        got += [s.get("q")]
        s.wait(["p", "q"])
        s.set_timeout(datetime.timedelta(milliseconds=300))
        got.append(s.timeout)
        with pytest.raises(RuntimeError, match="missing"):
            s.get("missing")
        with pytest.raises(RuntimeError):
            s.wait(["missing"], datetime.timedelta(milliseconds=100))
        with pytest.raises(TypeError):
            s.set("k", 5)
        with pytest.raises(TypeError):
            s.add("n", "x")
        seen.append(got)
    assert seen[0] == seen[1]
    # deleting a key that is not there: False, as torch documents (its FileStore says True)
    assert stores[0].delete_key("a") is False
    with pytest.raises(TypeError, match="FileStore"):
        dist.FileStore(3, 1)


def test_file_store_add_is_atomic_across_processes(tmp_path):
    code = ("import ember.distributed as d, sys\n"
            "s = d.FileStore(sys.argv[1], 2)\n"
            "for _ in range(40): s.add('n', 1)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "kv")],
                              env=dict(os.environ)) for _ in range(2)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert dist.FileStore(str(tmp_path / "kv")).get("n") == b"80"


def test_file_store_rendezvous_and_keys_share_the_folder(tmp_path):
    store = dist.FileStore(str(tmp_path / "shared"), 1)
    store.set("before", "x")
    dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=10)
    try:
        assert store.get("before") == b"x" and dist.get_world_size() == 1
    finally:
        dist.destroy_process_group()
    (tmp_path / "afile").write_text("")
    with pytest.raises(RuntimeError, match="is a file"):
        dist.FileStore(str(tmp_path / "afile")).set("k", "v")


def test_group_member_and_process_group(group1):
    import torch.distributed as tdist
    assert tdist.GroupMember.NON_GROUP_MEMBER == dist.GroupMember.NON_GROUP_MEMBER == -100
    world = dist.GroupMember.WORLD
    assert isinstance(world, dist.ProcessGroup) and dist.group.WORLD is world
    assert (world.rank(), world.size(), world.name()) == (0, 1, "gloo")
    x = ember.arange(4.0)
    work = world.allreduce(x)
    assert isinstance(work, dist.Work) and work.wait() and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    world.allreduce([x], dist.ReduceOp.MAX).wait()
    world.broadcast(x, 0).wait()
    world.barrier().wait()
    dist.all_reduce(x, group=world)  # a ProcessGroup where a collective takes group=
    assert dist.get_rank(world) == 0 and dist.get_world_size(dist.group.WORLD) == 1
    with pytest.raises(TypeError, match="ProcessGroup.allreduce"):
        world.allreduce("x")
    with pytest.raises(TypeError, match="one tensor"):
        world.allreduce([x, x])
    with pytest.raises(RuntimeError, match="invalid src rank 5"):
        world.broadcast(x, 5).wait()
    with pytest.raises(TypeError):
        dist.ProcessGroup()


def test_backend_availability_as_torch():
    import torch.distributed as tdist
    # a CPU build with Gloo: ember's answers are torch's CPU build's
    for name in ("is_gloo_available", "is_mpi_available", "is_nccl_available", "is_available"):
        assert getattr(dist, name)() == getattr(tdist, name)(), name
    assert dist.is_gloo_available() and not dist.is_nccl_available() and not dist.is_mpi_available()
    with pytest.raises(TypeError):
        dist.is_gloo_available(1)
    assert dist.GroupMember.WORLD is None  # no group before init_process_group
