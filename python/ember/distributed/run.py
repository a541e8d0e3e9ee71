"""The launcher (torchrun for ember): starts one process per rank and watches them.

    python -m ember.distributed.run --nproc-per-node 2 train.py --epochs 3
    python -m ember.distributed.run --nproc-per-node 2 -m ember.examples.fashion_mnist
    # several machines (a redis-server reachable from all of them; the same --rdzv-id on each):
    python -m ember.distributed.run --nnodes 2 --node-rank 0 --nproc-per-node 2 \\
        --rdzv redis://10.0.0.1:6379 --rdzv-id run42 train.py
    # restart every rank (from the script's checkpoint) up to 3 times after a failure:
    python -m ember.distributed.run --nproc-per-node 2 --max-restarts 3 train.py

Each child gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
MASTER_PORT, EMBER_RENDEZVOUS, EMBER_RUN_ID and TORCHELASTIC_RESTART_COUNT, so
`dist.init_process_group("gloo")` needs no arguments. On one machine the rendezvous is a fresh
temporary folder (file://), removed at exit. If a child exits with an error or is killed, the
launcher stops the others (SIGTERM, then SIGKILL after --grace-period seconds); with
--max-restarts N it then starts every local rank again (a new rendezvous round) up to N times,
else it exits non-zero, naming the rank that failed and the error it raised.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

__all__ = ["main", "get_args_parser", "run"]

PROG = "python -m ember.distributed.run"


def _split(parser, argv):
    """(launcher's arguments up to the script, the script's arguments): everything after the
    script belongs to it, even options whose names look like the launcher's."""
    takes_value = {o for act in parser._actions if act.option_strings and act.nargs != 0
                   for o in act.option_strings}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return argv[:i] + argv[i + 1:i + 2], argv[i + 2:]
        if not a.startswith("-") or a == "-":
            return argv[:i + 1], argv[i + 1:]
        i += 2 if a in takes_value else 1
    return argv, []


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], allow_abbrev=False)
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1, metavar="N",
                   help="processes (ranks) to start on this machine")
    p.add_argument("--nnodes", type=int, default=1, help="machines taking part")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0,
                   help="this machine's number, 0..nnodes-1")
    p.add_argument("--rdzv", "--rdzv-endpoint", "--rdzv_endpoint", default=None, metavar="URL",
                   help="rendezvous store: redis://host:port (several machines) or file:///shared/dir; "
                        "default on one machine: a fresh temporary folder")
    p.add_argument("--rdzv-id", "--rdzv_id", default=None, metavar="ID",
                   help="run id, the same on every machine (keys in the store are prefixed with it)")
    p.add_argument("--master-addr", "--master_addr", default=None,
                   help="MASTER_ADDR for the children (default: the host of a redis:// --rdzv, else "
                        "127.0.0.1); ranks listen on this machine's address toward it")
    p.add_argument("--master-port", "--master_port", type=int, default=None,
                   help="MASTER_PORT for the children (default: the port of a redis:// --rdzv, else 29500)")
    p.add_argument("--grace-period", type=float, default=3.0, metavar="S",
                   help="after a rank fails, seconds the others get to exit on their own before "
                        "SIGTERM, and again before SIGKILL")
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0, metavar="N",
                   help="when a rank fails, stop every local rank and start them all again (a new "
                        "rendezvous round, TORCHELASTIC_RESTART_COUNT + 1), at most N times; the "
                        "script resumes from its checkpoint")
    p.add_argument("--prefix-output", action="store_true",
                   help="prefix every output line with '[rank R]' (default: children write straight "
                        "to the launcher's stdout/stderr)")
    p.add_argument("-m", "--module", action="store_true",
                   help="the script is a module name, run as python -m MODULE")
    p.add_argument("script", help="the training script (or module, with -m)")
    p.add_argument("script_args", nargs="*", help="its arguments")
    own, rest = _split(p, sys.argv[1:] if argv is None else list(argv))
    a = p.parse_args(own)
    a.script_args = rest
    if a.max_restarts < 0:
        p.error("--max-restarts must be at least 0")
    if a.nproc_per_node < 1:
        p.error("--nproc-per-node must be at least 1")
    if a.nnodes < 1:
        p.error("--nnodes must be at least 1")
    if not 0 <= a.node_rank < a.nnodes:
        p.error(f"--node-rank must be in 0..{a.nnodes - 1}, got {a.node_rank}")
    if a.nnodes > 1 and a.rdzv_id is None:
        p.error("several machines need --rdzv-id ID, the same on every machine (it keeps runs "
                "that share a store apart)")
    if a.rdzv is not None and not a.rdzv.startswith(("redis://", "file://")):
        p.error(f"--rdzv must be a redis://host:port or file:// URL, got {a.rdzv!r}")
    if a.rdzv is not None and a.rdzv.startswith("redis://"):
        host, _, port = a.rdzv[len("redis://"):].rstrip("/").rpartition(":")
        if not host or not port.isdigit():
            p.error(f"--rdzv must be redis://host:port, got {a.rdzv!r}")
        a.master_addr = a.master_addr or host
        a.master_port = a.master_port or int(port)
    a.master_addr = a.master_addr or "127.0.0.1"
    a.master_port = a.master_port or 29500
    if a.nnodes > 1 and a.rdzv is not None and a.rdzv.startswith("file://"):
        print(f"{PROG}: note: a file:// rendezvous across machines needs a shared filesystem",
              file=sys.stderr)
    return a


