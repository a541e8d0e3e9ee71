"""ember.multiprocessing: share_memory_, is_shared, tensors through Queues and process
arguments (fork and spawn) as views of the same memory, lifetimes and leaks.

Every wait has a timeout (and each test runs under an alarm) so a bug fails instead of hanging.
"""
import gc
import os
import pickle
import signal
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.multiprocessing as mp
from multiprocessing.reduction import ForkingPickler

import _mp_worker

TIMEOUT = 20
fork = mp.get_context("fork")
spawn = mp.get_context("spawn")


@pytest.fixture(autouse=True)
def alarm(hang_alarm):
    """Every test here fails after 60 s instead of hanging (conftest.hang_alarm)."""


def start(ctx, target, *args):
    p = ctx.Process(target=target, args=args, daemon=True)
    p.start()
    return p


def finish(p):
    p.join(TIMEOUT)
    if p.is_alive():
        p.kill()
        pytest.fail("child process did not finish")
    assert p.exitcode == 0


def roundtrip(obj):
    """What a Queue does to obj (ForkingPickler), without another process."""
    return pickle.loads(ForkingPickler.dumps(obj))


def own_memfds():
    """(fds, mapped inodes) of ember's shared memory held by this process."""
    fds = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:ember-shared"):
                fds.add(os.stat(f"/proc/self/fd/{fd}").st_ino)
        except OSError:
            pass
    with open("/proc/self/maps") as f:
        maps = {int(line.split()[4]) for line in f if "memfd:ember-shared" in line}
    return fds, maps


def inode_of(t):
    return os.fstat(ember._C._share_for_pickle(t)[1]).st_ino


def shm_names():
    # multiprocessing's own semaphores (sem.mp-*) come and go; ember creates no names at all.
    return {n for n in os.listdir("/dev/shm") if not n.startswith("sem.")}


# ---------------------------------------------------------------- share_memory_ in one process

def test_share_memory_in_place_keeps_views_and_version():
    t = ember.arange(12.0).reshape(3, 4)
    views = [t[1], t.t(), t[:, 1:3], t.view(12)]
    before = [v.tolist() for v in views]
    version = t._version
    assert not t.is_shared() and not views[0].is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and all(v.is_shared() for v in views)
    assert [v.tolist() for v in views] == before and t._version == version
    t.add_(1)  # views see writes through the moved storage
    assert views[0].tolist() == [5.0, 6.0, 7.0, 8.0] and views[3][11].item() == 12.0
    ptr = t.data_ptr()
    assert t.share_memory_() is t and t.data_ptr() == ptr  # already shared: nothing moves


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int64, ember.int32, ember.uint8,
                                   ember.bool])
def test_share_memory_dtypes_and_sizes(dtype):
    for shape in [(), (0,), (3, 0), (5,), (2, 3, 4)]:
        t = (ember.arange(max(1, int(np.prod(shape)))) % 3)[: int(np.prod(shape))].reshape(shape).to(dtype)
        ref = t.clone()
        t.share_memory_()
        assert t.is_shared() and t.shape == ref.shape and t.dtype == dtype
        assert t.tolist() == ref.tolist()


def test_share_memory_keeps_autograd_working():
    w = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    y = (w * w).sum()  # mul saves w itself: its storage is the one that moves
    w.share_memory_()
    assert w.requires_grad and w.is_leaf and w.is_shared()
    y.backward()  # (sharing did not bump the version the saved tensor checks)
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.detach().numpy(), rtol=1e-12)
    y2 = (w * w).sum()
    with ember.no_grad():
        w.sub_(0.1 * w.grad)  # an in-place write after sharing bumps it as usual
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y2.backward()


def test_share_memory_copies_borrowed_memory_like_torch():
    a = np.arange(6, dtype=np.float32)
    t = ember.from_numpy(a)
    t.share_memory_()
    t.add_(1)
    assert a.tolist() == list(range(6)) and t.tolist() == [float(i + 1) for i in range(6)]


def test_numpy_export_stays_valid_after_share_memory():
    t = ember.arange(1000.0)
    arr = t.numpy()
    t.share_memory_()  # the array keeps the old (private) buffer alive: never dangles
    _ = [ember.empty(1000) for _ in range(10)]  # (reuse of a freed buffer would show here)
    assert arr.tolist() == list(range(1000))


