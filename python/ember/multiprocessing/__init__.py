"""ember.multiprocessing: the standard multiprocessing module, with ember tensors shared
between processes instead of copied (torch.multiprocessing's API).

    import ember.multiprocessing as mp
    t = ember.zeros(1000).share_memory_()
    p = mp.Process(target=worker, args=(t,)); p.start(); p.join()   # worker's writes show in t
    q = mp.Queue(); q.put(t)                                         # arrives as a view of t's memory

Everything of `multiprocessing` is re-exported (Process, Queue, Pipe, Pool, get_context, ...).
A tensor sent through a Queue or Pipe, or as an argument of a spawned process, arrives as a view
of the same shared memory (its storage is moved there in place first, see Tensor.share_memory_).
With the fork start method a process inherits its parent's memory: a tensor that was shared
before fork() stays shared, any other one is the child's private copy-on-write copy.
How it works and what it guarantees: docs/multiprocessing.md.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .._shared_memory import register as _register
from .spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException,
                    spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
           "spawn", "start_processes"] + multiprocessing.__all__

_register()  # (already done if multiprocessing was imported after ember; registering twice is harmless)

# torch's two strategy names. ember has one mechanism (an fd to an anonymous memfd, nothing in
# /dev/shm); "file_system" is accepted so torch programs that select it run, and changes nothing.
_STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"


def get_all_sharing_strategies():
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy


def set_sharing_strategy(new_strategy):
    global _strategy
    if new_strategy not in _STRATEGIES:  # (torch raises AssertionError too)
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {set(_STRATEGIES)}")
    _strategy = new_strategy