def child_env(a, local_rank, rendezvous, run_id, restart=0, error_file=None):
    """The environment of one rank. Each restart is a new rendezvous round: its own key prefix
    (EMBER_RUN_ID gets "-r<restart>"), so a round never reads the addresses of the last."""
    env = dict(os.environ)
    env.update(RANK=str(a.node_rank * a.nproc_per_node + local_rank),
               WORLD_SIZE=str(a.nnodes * a.nproc_per_node),
               LOCAL_RANK=str(local_rank), LOCAL_WORLD_SIZE=str(a.nproc_per_node),
               GROUP_RANK=str(a.node_rank), MASTER_ADDR=a.master_addr, MASTER_PORT=str(a.master_port),
               EMBER_RUN_ID=run_id if restart == 0 else f"{run_id}-r{restart}",
               TORCHELASTIC_RESTART_COUNT=str(restart), TORCHELASTIC_MAX_RESTARTS=str(a.max_restarts),
               TORCHELASTIC_RUN_ID=run_id)
    if error_file is not None:  # the rank's uncaught exception lands there (ember.distributed)
        env["TORCHELASTIC_ERROR_FILE"] = error_file
    else:
        env.pop("TORCHELASTIC_ERROR_FILE", None)
    env["EMBER_AS_TORCH"] = "1"  # `import torch` in the ranks gives ember (ember/_drop_in.py)
    if rendezvous is not None:
        env["EMBER_RENDEZVOUS"] = rendezvous
    else:  # env:// then uses redis://MASTER_ADDR:MASTER_PORT
        env.pop("EMBER_RENDEZVOUS", None)
    if a.prefix_output:
        env["PYTHONUNBUFFERED"] = "1"  # lines reach the launcher as they are printed
    return env


def _die_with_parent():
    """In the child, before exec: get SIGTERM if the launcher dies (even by SIGKILL)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _pump(stream, out, prefix):
    """Copies a child's output to ours, line by line, with its rank in front."""
    for line in iter(stream.readline, b""):
        out.buffer.write(prefix + line)
        out.flush()
    stream.close()


