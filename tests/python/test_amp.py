"""ember.amp / ember.autocast / ember.cuda.amp against torch 2.13's CPU build: what is enabled,
what warns, what a disabled or a CPU GradScaler does. What an enabled CPU autocast region computes
is tested in test_autocast.py."""
import warnings

import numpy as np
import pytest
import torch

import ember
from test_device import outcome

CASES = [
    "m.amp.autocast('cuda')._enabled", "m.amp.autocast('cpu')._enabled",
    "m.amp.autocast('cpu').fast_dtype", "m.amp.autocast('cuda').fast_dtype",
    "m.amp.autocast('cpu', enabled=False)._enabled", "m.amp.autocast('mps')._enabled",
    "m.amp.autocast('cpu', dtype=m.float32)._enabled",
    "m.amp.autocast('cpu', dtype=m.float64)._enabled",
    "m.amp.autocast('cpu', dtype='x')._enabled",
    "m.amp.autocast('cpu', cache_enabled=False)._cache_enabled",
    "m.amp.autocast('foo')", "m.amp.autocast(3)", "m.amp.autocast('meta')",
    "m.amp.autocast('cpu')(3)",
    "m.autocast is m.amp.autocast",
    "m.amp.is_autocast_available('cuda')", "m.amp.is_autocast_available('cpu')",
    "m.amp.is_autocast_available('meta')", "m.amp.is_autocast_available('foo')",
    "m.is_autocast_enabled()", "m.is_autocast_enabled('cpu')", "m.is_autocast_enabled('cuda')",
    "m.get_autocast_dtype('cpu')", "m.get_autocast_dtype('cuda')", "m.get_autocast_dtype('mps')",
    "m.get_autocast_dtype('foo')", "m.is_autocast_cache_enabled()",
    "m.set_autocast_enabled('cpu', False)",
    "m.amp.GradScaler().is_enabled()", "m.amp.GradScaler('cpu').is_enabled()",
    "m.amp.GradScaler('mps').is_enabled()", "m.amp.GradScaler('cpu', enabled=False).is_enabled()",
    "m.amp.GradScaler().get_scale()", "m.amp.GradScaler('cpu').get_scale()",
    "m.amp.GradScaler().state_dict()", "m.amp.GradScaler('cpu').state_dict()",
    "m.amp.GradScaler('cpu', enabled=False).state_dict()", "m.amp.GradScaler().update()",
    "m.amp.GradScaler().unscale_(None)", "m.amp.GradScaler().scale(m.ones(2))",
    "m.amp.GradScaler('cpu').scale(m.ones(2))",
    "m.amp.GradScaler('cpu').scale([m.ones(1), (m.ones(1),)])",
    "m.amp.GradScaler('cpu').scale(3)", "m.amp.GradScaler('cpu').update()",
    "m.amp.GradScaler('cpu', growth_factor=0.5)", "m.amp.GradScaler('cpu', backoff_factor=1.5)",
    "m.amp.GradScaler('cpu').load_state_dict({})",
    "m.amp.GradScaler().load_state_dict({})",
    "m.cuda.amp.autocast()._enabled", "m.cuda.amp.autocast(enabled=False)._enabled",
    "m.cuda.amp.GradScaler().is_enabled()", "m.cuda.amp.GradScaler(enabled=False).is_enabled()",
    "m.cuda.amp.custom_fwd(lambda x: x)(3)", "m.cuda.amp.custom_bwd(lambda x: x)(3)",
    "m.amp.custom_fwd(lambda x: x, device_type='cpu')(3)",
    "m.amp.custom_bwd(lambda x: x, device_type='cpu')(3)",
    "m.amp.custom_fwd(device_type=3)",
    # custom_fwd records the autocast state on ctx; custom_bwd runs backward under it
    "(lambda c: (m.amp.custom_fwd(device_type='cpu')(lambda ctx, x: x * 2)(c, 3), c._dtype,"
    " c._fwd_used_autocast, m.amp.custom_bwd(device_type='cpu')(lambda ctx, g: g + 1)(c, 1)))"
    "(__import__('types').SimpleNamespace())",
    "(lambda c: (m.cuda.amp.custom_fwd(lambda ctx, x: x)(c, 3), c._fwd_used_autocast,"
    " m.cuda.amp.custom_bwd(lambda ctx, g: g)(c, 1)))(__import__('types').SimpleNamespace())",
]


@pytest.mark.parametrize("expr", CASES)
def test_same_answer_as_torch(expr):
    got = outcome(expr, ember)
    want = outcome(expr, torch)
    assert got == want


