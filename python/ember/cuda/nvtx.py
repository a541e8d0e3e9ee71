"""ember.cuda.nvtx: NVIDIA's profiler annotations. Not installed without CUDA: each call raises
what torch's CPU build raises (range_start/range_end: AttributeError from torch's stub)."""
import contextlib

_NO_NVTX = "NVTX functions not installed. Are you sure you have a CUDA build?"


def range_push(msg):
    raise RuntimeError(_NO_NVTX)


def range_pop():
    raise RuntimeError(_NO_NVTX)


def mark(msg):
    raise RuntimeError(_NO_NVTX)


def range_start(msg):
    raise AttributeError("'_NVTXStub' object has no attribute 'rangeStartA'")


def range_end(range_id):
    raise AttributeError("'_NVTXStub' object has no attribute 'rangeEnd'")


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """`with nvtx.range('name'):` raises on entry, as torch's CPU build."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
