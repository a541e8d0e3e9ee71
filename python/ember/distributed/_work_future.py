"""Work.result() and Work.get_future(), as torch's: the collectives issued with async_op=True
attach their result tensors to the Work they return (`_attach`); get_future() gives an
ember.futures.Future completed with them once the collective is done (its then() callbacks
run then), or with the RuntimeError the collective failed with.

A Gloo Work has no completion callback into Python: one daemon thread per Future waits on
the Work (without the GIL) and completes the Future."""
import threading

from ..futures import Future


def attach(work, tensors):
    """Records `tensors` as `work`'s result; returns `work` (None for a synchronous call)."""
    if work is not None:
        work._result = list(tensors)
    return work


def result(work):
    """The tensors the collective wrote (torch's Work.result()); waits for it first."""
    work.wait()
    return list(getattr(work, "_result", []))


def get_future(work):
    """A Future completed with work.result() when the collective finishes (the same
    Future on every call)."""
    fut = getattr(work, "_future", None)
    if fut is not None:
        return fut
    fut = work._future = Future()
    tensors = list(getattr(work, "_result", []))

    def complete():
        try:
            work.wait()
        except Exception as e:  # noqa: BLE001  (the collective's error goes into the Future)
            fut.set_exception(e if isinstance(e, RuntimeError) else RuntimeError(str(e)))
            return
        fut.set_result(tensors)
    if work.is_completed():
        complete()
    else:
        threading.Thread(target=complete, name="ember-work-future", daemon=True).start()
    return fut