def test_disabled_autocast_regions_run_and_restore_state():
    x = ember.ones(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ctx in (ember.autocast("cpu", enabled=False), ember.amp.autocast("cuda"),
                    ember.cuda.amp.autocast(), ember.autocast("cpu", dtype=ember.float32)):
            with ctx as entered:
                assert entered is ctx and not ember.is_autocast_enabled("cpu")
                assert (x @ x).dtype == ember.float32
    assert ember.get_autocast_dtype("cpu") is ember.amp.autocast_mode.bfloat16
    assert ember.is_autocast_cache_enabled()


def test_autocast_as_decorator():
    @ember.autocast("cpu", enabled=False)
    def f(a):
        """doc"""
        return a * 2
    assert f(ember.ones(2)).tolist() == [2.0, 2.0] and f.__doc__ == "doc"
    with pytest.raises(TypeError, match="requires a callable"):
        ember.autocast("cpu")(3)


def test_enabled_mps_autocast_refuses_clearly():
    """ember has no mps device: entering an enabled region says so and leaves the state as it was."""
    with pytest.raises(NotImplementedError, match="no 'mps' device"):
        with ember.autocast("mps", dtype=ember.float16):
            pass
    assert not ember.is_autocast_enabled("mps") and ember.is_autocast_cache_enabled()


def _train(m, steps, inf_at, scaler_device="cpu", **scaler_kwargs):
    """A few SGD steps through GradScaler; an inf loss at step `inf_at`."""
    m.manual_seed(0)
    lin = m.nn.Linear(3, 1)
    with torch.no_grad():  # the same start in both libraries
        w = np.array([[0.1, -0.2, 0.3]], dtype=np.float32)
    lin.weight.data = m.tensor(w)
    lin.bias.data = m.tensor([0.05])
    opt = m.optim.SGD(lin.parameters(), lr=0.1)
    scaler = m.amp.GradScaler(scaler_device, **scaler_kwargs)
    x = m.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
    trace = []
    for i in range(steps):
        opt.zero_grad()
        loss = (lin(x) ** 2).sum() * (float("inf") if i in inf_at else 1.0)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker()))
    return trace, lin.weight.detach().numpy().copy(), scaler.state_dict()


@pytest.mark.parametrize("kwargs", [{"init_scale": 4.0, "growth_interval": 2},
                                    {"init_scale": 1024.0, "growth_factor": 3.0,
                                     "backoff_factor": 0.25, "growth_interval": 1}])
def test_cpu_grad_scaler_matches_torch(kwargs):
    got = _train(ember, 6, {1, 4}, **kwargs)
    want = _train(torch, 6, {1, 4}, **kwargs)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6, atol=1e-7)
    assert got[2] == want[2]


def test_disabled_grad_scaler_is_a_pass_through():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = ember.amp.GradScaler()
    got = _train(ember, 3, set(), scaler_device="cpu", enabled=False)
    want = _train(torch, 3, set(), scaler_device="cpu", enabled=False)
    assert got[0] == want[0] == [(1.0, 0)] * 3
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    t = ember.ones(2)
    assert scaler.scale(t) is t and scaler.state_dict() == {}


def test_grad_scaler_misuse_as_torch():
    for m in (ember, torch):
        lin = m.nn.Linear(2, 1)
        opt = m.optim.SGD(lin.parameters(), lr=0.1)
        s = m.amp.GradScaler("cpu")
        with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
            s.step(opt)
        s.scale(lin(m.ones(1, 2)).sum()).backward()
        s.unscale_(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
            s.unscale_(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            s.step(opt, closure=lambda: 0)
        s.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            s.step(opt)
        with pytest.raises(AssertionError, match="new_scale should be a float"):
            s.update(m.ones(2))
        s.update(8.0)
        assert s.get_scale() == 8.0
        s2 = m.amp.GradScaler("cpu")
        s2.load_state_dict(s.state_dict())
        assert s2.get_scale() == 8.0


def test_autocast_state_functions_as_torch():
    # torch.autocast_increment_nesting / autocast_decrement_nesting count nested regions (an
    # unmatched decrement goes below 0 in both); set_autocast_dtype / set_autocast_cache_enabled
    # set what get_autocast_dtype / is_autocast_cache_enabled read; clear_autocast_cache drops
    # the region's cached casts (ember caches none)
    for lib in (torch, ember):
        dtype, cache = lib.get_autocast_dtype("cpu"), lib.is_autocast_cache_enabled()
        try:
            base = lib.autocast_increment_nesting()
            assert lib.autocast_increment_nesting() == base + 1
            assert lib.autocast_decrement_nesting() == base
            assert lib.autocast_decrement_nesting() == base - 1
            assert lib.autocast_decrement_nesting() == base - 2
            lib.autocast_increment_nesting()
            lib.autocast_increment_nesting()
            # back to the count before this test (base - 1): a count left above 0 keeps torch's
            # autocast cast cache alive after every later region (stale float16 weights)
            assert lib.autocast_decrement_nesting() == base - 1
            lib.set_autocast_dtype("cpu", lib.float16)
            assert str(lib.get_autocast_dtype("cpu")).endswith("float16")
            lib.set_autocast_cache_enabled(False)
            assert lib.is_autocast_cache_enabled() is False
            assert lib.clear_autocast_cache() is None
            with pytest.raises(TypeError, match="set_autocast_dtype"):
                lib.set_autocast_dtype("cpu", 3)
            with pytest.raises(TypeError, match="enabled must be a bool"):
                lib.set_autocast_cache_enabled("a")
            with pytest.raises(RuntimeError, match="Expected one of cpu"):
                lib.set_autocast_dtype("nodev", lib.float32)
            with pytest.raises(TypeError):
                lib.autocast_increment_nesting(1)
        finally:
            lib.set_autocast_dtype("cpu", dtype)
            lib.set_autocast_cache_enabled(cache)
        assert lib.get_autocast_dtype("cpu") == dtype
