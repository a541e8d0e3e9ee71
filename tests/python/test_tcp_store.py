"""ember.distributed.TCPStore against torch.distributed.TCPStore (the same calls, the same
answers and error classes), a get that waits for another client, a client that starts before
its master, and the rendezvous through it: env:// with MASTER_ADDR/MASTER_PORT and nothing
else (rank 0 serves the store, as PyTorch), tcp://host:port, init_process_group(store=...)."""
import datetime
import os
import socket
import threading
import time

import pytest
import torch.distributed as tdist

import ember.distributed as dist
import test_distributed as td

SHORT = datetime.timedelta(milliseconds=200)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def script(d):
    """One sequence of store calls on library `d` (ember.distributed or torch.distributed);
    returns what each call answered (exceptions by their class name)."""
    out = []

    def call(fn, *args):
        try:
            out.append(fn(*args))
        except Exception as e:  # noqa: BLE001 (the class is the answer)
            out.append(type(e).__name__)

    s = d.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    c = d.TCPStore("127.0.0.1", s.port, is_master=False, timeout=datetime.timedelta(seconds=5))
    call(s.num_keys)  # the workers' count key is one
    call(s.set, "a", "x")
    call(c.get, "a")
    call(c.set, "b", b"\x00\xff")
    call(s.get, "b")
    call(s.add, "n", 3)
    call(c.add, "n", -5)
    call(s.get, "n")
    call(c.compare_set, "a", "x", "y")
    call(c.compare_set, "a", "nope", "z")
    call(c.compare_set, "unset", "q", "r")
    call(c.compare_set, "unset", "", "r")
    call(c.check, ["a", "n"])
    call(c.check, ["a", "missing"])
    call(s.num_keys)
    call(c.delete_key, "unset")
    call(c.delete_key, "unset")
    call(c.append, "ap", "1")
    call(c.append, "ap", b"2")
    call(s.multi_get, ["ap", "a"])
    call(s.multi_set, ["m1", "m2"], ["1", b"2"])
    call(c.get, "m2")
    call(c.wait, ["a", "m1"])
    call(c.wait, ["missing"], SHORT)
    c.set_timeout(SHORT)
    call(c.get, "missing")
    call(lambda: c.timeout)
    call(s.set, "k", 5)
    call(s.add, "k", "1")
    call(d.TCPStore, "127.0.0.1", s.port, None, True, SHORT)  # the port is taken
    call(lambda: [issubclass(e, d.DistError) for e in (d.DistStoreError, d.DistNetworkError,
                                                        d.DistBackendError, RuntimeError)])
    call(lambda: issubclass(d.DistError, RuntimeError))
    return out


def test_store_calls_answer_as_torch():
    assert script(dist) == script(tdist)


def test_get_waits_for_another_client_and_a_client_may_start_first():
    port = free_port()
    got = {}

    def early_client():  # connects while no master listens yet: retries until one does
        c = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=datetime.timedelta(seconds=20))
        got["value"] = c.get("late")  # waits for the master's set

    t = threading.Thread(target=early_client)
    t.start()
    time.sleep(0.3)
    master = dist.TCPStore("127.0.0.1", port, is_master=True)
    time.sleep(0.2)
    master.set("late", "here")
    t.join(20)
    assert got == {"value": b"here"}


def test_master_waits_for_world_size_workers():
    port = free_port()
    with pytest.raises(dist.DistStoreError, match="1/2 clients joined"):
        dist.TCPStore("127.0.0.1", port, 2, True, timeout=datetime.timedelta(milliseconds=300))
    joined = []
    t = threading.Thread(target=lambda: joined.append(
        dist.TCPStore("127.0.0.1", port, 2, False, timeout=datetime.timedelta(seconds=20))))
    t.start()
    master = dist.TCPStore("127.0.0.1", port, 2, True, timeout=datetime.timedelta(seconds=20))
    t.join(20)
    assert len(joined) == 1 and master.get("init/") == b"2"


def test_bad_arguments():
    with pytest.raises(TypeError, match="host_name"):
        dist.TCPStore(1, 0, 1, True)
    with pytest.raises(TypeError, match="port"):
        dist.TCPStore("127.0.0.1", "0", 1, True)
    with pytest.raises(ValueError, match="port"):
        dist.TCPStore("127.0.0.1", 70000, 1, True)
    with pytest.raises(ValueError, match="client needs the master's port"):
        dist.TCPStore("127.0.0.1", 0, is_master=False)
    with pytest.raises(TypeError, match="timedelta"):
        dist.TCPStore("127.0.0.1", 0, 1, True, timeout=5)
    with pytest.raises(dist.DistNetworkError, match="cannot connect"):
        dist.TCPStore("127.0.0.1", free_port(), is_master=False, timeout=SHORT)
    s = dist.TCPStore("127.0.0.1", 0, is_master=True)
    with pytest.raises(TypeError, match="key must be str"):
        s.set(1, "v")
    with pytest.raises(ValueError, match="2 keys but 1 values"):
        s.multi_set(["a", "b"], ["1"])


def test_env_rendezvous_through_rank0s_store():
    """PyTorch's env://: MASTER_ADDR and MASTER_PORT, nothing listening there beforehand."""
    env = {"WORLD_SIZE": "2", "MASTER_ADDR": "localhost", "MASTER_PORT": str(free_port()),
           "EMBER_RENDEZVOUS": ""}
    td.assert_all_ok(td.run_ranks("simple", 2, "env://", env=env,
                                  per_rank_env=lambda r: {"RANK": str(r)}))


@pytest.mark.parametrize("world", [2, 3])
def test_tcp_init_method(world):
    td.assert_all_ok(td.run_ranks("collectives", world, f"tcp://127.0.0.1:{free_port()}"))


def test_env_rendezvous_names_a_taken_port():
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        env = {"WORLD_SIZE": "1", "RANK": "0", "MASTER_ADDR": "127.0.0.1",
               "MASTER_PORT": str(busy.getsockname()[1]), "EMBER_RENDEZVOUS": ""}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            with pytest.raises(RuntimeError, match="rank 0 cannot serve the store"):
                dist.init_process_group("gloo")
        finally:
            for k, v in saved.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    assert not dist.is_initialized()


def test_init_process_group_with_a_tcp_store():
    store = dist.TCPStore("127.0.0.1", 0, 1, True)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        assert dist.get_world_size() == 1
        assert store.num_keys() > 1  # the group's rendezvous keys went through it
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
    store.set("after", "1")  # the caller's store outlives the group
    assert store.get("after") == b"1"