def describe(code):
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def read_error(path):
    """The message a rank left in its error file (see _errors.py), else None."""
    try:
        with open(path) as f:
            return json.load(f)["message"]["message"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Launcher:
    def __init__(self, a, error_dir=None):
        self.a = a
        self.error_dir = error_dir
        self.procs = []     # (global rank, Popen)
        self.threads = []

    def error_file(self, rank, restart):
        if self.error_dir is None:
            return None
        return os.path.join(self.error_dir, f"error-{restart}-{rank}.json")

    def command(self):
        a = self.a
        head = [sys.executable] + (["-m", a.script] if a.module else [a.script])
        return head + a.script_args

    def start(self, rendezvous, run_id, restart=0):
        cmd = self.command()
        pipe = subprocess.PIPE if self.a.prefix_output else None
        self.procs, self.threads = [], []
        for local in range(self.a.nproc_per_node):
            rank = self.a.node_rank * self.a.nproc_per_node + local
            env = child_env(self.a, local, rendezvous, run_id, restart, self.error_file(rank, restart))
            p = subprocess.Popen(cmd, env=env, stdout=pipe, stderr=pipe, preexec_fn=_die_with_parent)
            rank = int(env["RANK"])
            self.procs.append((rank, p))
            if pipe:
                tag = f"[rank {rank}]: ".encode()
                for stream, out in ((p.stdout, sys.stdout), (p.stderr, sys.stderr)):
                    t = threading.Thread(target=_pump, args=(stream, out, tag), daemon=True)
                    t.start()
                    self.threads.append(t)

    def watch(self):
        """Waits for every child; returns (rank, code) of the first that failed, else None."""
        while True:
            running = False
            for rank, p in self.procs:
                code = p.poll()
                if code is None:
                    running = True
                elif code != 0:
                    return rank, code
            if not running:
                return None
            time.sleep(0.05)

    def _wait(self, procs, seconds):
        end = time.monotonic() + seconds
        while any(p.poll() is None for p in procs) and time.monotonic() < end:
            time.sleep(0.05)

    def stop(self, patient=True):
        """Stops the children still running: first a grace period to fail on their own (a rank
        whose peer died raises a clear error at its next collective), then SIGTERM, then
        SIGKILL after another grace period."""
        alive = [p for _, p in self.procs if p.poll() is None]
        if patient:
            self._wait(alive, self.a.grace_period)
        for p in alive:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        self._wait(alive, self.a.grace_period)
        for p in alive:
            if p.poll() is None:
                p.kill()
        for p in alive:
            p.wait()
        for t in self.threads:
            t.join(timeout=1.0)


def _run_ranks(launcher, rendezvous, run_id):
    """Runs the ranks, restarting them all after a failure while restarts remain; returns the
    exit code."""
    a = launcher.a
    for restart in range(a.max_restarts + 1):
        launcher.start(rendezvous, run_id, restart)
        failed = launcher.watch()
        if failed is None:
            for t in launcher.threads:
                t.join(timeout=1.0)
            return 0
        rank, code = failed
        print(f"{PROG}: rank {rank} {describe(code)}; stopping the other ranks", file=sys.stderr, flush=True)
        launcher.stop()
        others = [f"rank {r} {describe(p.returncode)}" for r, p in launcher.procs
                  if r != rank and p.returncode != 0]
        what = f"rank {rank} {describe(code)}" + (f" (then {', '.join(others)})" if others else "")
        errors = [(r, read_error(launcher.error_file(r, restart))) for r, _ in launcher.procs]
        errors = [f"rank {r}: {m}" for r, m in errors if m]
        if restart < a.max_restarts:
            print(f"{PROG}: {what}; restarting every local rank ({restart + 1} of {a.max_restarts})"
                  + "".join("\n  " + e for e in errors), file=sys.stderr, flush=True)
            continue
        print(f"{PROG}: failed: {what}" + "".join("\n  " + e for e in errors), file=sys.stderr, flush=True)
        return code if code > 0 else 128 - code
    raise AssertionError("not reached")


def main(argv=None):
    a = parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="ember-rdzv-")  # the ranks' error files, and the rendezvous
    rendezvous = a.rdzv
    if rendezvous is None and a.nnodes == 1:
        os.mkdir(os.path.join(tmp, "rdzv"))
        rendezvous = "file://" + os.path.join(tmp, "rdzv")
    run_id = a.rdzv_id or uuid.uuid4().hex[:12]
    launcher = Launcher(a, error_dir=tmp)

    def on_signal(signum, frame):
        raise KeyboardInterrupt
    old_term = signal.signal(signal.SIGTERM, on_signal)
    try:
        return _run_ranks(launcher, rendezvous, run_id)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; stopping the ranks", file=sys.stderr, flush=True)
        launcher.stop(patient=False)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old_term)
        shutil.rmtree(tmp, ignore_errors=True)


