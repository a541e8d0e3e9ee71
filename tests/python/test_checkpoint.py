"""ember.utils.checkpoint against torch.utils.checkpoint: gradients equal the
non-checkpointed ones (both variants, RNG state restored for dropout), activations are not
kept (forward calls counted, the graph holds one node), torch's warnings and errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tcp

import ember
import ember.nn as nn
from ember.utils.checkpoint import checkpoint, checkpoint_sequential
from helpers import assert_same


def _block(m, p=0.0):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Linear(5, 6), m.nn.Tanh(), m.nn.Dropout(p), m.nn.Linear(6, 5),
                           m.nn.ReLU())


def _copy_params(src, dst):
    dst.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in src.state_dict().items()})


def _grads(mod):
    return [p.grad for p in mod.parameters()]


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_equal_uncheckpointed_and_torch(reentrant):
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float64)
    tb = _block(torch).double()
    eb = _block(ember).double()
    _copy_params(tb, eb)
    tx = torch.tensor(x, requires_grad=True)
    ex = ember.tensor(x, requires_grad=True)
    (tcp.checkpoint(tb, tx, use_reentrant=reentrant) ** 2).sum().backward()
    (checkpoint(eb, ex, use_reentrant=reentrant) ** 2).sum().backward()
    assert_same(ex.grad, tx.grad, 1e-6, 1e-9)
    for ge, gt in zip(_grads(eb), _grads(tb)):
        assert_same(ge, gt.detach(), 1e-6, 1e-9)


@pytest.mark.parametrize("reentrant", [True, False])
def test_dropout_masks_agree_through_recomputation(reentrant):
    eb = _block(ember, p=0.5).double()
    x = ember.randn(8, 5, dtype=ember.float64, requires_grad=True)
    ember.manual_seed(7)
    y = checkpoint(eb, x, use_reentrant=reentrant)
    (y * y).sum().backward()
    g, gw = x.grad.clone(), eb[0].weight.grad.clone()
    x.grad = None
    eb.zero_grad()
    ember.manual_seed(7)
    y2 = eb(x)
    (y2 * y2).sum().backward()
    assert_same(y.detach(), torch.tensor(y2.detach().numpy()))
    np.testing.assert_allclose(x.grad.numpy(), g.numpy(), rtol=1e-12)
    np.testing.assert_allclose(eb[0].weight.grad.numpy(), gw.numpy(), rtol=1e-12)


def test_rng_state_after_backward_is_the_callers():
    eb = _block(ember, p=0.5)
    x = ember.randn(3, 5, requires_grad=True)
    y = checkpoint(eb, x, use_reentrant=False)
    ember.manual_seed(3)
    y.sum().backward()  # the recomputation draws from the forward's state, then restores
    after = ember.rand(4)
    ember.manual_seed(3)
    assert np.array_equal(after.numpy(), ember.rand(4).numpy())


@pytest.mark.parametrize("reentrant", [True, False])
def test_activations_not_kept_and_forward_recomputed(reentrant):
    calls = []
    lin = nn.Linear(4, 4)

    def fn(x):
        calls.append(ember.is_grad_enabled())
        return ember.tanh(lin(x)).exp()

    x = ember.randn(2, 4, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=reentrant)
    assert calls == [False]  # the forward ran without a graph: nothing inside it is saved
    # one node between y and x: its only inputs are the checkpoint's inputs
    node = y.grad_fn
    assert "Checkpoint" in node.name()
    y.sum().backward()
    assert calls == [False, True]  # recomputed with grad enabled, once
    assert x.grad is not None and lin.weight.grad is not None


def test_non_reentrant_reaches_parameters_when_no_input_requires_grad():
    eb = _block(ember)
    tb = _block(torch)
    _copy_params(tb, eb)
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    checkpoint(eb, ember.tensor(x), use_reentrant=False).sum().backward()
    tcp.checkpoint(tb, torch.tensor(x), use_reentrant=False).sum().backward()
    for ge, gt in zip(_grads(eb), _grads(tb)):
        assert_same(ge, gt, 1e-5, 1e-6)


def test_reentrant_without_input_grad_warns_and_gives_no_grads():
    eb = _block(ember)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(eb, ember.ones(2, 5), use_reentrant=True)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        tcp.checkpoint(_block(torch), torch.ones(2, 5), use_reentrant=True)
    assert not y.requires_grad


def test_kwargs_multiple_outputs_and_non_tensor_args():
    def fn(a, scale, b=None):
        return a * scale + b, (a * b).sum()

    for m, cp in ((ember, checkpoint), (torch, tcp.checkpoint)):
        m.manual_seed(0)
    a = np.arange(6.0).reshape(2, 3)
    ea, eb = ember.tensor(a, requires_grad=True), ember.tensor(a + 1, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(a + 1, requires_grad=True)
    e1, e2 = checkpoint(fn, ea, 2.0, b=eb, use_reentrant=False)
    t1, t2 = tcp.checkpoint(fn, ta, 2.0, b=tb, use_reentrant=False)
    (e1.sum() + e2).backward()
    (t1.sum() + t2).backward()
    assert_same(ea.grad, ta.grad)
    assert_same(eb.grad, tb.grad)
    e1, e2 = checkpoint(fn, ea, 2.0, eb, use_reentrant=True)
    (e1.sum() * e2).backward()
    t1, t2 = tcp.checkpoint(fn, ta, 2.0, tb, use_reentrant=True)
    (t1.sum() * t2).backward()
    assert_same(ea.grad, ta.grad)


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(reentrant, segments):
    def model(m):
        m.manual_seed(1)
        return m.nn.Sequential(*[m.nn.Sequential(m.nn.Linear(4, 4), m.nn.Tanh())
                                 for _ in range(4)]).double()

    tm, em = model(torch), model(ember)
    _copy_params(tm, em)
    x = np.random.default_rng(2).standard_normal((3, 4))
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    ty = tcp.checkpoint_sequential(tm, segments, tx, use_reentrant=reentrant)
    ey = checkpoint_sequential(em, segments, ex, use_reentrant=reentrant)
    assert_same(ey, ty.detach(), 1e-9, 1e-12)
    ty.pow(2).sum().backward()
    ey.pow(2).sum().backward()
    assert_same(ex.grad, tx.grad, 1e-9, 1e-12)
    for ge, gt in zip(_grads(em), _grads(tm)):
        assert_same(ge, gt, 1e-9, 1e-12)


def test_use_reentrant_warnings_as_torch():
    x = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, x)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        checkpoint_sequential(nn.Sequential(nn.Identity()), 1, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 2, x, use_reentrant=False)


def test_bad_arguments_raise_as_torch():
    x = ember.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    for m, cp, t in ((ember, checkpoint, x), (torch, tcp.checkpoint, tx)):
        with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
            cp(lambda a: a, t, use_reentrant=True, foo=1)
        with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
            cp(lambda a: a, t, use_reentrant=True, debug=True)
        with pytest.raises(ValueError, match="determinism_check should be one of"):
            cp(lambda a: a, t, use_reentrant=False, determinism_check="bad")
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(nn.Sequential(nn.Identity()), 1, x, use_reentrant=True, foo=1)


def test_input_modified_in_place_before_backward_raises():
    x = ember.ones(3, requires_grad=True)
    h = x * 1.0
    y = checkpoint(lambda t: t.exp(), h, use_reentrant=True)
    h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_under_no_grad_nothing_is_recorded():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        for reentrant in (True, False):
            calls = []
            y = checkpoint(lambda t: calls.append(1) or t * 2, x, use_reentrant=reentrant)
            assert not y.requires_grad and calls == [1]
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            checkpoint(lambda t: t * 2, ember.ones(2), use_reentrant=True)
