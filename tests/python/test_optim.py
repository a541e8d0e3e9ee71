"""ember.optim against torch.optim: every optimizer and option, run for a few steps on the
same parameters and gradients in both libraries, must leave the same parameters and the
same state; plus param groups, zero_grad, state_dict round trips, schedulers, bad inputs
and the issue's polynomial-fitting program."""
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.optim
from helpers import to_numpy
from optim_helpers import (OptimPair as Pair, check_bad_params, check_rejected_like_torch, leaf,
                           random_arrays, run_steps, state_dict_round_trip)

SHAPES = [(3, 4), (5,), (), (2, 3, 2), (0, 3)]

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, weight_decay=0.2, nesterov=True, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.5))),  # 1 - beta1 >= 0.5: lerp's other branch
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.05, maximize=True)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
    ("AdamW", dict(lr=0.01, maximize=True, betas=(0.4, 0.9))),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, alpha=0.3, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, eps=1e-3, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, eps=1e-3, maximize=True)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for name, kw in CASES]


def random_grads(shapes, dtype, rng, steps=5):
    return [random_arrays(shapes, dtype, rng) for _ in range(steps)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_matches_torch(name, kwargs, dtype):
    rng = np.random.default_rng(0)
    pair = Pair(name, kwargs, random_arrays(SHAPES, dtype, rng))
    run_steps(pair, random_grads(SHAPES, dtype, rng), dtype, none_at=2)


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded"])
@pytest.mark.parametrize("name,kwargs", [CASES[3], CASES[11], CASES[14], CASES[18], CASES[22]],
                         ids=[IDS[3], IDS[11], IDS[14], IDS[18], IDS[22]])
def test_non_contiguous(name, kwargs, layout):
    # expanded: only the grads (a parameter cannot have overlapping elements)
    rng = np.random.default_rng(1)
    shapes = [(3, 4), (4, 2, 5)]
    pair = Pair(name, kwargs, random_arrays(shapes, "float32", rng),
                layout="contiguous" if layout == "expanded" else layout)
    for _ in range(4):
        pair.set_grads(random_arrays(shapes, "float32", rng), layout)
        pair.step()
        pair.check("float32")
    for p in pair.ep:
        assert p.is_leaf and p.requires_grad and p.grad_fn is None


# Among 75000 elements some cancel: RMSprop's buffer adds terms g / sqrt(v) ~ 10 that
# nearly cancel, and PyTorch's AVX-512 kernels fuse multiply-adds where ember rounds twice
# (1 ulp of 10 is 1e-6), so the check allows a few ulps of the terms. The centered case with
# alpha=0.3 (sqrt(square_avg - grad_avg^2) cancels worse) is left to the small tests.
@pytest.mark.parametrize("name,kwargs", [CASES[1], CASES[11], CASES[14], CASES[17], CASES[22]],
                         ids=[IDS[1], IDS[11], IDS[14], IDS[17], IDS[22]])
def test_big_tensors_split_over_threads(name, kwargs):
    rng = np.random.default_rng(2)
    shapes = [(300, 250), (7,), (40000,), (3, 3)]
    pair = Pair(name, kwargs, random_arrays(shapes, "float32", rng))
    for _ in range(3):
        pair.set_grads(random_arrays(shapes, "float32", rng))
        pair.step()
        pair.check("float32", atol=1e-5)


def test_baseline_isa_copy_matches_torch():
    """On AVX2 machines the kernels run their AVX2 + FMA copy; EMBER_DISABLE_AVX2=1 makes a
    fresh process take the baseline copy, which must pass the same checks."""
    env = dict(os.environ, EMBER_DISABLE_AVX2="1")
    tests = "test_matches_torch or test_non_contiguous or test_big_tensors"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                        os.path.abspath(__file__), "-k", tests],
                       env=env, capture_output=True, text=True, cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def test_mixed_dtypes_in_one_group():
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(5)]
    pair = Pair("Adam", dict(lr=0.05), arrays)
    for _ in range(3):
        pair.set_grads([rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(5)])
        pair.step()
        pair.check("float32")


