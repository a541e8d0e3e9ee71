"""ember.profiler's schedule and step(): the actions torch.profiler.schedule gives, and which
steps' ops land in each on_trace_ready call (the same steps torch records)."""
import itertools

import pytest
import torch

import ember
from ember.profiler import ProfilerAction, profile, schedule


@pytest.mark.parametrize("wait,warmup,active,repeat,skip_first,skip_first_wait",
                         list(itertools.product([0, 2], [0, 1], [1, 3], [0, 2], [0, 3], [0, 1])))
def test_schedule_like_torch(wait, warmup, active, repeat, skip_first, skip_first_wait):
    kw = dict(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first,
              skip_first_wait=skip_first_wait)
    e = schedule(**kw)
    with pytest.warns(UserWarning) if warmup == 0 else _nothing():
        t = torch.profiler.schedule(**kw)
    assert [e(i).name for i in range(30)] == [t(i).name for i in range(30)]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _cycles(lib, kw, steps=10):
    """How many `add`s each on_trace_ready saw, step i running i + 1 adds."""
    seen = []
    prof = lib.profiler.profile(schedule=lib.profiler.schedule(**kw),
                                on_trace_ready=lambda p: seen.append(
                                    sum(r.count for r in p.key_averages() if r.key.endswith("add"))))
    with prof as p:
        for i in range(steps):
            for _ in range(i + 1):
                lib.ones(2) + 1
            p.step()
    return seen


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2, repeat=2),
                                dict(wait=0, warmup=1, active=1),
                                dict(wait=2, warmup=1, active=3, skip_first=1)])
def test_cycles_record_the_steps_torch_records(kw):
    assert _cycles(ember, kw) == _cycles(torch, kw)


def test_actions_and_plain_profile():
    assert [a.name for a in ProfilerAction] == [a.name for a in torch.profiler.ProfilerAction]
    with profile() as p:
        ember.ones(3).sum()
    assert {r.name for r in p.key_averages()} >= {"sum"}
    with pytest.raises(AssertionError):
        schedule(wait=0, warmup=0, active=0)


def test_tensorboard_trace_handler_writes_a_chrome_trace(tmp_path):
    import gzip
    import json
    from ember.profiler import tensorboard_trace_handler
    for gz in (False, True):
        d = tmp_path / ("gz" if gz else "plain")
        with profile(schedule=schedule(wait=0, warmup=1, active=1),
                     on_trace_ready=tensorboard_trace_handler(str(d), "w0", use_gzip=gz)) as p:
            for _ in range(2):
                ember.ones(3, 3).sum()
                p.step()
        files = list(d.iterdir())
        assert len(files) == 1 and files[0].name.startswith("w0.")
        opener = gzip.open if gz else open
        trace = json.load(opener(files[0], "rt"))
        names = {e["name"] for e in trace["traceEvents"]}
        assert "sum" in names and all(e["ph"] == "X" and e["dur"] >= 0 for e in trace["traceEvents"])
