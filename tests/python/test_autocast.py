"""CPU autocast (ember.autocast('cpu') / ember.amp.autocast) against torch 2.13: which ops run in
the lower precision, which in float32, which keep their inputs' dtypes; values and gradients;
nesting, enabled=False, the decorator form, float16, per-thread state; GradScaler with float16."""
import threading

import numpy as np
import pytest
import torch

import ember
from test_half_ops import ulps

F, TF = ember.nn.functional, torch.nn.functional


def pair(shape, seed=0, low=-1.0, high=1.0, requires_grad=False):
    a = np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def dtname(x):
    return str(x.dtype).split(".")[-1]


LOWER = {
    "matmul": lambda m, a, b, w: m.matmul(a, b),
    "mm": lambda m, a, b, w: m.mm(a, b),
    "bmm": lambda m, a, b, w: m.bmm(a.unsqueeze(0), b.unsqueeze(0)),
    "addmm": lambda m, a, b, w: m.addmm(w[:1, :b.shape[1]], a, b),
    "linear": lambda m, a, b, w: m.nn.functional.linear(a, b.t(), w[0, :b.shape[1]]),
    "@": lambda m, a, b, w: a @ b,
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", sorted(LOWER))
def test_lower_precision_ops(dtype, op):
    (a, ta), (b, tb), (w, tw) = pair((6, 8), 1), pair((8, 5), 2), pair((4, 8), 3)
    with ember.autocast("cpu", dtype=getattr(ember, dtype)):
        got = LOWER[op](ember, a, b, w)
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        want = LOWER[op](torch, ta, tb, tw)
    assert dtname(got) == dtname(want) == dtype
    assert ulps(got, want) <= 1


def test_conv_is_lower_precision():
    (x, tx), (w, tw), (b, tb) = pair((2, 3, 8, 8), 4), pair((4, 3, 3, 3), 5), pair((4,), 6)
    with ember.autocast("cpu"):
        y = F.conv2d(x, w, b, padding=1)
        z = F.conv2d(y, w.new_ones(4, 4, 1, 1))  # a bfloat16 input with a float32 weight
    with torch.autocast("cpu"):
        ty = TF.conv2d(tx, tw, tb, padding=1)
        tz = TF.conv2d(ty, tw.new_ones(4, 4, 1, 1))
    assert dtname(y) == dtname(z) == "bfloat16" == dtname(ty)
    assert ulps(y, ty) <= 1 and ulps(z, tz) <= 1


def test_float32_ops_and_unlisted_ops():
    (x, tx), (w, tw) = pair((16, 10), 7), pair((10, 10), 8)
    target = np.random.default_rng(0).integers(0, 10, 16)
    with ember.autocast("cpu"):
        h = x @ w
        loss = F.cross_entropy(h, ember.from_numpy(target.copy()))
        mse = F.mse_loss(h, x)
        r = F.relu(h)
        s = h + x  # bfloat16 + float32 promotes, autocast or not
        p = ember.prod(h[:2, :3], 1)
    with torch.autocast("cpu"):
        th = tx @ tw
        tloss = TF.cross_entropy(th, torch.from_numpy(target.copy()))
        tmse = TF.mse_loss(th, tx)
        tr = TF.relu(th)
        ts = th + tx
        tp = torch.prod(th[:2, :3], 1)
    for got, want in ((loss, tloss), (mse, tmse), (r, tr), (s, ts), (p, tp)):
        assert dtname(got) == dtname(want)
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    np.testing.assert_allclose(mse.item(), tmse.item(), rtol=1e-5)
    assert ulps(r, tr) == 0


def test_float64_is_never_cast():
    a = ember.ones(3, 3, dtype=ember.float64)
    with ember.autocast("cpu"):
        assert (a @ a).dtype is ember.float64
        with pytest.raises(TypeError):
            a @ ember.ones(3, 3)  # float64 @ (float32 -> bfloat16): torch refuses too


def test_gradients_flow_to_float32_leaves():
    (x, tx), (w, tw) = pair((8, 6), 9, requires_grad=True), pair((4, 6), 10, requires_grad=True)
    (b, tb) = pair((4,), 11, requires_grad=True)
    with ember.autocast("cpu"):
        out = F.linear(x, w, b).relu().sum()
    with torch.autocast("cpu"):
        tout = TF.linear(tx, tw, tb).relu().sum()
    out.backward()
    tout.backward()
    for ge, gt in ((x.grad, tx.grad), (w.grad, tw.grad), (b.grad, tb.grad)):
        assert ge.dtype is ember.float32 and gt.dtype == torch.float32
        np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=2e-2, atol=2e-2)