def get_args_parser():
    """torchrun's own parser (torch.distributed.run.get_args_parser: its option names, defaults
    and dests), for programs that build a launch in Python and hand it to `run(args)`
    (`accelerate launch --multi_gpu`)."""
    p = argparse.ArgumentParser(prog="torchrun", allow_abbrev=False)
    for names, kw in [(("--nnodes",), {"default": "1:1"}),
                      (("--nproc-per-node", "--nproc_per_node"), {"default": "1"}),
                      (("--rdzv-backend", "--rdzv_backend"), {"default": "static"}),
                      (("--rdzv-endpoint", "--rdzv_endpoint"), {"default": ""}),
                      (("--rdzv-id", "--rdzv_id"), {"default": "none"}),
                      (("--rdzv-conf", "--rdzv_conf"), {"default": ""}),
                      (("--max-restarts", "--max_restarts"), {"type": int, "default": 0}),
                      (("--monitor-interval", "--monitor_interval"), {"type": float, "default": 0.1}),
                      (("--start-method", "--start_method"), {"default": "spawn"}),
                      (("--role",), {"default": "default"}),
                      (("--log-dir", "--log_dir"), {"default": None}),
                      (("-r", "--redirects"), {"default": "0"}), (("-t", "--tee"), {"default": "0"}),
                      (("--local-ranks-filter", "--local_ranks_filter"), {"default": ""}),
                      (("--node-rank", "--node_rank"), {"type": int, "default": 0}),
                      (("--master-addr", "--master_addr"), {"default": "127.0.0.1"}),
                      (("--master-port", "--master_port"), {"type": int, "default": None}),
                      (("--local-addr", "--local_addr"), {"default": None})]:
        p.add_argument(*names, **kw)
    for names in (("--standalone",), ("-m", "--module"), ("--no-python", "--no_python"),
                  ("--run-path", "--run_path")):
        p.add_argument(*names, action="store_true")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _argv_of(args):
    """ember's launcher arguments for a torchrun namespace; what ember's launcher cannot do
    raises (nothing is dropped silently)."""
    def refuse(what):
        raise NotImplementedError(f"torch.distributed.run.run: {what} (ember's launcher: "
                                  f"python -m ember.distributed.run --help)")
    n = str(args.nproc_per_node)
    if n in ("cpu", "auto"):
        n = str(os.cpu_count() or 1)
    if not n.isdigit():
        refuse(f"--nproc-per-node {n!r} (no GPUs here)")
    lo, _, hi = str(args.nnodes).partition(":")
    if hi and hi != lo:
        refuse(f"an elastic node range --nnodes {args.nnodes}")
    argv = ["--nproc-per-node", n, "--nnodes", lo, "--node-rank", str(args.node_rank),
            "--max-restarts", str(args.max_restarts), "--master-addr", str(args.master_addr)]
    if args.master_port is not None:
        argv += ["--master-port", str(args.master_port)]
    if int(lo) > 1:
        if not str(args.rdzv_endpoint).startswith(("redis://", "file://")):
            refuse(f"several machines meet through a redis:// or file:// --rdzv-endpoint, got "
                   f"{args.rdzv_endpoint!r}")
        argv += ["--rdzv", args.rdzv_endpoint]
    if args.rdzv_id != "none":
        argv += ["--rdzv-id", str(args.rdzv_id)]
    for flag, value, default in (("--no-python", args.no_python, False),
                                 ("--run-path", args.run_path, False),
                                 ("--log-dir", args.log_dir, None),
                                 ("--redirects", str(args.redirects), "0"),
                                 ("--tee", str(args.tee), "0"),
                                 ("--local-ranks-filter", args.local_ranks_filter, "")):
        if value not in (default, None, False, "None"):  # accelerate leaves some at None
            refuse(f"{flag} {value!r}")
    if args.module:
        argv.append("-m")
    return argv + ["--", args.training_script, *args.training_script_args]


def run(args):
    """torch.distributed.run.run: launches a namespace from get_args_parser() with ember's
    launcher and returns when every rank has exited 0; raises RuntimeError naming the failure
    otherwise (torch raises its ChildFailedError, which ember does not have)."""
    code = main(_argv_of(args))
    if code != 0:
        raise RuntimeError(f"torch.distributed.run.run: {args.training_script} failed "
                           f"(launcher exit code {code}; the ranks' errors are above)")


if __name__ == "__main__":
    sys.exit(main())
