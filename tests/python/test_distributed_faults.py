"""Faults of a distributed run: a network link that goes down mid-run (two "hosts" as network
namespaces joined by a veth pair, the link taken down: no FIN, no RST) and a rank killed under
`--max-restarts` (the run resumes from its checkpoint and ends where an uninterrupted run ends).

The namespace tests need root and `ip netns`; each cleans up its namespaces and processes.
"""
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest

import ember
import ember.distributed as dist
from test_launcher import _env as _launcher_env, _script  # the launcher tests' helpers

LAUNCH = [sys.executable, "-m", "ember.distributed.run"]


def _netns_usable():
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    if shutil.which("ip") is None:
        return "needs `ip` (iproute2)"
    name = f"embprobe{os.getpid()}"
    ok = subprocess.run(["ip", "netns", "add", name], capture_output=True).returncode == 0
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None if ok else "`ip netns add` is not permitted here"


_NETNS_SKIP = _netns_usable()
needs_netns = pytest.mark.skipif(_NETNS_SKIP is not None, reason=str(_NETNS_SKIP))


def _env(tmp_path, **extra):
    env = _launcher_env(tmp_path, **extra)
    if "EMBER_DIST_PEER_TIMEOUT" not in extra:
        env.pop("EMBER_DIST_PEER_TIMEOUT", None)
    return env


class Hosts:
    """Two network namespaces ("hosts") joined by a veth pair: 10.231.N.1 and 10.231.N.2."""

    def __init__(self):
        tag = uuid.uuid4().hex[:6]
        self.ns = [f"emb{tag}a", f"emb{tag}b"]
        self.dev = [f"eb{tag}a", f"eb{tag}b"]
        n = os.getpid() % 250
        self.addr = [f"10.231.{n}.1", f"10.231.{n}.2"]

    def ip(self, *args, ns=None):
        cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip", *args]
        subprocess.run(cmd, check=True, capture_output=True)

    def __enter__(self):
        try:
            for ns in self.ns:
                self.ip("netns", "add", ns)
                self.ip("link", "set", "lo", "up", ns=ns)
            self.ip("link", "add", self.dev[0], "type", "veth", "peer", "name", self.dev[1])
            for ns, dev, addr in zip(self.ns, self.dev, self.addr):
                self.ip("link", "set", dev, "netns", ns)
                self.ip("addr", "add", f"{addr}/24", "dev", dev, ns=ns)
                self.ip("link", "set", dev, "up", ns=ns)
        except BaseException:
            self.__exit__()
            raise
        return self

    def pids(self):
        out = []
        for ns in self.ns:
            p = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
            out += [int(x) for x in p.stdout.split()]
        return out

    def link_down(self):
        self.ip("link", "set", self.dev[0], "down", ns=self.ns[0])

    def link_up(self):
        self.ip("link", "set", self.dev[0], "up", ns=self.ns[0])

    def __exit__(self, *exc):
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for ns in self.ns:  # deleting a namespace deletes its end of the veth pair, and the pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


# One rank: all_reduce in a loop; writes a file once running so the test knows, and stops
# (every rank at the same step) once the test writes OUT_DIR/stop.
LOOP_SCRIPT = """
import os, sys, time
import ember
import ember.distributed as dist
dist.init_process_group("gloo", timeout=float(sys.argv[1]))
rank = dist.get_rank()
out = os.environ["OUT_DIR"]
x = ember.ones(1000)
for step in range(1_000_000):
    x[0] = float(os.path.exists(os.path.join(out, "stop")))
    dist.all_reduce(x)
    if x[0].item() > 0:
        break
    if step == 20:
        open(os.path.join(out, f"running{rank}"), "w").close()
    time.sleep(0.02)
dist.destroy_process_group()
print(f"rank {rank} stopped at step {step}")
"""


def _start_two_hosts(h, tmp_path, script, rdzv_id, *args):
    """A launcher in each namespace, 2 ranks each; returns them once all 4 ranks run."""
    launchers = []
    for node in range(2):
        cmd = ["ip", "netns", "exec", h.ns[node]] + LAUNCH + [
            "--nnodes", "2", "--node-rank", str(node), "--nproc-per-node", "2",
            "--rdzv", f"file://{tmp_path}/store", "--rdzv-id", rdzv_id,
            "--master-addr", h.addr[0], "--grace-period", "2", script, *args]
        launchers.append(subprocess.Popen(cmd, env=_env(tmp_path), stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"running{r}").exists() for r in range(4)):
        if time.monotonic() > deadline or any(p.poll() is not None for p in launchers):
            for p in launchers:
                p.kill()
            raise AssertionError(f"the ranks did not start: {[p.communicate() for p in launchers]}")
        time.sleep(0.1)
    return launchers


