"""Work.get_future, DDP communication hooks (default_hooks), static_graph and join() with
uneven inputs, checked against NumPy models of the same computation.

Each test starts 2 or 4 ranks of _ddp_hooks_worker.py on loopback (file:// rendezvous in
tmp_path) with a timeout, as test_ddp.py does."""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _ddp_hooks_worker as W  # noqa: E402
import test_ddp  # noqa: E402  (its process launcher)


def run_ranks(tmp_path, mode, world, timeout=90, **opts):
    """Runs `world` workers of _ddp_hooks_worker.py; asserts they all exit 0; returns their
    saved arrays."""
    codes, results, logs = test_ddp.run_ranks(tmp_path, mode, world, timeout,
                                              worker=os.path.join(HERE, "_ddp_hooks_worker.py"), **opts)
    assert codes == [0] * world, "\n".join(logs)
    return results


# ---- 16-bit rounding in NumPy (bfloat16: round to nearest even on the float32 bits) ----
def f16(a):
    return np.asarray(a, dtype=np.float32).astype(np.float16).astype(np.float32)


def bf16(a):
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return u.view(np.float32)


def compressed_mean(locals_, rnd):
    """torch's fp16/bf16_compress_hook: round, divide by the world size in 16 bits, sum in
    16 bits (each partial sum rounded), back to 32 bits."""
    world = len(locals_)
    parts = [rnd(rnd(g) / np.float32(world)) for g in locals_]
    total = parts[0]
    for p in parts[1:]:
        total = rnd(total + p)
    return total


# ---- Work.get_future ---------------------------------------------------------------------
@pytest.mark.parametrize("world", [2, 4])
def test_work_get_future(tmp_path, world):
    res = run_ranks(tmp_path, "futures", world)
    expect = np.arange(4.0) * sum(r + 1 for r in range(world))
    for r, d in enumerate(res):
        np.testing.assert_array_equal(d["value"], expect)
        np.testing.assert_array_equal(d["result"], expect)
        np.testing.assert_array_equal(d["doubled"], 2 * expect)
        assert d["same_tensor"]  # the future holds the all-reduced tensor itself
        np.testing.assert_array_equal(d["gathered"], np.repeat(np.arange(world)[:, None], 2, 1))
        np.testing.assert_array_equal(d["bcast"], np.full(3, 8.0, np.float32))
        assert d["barrier"] == 0
        x = np.array([0.1, 1.7, -3.3, 1000.0], np.float32)
        for name, rnd in (("f16", f16), ("bf16", bf16)):
            vals = [rnd(rnd(x) * (k + 1)) for k in range(world)]
            total = vals[0]
            for v in vals[1:]:
                total = rnd(total + v)
            tol = 0 if world == 2 else 2 * (2.0 ** -10 if name == "f16" else 2.0 ** -7)
            np.testing.assert_allclose(d["sum_" + name], total, rtol=tol)
            np.testing.assert_allclose(d["avg_" + name], rnd(total / world), rtol=tol)


# ---- communication hooks ----------------------------------------------------------------
def _grads(res, prefix):
    return [{k[len(prefix):]: v for k, v in d.items() if k.startswith(prefix)} for d in res]


# 2 ranks for every hook, 1 and 4 for those whose result depends on the number of ranks' roundings
@pytest.mark.parametrize("world,hook", [(2, h) for h in ("none", "allreduce", "fp16", "bf16", "fp16_wrap",
                                                        "bf16_wrap", "custom")]
                         + [(4, h) for h in ("allreduce", "fp16", "bf16", "custom")]
                         + [(1, h) for h in ("fp16", "custom")])  # one process still runs the hook