def test_param_groups_with_different_options():
    rng = np.random.default_rng(4)
    shapes = [(3, 4), (4,), (2, 2), (6,)]
    groups = [([0, 1], {}), ([2], dict(lr=0.5, momentum=0.0)), ([3], dict(lr=0.01, nesterov=False))]
    pair = Pair("SGD", dict(lr=0.1, momentum=0.9), random_arrays(shapes, "float64", rng),
                groups=groups)
    assert [g["lr"] for g in pair.eo.param_groups] == [0.1, 0.5, 0.01]
    assert pair.eo.param_groups[1]["momentum"] == 0.0 and pair.eo.param_groups[0]["momentum"] == 0.9
    run_steps(pair, random_grads(shapes, "float64", rng), "float64")
    pair2 = Pair("Adam", dict(lr=0.01), random_arrays(shapes, "float32", rng),
                 groups=[([0, 2], dict(lr=0.1, amsgrad=True)), ([1, 3], dict(betas=(0.5, 0.6)))])
    run_steps(pair2, random_grads(shapes, "float32", rng), "float32")


def test_add_param_group_later():
    rng = np.random.default_rng(5)
    shapes = [(3,), (2, 2)]
    for name in ["Adagrad", "RMSprop", "Adam"]:
        arrays = random_arrays(shapes, "float32", rng)
        pair = Pair(name, dict(lr=0.1), arrays[:1])
        pair.add_param_group(arrays[1], lr=0.3)
        assert pair.eo.param_groups[1]["lr"] == 0.3
        assert set(pair.eo.param_groups[1]) == set(pair.to.param_groups[1])
        run_steps(pair, random_grads(shapes, "float32", rng, 3), "float32")


def test_duplicate_parameter_in_one_group_updates_twice_like_torch():
    rng = np.random.default_rng(6)
    arr = rng.standard_normal((3, 2)).astype(np.float64)
    ep, tp = leaf(ember, arr), leaf(torch, arr)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        eo = ember.optim.Adam([ep, ep], lr=0.1)
    with pytest.warns(UserWarning):
        to = torch.optim.Adam([tp, tp], lr=0.1)
    for _ in range(3):
        g = rng.standard_normal((3, 2))
        ep.grad, tp.grad = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
        eo.step()
        to.step()
    np.testing.assert_allclose(to_numpy(ep), to_numpy(tp), rtol=1e-12)
    assert float(eo.state[ep]["step"]) == float(to.state[tp]["step"]) == 6.0


def test_grad_aliasing_its_parameter():
    rng = np.random.default_rng(7)
    arr = rng.standard_normal(5)
    ep, tp = leaf(ember, arr), leaf(torch, arr)
    eo, to = ember.optim.SGD([ep], lr=0.1, momentum=0.9), torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    for _ in range(3):
        ep.grad, tp.grad = ep.detach(), tp.detach()
        eo.step()
        to.step()
    np.testing.assert_allclose(to_numpy(ep), to_numpy(tp), rtol=1e-12)


def test_step_bumps_versions_and_records_no_graph():
    p = ember.randn(4, requires_grad=True)
    p.grad = ember.ones(4)
    opt = ember.optim.Adam([p], lr=0.1)
    v = p._version
    opt.step()
    assert p._version > v
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    ev = opt.state[p]["exp_avg"]._version
    opt.step()
    assert opt.state[p]["exp_avg"]._version > ev


