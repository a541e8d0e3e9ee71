"""ember.func against torch.func 2.13: values, structure, nesting, requires_grad of the results,
vmap's in_dims/out_dims, functional_call, and the errors torch raises."""
import numpy as np
import pytest
import torch
import torch.func as TF

import ember
import ember.func as EF


def _t(a, m):
    return torch.from_numpy(a.copy()) if m is torch else ember.from_numpy(a.copy())


def _same(want, got):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for w, g in zip(want, got):
            _same(w, g)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want)
        for k in want:
            _same(want[k], got[k])
    elif isinstance(want, torch.Tensor):
        assert isinstance(got, ember.Tensor) and tuple(got.shape) == tuple(want.shape)
        assert got.requires_grad == want.requires_grad
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6,
                                   atol=1e-9)
    else:
        assert got == want


def _outcome(fn):
    try:
        fn()
        return None
    except Exception as ex:  # noqa: BLE001 - type and text compared with torch's
        return type(ex).__name__, str(ex).replace("torch.", "ember.").replace("ember._C.", "ember.")


RNG = np.random.default_rng(0)
X, Y, M = RNG.standard_normal(3), RNG.standard_normal((3, 2)), RNG.standard_normal((4, 3))

CASES = {
    "grad": lambda m, F: F.grad(lambda a: (a.sin() * a).sum())(_t(X, m)),
    "grad_argnums": lambda m, F: F.grad(lambda a, b: (a @ b).exp().sum(), argnums=(0, 1))(
        _t(X, m), _t(Y, m)),
    "grad_neg_argnum": lambda m, F: F.grad(lambda a, b: (a @ b).sum(), argnums=-1)(
        _t(X, m), _t(Y, m)),
    "grad_aux": lambda m, F: F.grad(lambda a: ((a ** 3).sum(), a * 2), has_aux=True)(_t(X, m)),
    "grad_and_value_aux": lambda m, F: F.grad_and_value(
        lambda a: ((a ** 3).sum(), {"d": a * 2}), has_aux=True)(_t(X, m)),
    "grad_dict": lambda m, F: F.grad(lambda p, x: (p["w"] @ x + p["b"]).tanh().sum())(
        {"w": _t(Y.T, m), "b": _t(X[:2], m)}, _t(X, m)),
    "grad_of_grad": lambda m, F: F.grad(lambda a: F.grad(lambda b: (b ** 3).sum())(a).sum())(
        _t(X, m)),
    "grad_0d": lambda m, F: F.grad(lambda a: a.exp() * a)(_t(np.array(0.7), m)),
    "grad_requires_grad_input": lambda m, F: F.grad(lambda a: (a ** 3).sum())(
        _t(X, m).requires_grad_()),
    "jacrev": lambda m, F: F.jacrev(lambda a: a.sin() * a.sum())(_t(X, m)),
    "jacrev_tuple_out": lambda m, F: F.jacrev(lambda a, b: (a @ b, b.exp()), argnums=(0, 1))(
        _t(X, m), _t(Y, m)),
    "jacrev_aux": lambda m, F: F.jacrev(lambda a: (a * 2, a.sum()), has_aux=True)(_t(X, m)),
    "jacfwd": lambda m, F: F.jacfwd(lambda a, b: (a @ b, b.exp()), argnums=1)(_t(X, m), _t(Y, m)),
    "jacrev_0d_out": lambda m, F: F.jacrev(lambda a: (a * a).sum())(_t(Y, m)),
    "jacrev_empty": lambda m, F: F.jacrev(lambda a: a * 2)(_t(np.zeros(0), m)),
    "hessian": lambda m, F: F.hessian(lambda a: (a ** 3).sum() * a.sum())(_t(X, m)),
    "hessian_argnums": lambda m, F: F.hessian(lambda a, b: (a.sin() @ b).sum() ** 2,
                                              argnums=(0, 1))(_t(X, m), _t(Y, m)),
    "jvp": lambda m, F: F.jvp(lambda a: a.sin() * a.sum(), (_t(X, m),), (_t(X * 0 + 1, m),)),
    "jvp_tuple": lambda m, F: F.jvp(lambda a, b: (a @ b, b.sum()), (_t(X, m), _t(Y, m)),
                                    (_t(X, m), _t(Y, m))),
    "jvp_strict": lambda m, F: F.jvp(lambda a: a * 2, (_t(X, m),), (_t(X, m),), strict=True),
    "jvp_aux": lambda m, F: F.jvp(lambda a: (a.exp(), a.sum()), (_t(X, m),), (_t(X, m),),
                                  has_aux=True),
    "vjp": lambda m, F: F.vjp(lambda a: a.sin() * a.sum(), _t(X, m))[1](_t(X, m)),
    "vjp_tuple": lambda m, F: F.vjp(lambda a, b: (a @ b, b.sum()), _t(X, m), _t(Y, m))[1](
        (_t(X[:2], m), _t(np.array(2.0), m))),
    "vjp_out": lambda m, F: F.vjp(lambda a: a.exp(), _t(X, m))[0],
    "vmap": lambda m, F: F.vmap(lambda a, b: a @ b)(_t(M, m), _t(M, m)),
    "vmap_dims": lambda m, F: F.vmap(lambda a, b: a * b, in_dims=(1, None), out_dims=1)(
        _t(Y, m), _t(X, m)),
    "vmap_neg_dims": lambda m, F: F.vmap(lambda a: a.sum(0), in_dims=-1, out_dims=-1)(_t(M, m)),
    "vmap_nested": lambda m, F: F.vmap(F.vmap(lambda a: a.sum()))(_t(M, m)),
    "vmap_grad": lambda m, F: F.vmap(F.grad(lambda a: (a ** 2).sin().sum()))(_t(M, m)),
    "vmap_tree": lambda m, F: F.vmap(lambda d: {"s": d["a"] + 1, "t": (d["a"], d["b"])},
                                     in_dims=({"a": 0, "b": None},))({"a": _t(M, m),
                                                                     "b": _t(X, m)}),
    "vmap_out_none": lambda m, F: F.vmap(lambda a: (a * 2, 3), out_dims=(0, None))(_t(X, m)),
    "vmap_jacrev": lambda m, F: F.vmap(F.jacrev(lambda a: a.sin() * a))(_t(M, m)),
    "vmap_kwargs": lambda m, F: F.vmap(lambda a, scale=1.0: a * scale)(_t(X, m), scale=3.0),
    "vmap_empty_batch": lambda m, F: F.vmap(lambda a, b: (a @ b, a.sum(0)), in_dims=(1, None),
                                            out_dims=(0, 1))(_t(np.zeros((3, 0, 2)), m),
                                                             _t(np.ones((2, 4)), m)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_transforms_match_torch(name):
    _same(CASES[name](torch, TF), CASES[name](ember, EF))


ERRORS = {
    "grad_nonscalar": lambda m, F: F.grad(lambda a: a * 2)(_t(X, m)),
    "grad_argnum_range": lambda m, F: F.grad(lambda a: a.sum(), argnums=1)(_t(X, m)),
    "grad_argnums_dup": lambda m, F: F.jacrev(lambda a: a, argnums=(0, 0))(_t(X, m)),
    "grad_aux_not_tuple": lambda m, F: F.grad(lambda a: a.sum(), has_aux=True)(_t(X, m)),
    "grad_not_tensor": lambda m, F: F.grad(lambda a: a.sum())(3.0),
    "grad_int": lambda m, F: F.grad(lambda a: a.sum())(m.arange(3)),
    "vmap_sizes": lambda m, F: F.vmap(lambda a, b: a + b)(_t(M, m), _t(Y, m)),
    "vmap_float_input": lambda m, F: F.vmap(lambda a: a)(3.0),
    "vmap_in_dims_structure": lambda m, F: F.vmap(lambda a: a, in_dims=(0, 0))(_t(X, m)),
    "vmap_in_dim_range": lambda m, F: F.vmap(lambda a: a, in_dims=2)(_t(X, m)),
    "vmap_returns_int": lambda m, F: F.vmap(lambda a: 3)(_t(X, m)),
    "vmap_out_dim_range": lambda m, F: F.vmap(lambda a: a.sum(), out_dims=1)(_t(Y, m)),
    "jvp_not_tuple": lambda m, F: F.jvp(lambda a: a, _t(X, m), _t(X, m)),
    "jvp_size": lambda m, F: F.jvp(lambda a: a, (_t(X, m),), (_t(X[:2], m),)),
    "vjp_size": lambda m, F: F.vjp(lambda a: a, _t(X, m))[1](_t(X[:2], m)),
    "jvp_strict_independent": lambda m, F: F.jvp(lambda a: m.ones(2), (_t(X, m),), (_t(X, m),),
                                                 strict=True),
    "jvp_returns_int": lambda m, F: F.jvp(lambda a: 3, (_t(X, m),), (_t(X, m),)),
    "vjp_returns_int": lambda m, F: F.vjp(lambda a: 3, _t(X, m)),
    "jacrev_returns_int": lambda m, F: F.jacrev(lambda a: 3)(_t(X, m)),
    "jacfwd_returns_int": lambda m, F: F.jacfwd(lambda a: 3)(_t(X, m)),
    "grad_returns_int": lambda m, F: F.grad(lambda a: 3)(_t(X, m)),
    "jvp_tangents_list": lambda m, F: F.jvp(lambda a: a, (_t(X, m),), [_t(X, m)]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    want = _outcome(lambda: ERRORS[name](torch, TF))
    got = _outcome(lambda: ERRORS[name](ember, EF))
    assert want is not None and got is not None and got[0] == want[0]
    # torch adds its pytree spec's repr to the structure error; the rest is word for word
    assert got[1] == want[1] or (name in ("vmap_in_dims_structure", "jvp_tangents_list")
                                 and want[1].startswith(got[1]))


def _nets():
    torch.manual_seed(0)
    tnet, enet = (m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4), m.nn.Linear(4, 2))
                  for m in (torch, ember))
    with torch.no_grad(), ember.no_grad():
        for k, v in enet.state_dict().items():
            v.copy_(_t(tnet.state_dict()[k].numpy(), ember))
    return tnet, enet


def test_functional_call_matches_torch_and_restores():
    tnet, enet = _nets()
    arrays = {"0.weight": RNG.standard_normal((4, 3)).astype("float32"),
              "2.bias": RNG.standard_normal(2).astype("float32")}
    tp = {k: _t(v, torch) for k, v in arrays.items()}
    ep = {k: _t(v, ember) for k, v in arrays.items()}
    x = M.astype("float32")
    want = TF.functional_call(tnet, tp, (_t(x, torch),))
    before = {k: v.detach().numpy().copy() for k, v in enet.state_dict().items()}
    got = EF.functional_call(enet, ep, (_t(x, ember),))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    for k, v in enet.state_dict().items():  # restored (running stats update as in torch)
        if "running" not in k and "num_batches" not in k:
            assert (v.detach().numpy() == before[k]).all(), k
    assert isinstance(enet[0].weight, ember.nn.Parameter)
    # gradients flow to the given tensors, not to the module's parameters
    p = {k: v.detach().requires_grad_() for k, v in ep.items()}
    EF.functional_call(enet, p, _t(x, ember)).sum().backward()
    assert all(v.grad is not None for v in p.values()) and enet[0].weight.grad is None
    tnet, enet = _nets()
    tnet.eval(), enet.eval()  # torch.func refuses BatchNorm's in-place running-stat update
    g = EF.grad(lambda ps, inp: EF.functional_call(enet, ps, (inp,)).pow(2).sum())(ep, _t(x, ember))
    gt = TF.grad(lambda ps, inp: TF.functional_call(tnet, ps, (inp,)).pow(2).sum())(
        tp, _t(x, torch))
    for k in gt:
        assert g[k].requires_grad == gt[k].requires_grad
        np.testing.assert_allclose(g[k].detach().numpy(), gt[k].detach().numpy(), rtol=1e-4,
                                   atol=1e-5)
    with pytest.raises((RuntimeError, ValueError)):  # an error in forward still restores
        EF.functional_call(enet, ep, (_t(np.ones((2, 5), "float32"), ember),))
    assert (enet[0].weight.detach().numpy() == before["0.weight"]).all()


def test_functional_call_errors_and_ties():
    for m, F in ((torch, TF), (ember, EF)):
        lin = m.nn.Linear(2, 2)
        w = m.zeros(2, 2)
        assert _outcome(lambda: F.functional_call(lin, ({"weight": w}, {"weight": w}), m.ones(2)))
        assert F.functional_call(lin, ({"weight": w}, {"bias": m.zeros(2)}), m.ones(2)).abs() \
            .sum().item() == 0
    outs = [_outcome(lambda: F.functional_call(m.nn.Linear(2, 2), {"weight": m.zeros(2, 2),
                                                                    "extra": m.zeros(1)},
                                               (m.ones(2),), strict=True))
            for m, F in ((torch, TF), (ember, EF))]
    assert outs[0][0] == outs[1][0] == "RuntimeError" and "Missing key(s): 'bias'" in outs[1][1]
    for m, F in ((torch, TF), (ember, EF)):
        tied = m.nn.Sequential(m.nn.Linear(2, 2, bias=False), m.nn.Linear(2, 2, bias=False))
        tied[1].weight = tied[0].weight
        out = F.functional_call(tied, {"0.weight": m.eye(2) * 2}, (m.ones(2),))
        assert out.tolist() == [4.0, 4.0]
        out = F.functional_call(tied, {"0.weight": m.eye(2) * 2}, (m.ones(2),), tie_weights=False)
        assert out.tolist() != [4.0, 4.0]


def test_top_level_names_as_torch():
    assert ember.vmap is EF.vmap and torch.vmap is TF.vmap
    for m in (torch, ember):
        assert not m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()
        m.set_anomaly_enabled(True, False)
        try:
            assert m.is_anomaly_enabled() and not m.is_anomaly_check_nan_enabled()
        finally:
            m.set_anomaly_enabled(False)
        assert not m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()


def test_vmap_randomness_as_torch():
    x = np.ones((3, 2), dtype="float32")
    for randomness in ("same", "different"):
        got = []
        for m, F in ((torch, TF), (ember, EF)):
            m.manual_seed(0)
            out = F.vmap(lambda a: a * 0 + m.rand(2), randomness=randomness)(_t(x, m))
            got.append(out.numpy())
            m.manual_seed(0)
            got.append(m.rand(3, 2).numpy())
        same_rows = (got[2] == got[2][0]).all()
        assert same_rows == (randomness == "same")
        if randomness == "different":
            np.testing.assert_array_equal(got[2], got[3])  # as one batched draw
        else:
            np.testing.assert_array_equal(got[2][0], got[3].ravel()[:2])
    want = _outcome(lambda: TF.vmap(lambda a: a + torch.rand(2))(_t(x, torch)))
    before = ember.get_rng_state()
    assert _outcome(lambda: EF.vmap(lambda a: a + ember.rand(2))(_t(x, ember))) == want
    assert (ember.get_rng_state() == before).all()
    assert EF.vmap(lambda a: a * 2)(_t(x, ember)).tolist() == [[2.0, 2.0]] * 3
