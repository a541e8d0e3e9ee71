"""python -m ember.distributed.run: the environment it gives the ranks, the rendezvous folder,
-m modules, several "machines" through a real redis-server, and what happens when a rank dies.
Every subprocess runs under a timeout."""
import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

import ember

LAUNCH = [sys.executable, "-m", "ember.distributed.run"]

ENV_SCRIPT = """
import json, os, sys
keys = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR",
        "MASTER_PORT", "EMBER_RENDEZVOUS", "EMBER_RUN_ID"]
env = {k: os.environ.get(k) for k in keys}
env["argv"] = sys.argv[1:]
if os.environ.get("EMBER_RENDEZVOUS", "").startswith("file://"):
    env["rdzv_exists"] = os.path.isdir(os.environ["EMBER_RENDEZVOUS"][len("file://"):])
import ember
import ember.distributed as dist
dist.init_process_group("gloo", timeout=20)           # env://
t = ember.ones(2) * (dist.get_rank() + 1)
dist.all_reduce(t)
env["sum"] = t.tolist()
out = os.environ["OUT_DIR"]
with open(os.path.join(out, f"rank{dist.get_rank()}.json"), "w") as f:
    json.dump(env, f)
dist.destroy_process_group()
"""

# Trains a small DDP model; rank VICTIM kills itself at step 3.
KILL_SCRIPT = """
import os, sys
import ember
import ember.distributed as dist
from ember import nn
dist.init_process_group("gloo", timeout=5)
rank = dist.get_rank()
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)))
opt = ember.optim.SGD(model.parameters(), lr=0.01)
x, y = ember.randn(16, 4), ember.randn(16, 1)
for step in range(100000):
    if rank == int(sys.argv[1]) and step == 3:
        os.kill(os.getpid(), 9)
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
"""


def _env(tmp_path, **extra):
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg, str(tmp_path)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["OMP_NUM_THREADS"] = "1"
    env["OUT_DIR"] = str(tmp_path)
    env["TMPDIR"] = str(tmp_path)  # the launcher's rendezvous folder goes here
    env.update(extra)
    return env


def _script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def _run(args, tmp_path, timeout=60):
    return subprocess.run(LAUNCH + args, env=_env(tmp_path), capture_output=True, text=True, timeout=timeout)


def _ranks(tmp_path, world):
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(world)]


def test_launcher_environment_and_rendezvous(tmp_path):
    script = _script(tmp_path, "envs.py", ENV_SCRIPT)
    p = _run(["--nproc-per-node", "3", script, "--lr", "0.1", "x"], tmp_path)
    assert p.returncode == 0, p.stderr
    envs = _ranks(tmp_path, 3)
    for r, e in enumerate(envs):
        assert (e["RANK"], e["WORLD_SIZE"], e["LOCAL_RANK"], e["LOCAL_WORLD_SIZE"], e["GROUP_RANK"]) == \
            (str(r), "3", str(r), "3", "0")
        assert (e["MASTER_ADDR"], e["MASTER_PORT"]) == ("127.0.0.1", "29500")
        assert e["argv"] == ["--lr", "0.1", "x"]  # the script's options are not the launcher's
        assert e["rdzv_exists"] and e["sum"] == [6.0, 6.0]
    assert len({e["EMBER_RENDEZVOUS"] for e in envs}) == 1 and len({e["EMBER_RUN_ID"] for e in envs}) == 1
    # the fresh rendezvous folder is gone after the run
    assert not os.path.exists(envs[0]["EMBER_RENDEZVOUS"][len("file://"):])


