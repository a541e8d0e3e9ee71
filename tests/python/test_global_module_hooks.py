"""Hooks on every module (torch.nn.modules.module.register_module_*_hook; ember's
nn/modules/_global_hooks.py) against torch 2.13: which hooks run, in which order beside the
modules' own, replacements they return, removal, and the one-kind rule for backward hooks."""
import pytest
import torch

import ember
import ember.nn.modules._global_hooks as ember_globals


@pytest.fixture(autouse=True)
def fresh_global_kind():
    """The backward-hook kind is process state in both libraries: start and end unset."""
    ember_globals._global_is_full_backward_hook[0] = None
    torch.nn.modules.module._global_is_full_backward_hook = None
    yield
    ember_globals._global_is_full_backward_hook[0] = None
    torch.nn.modules.module._global_is_full_backward_hook = None


def name(m):
    return type(m).__name__


def run_all_kinds(t):
    M = t.nn.modules.module
    log = []
    hs = [M.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", name(m)))),
          M.register_module_forward_hook(lambda m, a, o: log.append(("gfwd", name(m)))),
          M.register_module_full_backward_pre_hook(lambda m, g: log.append(("gbpre", name(m)))),
          M.register_module_full_backward_hook(lambda m, gi, go: log.append(("gbwd", name(m)))),
          M.register_module_buffer_registration_hook(lambda m, n, b: log.append(("buf", n))),
          M.register_module_parameter_registration_hook(lambda m, n, p: log.append(("param", n))),
          M.register_module_module_registration_hook(lambda m, n, s: log.append(("mod", n)))]
    net = t.nn.Sequential(t.nn.Linear(3, 2), t.nn.BatchNorm1d(2), t.nn.Tanh())
    net[2].register_forward_hook(lambda m, a, o: log.append(("own", "Tanh")))
    net[2].register_full_backward_hook(lambda m, gi, go: log.append(("ownb", "Tanh")))
    x = t.ones(4, 3, requires_grad=True)
    net(x).sum().backward()
    for h in hs:
        h.remove()
    log.append("removed")
    net(x).sum().backward()
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full"):
        M.register_module_backward_hook(lambda *a: None)
    return log


def test_every_kind_runs_in_torchs_order():
    got, want = run_all_kinds(ember), run_all_kinds(torch)
    assert got == want
    assert ("gbwd", "Linear") in got and got.index(("gbwd", "Tanh")) < got.index(("ownb", "Tanh"))


@pytest.mark.parametrize("t", [ember, torch])
def test_replacements_and_kwargs(t):
    M = t.nn.modules.module
    h1 = M.register_module_forward_pre_hook(lambda m, a: (a[0] + 1,))
    h2 = M.register_module_forward_hook(lambda m, a, k, o: o * 10, with_kwargs=True)
    h3 = M.register_module_buffer_registration_hook(
        lambda m, n, b: t.full_like(b, 7.0) if n == "scale" else None)
    h4 = M.register_module_module_registration_hook(
        lambda m, n, s: t.nn.Identity() if isinstance(s, t.nn.ReLU) else None)
    try:
        assert t.nn.Identity()(t.ones(2)).tolist() == [20.0, 20.0]
        holder = t.nn.Module()
        holder.register_buffer("scale", t.ones(2))
        assert holder.scale.tolist() == [7.0, 7.0]
        seq = t.nn.Sequential(t.nn.ReLU())
        assert isinstance(seq[0], t.nn.Identity)
    finally:
        for h in (h1, h2, h3, h4):
            h.remove()
    assert t.nn.Identity()(t.ones(2)).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("t", [ember, torch])
def test_global_full_backward_hook_replaces_grad_input(t):
    M = t.nn.modules.module
    h = M.register_module_full_backward_hook(lambda m, gi, go: (gi[0] * 3,))
    try:
        x = t.ones(3, requires_grad=True)
        t.nn.Identity()(x).sum().backward()
    finally:
        h.remove()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("t", [ember, torch])
def test_global_old_kind_hook(t):
    M = t.nn.modules.module
    seen = []
    h = M.register_module_backward_hook(lambda m, gi, go: seen.append(name(m)))
    try:
        sig = t.nn.Sigmoid()  # kept alive: torch's hook holds the module weakly
        with pytest.warns(FutureWarning):
            y = sig(t.ones(3, requires_grad=True))
        y.sum().backward()
    finally:
        h.remove()
    assert seen == ["Sigmoid"]
    with pytest.raises(RuntimeError, match="Cannot use both"):
        M.register_module_full_backward_hook(lambda *a: None)
