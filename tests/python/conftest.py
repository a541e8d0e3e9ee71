import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


# ---- fixtures of the multi-process tests (multiprocessing, DataLoader workers, distributed)
import os as _os
import shutil
import signal
import socket
import subprocess
import time

import pytest


def free_port():
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def hang_alarm():
    """Fails the test (instead of hanging CI) when it runs for more than 60 s."""
    def fail(signum, frame):
        raise TimeoutError("test took more than 60 s (a process, queue or collective hangs)")
    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture
def redis_server(tmp_path):
    """A real redis-server (Debian's redis-server) on a free loopback port; yields the port."""
    exe = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not _os.path.exists(exe):
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    port = free_port()
    p = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no", "--dir", str(tmp_path)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:  # wait until it accepts connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert p.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield port
    finally:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@pytest.fixture(autouse=True)
def _torch_distributions_validate():
    """Importing torch._dynamo (torch.compile, torch.onnx's exporter) turns off torch's argument
    validation for every later Distribution (eval_frame.py: set_default_validate_args(False)), so a
    test that compares errors with torch.distributions would depend on which tests ran before it.
    Each test starts with torch's default (on, as in `python` without -O) and gets the state back."""
    if "torch.distributions" not in sys.modules:
        yield
        return
    D = sys.modules["torch.distributions"].Distribution
    before = D._validate_args
    D.set_default_validate_args(__debug__)
    yield
    D.set_default_validate_args(before)