def _finish(launchers, timeout):
    try:
        return [p.communicate(timeout=timeout) for p in launchers]
    finally:
        for p in launchers:
            if p.poll() is None:
                p.kill()
                p.communicate()


def test_default_peer_timeout_is_at_most_60s(monkeypatch):
    monkeypatch.delenv("EMBER_DIST_PEER_TIMEOUT", raising=False)
    assert dist._d._peer_timeout(dist.default_pg_timeout.total_seconds()) == 60.0
    assert dist._d._peer_timeout(10.0) == 10.0  # init_process_group(timeout=10) watches at 10 s
    monkeypatch.setenv("EMBER_DIST_PEER_TIMEOUT", "7.5")
    assert dist._d._peer_timeout(1800.0) == 7.5
    monkeypatch.setenv("EMBER_DIST_PEER_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="EMBER_DIST_PEER_TIMEOUT"):
        dist._d._peer_timeout(1800.0)


@needs_netns
def test_link_down_every_rank_names_the_unreachable_rank(tmp_path):
    """2 hosts x 2 ranks; the link goes down: each launcher exits non-zero within 90 s, every
    rank's error names a rank of the other host and its address, no process is left."""
    script = _script(tmp_path, "loop.py", LOOP_SCRIPT)
    with Hosts() as h:
        launchers = _start_two_hosts(h, tmp_path, script, "linkdown", "10")
        h.link_down()
        t0 = time.monotonic()
        outs = _finish(launchers, 90)
        elapsed = time.monotonic() - t0
        assert elapsed < 90
        leftover = h.pids()
    assert leftover == [], f"processes left in the namespaces: {leftover}"
    for node, (p, (out, err)) in enumerate(zip(launchers, outs)):
        assert p.returncode != 0, err
        assert "failed: rank" in err, err
        other_ranks = {0: "[23]", 1: "[01]"}[node]
        other_host = h.addr[1 - node].replace(".", r"\.")
        for local in range(2):
            rank = 2 * node + local
            # the launcher reports each rank's error (its error file)
            pattern = (rf"rank {rank}: RuntimeError: \w+ failed on rank {rank} of 4: "
                       rf"rank {other_ranks} \(host {other_host}\) is unreachable")
            assert re.search(pattern, err), err


@needs_netns
def test_link_down_shorter_than_the_peer_timeout_is_survived(tmp_path):
    """A 3 s outage under a 10 s peer timeout: TCP retransmits, the run goes on and ends well."""
    script = _script(tmp_path, "loop.py", LOOP_SCRIPT)
    with Hosts() as h:
        launchers = _start_two_hosts(h, tmp_path, script, "blip", "10")
        h.link_down()
        time.sleep(3)
        h.link_up()
        time.sleep(2)
        (tmp_path / "stop").touch()
        outs = _finish(launchers, 60)
    for p, (out, err) in zip(launchers, outs):
        assert p.returncode == 0, err
        assert out.count("stopped at step") == 2, out


# DDP on a float64 MLP, deterministic data per step; rank 0 checkpoints every 10 steps
# (tmp, fsync, os.replace); a restart resumes from the checkpoint.
TRAIN_SCRIPT = """
import os, sys
import numpy as np
import ember
import ember.distributed as dist
from ember import nn

STEPS, EVERY = 100, 10
out = os.environ["OUT_DIR"]
ckpt = os.path.join(out, "ckpt.pt")
dist.init_process_group("gloo", timeout=20)
rank, world = dist.get_rank(), dist.get_world_size()
ember.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1)).to(ember.float64)
model = nn.parallel.DistributedDataParallel(net)
opt = ember.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
start = 0
if os.path.exists(ckpt):
    state = ember.load(ckpt)
    net.load_state_dict(state["model"])
    opt.load_state_dict(state["optim"])
    start = state["step"]
if rank == 0:
    with open(os.path.join(out, f"start{os.environ['TORCHELASTIC_RESTART_COUNT']}.txt"), "w") as f:
        f.write(str(start))
kill_at = int(sys.argv[1])
for step in range(start, STEPS):
    if step == kill_at and rank == 1 and os.environ["TORCHELASTIC_RESTART_COUNT"] == "0":
        os.kill(os.getpid(), 9)
    rng = np.random.default_rng(1000 * step + rank)   # the data order depends on the step only
    x = ember.tensor(rng.standard_normal((8, 6)))
    y = ember.tensor(rng.standard_normal((8, 1)))
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    if rank == 0 and (step + 1) % EVERY == 0:
        tmp = ckpt + ".tmp"
        with open(tmp, "wb") as f:
            ember.save({"model": net.state_dict(), "optim": opt.state_dict(), "step": step + 1}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, ckpt)
if rank == 0:
    np.save(os.path.join(out, "final.npy"),
            np.concatenate([p.detach().numpy().ravel() for p in net.parameters()]))
    with open(os.path.join(out, "restarts.txt"), "w") as f:
        f.write(os.environ["TORCHELASTIC_RESTART_COUNT"])
dist.destroy_process_group()
"""


def _train(tmp_path, kill_at, max_restarts):
    tmp_path.mkdir(exist_ok=True)
    script = _script(tmp_path, "train.py", TRAIN_SCRIPT)
    p = subprocess.run(LAUNCH + ["--nproc-per-node", "2", "--max-restarts", str(max_restarts),
                                 "--grace-period", "2", script, str(kill_at)],
                       env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    return p


def test_killed_rank_restarts_from_checkpoint_and_matches(tmp_path):
    p = _train(tmp_path / "faulty", kill_at=30, max_restarts=1)
    assert p.returncode == 0, p.stderr
    assert "rank 1 was killed by signal SIGKILL" in p.stderr, p.stderr
    assert "restarting every local rank (1 of 1)" in p.stderr, p.stderr
    assert (tmp_path / "faulty" / "restarts.txt").read_text() == "1"
    # round 1 resumed from the checkpoint of step 30 (rank 0 wrote it before rank 1 died)
    assert (tmp_path / "faulty" / "start1.txt").read_text() == "30"
    ref = _train(tmp_path / "clean", kill_at=-1, max_restarts=0)
    assert ref.returncode == 0, ref.stderr
    got = np.load(tmp_path / "faulty" / "final.npy")
    want = np.load(tmp_path / "clean" / "final.npy")
    assert got.tobytes() == want.tobytes(), np.abs(got - want).max()


def test_restarts_exhausted_fails_with_the_error(tmp_path):
    script = _script(tmp_path, "boom.py", """
        import os
        import ember.distributed as dist
        dist.init_process_group("gloo", timeout=20)
        if dist.get_rank() == 1:
            raise RuntimeError(f"boom in round {os.environ['TORCHELASTIC_RESTART_COUNT']}")
        dist.barrier()
        """)
    p = subprocess.run(LAUNCH + ["--nproc-per-node", "2", "--max-restarts", "1", "--grace-period", "1", script],
                       env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, p.stderr
    assert "restarting every local rank (1 of 1)" in p.stderr
    assert "rank 1: RuntimeError: boom in round 0" in p.stderr
    # rank 0 fails too (its barrier's peer is gone): either may be reported first
    assert re.search(r"failed: rank [01] exited with code 1", p.stderr), p.stderr
    assert "rank 1: RuntimeError: boom in round 1" in p.stderr, p.stderr


# A few DDP steps in float32 (where the order of a sum shows in the last bit); rank 0 saves
# the parameters.
DDP_SCRIPT = """
import os
import numpy as np
import ember
import ember.distributed as dist
from ember import nn
dist.init_process_group("gloo", timeout=30)
rank = dist.get_rank()
ember.manual_seed(0)
net = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 4))
model = nn.parallel.DistributedDataParallel(net, bucket_cap_mb=0.004)  # several buckets
opt = ember.optim.Adam(model.parameters(), lr=1e-2)
for step in range(5):
    rng = np.random.default_rng(100 * step + rank)
    x = ember.tensor(rng.standard_normal((16, 32)).astype(np.float32))
    y = ember.tensor(rng.standard_normal((16, 4)).astype(np.float32))
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
if rank == 0:
    np.save(os.path.join(os.environ["OUT_DIR"], "final.npy"),
            np.concatenate([p.detach().numpy().ravel() for p in net.parameters()]))
dist.destroy_process_group()
"""


@needs_netns
def test_two_hosts_of_two_ranks_agree_with_one_host_of_four(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    script = _script(tmp_path, "ddp.py", DDP_SCRIPT)
    p = subprocess.run(LAUNCH + ["--nproc-per-node", "4", script], env=_env(one),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with Hosts() as h:
        launchers = [subprocess.Popen(
            ["ip", "netns", "exec", h.ns[node]] + LAUNCH + [
                "--nnodes", "2", "--node-rank", str(node), "--nproc-per-node", "2",
                "--rdzv", f"file://{tmp_path}/store", "--rdzv-id", "agree", "--master-addr", h.addr[0],
                script], env=_env(two), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for node in range(2)]
        try:
            outs = [q.communicate(timeout=120) for q in launchers]
        finally:
            for q in launchers:
                if q.poll() is None:
                    q.kill()
                    q.communicate()
    for q, (_, err) in zip(launchers, outs):
        assert q.returncode == 0, err
    got, want = np.load(two / "final.npy"), np.load(one / "final.npy")
    assert got.dtype == np.float32 and got.tobytes() == want.tobytes(), np.abs(got - want).max()
