"""Optimizer hooks against torch 2.13: step pre/post hooks (per optimizer and global),
state_dict and load_state_dict pre/post hooks, their order, prepend, removal, and torch's
error for a pre-hook returning something else than (args, kwargs)."""
import numpy as np
import pytest
import torch

import ember
import ember.optim
import sys

import ember.optim.optimizer
import torch.optim.optimizer  # noqa: F401  (torch.optim hides the name; sys.modules has it)

OPTIMIZER_MODULE = {ember: ember.optim.optimizer, torch: sys.modules["torch.optim.optimizer"]}


def _opt(lib, name="SGD", **kw):
    p = lib.ones(3, requires_grad=True)
    p.grad = lib.full((3,), 0.5)
    return p, getattr(lib.optim, name)([p], lr=0.1, **kw)


@pytest.mark.parametrize("name", ["SGD", "Adam", "NAdam", "LBFGS"])
def test_step_hooks_order_and_removal_like_torch(name):
    logs = []
    for lib in (ember, torch):
        log = []
        p, o = _opt(lib, name)
        mod = OPTIMIZER_MODULE[lib]
        hs = [mod.register_optimizer_step_pre_hook(lambda opt, a, k: log.append("gpre")),
              mod.register_optimizer_step_post_hook(lambda opt, a, k: log.append("gpost")),
              o.register_step_pre_hook(lambda opt, a, k: log.append(("pre", opt is o, len(a)))),
              o.register_step_post_hook(lambda opt, a, k: log.append("post"))]
        closure = (lambda: lib.tensor(1.0)) if name == "LBFGS" else None
        try:
            o.step(closure) if closure else o.step()
            hs[2].remove()
            hs[0].remove()
            o.step(closure) if closure else o.step()
        finally:
            for h in hs:
                h.remove()
        o.step(closure) if closure else o.step()
        logs.append(log)
    assert logs[0] == logs[1]
    assert logs[0][:4] == ["gpre", ("pre", True, 1 + (name == "LBFGS")), "post", "gpost"]


def test_step_pre_hook_replaces_arguments_and_bad_return():
    for lib in (ember, torch):
        p, o = _opt(lib)
        seen = []
        h = o.register_step_pre_hook(lambda opt, a, k: ((opt,), {"closure": lambda: seen.append(1)}))
        o.step()
        assert seen == [1]
        h.remove()
        o.register_step_pre_hook(lambda opt, a, k: 3)
        with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, "
                                               "new_kwargs\\), but got 3"):
            o.step()


def test_state_dict_hooks_like_torch():
    results = []
    for lib in (ember, torch):
        log = []
        p, o = _opt(lib, "Adam")
        o.step()
        o.register_state_dict_pre_hook(lambda opt: log.append("pre"))
        o.register_state_dict_pre_hook(lambda opt: log.append("pre0"), prepend=True)

        def post(opt, sd):
            log.append(("post", sorted(sd)))
            sd = dict(sd)
            sd["extra"] = 7
            return sd
        o.register_state_dict_post_hook(post)
        sd = o.state_dict()
        assert sd["extra"] == 7
        sd.pop("extra")

        def lpre(opt, sd):
            log.append(("lpre", "extra" in sd))
            sd = dict(sd)
            sd["param_groups"] = [dict(g, lr=0.5) for g in sd["param_groups"]]
            return sd
        o.register_load_state_dict_pre_hook(lpre)
        o.register_load_state_dict_post_hook(lambda opt: log.append(("lpost", opt.param_groups[0]["lr"])))
        before = dict(sd)
        o.load_state_dict(sd)
        assert sd.keys() == before.keys() and sd["param_groups"][0]["lr"] == 0.1  # not changed
        results.append(log)
    assert results[0] == results[1]
    assert results[0] == ["pre0", "pre", ("post", ["param_groups", "state"]), ("lpre", False),
                          ("lpost", 0.5)]


def test_hooks_survive_pickle_without_being_saved():
    import pickle
    p, o = _opt(ember)
    o.register_step_pre_hook(print)
    o2 = pickle.loads(pickle.dumps(o))
    assert len(o2._optimizer_step_pre_hooks) == 0
    o2.step()
    assert o2.param_groups[0]["lr"] == 0.1


# ---- swap_in_optimizer_params_and_state ----------------------------------------------------
def test_swap_in_params_and_state_like_torch():
    out = []
    for lib in (ember, torch):
        p, o = _opt(lib, "Adam")
        o.step()
        sd = o.state_dict()
        q = p.detach().clone().requires_grad_()
        q.grad = lib.full((3,), -1.0)
        swap_sd = {"state": {0: {k: v.clone() for k, v in sd["state"][0].items()}},
                   "param_groups": [dict(sd["param_groups"][0], lr=0.5)]}
        before = p.detach().clone()
        with lib.optim.swap_in_optimizer_params_and_state(o, {"w": q}, swap_sd):
            assert o.param_groups[0]["params"][0] is q and o.param_groups[0]["lr"] == 0.5
            o.step()
        assert o.param_groups[0]["params"][0] is p and o.param_groups[0]["lr"] == 0.1
        assert o.state[p]["step"].item() == 1
        np.testing.assert_array_equal(p.detach().numpy(), before.numpy())
        out.append((q.detach().numpy().copy(), swap_sd["state"][0]["exp_avg"].numpy().copy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-6)


def test_swap_in_errors_like_torch():
    for lib in (ember, torch):
        p, o = _opt(lib, "Adam")
        with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
            with lib.optim.swap_in_optimizer_params_and_state(o, {"w": p}, o.state_dict()):
                pass
        o.step()
        sd = o.state_dict()
        for bad, match in [({"state": [], "param_groups": sd["param_groups"]}, "to be a dict"),
                           ({"state": sd["state"], "param_groups": []}, "different number of "
                                                                         "parameter groups"),
                           ({"state": {**sd["state"], 5: {}}, "param_groups": sd["param_groups"]},
                            "got extra keys \\[5\\]"),
                           ({"state": sd["state"],
                             "param_groups": [dict(sd["param_groups"][0], x=1)]},
                            "Keys only in swap-in: \\['x'\\]")]:
            with pytest.raises(RuntimeError, match=match):
                with lib.optim.swap_in_optimizer_params_and_state(o, {"w": p}, bad):
                    pass


# ---- fused / foreach / capturable on the CPU, as torch ----------------------------------------
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_together_refused_like_torch(name):
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], lr=0.1, fused=True,
                                     foreach=True)
        p, o = _opt(lib, name, fused=True)  # fused alone runs (ember: the usual update)
        o.step()


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop"])
def test_capturable_refused_on_cpu_like_torch(name):
    messages = []
    for lib in (ember, torch):
        p, o = _opt(lib, name, capturable=True)
        with pytest.raises(AssertionError) as info:
            o.step()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_tensor_lr_of_several_elements_refused_like_torch():
    for name in ["SGD", "Adam", "RMSprop", "Adagrad", "Adafactor", "LBFGS"]:
        for lib in (ember, torch):
            with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
                getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)],
                                         lr=lib.tensor([0.1, 0.2]))