def test_ordinary_pickle_still_copies():
    t = ember.arange(5.0).share_memory_()
    u = pickle.loads(pickle.dumps(t))
    assert not u.is_shared() and not u._shares_storage(t)
    u.add_(1)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_forking_pickler_shares_views_of_one_storage():
    base = ember.arange(20.0).reshape(4, 5)
    a, b = base[1:3, ::2], base.t()
    ra, rb, rbase = roundtrip((a, b, base))
    assert base.is_shared()  # moved in place by pickling, as torch does
    for r, o in [(ra, a), (rb, b), (rbase, base)]:
        assert r.shape == o.shape and r.stride() == o.stride() and r.storage_offset() == o.storage_offset()
        assert r.tolist() == o.tolist() and r._shares_storage(base)
    ra.fill_(-1)
    assert base[1, 0].item() == -1 and base[1, 1].item() == 6


def test_requires_grad_rules_match_torch():
    leaf = ember.randn(3, requires_grad=True)
    r = roundtrip(leaf)
    assert r.requires_grad and r.is_leaf and r._shares_storage(leaf)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ForkingPickler.dumps(leaf * 2)
    assert not roundtrip((leaf * 2).detach()).requires_grad
    p = ember.nn.Parameter(ember.ones(2))
    rp = roundtrip(p)
    assert type(rp) is ember.nn.Parameter and rp.requires_grad and rp._shares_storage(p)
    lin = ember.nn.Linear(3, 2).share_memory()
    assert all(q.is_shared() for q in lin.parameters())


def test_received_views_are_checked_against_the_storage():
    t = ember.zeros(4)
    whole = ember._C._shared_storage_from_fd(os.dup(ember._C._share_for_pickle(t)[1]), 16)
    assert whole._shares_storage(t)  # (this process maps it already: the same storage)
    with pytest.raises(ValueError, match="shared tensor"):
        ember._C._shared_view(whole, ember.float32, [5], [1], 0)
    with pytest.raises(ValueError, match="shared tensor"):
        ember._C._shared_view(whole, ember.float32, [2], [1], -1)
    fd = os.memfd_create("small")
    with pytest.raises(ValueError, match="fewer than"):
        ember._C._shared_storage_from_fd(fd, 100)  # (fd closed by the call)


def test_sharing_strategy_api_and_reexports():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    mp.set_sharing_strategy("file_system")
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("nope")
    import multiprocessing
    assert mp.Queue is multiprocessing.Queue and mp.get_context is multiprocessing.get_context
    assert mp.cpu_count() >= 1 and "spawn" in mp.get_all_start_methods()
    assert ember.multiprocessing is mp