def test_launcher_module_and_prefix(tmp_path):
    _script(tmp_path, "envmod.py", ENV_SCRIPT + "\nprint('hello from', os.environ['RANK'])\n")
    p = _run(["--nproc-per-node", "2", "--prefix-output", "-m", "envmod", "a"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert [e["argv"] for e in _ranks(tmp_path, 2)] == [["a"], ["a"]]
    assert sorted(line for line in p.stdout.splitlines() if "hello" in line) == \
        ["[rank 0]: hello from 0", "[rank 1]: hello from 1"]


def test_launcher_rank_killed(tmp_path):
    script = _script(tmp_path, "kill.py", KILL_SCRIPT)
    t0 = time.monotonic()
    # --prefix-output: the two survivors' tracebacks arrive at the same moment; prefixed
    # whole lines cannot interleave mid-line
    p = _run(["--nproc-per-node", "3", "--grace-period", "8", "--prefix-output", script, "1"],
             tmp_path, timeout=60)
    assert p.returncode != 0
    assert "rank 1 was killed by signal SIGKILL" in p.stderr, p.stderr
    # the others stopped on their own with a clear error (no SIGTERM needed) ...
    assert "rank 0 exited with code 1" in p.stderr and "rank 2 exited with code 1" in p.stderr, p.stderr
    clear = {m.group(1) for m in re.finditer(
        r"^\[rank (\d)\]: RuntimeError: (?:all_reduce|broadcast) failed", p.stderr, re.M)}
    assert clear == {"0", "2"}, p.stderr
    assert time.monotonic() - t0 < 30
    assert not list(tmp_path.glob("ember-rdzv-*"))


def test_launcher_stops_hung_ranks(tmp_path):
    script = _script(tmp_path, "hang.py", """
        import os, sys, time
        if os.environ["RANK"] == "2":
            sys.exit(3)
        time.sleep(60)
        """)
    t0 = time.monotonic()
    p = _run(["--nproc-per-node", "3", "--grace-period", "0.3", script], tmp_path, timeout=30)
    assert p.returncode == 3
    assert "failed: rank 2 exited with code 3" in p.stderr
    assert "rank 0 was killed by signal SIGTERM" in p.stderr
    assert time.monotonic() - t0 < 15


@pytest.mark.parametrize("args,msg", [
    (["--nproc-per-node", "0", "x.py"], "--nproc-per-node must be at least 1"),
    (["--nnodes", "2", "--node-rank", "2", "x.py"], "--node-rank must be in 0..1"),
    (["--nnodes", "2", "--rdzv", "redis://127.0.0.1:1", "x.py"], "--rdzv-id"),
    (["--rdzv", "tcp://h:1", "x.py"], "redis://host:port or file://"),
    (["--rdzv", "redis://nohost", "x.py"], "must be redis://host:port"),
])
def test_launcher_bad_arguments(tmp_path, args, msg):
    p = _run(args, tmp_path, timeout=30)
    assert p.returncode == 2 and msg in p.stderr, p.stderr


def test_launcher_two_nodes_through_redis(tmp_path, redis_server):
    port = redis_server  # the two "nodes" share its rendezvous
    script = _script(tmp_path, "envs.py", ENV_SCRIPT)
    nodes = [subprocess.Popen(LAUNCH + ["--nnodes", "2", "--node-rank", str(n), "--nproc-per-node", "2",
                                        "--rdzv", f"redis://127.0.0.1:{port}", "--rdzv-id", "t1", script],
                              env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
             for n in range(2)]
    for n in nodes:
        out, err = n.communicate(timeout=60)
        assert n.returncode == 0, err
    envs = _ranks(tmp_path, 4)
    for r, e in enumerate(envs):
        got = (e["RANK"], e["WORLD_SIZE"], e["LOCAL_RANK"], e["GROUP_RANK"])
        assert got == (str(r), "4", str(r % 2), str(r // 2))
        assert e["EMBER_RENDEZVOUS"] == f"redis://127.0.0.1:{port}" and e["EMBER_RUN_ID"] == "t1"
        assert (e["MASTER_ADDR"], e["MASTER_PORT"]) == ("127.0.0.1", str(port))  # the redis server
        assert e["sum"] == [10.0, 10.0]


def test_torchrun_parser_and_run_from_python(tmp_path, monkeypatch):
    """torch.distributed.run.get_args_parser() and run(args), which `accelerate launch
    --multi_gpu` calls in-process: torch's option names, dests and defaults; run launches with
    ember's launcher; a failed rank raises; what ember's launcher cannot do raises."""
    import torch.distributed.run as trun

    from ember.distributed import run as erun
    argv = ["--nproc_per_node", "2", "--master_port", "29517", "x.py", "--lr", "1"]
    e, t = vars(erun.get_args_parser().parse_args(argv)), vars(trun.get_args_parser().parse_args(argv))
    assert set(e) <= set(t)
    assert {k: v for k, v in t.items() if k in e} == e
    for k, v in _env(tmp_path).items():
        monkeypatch.setenv(k, v)
    script = _script(tmp_path, "envs.py", ENV_SCRIPT)
    args = erun.get_args_parser().parse_args(["--nproc_per_node", "2", "--master_port", "29517",
                                              script, "--lr", "1"])
    assert erun.run(args) is None
    envs = _ranks(tmp_path, 2)
    assert [x["RANK"] for x in envs] == ["0", "1"] and envs[0]["MASTER_PORT"] == "29517"
    assert envs[1]["argv"] == ["--lr", "1"] and envs[1]["sum"] == [3.0, 3.0]
    bad = _script(tmp_path, "bad.py", "raise SystemExit(3)\n")
    with pytest.raises(RuntimeError, match="bad.py failed"):
        erun.run(erun.get_args_parser().parse_args(["--nproc_per_node", "1", bad]))
    for extra in (["--nproc_per_node", "gpu"], ["--nnodes", "1:2"], ["--no_python"],
                  ["--log_dir", str(tmp_path)], ["--nnodes", "2", "--rdzv_endpoint", "h:1"]):
        with pytest.raises(NotImplementedError, match="torch.distributed.run.run"):
            erun.run(erun.get_args_parser().parse_args(extra + [script]))
