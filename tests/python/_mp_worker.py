"""Targets for processes started with the spawn method by test_multiprocessing.py (a spawned
child imports the module of its target: this one imports only ember, not pytest or torch)."""
import ember


def write_args(out, done, a, b, c):
    """Process args: a and b view one storage; c is another. Writes into each, reports what
    it saw, then sends a tensor of its own back through the queue and stays alive until the
    parent got it (the receiver fetches the fd from the sender, as with torch)."""
    out.put(("seen", a.tolist(), b.tolist(), c.dtype, a._shares_storage(b), a.is_shared(), c.is_shared()))
    a.add_(100)
    c.fill_(True)
    mine = ember.arange(4, dtype=ember.int32)
    out.put(("mine", mine))
    done.wait(20)


def queue_echo(inq, outq):
    """Receives tensors from a queue, doubles them in place, and sends them back."""
    while True:
        t = inq.get(timeout=20)
        if t is None:
            return
        t.mul_(2)
        outq.put(t)


def spawn_fn(i, out, fail_on):
    if i == fail_on:
        raise ValueError(f"process {i} fails on purpose")
    out[i] = float(i + 1)