def test_closure_returns_loss_and_runs_with_grad():
    x = ember.tensor([1.0, 2.0, 3.0])
    w = ember.zeros(3, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = ((w * x).sum() - 1.0) ** 2
        loss.backward()
        return loss

    with ember.no_grad():
        loss = opt.step(closure)
    assert float(loss) == 1.0
    np.testing.assert_allclose(to_numpy(w), [0.2, 0.4, 0.6], rtol=1e-6)


# ---- zero_grad ------------------------------------------------------------------------
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    p, q = ember.randn(3, requires_grad=True), ember.randn(2, requires_grad=True)
    p.grad = ember.ones(3)
    opt = ember.optim.SGD([p, q], lr=0.1)
    g = p.grad
    opt.zero_grad(set_to_none=set_to_none)
    assert q.grad is None
    if set_to_none:
        assert p.grad is None
    else:
        assert p.grad is not None and to_numpy(p.grad).tolist() == [0.0, 0.0, 0.0]
        assert to_numpy(g).tolist() == [0.0, 0.0, 0.0]  # zeroed in place
    opt.zero_grad()
    assert p.grad is None


def test_zero_grad_default_is_set_to_none_and_step_skips():
    p = ember.ones(2, requires_grad=True)
    opt = ember.optim.Adam([p], lr=0.1)
    p.grad = ember.ones(2)
    opt.step()
    opt.zero_grad()
    before = to_numpy(p)
    opt.step()  # no grads: nothing moves, no step counted
    assert to_numpy(p).tolist() == before.tolist()
    assert float(opt.state[p]["step"]) == 1.0


# ---- state_dict ---------------------------------------------------------------------------
@pytest.mark.parametrize("name,kwargs", [CASES[2], CASES[11], CASES[13], CASES[18], CASES[22]],
                         ids=[IDS[2], IDS[11], IDS[13], IDS[18], IDS[22]])
def test_state_dict_round_trip(name, kwargs):
    rng = np.random.default_rng(8)
    shapes = [(3, 4), (5,)]
    arrays = random_arrays(shapes, "float32", rng)
    state_dict_round_trip(getattr(ember.optim, name), kwargs, arrays,
                          random_grads(shapes, "float32", rng, 8))


@pytest.mark.parametrize("name,kwargs", [CASES[1], CASES[10], CASES[17], CASES[21]],
                         ids=[IDS[1], IDS[10], IDS[17], IDS[21]])
def test_state_dict_format_matches_torch(name, kwargs):
    rng = np.random.default_rng(9)
    shapes = [(2, 3), (4,), (3,)]
    pair = Pair(name, kwargs, random_arrays(shapes, "float32", rng),
                groups=[([0], {}), ([1, 2], dict(lr=0.2))])
    grads = random_arrays(shapes, "float32", rng)
    grads[2] = None
    pair.set_grads(grads)
    pair.step()
    esd, tsd = pair.eo.state_dict(), pair.to.state_dict()
    assert esd["param_groups"] == tsd["param_groups"]
    assert sorted(esd["state"]) == sorted(tsd["state"])
    for i in tsd["state"]:
        assert sorted(esd["state"][i]) == sorted(tsd["state"][i])
        for k, v in tsd["state"][i].items():
            np.testing.assert_allclose(to_numpy(esd["state"][i][k]), to_numpy(v), rtol=1e-5)
            assert tuple(esd["state"][i][k].shape) == tuple(v.shape)


def test_load_state_dict_errors():
    p = ember.randn(3, requires_grad=True)
    opt = ember.optim.SGD([p], lr=0.1)
    sd = opt.state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        ember.optim.SGD([{"params": [p]}, {"params": [ember.randn(2, requires_grad=True)]}],
                        lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        ember.optim.SGD([p, ember.randn(2, requires_grad=True)], lr=0.1).load_state_dict(sd)


def test_load_state_dict_restores_hyper_parameters():
    p = ember.randn(3, requires_grad=True)
    opt = ember.optim.Adam([p], lr=0.5, betas=(0.5, 0.6))
    opt2 = ember.optim.Adam([p], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.param_groups[0]["lr"] == 0.5 and opt2.param_groups[0]["betas"] == (0.5, 0.6)
    assert opt2.param_groups[0]["params"][0] is p


# ---- schedulers ------------------------------------------------------------------------
SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01)),
    ("CosineAnnealingLR", dict(T_max=20)),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.95 ** e)),
    ("LambdaLR", dict(lr_lambda=[lambda e: 1.0 / (e + 1), lambda e: 0.5 * e])),
]


def scheduler_pair(name, kwargs, opt_name="SGD"):
    ep = [ember.zeros(2, requires_grad=True), ember.zeros(3, requires_grad=True)]
    tp = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    eo = getattr(ember.optim, opt_name)([{"params": ep[:1]}, {"params": ep[1:], "lr": 0.3}], lr=0.1)
    to = getattr(torch.optim, opt_name)([{"params": tp[:1]}, {"params": tp[1:], "lr": 0.3}], lr=0.1)
    es = getattr(ember.optim.lr_scheduler, name)(eo, **kwargs)
    ts = getattr(torch.optim.lr_scheduler, name)(to, **kwargs)
    return (ep, eo, es), (tp, to, ts)


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)])
def test_scheduler_matches_torch(name, kwargs):
    (ep, eo, es), (tp, to, ts) = scheduler_pair(name, kwargs)
    assert es.get_last_lr() == ts.get_last_lr()
    assert es.last_epoch == ts.last_epoch == 0
    for _ in range(20):
        for p in ep:
            p.grad = ember.ones(p.shape)
        for p in tp:
            p.grad = torch.ones(p.shape)
        eo.step()
        to.step()
        es.step()
        ts.step()
        assert es.last_epoch == ts.last_epoch
        np.testing.assert_allclose(es.get_last_lr(), ts.get_last_lr(), rtol=1e-15, atol=1e-17)
        assert [g["lr"] for g in eo.param_groups] == es.get_last_lr()
        for e, t in zip(ep, tp):
            np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-6)


