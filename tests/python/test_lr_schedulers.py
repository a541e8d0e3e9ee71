"""The lr schedulers ember added to torch.optim.lr_scheduler's first five (test_optim.py covers
StepLR, MultiStepLR, CosineAnnealingLR, LambdaLR): each against torch 2.13 over many steps
(learning rates, momentum/betas, parameters), state_dict round trips (also a torch
state_dict loaded into ember's scheduler), step(epoch), and torch's errors and warnings."""
import math
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.optim
from helpers import to_numpy

ELR = ember.optim.lr_scheduler
TLR = torch.optim.lr_scheduler


def _opt(lib, opt_name, opt_kwargs):
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    opt = getattr(lib.optim, opt_name)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}],
                                       **opt_kwargs)
    return ps, opt


def _make(lib, name, kwargs, opt_name, opt_kwargs):
    ps, opt = _opt(lib, opt_name, opt_kwargs)
    return ps, opt, getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)


SGD = ("SGD", dict(lr=0.1, momentum=0.9))
ADAM = ("Adam", dict(lr=0.1))
CASES = [
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.9 + 0.01 * (e % 3)), SGD),
    ("ConstantLR", dict(factor=0.25, total_iters=7), SGD),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=13), SGD),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.0, total_iters=10), SGD),
    ("ExponentialLR", dict(gamma=0.93), SGD),
    ("PolynomialLR", dict(total_iters=17, power=2.5), SGD),
    ("CosineAnnealingWarmRestarts", dict(T_0=5, T_mult=2, eta_min=0.001), SGD),
    ("CosineAnnealingWarmRestarts", dict(T_0=7), SGD),
    ("CyclicLR", dict(base_lr=0.01, max_lr=[0.1, 0.5], step_size_up=4, step_size_down=7), SGD),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.2, step_size_up=3, mode="triangular2"), ADAM),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.2, step_size_up=5, mode="exp_range",
                      gamma=0.97, cycle_momentum=False), ADAM),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.2, step_size_up=4,
                      scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations"), SGD),
    ("OneCycleLR", dict(max_lr=[0.5, 1.0], total_steps=40), SGD),
    ("OneCycleLR", dict(max_lr=0.5, epochs=4, steps_per_epoch=10, pct_start=0.25,
                        anneal_strategy="linear", three_phase=True), ADAM),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=40, cycle_momentum=False), ADAM),
]
IDS = [f"{n}-{i}" for i, (n, _, _) in enumerate(CASES)]


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def _step_both(e, t, n):
    """n optimizer+scheduler steps in both libraries with the same gradients; checks lrs,
    momenta and parameters after each."""
    (ep, eo, es), (tp, to, ts) = e, t
    for i in range(n):
        for k, (a, b) in enumerate(zip(ep, tp)):
            g = np.full(tuple(a.shape), math.sin(i + k), dtype=np.float32)
            a.grad = ember.from_numpy(g)
            b.grad = torch.from_numpy(g.copy())
        eo.step()
        to.step()
        es.step()
        ts.step()
        assert getattr(es, "last_epoch", None) == getattr(ts, "last_epoch", None)
        np.testing.assert_allclose(es.get_last_lr(), ts.get_last_lr(), rtol=1e-12, atol=1e-15)
        assert [g["lr"] for g in eo.param_groups] == es.get_last_lr()
        np.testing.assert_allclose(_momenta(eo), _momenta(to), rtol=1e-12)
        for a, b in zip(ep, tp):
            np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,kwargs,opt", CASES, ids=IDS)
def test_matches_torch(name, kwargs, opt):
    e = _make(ember, name, kwargs, *opt)
    t = _make(torch, name, kwargs, *opt)
    assert e[2].get_last_lr() == t[2].get_last_lr()
    assert _momenta(e[1]) == _momenta(t[1])
    _step_both(e, t, 40)


