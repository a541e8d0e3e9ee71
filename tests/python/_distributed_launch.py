"""Starting the ranks of a multi-process test: one `python <worker> ...` process a rank, all
waited for within one deadline, and every one still running then killed, so that a rank that
hangs fails the test instead of hanging it. Used by the distributed, DDP and SyncBatchNorm
tests."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker_env():
    """os.environ with the ember package this process imported, and this folder, first on
    PYTHONPATH, and one OpenMP thread a rank."""
    import ember
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg, HERE] + [p for p in [env.get("PYTHONPATH")] if p])
    env["OMP_NUM_THREADS"] = "1"
    return env


def wait_all(procs, timeout):
    """p.communicate() of every process in procs, all within `timeout` seconds (at least 1 s
    each); the ones still running then, or when waiting raised, are killed. Returns the
    communicate() results in order (subprocess.TimeoutExpired when the deadline passed)."""
    deadline = time.monotonic() + timeout
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=max(1.0, deadline - time.monotonic())))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return outs


def run_ranks(argv, world, env, timeout):
    """Runs `python *argv(rank)` for rank in range(world), at the same time, with env (a dict,
    or env(rank) -> dict); stdout and stderr together. Returns [(returncode, output)] by rank."""
    procs = [subprocess.Popen([sys.executable, *map(str, argv(rank))],
                              env=env(rank) if callable(env) else env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for rank in range(world)]
    outs = wait_all(procs, timeout)
    return [(p.returncode, out) for p, (out, _) in zip(procs, outs)]


def run_workers(tmp_path, worker, mode, world, timeout=90, **opts):
    """Runs `world` ranks of `worker` (MODE RANK WORLD RDZV_DIR OUT_FILE JSON_OPTIONS, as
    _ddp_worker.start reads them) and returns each rank's saved .npz as a dict; fails the test
    with the ranks' output when any exits non-zero."""
    import json

    import numpy as np
    rdzv = tmp_path / "rdzv"
    rdzv.mkdir(exist_ok=True)
    outs = [tmp_path / f"{mode}{r}.npz" for r in range(world)]
    ranks = run_ranks(lambda r: [worker, mode, r, world, rdzv, outs[r], json.dumps(opts)],
                      world, worker_env(), timeout)
    assert [code for code, _ in ranks] == [0] * world, [log for _, log in ranks]
    return [dict(np.load(o)) for o in outs]


def ranks_match_torch(program, tmp_path, world, timeout, rtol=1e-6, atol=0.0):
    """Runs `python program LIB RANK WORLD STORE OUT` on `world` ranks of ember and then of torch
    (each rank saves a .npz of named arrays and prints "rank R: done") and checks that every
    rank's arrays have the same names, shapes, dtypes and values (to rtol/atol) in both."""
    import numpy as np
    got = {}
    for lib in ("ember", "torch"):
        outs = run_ranks(
            lambda r: [program, lib, r, world, f"file://{tmp_path}/{lib}store", tmp_path / f"{lib}{r}.npz"],
            world, worker_env(), timeout)
        for r, (code, out) in enumerate(outs):
            assert code == 0 and f"rank {r}: done" in out, f"{lib} rank {r} exited with {code}:\n{out}"
        got[lib] = [dict(np.load(tmp_path / f"{lib}{r}.npz")) for r in range(world)]
    for r in range(world):
        e, t = got["ember"][r], got["torch"][r]
        assert sorted(e) == sorted(t)
        for k in t:
            assert e[k].shape == t[k].shape and e[k].dtype == t[k].dtype, k
            np.testing.assert_allclose(e[k], t[k], rtol=rtol, atol=atol, err_msg=f"rank {r}: {k}")