@pytest.mark.parametrize("name,kwargs", SCHEDULERS[:4], ids=[n for n, _ in SCHEDULERS[:4]])
def test_scheduler_state_dict_round_trip(name, kwargs):
    (_, eo, es), (_, to, ts) = scheduler_pair(name, kwargs)
    for _ in range(8):
        eo.step()
        es.step()
        to.step()
        ts.step()
    sd = es.state_dict()
    assert set(sd) == set(ts.state_dict())
    ep2 = [ember.zeros(2, requires_grad=True), ember.zeros(3, requires_grad=True)]
    eo2 = ember.optim.SGD([{"params": ep2[:1]}, {"params": ep2[1:], "lr": 0.3}], lr=0.1)
    eo2.load_state_dict(eo.state_dict())
    es2 = getattr(ember.optim.lr_scheduler, name)(eo2, **kwargs)
    es2.load_state_dict(sd)
    for _ in range(8):
        eo.step()
        es.step()
        eo2.step()
        es2.step()
        ts.step()
        assert es2.get_last_lr() == es.get_last_lr()
        np.testing.assert_allclose(es2.get_last_lr(), ts.get_last_lr(), rtol=1e-15)


def test_scheduler_step_with_epoch_uses_closed_form():
    for name, kwargs in SCHEDULERS[:3]:
        (_, eo, es), (_, to, ts) = scheduler_pair(name, kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [4, 9, 2]:
                eo.step()
                to.step()
                es.step(epoch)
                ts.step(epoch)
                np.testing.assert_allclose(es.get_last_lr(), ts.get_last_lr(), rtol=1e-15)


def test_scheduler_warnings_and_errors():
    (_, eo, es), _ = scheduler_pair("StepLR", dict(step_size=2))
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        es.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        es.get_lr()
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(KeyError, match="initial_lr"):
        ember.optim.lr_scheduler.StepLR(ember.optim.SGD([p], lr=0.1), step_size=2, last_epoch=3)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        ember.optim.lr_scheduler.StepLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)]), 2)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas"):
        ember.optim.lr_scheduler.LambdaLR(eo, [lambda e: 1.0])


def test_scheduler_resume_with_last_epoch():
    e = ember.optim.SGD([ember.zeros(2, requires_grad=True)], lr=0.1)
    t = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
    for o in (e, t):
        o.param_groups[0]["initial_lr"] = 0.2
    es = ember.optim.lr_scheduler.StepLR(e, step_size=2, gamma=0.5, last_epoch=3)
    ts = torch.optim.lr_scheduler.StepLR(t, step_size=2, gamma=0.5, last_epoch=3)
    assert es.last_epoch == ts.last_epoch == 4
    assert es.get_last_lr() == ts.get_last_lr()


# ---- bad inputs ---------------------------------------------------------------------------
ALL = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


@pytest.mark.parametrize("name", ALL)
def test_negative_lr(name):
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        getattr(ember.optim, name)([p], lr=-0.1)