@pytest.mark.parametrize("name,kwargs,opt", CASES, ids=IDS)
def test_state_dict_round_trip_and_torch_state_dict(name, kwargs, opt):
    e = _make(ember, name, kwargs, *opt)
    t = _make(torch, name, kwargs, *opt)
    _step_both(e, t, 15)
    esd, tsd = e[2].state_dict(), t[2].state_dict()
    assert set(esd) == set(tsd)
    for src in (esd, tsd):  # ember's own state_dict, and torch's (plain Python values)
        ep2, eo2 = _opt(ember, *opt)
        eo2.load_state_dict(e[1].state_dict())
        es2 = getattr(ELR, name)(eo2, **kwargs)
        es2.load_state_dict(src)
        assert es2.get_last_lr() == e[2].get_last_lr()
        ep2, eo2 = [p.detach().clone().requires_grad_() for p in e[0]], eo2
        for group, ps in zip(eo2.param_groups, ([ep2[0]], [ep2[1]])):
            group["params"] = ps
        eo2.state.clear()
        eo2.load_state_dict(e[1].state_dict())
    # both continue in step with torch after the reload
    t2 = (t[0], t[1], t[2])
    _step_both((ep2, eo2, es2), t2, 10)


def test_state_dict_is_picklable_and_has_no_functions():
    _, _, es = _make(ember, "CyclicLR", dict(base_lr=0.01, max_lr=0.1,
                                             scale_fn=lambda x: 0.5), *SGD)
    sd = es.state_dict()
    assert sd["_scale_fn_custom"] is None and "_scale_fn_ref" not in sd

    class Fn:
        def __init__(self):
            self.k = 0.5

        def __call__(self, x):
            return self.k

    fn = Fn()
    _, _, es = _make(ember, "MultiplicativeLR", dict(lr_lambda=fn), *SGD)
    fn.k = 0.25
    sd = es.state_dict()
    assert sd["lr_lambdas"] == [{"k": 0.25}, {"k": 0.25}]
    fn.k = 1.0
    es.load_state_dict(sd)
    assert fn.k == 0.25
    pickle.dumps(ELR.OneCycleLR(_opt(ember, *SGD)[1], 0.1, total_steps=5).state_dict())


def test_step_with_epoch_closed_form_and_warning():
    for name, kwargs in [("ConstantLR", dict(factor=0.5, total_iters=4)),
                         ("LinearLR", dict(total_iters=6)),
                         ("ExponentialLR", dict(gamma=0.8)),
                         ("PolynomialLR", dict(total_iters=9, power=2.0)),
                         ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2))]:
        (_, eo, es), (_, to, ts) = (_make(ember, name, kwargs, *SGD),
                                    _make(torch, name, kwargs, *SGD))
        for epoch in [4, 9, 2, 7.5, 30]:
            eo.step()
            to.step()
            with warnings.catch_warnings(record=True) as erec:
                warnings.simplefilter("always")
                es.step(epoch)
            with warnings.catch_warnings(record=True) as trec:
                warnings.simplefilter("always")
                ts.step(epoch)
            assert [str(w.message) for w in erec] == [str(w.message) for w in trec]
            if name != "CosineAnnealingWarmRestarts":  # torch's SGDR does not warn either
                assert "epoch parameter in `scheduler.step()`" in str(erec[-1].message)
            assert es.last_epoch == ts.last_epoch
            np.testing.assert_allclose(es.get_last_lr(), ts.get_last_lr(), rtol=1e-12)


def test_sequential_lr():
    def build(lib):
        ps, opt = _opt(lib, *SGD)
        L = lib.optim.lr_scheduler
        s1 = L.LinearLR(opt, start_factor=0.1, total_iters=5)
        s2 = L.ExponentialLR(opt, gamma=0.9)
        s3 = L.CosineAnnealingLR(opt, T_max=6, eta_min=0.01)
        seq = L.SequentialLR(opt, schedulers=[s1, s2, s3], milestones=[5, 12])
        return ps, opt, seq
    e, t = build(ember), build(torch)
    assert e[2].get_last_lr() == t[2].get_last_lr()
    assert [s.last_epoch for s in e[2]._schedulers] == [s.last_epoch for s in t[2]._schedulers]
    _step_both(e, t, 25)
    sd = e[2].state_dict()
    assert set(sd) == set(t[2].state_dict())
    assert [set(s) for s in sd["_schedulers"]] == [set(s) for s in t[2].state_dict()["_schedulers"]]
    e2 = build(ember)
    e2[2].load_state_dict(t[2].state_dict())
    assert e2[2].last_epoch == t[2].last_epoch
    assert [s.last_epoch for s in e2[2]._schedulers] == [s.last_epoch for s in t[2]._schedulers]


