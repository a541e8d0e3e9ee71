"""torch.autograd's remaining names (python/ember/autograd): NestedIOFunction (nested inputs
and outputs, checked against the same math in torch, whose own NestedIOFunction cannot be
called in 2.13), SavedTensor (ctx._raw_saved_tensors, register_hooks, data, against torch's
grad_fn._raw_saved_*), the profiler enums and config (DeviceType, ProfilerState,
ProfilerConfig, ProfilerActivity), profiler_legacy.profile and profiler_util's result types
on ember's profiler, kineto_available, is_view_replay_enabled."""
import numpy as np
import pytest
import torch

import ember
import ember.autograd as EA


class Nested(EA.NestedIOFunction):
    def forward_extended(self, a, pair):
        b, c = pair
        self.save_for_backward(a, (b, c))
        return a * b, (a + c, 3)

    def backward_extended(self, g_ab, g_rest):
        a, (b, c) = self.saved_tensors
        g_ac = g_rest[0]
        return g_ab * b + g_ac, g_ab * a, g_ac


def test_nested_io_function():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(4) for _ in range(3)]
    ea, eb, ec = [ember.from_numpy(x.copy()).requires_grad_() for x in arrays]
    ta, tb, tc = [torch.from_numpy(x.copy()).requires_grad_() for x in arrays]
    prod, (total, three) = Nested()(ea, (eb, ec))
    assert three == 3 and prod.grad_fn is not None
    (prod.sum() * 2 + (total * total).sum()).backward()
    ((ta * tb).sum() * 2 + ((ta + tc) * (ta + tc)).sum()).backward()
    for e, t in ((ea, ta), (eb, tb), (ec, tc)):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.raises(AttributeError):  # torch 2.13's own NestedIOFunction cannot be called
        class T(torch.autograd.NestedIOFunction):
            def forward_extended(self, a):
                return a
        with pytest.warns(DeprecationWarning):
            T()(ta)

    class Missing(EA.NestedIOFunction):
        pass
    with pytest.raises(NotImplementedError, match="Missing must define forward_extended"):
        Missing()(ea)


_raw_saved = []  # each Square.apply's ctx._raw_saved_tensors


class Square(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        _raw_saved.append(ctx._raw_saved_tensors)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_saved_tensor_hooks():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for lib in (EA, torch.autograd):
        with pytest.raises(RuntimeError, match="Trying to create a SavedTensor object from "
                                               "Python is forbidden"):
            lib.SavedTensor()
    calls = []
    y = Square.apply(x)
    (raw,) = _raw_saved[-1]
    ty = tx.exp()
    traw = ty.grad_fn._raw_saved_result
    for r, cls in ((raw, EA.SavedTensor), (traw, torch.autograd.SavedTensor)):
        assert isinstance(r, cls)
        r.register_hooks(lambda t: (calls.append("pack"), t * 0 + 7)[1],
                         lambda p: (calls.append("unpack"), p)[1])
        with pytest.raises(RuntimeError, match="hooks have already been set"):
            r.register_hooks(lambda t: t, lambda p: p)
        assert r.data.tolist() == [7.0, 7.0, 7.0]
    y.sum().backward()
    assert x.grad.tolist() == [14.0, 14.0, 14.0]  # backward saw the unpacked 7s
    assert calls.count("pack") == 2 and "unpack" in calls
    Square.apply(x)
    with pytest.raises(TypeError, match="must be callable"):
        _raw_saved[-1][0].register_hooks(1, 2)


def test_profiler_enums_and_config():
    for name in ("CPU", "CUDA", "MPS", "Meta", "MTIA", "PrivateUse1"):
        assert int(getattr(EA.DeviceType, name)) == int(getattr(torch.autograd.DeviceType, name))
    for name in torch.autograd.ProfilerState.__members__:
        assert int(getattr(EA.ProfilerState, name)) == int(getattr(torch.autograd.ProfilerState, name))
    assert EA.ProfilerActivity.CPU is ember.profiler.ProfilerActivity.CPU
    cfg = EA.ProfilerConfig(EA.ProfilerState.CPU, True, False, False, True, False)
    assert cfg.state is EA.ProfilerState.CPU and cfg.report_input_shapes and cfg.with_flops
    with pytest.raises(TypeError, match="state must be a ProfilerState"):
        EA.ProfilerConfig("cpu", False, False, False, False, False)
    assert EA.kineto_available() is False and EA.is_view_replay_enabled() is False
    assert torch.autograd.is_view_replay_enabled() is False


def test_profiler_legacy_and_util():
    x = ember.randn(64, 64)
    with EA.profiler_legacy.profile(record_shapes=True, with_flops=True) as prof:
        (x @ x).sum()
    events = prof.key_averages()
    assert isinstance(events, EA.profiler_util.EventList)
    assert all(isinstance(e, EA.profiler_util.FunctionEventAvg) for e in events)
    assert any(e.key == "matmul" or "mm" in e.key for e in events)
    assert "Self time" in events.table(sort_by="self_cpu_time_total")
    assert prof.config().state is EA.ProfilerState.CPU and prof.config().with_flops
    assert prof.function_events is events
    with pytest.raises(AssertionError, match="CPU only"):
        EA.profiler_legacy.profile(use_cuda=True)
    tx = torch.randn(8, 8)
    with torch.autograd.profiler_legacy.profile() as tprof:
        (tx @ tx).sum()
    assert isinstance(tprof.key_averages(), torch.autograd.profiler_util.EventList)