def test_comm_hooks(tmp_path, world, hook):
    dtype = "float32" if hook != "none" and hook != "allreduce" else "float64"
    res = run_ranks(tmp_path, "hook", world, hook=hook, dtype=dtype)
    local, got = _grads(res, "local."), _grads(res, "grad.")
    for name in local[0]:
        gs = [loc[name] for loc in local]
        if hook in ("none", "allreduce"):
            expect, tol = np.mean(gs, axis=0), 1e-12
        elif hook == "custom":
            expect, tol = np.sum(gs, axis=0), 1e-6
        else:
            rnd = f16 if hook.startswith("fp16") else bf16
            expect = compressed_mean(gs, rnd)
            # 2 ranks: one rounding of an exact sum, as here; 4: Gloo's ring sums in its order
            tol = 0 if world == 2 else 3 * (2.0 ** -10 if rnd is f16 else 2.0 ** -7)
        for r in range(world):
            np.testing.assert_allclose(got[r][name], expect, rtol=tol, atol=tol * 1e-3,
                                       err_msg=f"{hook} rank {r} {name}")
    if hook == "custom":
        for d in res:
            assert d["calls"] == 1 and list(d["index"]) == [0] and list(d["is_last"]) == [True]
            assert d["views"] and d["numel"] == W.D_IN * W.D_OUT + W.D_OUT


def test_bad_hooks_and_static_graph_change(tmp_path):
    for d in run_ranks(tmp_path, "errors", 2):
        assert str(d["not_callable"]) == "Communication hook must be callable."
        assert "can only be called once" in str(d["twice"])
        assert "must return an ember.futures.Future, got Tensor" in str(d["not_future"])
        assert "bucket annotation should be dist.GradBucket" in str(d["annotation"])
        assert "static_graph=True, but parameter 'extra." in str(d["static_changed"])


# ---- static_graph ---------------------------------------------------------------------
@pytest.mark.parametrize("world", [2, 4])
def test_static_graph_trains_as_plain(tmp_path, world):
    for d in run_ranks(tmp_path, "static", world):
        for k in [k for k in d if k.startswith("plain.")]:
            np.testing.assert_array_equal(d["static." + k[6:]], d[k])
        for k in [k for k in d if k.startswith("unused.") and not k.endswith("_none")]:
            np.testing.assert_array_equal(d["static_unused." + k[7:]], d[k])
        assert d["unused.extra_grad_none"] and d["static_unused.extra_grad_none"]


# ---- join(): uneven inputs ----------------------------------------------------------------
def numpy_uneven(init, batches, divide_initial, lr=0.1):
    """SGD on the Linear model: at step k the ranks with a batch k left contribute their
    gradient; the sum is divided by the world size (or by the number of those ranks)."""
    w, b = init["weight"].copy(), init["bias"].copy()
    world = len(batches)
    for step in range(max(batches)):
        active = [r for r in range(world) if batches[r] > step]
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for r in active:
            x, y = W.batch(r, step)
            e = x @ w.T + b - y
            gw += e.T @ x
            gb += e.sum(0)
        div = world if divide_initial else len(active)
        w, b = w - lr * gw / div, b - lr * gb / div
    return {"weight": w, "bias": b}


@pytest.mark.parametrize("world,batches,divide_initial,hook", [
    (2, [2, 4], True, None), (2, [3, 1], False, None), (4, [1, 3, 2, 4], True, None),
    (4, [2, 0, 3, 1], False, None), (2, [1, 3], True, "allreduce")])
def test_join_uneven_inputs(tmp_path, world, batches, divide_initial, hook):
    opts = {"batches": batches, "divide_initial": divide_initial}
    if hook:
        opts["hook"] = hook
    res = run_ranks(tmp_path, "join", world, **opts)
    init = _grads(res, "init.")[0]
    expect = numpy_uneven(init, batches, divide_initial)
    for r, final in enumerate(_grads(res, "final.")):
        for k, v in expect.items():
            np.testing.assert_allclose(final[k], v, rtol=1e-12, atol=1e-12, err_msg=f"rank {r} {k}")


def test_join_throw_on_early_termination(tmp_path):
    res = run_ranks(tmp_path, "join", 2, batches=[1, 3], throw=True)
    assert str(res[0]["error"]) == "Rank 0 exhausted all inputs."
    assert "Detected at least one rank that exhausted inputs" in str(res[1]["error"])


def test_join_bad_inputs():
    from ember.distributed.algorithms import Join
    with pytest.raises(ValueError, match="at least one joinable"):
        Join([])
    with pytest.raises(TypeError, match="Joinable"):
        Join([object()])
