"""Misuse: every public callable of ember, called with bad arguments, must return or raise an
Exception, never crash or hang (the sweep in misuse_sweep.py, run in subprocesses); and a
sample of errors must name the op and the shapes, like PyTorch's."""
import math

import pytest
import torch

import ember
import misuse_sweep

# ~2.17M calls today (2,174,470 on 28 Nov); the sweep must not silently shrink (e.g. by discovering
# nothing). Raise this as the API grows.
MIN_CALLS = 2_065_000


# A call is hung when it makes no progress for this long. Legitimately heavy calls (a 99^4-bin
# histogramdd: 384 MB; nn.Transformer() initializing 44M parameters) take 2-4 s alone and
# passed 10 s on a machine loaded 10x; 30 s still catches every real hang.
HANG_SECONDS = 30.0


@pytest.fixture(scope="module")
def sweep():
    stats, failures = misuse_sweep.run_sweep(jobs=2, timeout=HANG_SECONDS)
    print(f"\nmisuse sweep: {stats['calls']} calls of {stats['planned']} planned; outcomes "
          f"{dict(sorted(stats['types'].items(), key=lambda kv: -kv[1]))}")
    for k, (n, call, msg) in sorted(stats["odd"].items()):
        print(f"  note: non-standard exception {k} x{n}, e.g. {call}: {msg}")
    return stats, failures


def test_sweep_never_crashes_or_hangs(sweep):
    stats, failures = sweep
    report = "\n".join(f"  {f['outcome']}: cd tests/python && python -c "
                       f"\"from misuse_sweep import *; {f['call']}\"\n    {f['stderr']}"
                       for f in failures)
    assert not failures, f"{len(failures)} calls crashed or hung the process:\n{report}"


def test_sweep_made_every_call(sweep):
    stats, _ = sweep
    assert stats["calls"] == stats["planned"]
    assert stats["calls"] >= MIN_CALLS, f"the sweep shrank to {stats['calls']} calls"
    broken = {k: v for k, v in stats["types"].items() if k.startswith("fixture:")}
    assert not broken, f"the sweep's own fixtures failed: {broken}"


def test_failing_calls_leave_receiver_unchanged(sweep):
    stats, _ = sweep
    bad = [f"{k} x{n}, e.g. {call}: {msg}" for k, (n, call, msg) in stats["modified"].items()]
    assert not bad, "calls that raised modified their receiver:\n" + "\n".join(bad)


def test_harness_names_the_call_that_crashed_or_hung():
    stats, failures = misuse_sweep.run_sweep(jobs=2, timeout=2.0, selftest=True)
    got = {f["call"]: f["outcome"] for f in failures}
    assert got == {"__import__('ctypes').string_at(0)": "killed by SIGSEGV",
                   "__import__('time').sleep(60)": "hung for more than 2 s",
                   "__import__('os').abort()": "killed by SIGABRT"}
    assert stats["calls"] == stats["planned"] == len(misuse_sweep.SELFTEST)


def test_sweep_discovers_the_api():
    funcs = misuse_sweep.module_callables()
    members = [n for _, n in misuse_sweep.tensor_members()]
    for name in ["ember.add", "ember.exp", "ember.zeros", "ember.cat", "ember.reshape"]:
        assert name in funcs
    for name in ["add", "add_", "__add__", "__radd__", "view", "numpy", "T", "shape"]:
        assert name in members


# ---------------------------------------------------------------- error quality (in-process)

# Probing a name with tensors must not change the state of the process (the probes run at
# collection, before every test): torch.set_printoptions(t, t) made torch's print precision a
# tensor, and a later test's repr failed.
_STATEFUL = ("set_", "use_", "manual_seed", "seed", "init_num_threads")


def _probe_ok(name):
    return not name.startswith(_STATEFUL)


def _probed_names(picked):
    """The module functions ember.<name> that torch also has and that may be probed
    (_probe_ok), for which picked(name) is true."""
    out = []
    for f in misuse_sweep.module_callables():
        name = f.rsplit(".", 1)[1]
        if f == "ember." + name and hasattr(torch, name) and _probe_ok(name) and picked(name):
            out.append(name)
    return out


