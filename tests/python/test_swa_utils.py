"""ember.optim.swa_utils against torch 2.13: AveragedModel (SWA, EMA by avg_fn and by
multi_avg_fn, use_buffers), update_bn, SWALR's lr sequence and state_dict, and torch's errors."""
import numpy as np
import pytest
import torch

import ember
import ember.optim.swa_utils
import torch.optim.swa_utils
from helpers import randomize_both, to_numpy

SWA = {ember: ember.optim.swa_utils, torch: torch.optim.swa_utils}


def _model(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 2))


@pytest.mark.parametrize("avg", ["swa", "ema", "ema_multi", "swa_multi"])
@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_model_matches_torch(avg, use_buffers):
    rng = np.random.default_rng(0)
    em, tm = _model(ember), _model(torch)
    kwargs = {}
    pair = []
    for lib in (ember, torch):
        m = SWA[lib]
        kw = {"swa": {}, "ema": dict(avg_fn=m.get_ema_avg_fn(0.9)),
              "ema_multi": dict(multi_avg_fn=m.get_ema_multi_avg_fn(0.9)),
              "swa_multi": dict(multi_avg_fn=m.get_swa_multi_avg_fn())}[avg]
        pair.append(kw)
    ea = ember.optim.swa_utils.AveragedModel(em, use_buffers=use_buffers, **pair[0])
    ta = torch.optim.swa_utils.AveragedModel(tm, use_buffers=use_buffers, **pair[1])
    if avg == "swa_multi" and use_buffers:  # the int64 num_batches_tracked: both refuse
        for a, m in ((ea, em), (ta, tm)):
            a.update_parameters(m)
            with pytest.raises(RuntimeError, match="addcdiv"):
                a.update_parameters(m)
        return
    for _ in range(4):
        randomize_both(em, tm, rng)
        ea.update_parameters(em)
        ta.update_parameters(tm)
    assert list(ea.state_dict()) == list(ta.state_dict())
    for k, t in ta.state_dict().items():
        np.testing.assert_allclose(to_numpy(ea.state_dict()[k]), t.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=k)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    ea.eval()
    ta.eval()
    np.testing.assert_allclose(to_numpy(ea(ember.from_numpy(x))), ta(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_update_bn_matches_torch():
    rng = np.random.default_rng(1)
    em, tm = _model(ember), _model(torch)
    randomize_both(em, tm, rng)
    em.eval()
    tm.eval()
    xs = [rng.standard_normal((8, 3)).astype(np.float32) for _ in range(3)]
    ember.optim.swa_utils.update_bn([(ember.from_numpy(x), 0) for x in xs], em)
    torch.optim.swa_utils.update_bn([(torch.from_numpy(x), 0) for x in xs], tm)
    assert not em.training and em[1].momentum == tm[1].momentum == 0.1
    for k, t in tm.state_dict().items():
        np.testing.assert_allclose(to_numpy(em.state_dict()[k]), t.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=k)
    ember.optim.swa_utils.update_bn([], ember.nn.Linear(2, 2))  # no BatchNorm: nothing to do


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.01, 0.2], anneal_epochs=3,
                                                            anneal_strategy="linear"),
                                    dict(swa_lr=0.05, anneal_epochs=0)])
def test_swalr_matches_torch(kwargs):
    out = []
    for lib in (ember, torch):
        ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
        opt = lib.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}], lr=0.1)
        s = SWA[lib].SWALR(opt, **kwargs)
        lrs = [s.get_last_lr()]
        for _ in range(14):
            opt.step()
            s.step()
            lrs.append(s.get_last_lr())
        out.append((lrs, s))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    assert set(out[0][1].state_dict()) == set(out[1][1].state_dict())
    es, ts = out[0][1], out[1][1]
    es.load_state_dict(ts.state_dict())
    assert es.anneal_func(0.5) == ts.anneal_func(0.5)


def test_errors_like_torch():
    for lib in (ember, torch):
        m = SWA[lib]
        with pytest.raises(ValueError, match="Invalid decay value 1.5 provided"):
            m.get_ema_avg_fn(1.5)
        with pytest.raises(ValueError, match="Invalid decay value -0.1 provided"):
            m.get_ema_multi_avg_fn(-0.1)
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
            m.AveragedModel(lib.nn.Linear(2, 2), avg_fn=m.get_swa_avg_fn(),
                            multi_avg_fn=m.get_swa_multi_avg_fn())
        opt = lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
            m.SWALR(opt, 0.1, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
            m.SWALR(opt, 0.1, anneal_epochs=-1)
        with pytest.raises(ValueError, match="swa_lr must have the same length"):
            m.SWALR(opt, [0.1, 0.2])
