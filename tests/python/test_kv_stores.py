"""ember.distributed's Store base class, HashStore and PrefixStore against torch's (the same
calls, the same answers and error classes), threads sharing a HashStore (get waiting for a
set, barrier, queues), and init_process_group through them: store=HashStore() (a group of one
process, as single-process programs set it up) and a PrefixStore over a TCPStore shared by
two ranks, whose keys land under the prefix."""
import datetime
import threading
import time

import pytest
import torch.distributed as tdist

import ember
import ember.distributed as dist
import test_distributed as td
from test_tcp_store import free_port

SHORT = datetime.timedelta(milliseconds=200)


def script(d, make_store):
    """One sequence of store calls on library `d`; what each call answered (exceptions by
    their class name)."""
    out = []

    def call(fn, *args):
        try:
            out.append(fn(*args))
        except Exception as e:  # noqa: BLE001 (the class is the answer)
            out.append(type(e).__name__)

    s = make_store(d)
    call(lambda: isinstance(s, d.Store))
    call(s.set, "a", "x")
    call(s.get, "a")
    call(s.set, "b", b"\x00\xff")
    call(s.add, "n", 3)
    call(s.add, "n", -5)
    call(s.get, "n")
    call(s.compare_set, "a", "x", "y")
    call(s.compare_set, "a", "nope", "z")
    call(s.compare_set, "unset", "q", "r")
    call(s.compare_set, "unset", "", "r")
    call(s.check, ["a", "n"])
    call(s.check, ["a", "missing"])
    call(s.check, [])
    call(s.num_keys)
    call(s.delete_key, "unset")
    call(s.delete_key, "unset")
    call(s.append, "ap", "1")
    call(s.append, "ap", b"2")
    call(s.multi_get, ["ap", "a"])
    call(s.multi_set, ["m1", "m2"], ["1", b"2"])
    call(s.get, "m2")
    call(lambda: sorted(s.list_keys()))
    call(s.wait, ["a", "m1"])
    call(s.wait, ["missing"], SHORT)
    call(s.queue_push, "q", "first")
    call(s.queue_push, "q", b"second")
    call(s.queue_len, "q")
    call(s.queue_pop, "q")
    call(s.queue_pop, "q", False)
    call(s.queue_pop, "q", False)
    call(s.queue_len, "q")
    call(s.has_extended_api)
    call(lambda: s.clone().get("a"))
    s.set_timeout(SHORT)
    call(lambda: s.timeout)
    call(s.get, "missing")
    call(s.queue_pop, "q")
    call(s.set, "k", 5)
    call(s.set, 1, "v")
    call(s.add, "k2", "1")
    call(lambda: [issubclass(e, d.DistStoreError) for e in (d.QueueEmptyError, d.DistNetworkError)])
    return out


@pytest.mark.parametrize("kind", ["hash", "prefix"])
def test_store_calls_answer_as_torch(kind):
    def make(d):
        return d.HashStore() if kind == "hash" else d.PrefixStore("run/1", d.HashStore())
    assert script(dist, make) == script(tdist, make)


def test_prefix_store_maps_keys_under_its_prefix():
    for d in (dist, tdist):
        inner = d.HashStore()
        inner.set("outside", "0")
        p = d.PrefixStore("job", d.PrefixStore("attempt_0", inner))
        p.set("k", "v")
        assert inner.get("attempt_0/job/k") == b"v"
        assert p.list_keys() == ["k"]
        assert p.num_keys() == inner.num_keys() == 2  # the underlying store's count, as torch
        assert isinstance(p.underlying_store, d.PrefixStore)
        with pytest.raises(TypeError):
            d.PrefixStore("x", object())


def test_store_base_class_is_abstract_and_subclassable():
    class Custom(dist.Store):
        def __init__(self):
            self.kv = {}

        def set(self, key, value):
            self.kv[key] = value.encode() if isinstance(value, str) else value

        def get(self, key):
            return self.kv[key]

    c = Custom()
    c.multi_set(["a", "b"], ["1", "2"])  # the base's multi_set/multi_get go through set/get
    assert c.multi_get(["b", "a"]) == [b"2", b"1"]
    with pytest.raises(NotImplementedError, match="Custom.add"):
        c.add("n", 1)
    for store in (dist.FileStore, dist.TCPStore, dist.HashStore, dist.PrefixStore, dist.RedisStore):
        assert issubclass(store, dist.Store)


def test_threads_share_a_hash_store():
    s = dist.HashStore()
    s.set_timeout(datetime.timedelta(seconds=10))
    got, passed = [], []

    def reader():
        got.append(s.get("late"))  # blocks until the main thread sets it

    def member(i):
        s.barrier("bar", 3)
        passed.append(i)

    threads = [threading.Thread(target=reader)] + [threading.Thread(target=member, args=(i,))
                                                   for i in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.1)
    assert got == [] and passed == []  # nobody got through early
    s.set("late", "now")
    member(2)
    for t in threads:
        t.join(10)
    assert got == [b"now"] and sorted(passed) == [0, 1, 2]
    assert s.check(["bar/num_members", "bar/last_member"])  # torch's barrier keys
    threading.Timer(0.1, lambda: s.queue_push("jobs", "j1")).start()
    assert s.queue_pop("jobs") == b"j1"  # waits for the push
    counts = []
    adders = [threading.Thread(target=lambda: counts.extend(s.add("c", 1) for _ in range(200)))
              for _ in range(4)]
    for t in adders:
        t.start()
    for t in adders:
        t.join()
    assert sorted(counts) == list(range(1, 801))  # each add saw its own value


def test_init_process_group_with_a_hash_store():
    """A single-process program's set-up: init_process_group(world_size=1, rank=0,
    store=HashStore()), the backend left to its default."""
    dist.init_process_group(world_size=1, rank=0, store=dist.HashStore())
    try:
        t = ember.tensor([1.0, 2.0])
        dist.all_reduce(t)
        assert t.tolist() == [1.0, 2.0] and dist.get_world_size() == 1
        assert dist.get_rank(dist.new_group([0])) == 0
    finally:
        dist.destroy_process_group()
    # twice with one store: the first group's keys are gone, the second rendezvous is fresh
    store = dist.PrefixStore("x", dist.HashStore())
    for _ in range(2):
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        dist.destroy_process_group()
    assert not dist.is_initialized()


def test_two_ranks_rendezvous_through_a_prefix_store():
    td.assert_all_ok(td.run_ranks("simple", 2, "prefix-store",
                                  env={"EMBER_TEST_STORE_PORT": str(free_port())}))
