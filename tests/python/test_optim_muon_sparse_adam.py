"""optim.Muon and optim.SparseAdam against torch 2.13.

Muon: torch runs its Newton-Schulz iteration in bfloat16, ember in the parameter's dtype (it has
no bfloat16 arithmetic). The oracle is torch's own Muon with that one function swapped for the
same iteration in the parameter's dtype (momentum, nesterov, weight decay and the lr adjustments
stay torch's code), checked to 1e-12 in float64; plain torch agrees to bfloat16's precision.
SparseAdam: ember has no sparse gradients, so it refuses every gradient as torch refuses dense
ones."""
import numpy as np
import pytest
import torch
import torch.optim._muon as torch_muon

import ember


def _ns_same_dtype(grad, ns_coefficients, ns_steps, eps):
    """torch's _zeropower_via_newtonschulz without the cast to bfloat16."""
    a, b, c = ns_coefficients
    x = grad.T if grad.size(0) > grad.size(1) else grad
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x @ x.T
        x = torch.addmm(x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if grad.size(0) > grad.size(1) else x


def _run(lib, params, grads_per_step, **kw):
    ps = [lib.from_numpy(p.copy()).requires_grad_() if lib is ember else
          torch.from_numpy(p.copy()).requires_grad_() for p in params]
    opt = lib.optim.Muon(ps, **kw)
    for grads in grads_per_step:
        for p, g in zip(ps, grads):
            p.grad = lib.from_numpy(g.copy())
        opt.step()
    return [p.detach().numpy() for p in ps], opt


KWARGS = [dict(lr=0.02), dict(lr=0.05, nesterov=False, weight_decay=0.0),
          dict(lr=0.01, momentum=0.8, adjust_lr_fn="match_rms_adamw", ns_steps=3),
          dict(lr=0.03, weight_decay=0.2, ns_coefficients=(3.0, -3.2, 1.2), eps=1e-5)]


@pytest.mark.parametrize("kw", KWARGS)
def test_muon_matches_torch(kw, monkeypatch):
    rng = np.random.default_rng(0)
    params = [rng.standard_normal((6, 4)), rng.standard_normal((3, 7))]
    steps = [[rng.standard_normal(p.shape) for p in params] for _ in range(3)]
    monkeypatch.setattr(torch_muon, "_zeropower_via_newtonschulz", _ns_same_dtype)
    got, e_opt = _run(ember, params, steps, **kw)
    want, t_opt = _run(torch, params, steps, **kw)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    e_buf = e_opt.state[e_opt.param_groups[0]["params"][0]]["momentum_buffer"].numpy()
    t_buf = t_opt.state[t_opt.param_groups[0]["params"][0]]["momentum_buffer"].numpy()
    np.testing.assert_allclose(e_buf, t_buf, rtol=1e-12)
    assert e_opt.state_dict()["param_groups"][0].keys() == t_opt.state_dict()["param_groups"][0].keys()


def test_muon_close_to_torch_bfloat16_and_orthogonalizes():
    rng = np.random.default_rng(1)
    params = [rng.standard_normal((8, 5)).astype(np.float32)]
    steps = [[rng.standard_normal((8, 5)).astype(np.float32)]]
    got, _ = _run(ember, params, steps, lr=0.02)
    want, _ = _run(torch, params, steps, lr=0.02)
    np.testing.assert_allclose(got[0], want[0], atol=2e-3)  # bfloat16 rounding in torch
    o = ember.optim.muon._zeropower_via_newtonschulz(ember.from_numpy(steps[0][0].astype(np.float64)),
                                                     (3.4445, -4.7750, 2.0315), 5, 1e-7)
    s = np.linalg.svd(o.numpy(), compute_uv=False)
    assert 0.5 < s.min() and s.max() < 1.5  # roughly orthogonal, as the iteration promises


def test_muon_bad_inputs_and_closure():
    p = ember.randn(3, 4, requires_grad=True)
    for kw, msg in ((dict(lr=-1.0), "Learning rate should be >= 0"),
                    (dict(momentum=-0.1), "momentum should be >= 0"),
                    (dict(weight_decay=-1.0), "weight decay should be >= 0"),
                    (dict(adjust_lr_fn="x"), "Adjust learning rate function x is not supported")):
        with pytest.raises(ValueError, match=msg):
            torch.optim.Muon([torch.randn(3, 4, requires_grad=True)], **kw)
        with pytest.raises(ValueError, match=msg):
            ember.optim.Muon([p], **kw)
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        torch.optim.Muon([torch.randn(3, requires_grad=True)])
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        ember.optim.Muon([ember.randn(3, requires_grad=True)])
    opt = ember.optim.Muon([p], ns_steps=100)
    p.grad = ember.ones(3, 4)
    before = p.detach().clone()
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        opt.step()
    assert np.array_equal(p.detach().numpy(), before.numpy()) and not opt.state[p]
    opt = ember.optim.Muon([p], lr=0.1)
    loss = opt.step(lambda: 3.0)
    assert loss == 3.0


def test_sparse_adam_refuses_dense_gradients_as_torch():
    for lib in (torch, ember):
        p = lib.zeros(3, 2, requires_grad=True)
        opt = lib.optim.SparseAdam([p], lr=0.1)
        assert opt.step(lambda: 1.5) == 1.5  # no gradient yet: nothing to do
        p.grad = lib.ones(3, 2)
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, "
                                               "please consider Adam instead"):
            opt.step()
        assert not p.detach().numpy().any()  # untouched
        assert opt.state_dict()["param_groups"][0]["betas"] == (0.9, 0.999)
    for kw, msg in ((dict(lr=0.0), "Invalid learning rate: 0.0"),
                    (dict(eps=0.0), "Invalid epsilon value: 0.0"),
                    (dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
                    (dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1")):
        with pytest.raises(ValueError, match=msg):
            torch.optim.SparseAdam([torch.zeros(2, requires_grad=True)], **kw)
        with pytest.raises(ValueError, match=msg):
            ember.optim.SparseAdam([ember.zeros(2, requires_grad=True)], **kw)
