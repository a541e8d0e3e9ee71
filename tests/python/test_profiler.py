"""ember.profiler: op counts, self vs total time, backward nodes, bytes, the table."""
import pytest

import ember
from ember.profiler import ProfilerActivity, profile, record_function


def rows(p):
    return {(r.name, r.backward): r for r in p.key_averages()}


def test_counts_forward_and_backward_ops():
    x = ember.randn(8, 8, requires_grad=True)
    w = ember.randn(8, 8, requires_grad=True)
    with profile() as p:
        for _ in range(3):
            (x @ w).relu().sum().backward()
    r = rows(p)
    assert r[("matmul", False)].calls == 3
    # the first MmBackward0 computes two new gradients with mm; the later ones add theirs
    # straight into .grad, with no mm and no add_ (Note [Gradient into .grad])
    assert r[("mm", False)].calls == 2
    assert ("add_", False) not in r
    assert r[("relu", False)].calls == 3
    assert r[("MmBackward0", True)].calls == 3
    assert r[("ReluBackward0", True)].calls == 3
    assert r[("SumBackward0", True)].calls == 3
    for row in r.values():
        assert 0 <= row.self_ns <= row.total_ns


def test_nested_ops_count_as_children_not_self():
    x = ember.randn(64, 64, requires_grad=True)
    w = ember.randn(64, 64, requires_grad=True)
    with profile() as p:
        (x @ w).sum().backward()
    r = rows(p)
    node = r[("MmBackward0", True)]
    mm = r[("mm", False)]
    assert node.total_ns >= node.self_ns
    # the two matmuls inside the backward node are part of its total, not its self time
    assert node.total_ns - node.self_ns <= mm.total_ns


def test_bytes_allocated():
    with profile() as p:
        ember.full((1000, 250), 2.0)  # 1 MB of float32
    assert rows(p)[("full", False)].self_bytes == 1_000_000


def test_nothing_recorded_outside_a_profile():
    with profile() as p:
        pass
    ember.ones(3) + 1
    assert list(p.key_averages()) == []


def test_record_function_and_table():
    x = ember.randn(100)
    with profile(activities=[ProfilerActivity.CPU]) as p:
        with record_function("my block"):
            y = x.exp()
        y.sum()
    r = rows(p)
    block = r[("my block", False)]
    assert block.calls == 1 and block.total_ns >= r[("exp", False)].total_ns
    text = p.table()
    assert "my block" in text and "exp" in text and "Wall time" in text
    text = p.key_averages().table(sort_by="cpu_time_total", row_limit=1)
    assert len([line for line in text.splitlines() if "us" in line or "ms" in line]) >= 1


def test_misuse():
    with profile() as p:
        with pytest.raises(RuntimeError, match="already running"):
            with profile():
                pass
    with pytest.raises(ValueError, match="sort_by"):
        p.table(sort_by="nope")
    with pytest.raises(RuntimeError, match="no results"):
        profile().table()
    with pytest.raises(ValueError, match="CPU"):
        profile(activities=["cuda"])


def test_disabled_profile_records_nothing():
    with profile(enabled=False) as p:
        ember.ones(3)
    assert not ember._C._profiler_enabled()
    with pytest.raises(RuntimeError):
        p.table()