def test_import_ember_does_not_import_multiprocessing():
    code = ("import sys, ember; assert 'multiprocessing' not in sys.modules\n"
            "import multiprocessing.reduction as r\n"
            "assert r.ForkingPickler._extra_reducers[ember.Tensor].__module__ == 'ember._shared_memory'\n"
            "assert r.ForkingPickler._extra_reducers[ember.nn.Parameter] is not None\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=TIMEOUT)


# ---------------------------------------------------------------- across processes

def test_fork_queue_both_directions():
    to_child, to_parent = fork.Queue(), fork.Queue()

    def child():
        got = [to_child.get(timeout=TIMEOUT) for _ in range(2)]
        for t in got[0]:
            if t.numel():
                t.fill_(1)
        mine = ember.zeros(3).share_memory_()
        to_parent.put(("mine", mine))
        assert to_child.get(timeout=TIMEOUT) == "written"
        to_parent.put(("saw", mine.tolist(), got[1].tolist()))

    p = start(fork, child)
    base = ember.zeros(4, 6)
    sent = [base[:, 1:4:2], ember.zeros((), dtype=ember.int64), ember.zeros(0, 3), ember.zeros(5, dtype=ember.uint8),
            ember.zeros(2, 2, dtype=ember.bool), ember.zeros(3, dtype=ember.float64).t()]
    to_child.put(sent)
    late = ember.arange(3)
    to_child.put(late)  # not shared when put: moved to shared memory by the queue
    tag, mine = to_parent.get(timeout=TIMEOUT)
    assert tag == "mine" and mine.is_shared()
    mine.add_(7)  # parent writes into the child's tensor
    late.add_(10)  # and into one it sent earlier
    to_child.put("written")
    tag, seen_mine, seen_late = to_parent.get(timeout=TIMEOUT)
    finish(p)
    assert seen_mine == [7.0, 7.0, 7.0] and seen_late == [10, 11, 12]
    assert base[:, 1].tolist() == [1.0] * 4 and base[:, 3].tolist() == [1.0] * 4 and base[:, 0].tolist() == [0.0] * 4
    assert base[:, 2].sum().item() == 0
    for t in sent:
        assert t.is_shared() and (t.numel() == 0 or t.all().item())


def test_fork_process_args():
    shared = ember.zeros(4).share_memory_()
    private = ember.zeros(4)

    def child(s, q):
        s.add_(1)
        q.add_(1)

    p = start(fork, child, shared, private)
    finish(p)
    # As in torch: a shared tensor is shared with a forked child; any other is the child's
    # copy-on-write copy.
    assert shared.tolist() == [1.0] * 4 and private.tolist() == [0.0] * 4


def test_round_trip_comes_back_as_the_same_storage():
    inq, outq = fork.Queue(), fork.Queue()
    p = start(fork, _mp_worker.queue_echo, inq, outq)
    t = ember.arange(6.0)
    inq.put(t[2:])
    back = outq.get(timeout=TIMEOUT)
    inq.put(None)
    finish(p)
    assert back._shares_storage(t) and back.storage_offset() == 2
    assert t.tolist() == [0.0, 1.0, 4.0, 6.0, 8.0, 10.0]


def test_spawn_args_and_queue():
    out = spawn.Queue()
    base = ember.arange(10.0)
    a, b = base[:5], base[5:]
    c = ember.zeros(3, dtype=ember.bool)
    done = spawn.Event()
    p = start(spawn, _mp_worker.write_args, out, done, a, b, c)
    seen = out.get(timeout=TIMEOUT)
    tag, mine = out.get(timeout=TIMEOUT)
    done.set()
    finish(p)
    assert seen == ("seen", [0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0], ember.bool, True, True, True)
    assert base.tolist() == [100.0, 101.0, 102.0, 103.0, 104.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert c.tolist() == [True] * 3
    assert mine.tolist() == [0, 1, 2, 3] and mine.dtype == ember.int32 and mine.is_shared()
    mine.add_(1)  # the child is gone; its tensor lives on in the parent


def test_spawn_queue_echo():
    inq, outq = spawn.Queue(), spawn.Queue()
    p = start(spawn, _mp_worker.queue_echo, inq, outq)
    t = ember.ones(2, 3)
    inq.put(t)
    back = outq.get(timeout=TIMEOUT)
    inq.put(None)
    finish(p)
    assert t.tolist() == [[2.0] * 3] * 2 and back._shares_storage(t)


def test_memory_is_released_when_a_killed_child_held_it():
    names = shm_names()
    fds0, maps0 = own_memfds()
    to_child, ready = fork.Queue(), fork.Queue()

    def child():
        t = to_child.get(timeout=TIMEOUT)
        t.fill_(3)
        ready.put("holding")
        signal.pause()  # holds the tensor until killed

    p = start(fork, child)
    t = ember.zeros(1 << 16)
    to_child.put(t)
    assert ready.get(timeout=TIMEOUT) == "holding"
    ino = inode_of(t)
    fds, maps = own_memfds()
    assert ino in fds and ino in maps
    os.kill(p.pid, signal.SIGKILL)
    p.join(TIMEOUT)
    assert p.exitcode == -signal.SIGKILL
    assert t.sum().item() == 3 * (1 << 16)  # the memory outlives the killed child
    del t
    gc.collect()
    fds, maps = own_memfds()
    # Nothing holds the memfd any more (the child is gone, this process closed and unmapped
    # it, multiprocessing's fd sharer kept no copy): the kernel has freed it.
    assert ino not in fds and ino not in maps
    assert not fds - fds0 and not maps - maps0
    assert shm_names() <= names  # and nothing was ever named in /dev/shm


def test_many_tensors_release_their_fds():
    fds0, maps0 = own_memfds()
    inq, outq = fork.Queue(), fork.Queue()
    p = start(fork, _mp_worker.queue_echo, inq, outq)
    for i in range(50):
        inq.put(ember.full((100,), float(i)))
        assert outq.get(timeout=TIMEOUT)[0].item() == 2.0 * i
    inq.put(None)
    finish(p)
    gc.collect()
    fds, maps = own_memfds()
    assert not fds - fds0 and not maps - maps0


# ---------------------------------------------------------------- spawn()

def test_spawn_runs_fn_in_each_process():
    out = ember.zeros(2)
    assert mp.spawn(_mp_worker.spawn_fn, args=(out, -1), nprocs=2, join=True) is None
    assert out.tolist() == [1.0, 2.0]


def test_spawn_reports_the_failing_process():
    ctx = mp.start_processes(_mp_worker.spawn_fn, args=(ember.zeros(2), 1), nprocs=2, join=False,
                             start_method="fork")
    with pytest.raises(mp.ProcessRaisedException, match="process 1 fails on purpose") as info:
        while not ctx.join(TIMEOUT):
            pass
    assert info.value.error_index == 1 and "Traceback" in str(info.value)

    def die(i):
        os._exit(3 if i == 0 else 0)

    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        mp.start_processes(die, nprocs=1, start_method="fork")