@pytest.mark.parametrize("name,kwargs,match", [
    ("SGD", dict(momentum=-1), "Invalid momentum value"),
    ("SGD", dict(weight_decay=-1), "Invalid weight_decay value"),
    ("SGD", dict(nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1), "Nesterov momentum requires"),
    ("Adam", dict(betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    ("Adam", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    ("Adam", dict(betas=(0, 0.999)), "betas must be either both floats or both Tensors"),
    ("Adam", dict(eps=-1e-8), "Invalid epsilon value"),
    ("AdamW", dict(betas=(0.9, 1.5)), "Invalid beta parameter at index 1"),
    ("AdamW", dict(weight_decay=-0.01), "Invalid weight_decay value"),
    ("RMSprop", dict(alpha=-0.5), "Invalid alpha value"),
    ("RMSprop", dict(momentum=-0.5), "Invalid momentum value"),
    ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value"),
    ("Adagrad", dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value"),
])
def test_invalid_hyper_parameters(name, kwargs, match):
    check_rejected_like_torch(name, kwargs, match)


@pytest.mark.parametrize("name", ALL)
def test_bad_params(name):
    cls = getattr(ember.optim, name)
    check_bad_params(cls)
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        cls([p, 3])
    with pytest.raises(TypeError, match="not iterable"):
        cls(5)
    with pytest.raises(TypeError, match="ordered collections"):
        cls([{"params": {p}}])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        cls([{"params": [p]}, {"params": [p]}])
    opt = cls([p])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": p})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([p])


def test_kernel_calls_check_everything_before_writing():
    ok = ember.ones(3, requires_grad=True)
    bad = ember.ones(2, 2, requires_grad=True)
    steps = [ember.tensor(0.0), ember.tensor(0.0)]
    m = [ember.zeros(3), ember.zeros(2, 2)]
    v = [ember.zeros(3), ember.zeros(2, 2)]
    with pytest.raises(ValueError, match=r"adam_step: grads\[1\] has shape \(4,\) but its parameter has shape \(2, 2\)"):
        ember._C._optim.adam([ok, bad], [ember.ones(3), ember.ones(4)], m, v, [], steps,
                             0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    with pytest.raises(TypeError, match=r"adam_step: exp_avgs\[0\] has dtype float64"):
        ember._C._optim.adam([ok], [ember.ones(3)], [ember.zeros(3, dtype=ember.float64)], v[:1],
                             [], steps[:1], 0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    with pytest.raises(ValueError, match="adam_step: got 2 parameters but 1 exp_avg_sqs"):
        ember._C._optim.adam([ok, bad], [ember.ones(3), ember.ones(2, 2)], m, v[:1], [], steps,
                             0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    with pytest.raises(ValueError, match="adam_step: got 1 parameters but 0 max_exp_avg_sqs"):
        ember._C._optim.adam([ok], [ember.ones(3)], m[:1], v[:1], [], steps[:1],
                             0.1, 0.9, 0.999, 1e-8, 0.0, True, False, False)
    with pytest.raises(TypeError, match="sgd_step: params\\[0\\] has dtype int64"):
        ember._C._optim.sgd([ember.ones(3, dtype=ember.int64)], [ember.ones(3, dtype=ember.int64)],
                            [], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(TypeError, match="rmsprop_step: grads must hold tensors"):
        ember._C._optim.rmsprop([ok], [1.0], [ember.zeros(3)], [], [], steps[:1],
                                0.1, 0.99, 1e-8, 0.0, 0.0, False, False)
    with pytest.raises(ValueError, match="adagrad_step: step counter 0 must be a one-element float"):
        ember._C._optim.adagrad([ok], [ember.ones(3)], [ember.zeros(3)], [ember.zeros(2)],
                                0.1, 0.0, 0.0, 1e-10, False)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember._C._optim.sgd([ember.ones(1).expand(3)], [ember.ones(3)], [], 0.1, 0.0, 0.0, 0.0,
                            False, False)
    # nothing was written by the failed calls
    assert to_numpy(ok).tolist() == [1.0, 1.0, 1.0]
    assert [float(s) for s in steps] == [0.0, 0.0]
    assert to_numpy(m[0]).tolist() == [0.0, 0.0, 0.0]


def test_differentiable_is_not_supported():
    with pytest.raises(NotImplementedError, match="differentiable"):
        ember.optim.Adam([ember.zeros(2, requires_grad=True)], differentiable=True)


def test_repr_like_torch():
    e = ember.optim.Adam([ember.zeros(2, requires_grad=True)], lr=0.1)
    t = torch.optim.Adam([torch.zeros(2, requires_grad=True)], lr=0.1)
    assert repr(e) == repr(t)


# ---- the issue's program -----------------------------------------------------------------
def fit_sine(lib, make_opt, steps=2000):
    """Fits y = a + b x + c x^2 + d x^3 to sin(x) on [-pi, pi] with four parameters (the
    issue's custom module, written with plain tensors that require grad)."""
    x = lib.linspace(-math.pi, math.pi, 2000)
    y = lib.sin(x)
    starts = np.random.default_rng(0).standard_normal(4).astype(np.float32)
    a, b, c, d = (lib.tensor(float(v)).requires_grad_() for v in starts)
    opt = make_opt(lib, [a, b, c, d])
    for _ in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = ((y_pred - y) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item(), [p.item() for p in (a, b, c, d)]


@pytest.mark.parametrize("make_opt", [
    lambda lib, ps: lib.optim.SGD(ps, lr=1e-6),
    lambda lib, ps: lib.optim.RMSprop(ps, lr=1e-3),
], ids=["SGD", "RMSprop"])
def test_issue_program_fit_sine(make_opt):
    e_loss, e_params = fit_sine(ember, make_opt)
    t_loss, t_params = fit_sine(torch, make_opt)
    assert e_loss == pytest.approx(t_loss, rel=0.01)
    np.testing.assert_allclose(e_params, t_params, rtol=0.01, atol=1e-3)
    assert e_loss < 100  # it did fit