def test_chained_scheduler():
    def build(lib):
        ps, opt = _opt(lib, *ADAM)
        L = lib.optim.lr_scheduler
        return ps, opt, L.ChainedScheduler([L.ConstantLR(opt, factor=0.5, total_iters=4),
                                            L.ExponentialLR(opt, gamma=0.9),
                                            L.MultiStepLR(opt, milestones=[6, 9], gamma=0.5)])
    e, t = build(ember), build(torch)
    assert e[2].get_last_lr() == t[2].get_last_lr()
    _step_both(e, t, 15)
    sd = e[2].state_dict()
    assert set(sd) == set(t[2].state_dict())
    e2 = build(ember)
    e2[2].load_state_dict(sd)
    assert [s.last_epoch for s in e2[2]._schedulers] == [s.last_epoch for s in e[2]._schedulers]


@pytest.mark.parametrize("kwargs", [dict(), dict(mode="max", threshold_mode="abs", patience=2,
                                                 cooldown=2, factor=0.5, min_lr=[0.02, 0.05]),
                                    dict(mode="min", threshold=0.1, patience=1, eps=0.05)])
def test_reduce_lr_on_plateau(kwargs):
    (ep, eo), (tp, to) = _opt(ember, *SGD), _opt(torch, *SGD)
    es, ts = ELR.ReduceLROnPlateau(eo, **kwargs), TLR.ReduceLROnPlateau(to, **kwargs)
    assert es.get_last_lr() == ts.get_last_lr()
    rng = np.random.default_rng(0)
    metrics = np.concatenate([np.linspace(5, 1, 8), np.full(30, 1.0) + rng.random(30) * 0.2,
                              np.linspace(1, 3, 10)])
    for i, m in enumerate(metrics):
        metric = ember.tensor(float(m), dtype=ember.float64) if i % 2 else float(m)  # a 0-d tensor is a metric too
        es.step(metric)
        ts.step(float(m))
        assert (es.best, es.num_bad_epochs, es.cooldown_counter, es.last_epoch) == \
               (ts.best, ts.num_bad_epochs, ts.cooldown_counter, ts.last_epoch)
        np.testing.assert_allclose(es.get_last_lr(), ts.get_last_lr(), rtol=1e-12)
    sd = es.state_dict()
    assert set(sd) == set(ts.state_dict())
    es2 = ELR.ReduceLROnPlateau(_opt(ember, *SGD)[1], **kwargs)
    es2.load_state_dict(ts.state_dict())
    assert (es2.best, es2.mode, es2.num_bad_epochs) == (ts.best, ts.mode, ts.num_bad_epochs)
    with pytest.warns(UserWarning, match="epoch parameter"):
        es.step(1.0, epoch=100)
    assert es.last_epoch == 100


def test_reduce_lr_on_plateau_new_param_group():
    for lib in (ember, torch):
        ps, opt = _opt(lib, *SGD)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
        opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
        s.step(1.0)
        with pytest.raises(RuntimeError, match=r"number of param groups in the `optimizer` \(3\)"):
            s.step(2.0)


def _bad(fn_name, args, kwargs, exc, match, opt=SGD):
    for lib in (ember, torch):
        _, o = _opt(lib, *opt)
        with pytest.raises(exc, match=match):
            getattr(lib.optim.lr_scheduler, fn_name)(o, *args, **kwargs)


def test_bad_arguments_like_torch():
    _bad("ConstantLR", (), dict(factor=1.5), ValueError, "between 0 and 1")
    _bad("LinearLR", (), dict(start_factor=0), ValueError, "greater than 0")
    _bad("LinearLR", (), dict(end_factor=2), ValueError, "between 0 and 1")
    _bad("MultiplicativeLR", (3.0,), {}, TypeError, "lr_lambda should be a function, but got float")
    _bad("MultiplicativeLR", ([lambda e: 1.0],), {}, ValueError, "Expected 2 lr_lambdas, but got 1")
    _bad("CosineAnnealingWarmRestarts", (0,), {}, ValueError, "Expected positive integer T_0")
    _bad("CosineAnnealingWarmRestarts", (2,), dict(T_mult=1.5), ValueError, "T_mult >= 1")
    _bad("CosineAnnealingWarmRestarts", (2,), dict(eta_min="x"), ValueError, "eta_min")
    _bad("CyclicLR", (0.1, 1.0), dict(mode="sine"), ValueError, "mode is invalid")
    _bad("CyclicLR", (0.1, [1.0]), {}, ValueError, "max_lr must have the same length")
    _bad("CyclicLR", (0.1, 1.0), {}, ValueError, "must support momentum", ("Adagrad", dict(lr=0.1)))
    _bad("OneCycleLR", (1.0,), {}, ValueError, "either total_steps OR")
    _bad("OneCycleLR", (1.0,), dict(total_steps=0), ValueError, "positive integer total_steps")
    _bad("OneCycleLR", (1.0,), dict(epochs=2, steps_per_epoch=-1), ValueError, "steps_per_epoch")
    _bad("OneCycleLR", (1.0,), dict(total_steps=9, pct_start=1), ValueError, "pct_start")
    _bad("OneCycleLR", (1.0,), dict(total_steps=9, anneal_strategy="exp"), ValueError,
         "anneal_strategy")
    _bad("ReduceLROnPlateau", (), dict(factor=1.0), ValueError, "Factor should be < 1.0")
    _bad("ReduceLROnPlateau", (), dict(mode="up"), ValueError, "mode up is unknown")
    _bad("ReduceLROnPlateau", (), dict(threshold_mode="x"), ValueError, "threshold mode x")
    _bad("ReduceLROnPlateau", (), dict(min_lr=[0.1]), ValueError, "expected 2 min_lrs, got 1")
    for lib in (ember, torch):
        with pytest.raises(TypeError, match="is not an Optimizer"):
            lib.optim.lr_scheduler.ReduceLROnPlateau(object())