def test_nesting_enabled_false_and_state():
    a = ember.ones(2, 2)
    assert not ember.is_autocast_enabled("cpu")
    with ember.autocast("cpu"):
        assert ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") is ember.bfloat16
        assert (a @ a).dtype is ember.bfloat16
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu")
            assert (a @ a).dtype is ember.float32
        with ember.autocast("cpu", dtype=ember.float16):
            assert (a @ a).dtype is ember.float16
        assert (a @ a).dtype is ember.bfloat16
    assert not ember.is_autocast_enabled("cpu") and (a @ a).dtype is ember.float32
    assert ember.get_autocast_dtype("cpu") is ember.bfloat16
    with pytest.raises(ValueError, match="boom"):
        with ember.autocast("cpu"):
            raise ValueError("boom")
    assert not ember.is_autocast_enabled("cpu")  # restored on an exception too


def test_decorator_and_set_autocast_enabled():
    @ember.autocast("cpu")
    def f(a, b):
        return a @ b
    assert f(ember.ones(2, 2), ember.ones(2, 2)).dtype is ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")
    ember.set_autocast_enabled("cpu", True)
    try:
        assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.bfloat16
    finally:
        ember.set_autocast_enabled("cpu", False)
    assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.float32


def test_state_is_per_thread():
    seen = []
    with ember.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append((ember.is_autocast_enabled("cpu"),
                                                         (ember.ones(2, 2) @ ember.ones(2, 2)).dtype)))
        t.start()
        t.join()
    assert seen == [(False, ember.float32)]


def test_unsupported_dtype_warns_and_disables_as_torch():
    with pytest.warns(UserWarning, match="Disabling autocast"):
        ctx = ember.autocast("cpu", dtype=ember.float64)
    with ctx:
        assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.float32


def test_custom_fwd_casts_inputs():
    class Double(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        def forward(ctx, x):
            ctx.seen = (x.dtype, ember.is_autocast_enabled("cpu"))
            return x * 2

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            return g * 2

    x = ember.ones(3, dtype=ember.bfloat16, requires_grad=True)
    with ember.autocast("cpu"):
        y = Double.apply(x)
    assert y.dtype is ember.float32
    y.sum().backward()
    assert x.grad.dtype is ember.bfloat16 and x.grad.tolist() == [2.0, 2.0, 2.0]


def _fp16_train(m, steps=8, lr=0.1):
    """A float32 model trained through float16 autocast and GradScaler('cpu')."""
    lin = m.nn.Linear(4, 1)
    lin.weight.data = m.tensor([[0.1, -0.2, 0.3, 0.05]])
    lin.bias.data = m.tensor([0.05])
    opt = m.optim.SGD(lin.parameters(), lr=lr)
    scaler = m.amp.GradScaler("cpu", init_scale=2.0**16, growth_interval=2)
    x = m.tensor(np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4))
    y = m.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1))
    trace = []
    for i in range(steps):
        opt.zero_grad()
        with m.autocast("cpu", dtype=m.float16):
            out = lin(x)
            loss = ((out.float() - y) ** 2).sum() * (1e6 if i == 3 else 1.0)
        scaled = scaler.scale(loss)
        trace.append(str(scaled.dtype).split(".")[-1])
        scaled.backward()
        scaler.step(opt)
        scaler.update()
        trace.append(scaler.get_scale())
    return trace, lin.weight.detach().float().numpy().copy()


