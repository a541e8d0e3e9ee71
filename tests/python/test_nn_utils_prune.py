"""ember.nn.utils.prune against torch.nn.utils.prune (2.13): the deterministic methods (L1,
Ln-structured, custom masks, global pruning, chains of them through PruningContainer) give
torch's masks and outputs; the random ones prune the right number of entries/channels; the
state_dict keys, remove(), is_pruned and the errors are torch's."""
import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (not imported by torch.nn.utils)

import ember
from helpers import to_numpy

EP, TP = ember.nn.utils.prune, torch.nn.utils.prune


def _pair(kind="Linear", args=(6, 5), seed=0):
    torch.manual_seed(seed)
    t = getattr(torch.nn, kind)(*args)
    e = getattr(ember.nn, kind)(*args)
    e.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                       for k, v in t.state_dict().items()})
    return e, t


def _same(e, t, names):
    assert list(e.state_dict()) == list(t.state_dict())
    for n in names:
        np.testing.assert_array_equal(to_numpy(getattr(e, n + "_mask")),
                                      getattr(t, n + "_mask").numpy())
        np.testing.assert_allclose(to_numpy(getattr(e, n)), getattr(t, n).detach().numpy(),
                                   rtol=1e-6)


@pytest.mark.parametrize("amount", [0.3, 7, 0, 1.0])
def test_l1_unstructured_and_chain(amount):
    e, t = _pair()
    for lib, m in ((ember, e), (torch, t)):
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=amount)
    _same(e, t, ["weight"])
    if amount == 1.0:  # nothing left: no channel to prune, in both
        for lib, m in ((ember, e), (torch, t)):
            with pytest.raises(ValueError, match="amount=1 should be smaller than the number of "
                                                 "parameters to prune=0"):
                lib.nn.utils.prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        return
    for lib, m in ((ember, e), (torch, t)):  # a second pruning prunes among the kept entries
        lib.nn.utils.prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=0.2)
    _same(e, t, ["weight"])
    hook = [h for h in e._forward_pre_hooks.values() if isinstance(h, EP.BasePruningMethod)][0]
    assert isinstance(hook, EP.PruningContainer) and len(hook) == 3
    x = np.random.default_rng(0).standard_normal((2, 6)).astype(np.float32)
    np.testing.assert_allclose(to_numpy(e(ember.from_numpy(x))),
                               t(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n,dim", [(1, 0), (2, 1), (float("inf"), -1), (-float("inf"), 0)])
def test_ln_structured_conv(n, dim):
    e, t = _pair("Conv2d", (3, 6, 3))
    scores = np.random.default_rng(1).random((6, 3, 3, 3)).astype(np.float32)
    EP.ln_structured(e, "weight", amount=0.5, n=n, dim=dim,
                     importance_scores=ember.from_numpy(scores))
    TP.ln_structured(t, "weight", amount=0.5, n=n, dim=dim,
                     importance_scores=torch.from_numpy(scores))
    _same(e, t, ["weight"])


def test_global_unstructured_and_custom_from_mask():
    (e1, t1), (e2, t2) = _pair(), _pair("Linear", (5, 3), seed=1)
    EP.global_unstructured([(e1, "weight"), (e2, "weight"), (e2, "bias")],
                           pruning_method=EP.L1Unstructured, amount=0.4)
    TP.global_unstructured([(t1, "weight"), (t2, "weight"), (t2, "bias")],
                           pruning_method=TP.L1Unstructured, amount=0.4)
    _same(e1, t1, ["weight"])
    _same(e2, t2, ["weight", "bias"])
    mask = (np.arange(5) % 2).astype(np.float32)
    EP.custom_from_mask(e1, "bias", ember.from_numpy(mask))
    TP.custom_from_mask(t1, "bias", torch.from_numpy(mask))
    _same(e1, t1, ["weight", "bias"])


def test_random_methods_prune_the_right_amount():
    ember.manual_seed(0)
    m = ember.nn.Linear(10, 8)
    EP.random_unstructured(m, "weight", amount=0.25)
    assert int(to_numpy(m.weight_mask).sum()) == 80 - 20
    EP.random_structured(m, "weight", amount=3, dim=1)
    cols = to_numpy(m.weight_mask).sum(axis=0)
    assert (cols == 0).sum() >= 3 and np.all((to_numpy(m.weight) == 0) == (to_numpy(m.weight_mask) == 0))
    EP.identity(m, "bias")
    assert to_numpy(m.bias_mask).sum() == 8


def test_remove_is_pruned_and_state_dict_like_torch():
    e, t = _pair()
    for lib, m in ((ember, e), (torch, t)):
        P = lib.nn.utils.prune
        assert not P.is_pruned(m)
        P.l1_unstructured(m, "weight", amount=0.5)
        P.l1_unstructured(m, "bias", amount=2)
        assert P.is_pruned(m)
        P.remove(m, "weight")
        with pytest.raises(ValueError, match="Parameter 'weight' of module .* has to be pruned "
                                             "before pruning can be removed"):
            P.remove(m, "weight")
    assert list(e.state_dict()) == list(t.state_dict())
    assert isinstance(e.weight, ember.nn.Parameter)
    np.testing.assert_allclose(to_numpy(e.weight), t.weight.detach().numpy())
    # torch's pruned state_dict loads into an ember module pruned the same way
    e2, _ = _pair(seed=3)
    EP.l1_unstructured(e2, "bias", amount=2)
    e2.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                        for k, v in t.state_dict().items()})
    np.testing.assert_allclose(to_numpy(e2.bias_mask), t.bias_mask.numpy())
    x = np.ones((1, 6), np.float32)
    np.testing.assert_allclose(to_numpy(e2(ember.from_numpy(x))),
                               t(torch.from_numpy(x)).detach().numpy(), rtol=1e-5)
    # a method's prune() on a bare tensor
    a = np.array([[0.5, -2.0], [0.1, 3.0]], np.float32)
    np.testing.assert_array_equal(to_numpy(EP.L1Unstructured(amount=2).prune(ember.from_numpy(a))),
                                  TP.L1Unstructured(amount=2).prune(torch.from_numpy(a)).numpy())


def test_errors_like_torch():
    for lib in (ember, torch):
        P = lib.nn.utils.prune
        m = lib.nn.Linear(3, 2)
        with pytest.raises(TypeError, match="Invalid type for amount: x. Must be int or float."):
            P.l1_unstructured(m, "weight", amount="x")
        with pytest.raises(ValueError, match=r"amount=1.5 should either be a float in the range "
                                             r"\[0, 1\] or a non-negative integer"):
            P.l1_unstructured(m, "weight", amount=1.5)
        with pytest.raises(ValueError, match="amount=7 should be smaller than the number of "
                                             "parameters to prune=6"):
            P.l1_unstructured(m, "weight", amount=7)
        assert "weight" in dict(m.named_parameters())  # a failed pruning leaves the module as is
        with pytest.raises(ValueError, match="Structured pruning can only be applied to "
                                             "multidimensional tensors"):
            P.ln_structured(m, "bias", amount=1, n=2, dim=0)
        with pytest.raises(IndexError, match="Invalid index 2 for tensor of size"):
            P.ln_structured(m, "weight", amount=1, n=2, dim=2)
        with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
            P.l1_unstructured(m, "weight", amount=1, importance_scores=lib.ones(3))
        with pytest.raises(TypeError, match="parameters is not an Iterable"):
            P.global_unstructured(3, P.L1Unstructured, amount=1)
        with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
            P.global_unstructured([(m, "weight")], P.RandomStructured, amount=1)
        with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
            P.PruningContainer().add_pruning_method(3)