def test_one_cycle_past_total_steps_raises():
    for lib in (ember, torch):
        _, o = _opt(lib, *SGD)
        s = lib.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                s.step()
            with pytest.raises(ValueError, match="Tried to step 4 times. The specified number "
                                                 "of total steps is 3"):
                s.step()


def test_composite_errors_like_torch():
    for lib in (ember, torch):
        L = lib.optim.lr_scheduler
        _, o = _opt(lib, *SGD)
        _, o2 = _opt(lib, *SGD)
        a, b = L.ExponentialLR(o, 0.9), L.ExponentialLR(o2, 0.9)
        with pytest.raises(ValueError, match="expects at least one scheduler"):
            L.SequentialLR(o, [], [])
        with pytest.raises(ValueError, match="number of milestones to be equal to 2"):
            L.SequentialLR(o, [a], [1, 2])
        with pytest.raises(ValueError, match="at index 1 has"):
            L.SequentialLR(o, [a, b], [3])
        with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
            L.ChainedScheduler([a, L.ReduceLROnPlateau(o)])
        with pytest.raises(TypeError, match="at index 0 should have `optimizer`"):
            L.ChainedScheduler([object()], optimizer=o)
        with pytest.raises(ValueError, match="expects at least one scheduler to be chained"):
            L.ChainedScheduler([])


def test_names_and_old_base_class():
    assert set(TLR.__all__) <= set(dir(ELR))
    assert issubclass(ELR._LRScheduler, ELR.LRScheduler)
    assert ELR._LRScheduler.__name__ == "_LRScheduler"


@pytest.mark.parametrize("name,kwargs", [
    ("ExponentialLR", dict(gamma=0.9)), ("LinearLR", dict(total_iters=4)), ("ConstantLR", {}),
    ("PolynomialLR", dict(total_iters=4)), ("CosineAnnealingWarmRestarts", dict(T_0=3)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=12)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.9)), ("ReduceLROnPlateau", dict(patience=0))])
def test_tensor_lr_stays_a_tensor_and_matches_torch(name, kwargs):
    out = []
    for lib in (ember, torch):
        p = lib.zeros(2, requires_grad=True)
        lr = lib.tensor(0.1)
        o = lib.optim.SGD([p], lr=lr, momentum=0.9)
        s = getattr(lib.optim.lr_scheduler, name)(o, **kwargs)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(10):
                o.step()
                s.step(1.0) if name == "ReduceLROnPlateau" else s.step()
                lrs.append(float(s.get_last_lr()[0]))
        assert o.param_groups[0]["lr"] is lr  # written in place (fill_), never replaced
        assert isinstance(s.get_last_lr()[0], lib.Tensor)
        assert s.get_last_lr()[0] is not lr  # get_last_lr holds copies
        out.append(lrs)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6)


def test_public_module_and_pickle():
    import pickle
    for name in TLR.__all__:
        assert getattr(ELR, name).__module__ == "ember.optim.lr_scheduler", name
    _, o = _opt(ember, *SGD)
    s = ELR.OneCycleLR(o, 0.5, total_steps=10)
    s2 = pickle.loads(pickle.dumps(s))
    assert type(s2) is ELR.OneCycleLR and s2.get_last_lr() == s.get_last_lr()