def _is_binary(name):
    """Takes two tensors (3, 4) in both libraries, and torch rejects shapes (3, 4) and (5, 6)."""
    try:
        getattr(ember, name)(ember.ones(3, 4), ember.ones(3, 4))
        getattr(torch, name)(torch.ones(3, 4), torch.ones(3, 4))
    except Exception:
        return False
    try:
        getattr(torch, name)(torch.ones(3, 4), torch.ones(5, 6))
    except Exception:
        return True
    return False


BINARY = _probed_names(_is_binary)


def test_binary_sample_is_large():
    for name in ["add", "sub", "mul", "div", "maximum", "eq", "pow", "atan2"]:
        assert name in BINARY
    assert len(BINARY) >= 15


@pytest.mark.parametrize("name", BINARY)
def test_shape_error_names_op_and_shapes(name):
    with pytest.raises(Exception) as info:
        getattr(ember, name)(ember.ones(3, 4), ember.ones(5, 6))
    msg = str(info.value)
    assert name in msg, f"ember.{name} on (3, 4) and (5, 6): message does not name the op: {msg!r}"
    assert "(3, 4)" in msg and "(5, 6)" in msg, f"ember.{name}: message lacks the shapes: {msg!r}"


@pytest.mark.parametrize("name", BINARY)
def test_shape_error_names_op_as_method(name):
    if not hasattr(ember.Tensor, name):
        pytest.skip(f"Tensor.{name} is not a method")
    with pytest.raises(Exception) as info:
        getattr(ember.ones(3, 4), name)(ember.ones(5, 6))
    assert name in str(info.value)


def _takes_dim(name):
    """The second positional argument is a dim (torch: IndexError on dim 99)."""
    try:
        getattr(ember, name)(ember.ones(3, 4), 1)
        getattr(torch, name)(torch.ones(3, 4), 1)
        getattr(torch, name)(torch.ones(3, 4), 99)
    except IndexError:
        return True
    except Exception:
        return False
    return False


DIMS = _probed_names(_takes_dim)


def test_dim_sample_is_large():
    for name in ["squeeze", "unsqueeze", "unbind"]:
        assert name in DIMS
    assert len(DIMS) >= 4


@pytest.mark.parametrize("name", DIMS)
def test_dim_error_is_index_error_naming_op(name):
    with pytest.raises(IndexError) as info:
        getattr(ember, name)(ember.ones(3, 4), 99)
    msg = str(info.value)
    assert name in msg and "99" in msg, f"ember.{name}(x, 99): {msg!r}"


@pytest.mark.parametrize("call", [
    lambda: ember.empty(2**62),
    lambda: ember.zeros(2**40, 2**40),
    lambda: ember.ones(-1),
    lambda: ember.full((2**31, 2**31, 4), 1.0),
    lambda: ember.ones(3).reshape(2**62, 2**62),
    lambda: ember.ones(1).expand(-5),         # was a tensor of shape (-5,)
    lambda: ember.ones(1, 1).expand(-5, -7),
])
def test_huge_or_negative_sizes_raise(call):
    with pytest.raises((ValueError, RuntimeError, MemoryError)):
        call()


@pytest.mark.parametrize("method", ["size", "stride"])
def test_dim_of_0d_tensor_is_index_error(method):
    # Used to read past the end of the 0-d tensor's sizes and return garbage.
    with pytest.raises(IndexError, match=method):
        getattr(ember.tensor(2.5), method)(0)
    with pytest.raises(IndexError):
        getattr(ember.tensor(2.5), method)(-1)


def test_eye_negative_m_raises():
    # -1 is the binding's "m not given"; it used to give a 3x3 identity.
    with pytest.raises(ValueError, match="eye"):
        ember.eye(3, -1)


def test_type_errors_name_the_op():
    with pytest.raises(TypeError) as info:
        ember.ones(3).reshape("abc")
    assert "reshape" in str(info.value)
    with pytest.raises(TypeError):
        ember.add(ember.ones(3), "abc")


def test_nan_inf_pass_through():
    x = ember.tensor([math.nan, math.inf, -math.inf])
    got = (x + 1).tolist()
    assert math.isnan(got[0]) and got[1:] == [math.inf, -math.inf]