def test_grad_scaler_with_float16_autocast_matches_torch():
    got, want = _fp16_train(ember), _fp16_train(torch)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=5e-3, atol=5e-4)


def test_grad_scaler_refuses_float16_gradients_as_torch():
    for m in (ember, torch):
        p = m.nn.Parameter(m.ones(2, dtype=m.float16))
        opt = m.optim.SGD([p], lr=0.1)
        scaler = m.amp.GradScaler("cpu")
        scaler.scale((p * 2).sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
            scaler.unscale_(opt)


PY_FP32 = {
    "smooth_l1_loss": lambda F, h, y: F.smooth_l1_loss(h, y),
    "huber_loss": lambda F, h, y: F.huber_loss(h, y, delta=0.5),
    "kl_div": lambda F, h, y: F.kl_div(F.log_softmax(h, 1), y.softmax(1), reduction="batchmean"),
    "poisson_nll_loss": lambda F, h, y: F.poisson_nll_loss(h, y.abs()),
    "soft_margin_loss": lambda F, h, y: F.soft_margin_loss(h, y.sign()),
    "margin_ranking_loss": lambda F, h, y: F.margin_ranking_loss(h[:, 0], y[:, 0], y[:, 1].sign()),
    "hinge_embedding_loss": lambda F, h, y: F.hinge_embedding_loss(h, y.sign()),
    "cosine_embedding_loss": lambda F, h, y: F.cosine_embedding_loss(h, y, y[:, 0].sign()),
    "triplet_margin_loss": lambda F, h, y: F.triplet_margin_loss(h, y, h * 2),
}


@pytest.mark.parametrize("name", sorted(PY_FP32))
def test_python_losses_on_the_float32_list(name):
    (x, tx), (w, tw), (y, ty) = pair((6, 5), 12), pair((5, 5), 13), pair((6, 5), 14)
    with ember.autocast("cpu"):
        got = PY_FP32[name](F, x @ w, y)
        assert ember.is_autocast_enabled("cpu")
    with torch.autocast("cpu"):
        want = PY_FP32[name](TF, tx @ tw, ty)
    assert dtname(got) == dtname(want) == "float32"
    # (kl_div takes a bfloat16 log_softmax, one ulp apart between the two)
    np.testing.assert_allclose(got.item(), want.item(), rtol=5e-3, atol=1e-6)


# ---------------------------------------------------------------- torch's deprecated CPU spellings


def _calls(m):
    """The deprecated CPU-only functions, called in torch's order; returns what each answered
    and the warnings' categories and messages (with 'torch.' as the module name in both)."""
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = [str(m.get_autocast_cpu_dtype()).split(".")[-1], m.is_autocast_cpu_enabled()]
        m.set_autocast_cpu_enabled(True)
        got.append(m.is_autocast_cpu_enabled())
        got.append(m.is_autocast_enabled("cpu"))
        m.set_autocast_cpu_enabled(False)
        m.set_autocast_cpu_dtype(m.float16)
        got.append(str(m.get_autocast_dtype("cpu")).split(".")[-1])
        m.set_autocast_cpu_dtype(m.bfloat16)
        got.append(str(m.get_autocast_cpu_dtype()).split(".")[-1])
    messages = [(w.category, str(w.message).split(" (Triggered")[0]) for w in seen]
    return got, messages


def test_deprecated_cpu_spellings_answer_and_warn_as_torch():
    got_t, warned_t = _calls(torch)
    got_e, warned_e = _calls(ember)
    assert got_e == got_t == ["bfloat16", False, True, True, "float16", "bfloat16"]
    assert warned_e == warned_t and len(warned_e) == 8
    assert all(c is DeprecationWarning for c, _ in warned_e)


def test_deprecated_set_enabled_wants_a_bool():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in (torch, ember):
            with pytest.raises(TypeError, match="enabled must be a bool"):
                m.set_autocast_cpu_enabled(1)
        assert not ember.is_autocast_enabled("cpu")


def test_top_level_grad_scaler_is_amps():
    assert ember.GradScaler is ember.amp.GradScaler
    assert torch.GradScaler is torch.amp.GradScaler
