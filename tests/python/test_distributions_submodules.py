"""ember.distributions' submodules at torch.distributions' paths (torch.distributions.categorical,
...studentT, ...) and ExponentialFamily: every submodule torch has exists in ember and holds the
classes and functions torch defines there, the very objects ember.distributions exports; a
distribution built through its submodule path gives torch's log_prob and entropy; the generic
ExponentialFamily entropy (the Bregman divergence of the log normalizer) matches torch's."""
import importlib
import inspect
import types

import numpy as np
import pytest
import torch
import torch.distributions as TD

import ember  # noqa: F401
import ember.distributions as ED
from test_distributions_cases import CASES, build, close, e, tt, values_for

# torch 2.13's submodules of torch.distributions, one per concept
SUBMODULES = [
    "bernoulli", "beta", "binomial", "categorical", "cauchy", "chi2", "constraint_registry",
    "constraints", "continuous_bernoulli", "dirichlet", "distribution", "exp_family",
    "exponential", "fishersnedecor", "gamma", "generalized_pareto", "geometric", "gumbel",
    "half_cauchy", "half_normal", "independent", "inverse_gamma", "kl", "kumaraswamy", "laplace",
    "lkj_cholesky", "log_normal", "logistic_normal", "lowrank_multivariate_normal",
    "mixture_same_family", "multinomial", "multivariate_normal", "negative_binomial", "normal",
    "one_hot_categorical", "pareto", "poisson", "relaxed_bernoulli", "relaxed_categorical",
    "studentT", "transformed_distribution", "transforms", "uniform", "utils", "von_mises",
    "weibull", "wishart",
]


def test_the_list_is_torchs():
    torch_mods = sorted(n for n in dir(TD) if not n.startswith("_")
                        and isinstance(getattr(TD, n), types.ModuleType))
    assert sorted(SUBMODULES) == torch_mods


def _own(module):
    """The public classes and functions defined in `module` itself (not imported into it)."""
    return sorted(k for k, v in vars(module).items()
                  if not k.startswith("_") and (inspect.isclass(v) or inspect.isfunction(v))
                  and getattr(v, "__module__", "") == module.__name__)


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodule_holds_torchs_names(name):
    tm = getattr(TD, name)
    em = importlib.import_module(f"ember.distributions.{name}")
    assert getattr(ED, name) is em, f"ember.distributions.{name} is the submodule"
    names = _own(tm)
    assert names, f"torch's {name} defines nothing?"
    for k in names:
        assert hasattr(em, k), f"ember.distributions.{name} lacks {k}"
        if hasattr(TD, k) and getattr(tm, k) is getattr(TD, k):  # one object at both paths
            assert getattr(em, k) is getattr(ED, k), f"{name}.{k} is not ember.distributions.{k}"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"ember.distributions.{name}_no_such_module")


@pytest.mark.parametrize("case", sorted(c for c in CASES if "needs:binomial" not in CASES[c][4]))
def test_distribution_through_its_submodule(case):
    """The class at torch's submodule path of the case's distribution, in ember, gives torch's
    values (log_prob; entropy where torch has it) and the same errors."""
    d_e, d_t, _, _ = build(case)
    t_module = type(d_t).__module__  # e.g. torch.distributions.studentT
    sub = t_module.rsplit(".", 1)[1]
    cls = getattr(importlib.import_module(f"ember.distributions.{sub}"), type(d_t).__name__)
    assert type(d_e) is cls
    v = values_for(case, d_t)
    close(d_e.log_prob(e(v)), d_t.log_prob(tt(v)))
    try:
        h_t = d_t.entropy()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            d_e.entropy()
    else:
        close(d_e.entropy(), h_t)


# ---- ExponentialFamily ------------------------------------------------------------------------
def test_exponential_family_membership_is_torchs():
    members = []
    for k in dir(TD):
        tcls = getattr(TD, k)
        if inspect.isclass(tcls) and issubclass(tcls, TD.Distribution) and hasattr(ED, k):
            ecls = getattr(ED, k)
            assert issubclass(ecls, ED.ExponentialFamily) == issubclass(tcls, TD.ExponentialFamily), k
            members.append(k) if issubclass(tcls, TD.ExponentialFamily) else None
    assert {"Normal", "Gamma", "Exponential", "Bernoulli", "Beta", "Dirichlet"} <= set(members)
    assert ED.exp_family.ExponentialFamily is ED.ExponentialFamily


FAMILY = ["Normal", "Exponential", "Gamma", "Beta", "Dirichlet", "Bernoulli", "Poisson", "Chi2",
          "ContinuousBernoulli"]


@pytest.mark.parametrize("case", [c for c in FAMILY if c in CASES])
def test_exponential_family_generic_entropy(case):
    """ExponentialFamily.entropy (autograd through the log normalizer), called on a member,
    equals torch's generic computation, and its gradient w.r.t. the parameters too."""
    d_e, d_t, ep, tp = build(case, requires_grad=True)
    assert isinstance(d_t, TD.ExponentialFamily) and isinstance(d_e, ED.ExponentialFamily)
    try:
        h_t = TD.ExponentialFamily.entropy(d_t)
    except NotImplementedError:  # no _mean_carrier_measure in torch either
        with pytest.raises(NotImplementedError):
            ED.ExponentialFamily.entropy(d_e)
        return
    h_e = ED.ExponentialFamily.entropy(d_e)
    close(h_e, h_t)
    close(h_e, d_e.entropy())
    # the natural parameters are detached inside (torch's formula): the parameters get no
    # gradient through it, or the same one as torch's (through _mean_carrier_measure)
    g = np.random.default_rng(3).standard_normal(tuple(h_t.shape))
    if h_t.requires_grad:
        h_e.backward(e(g)), h_t.backward(tt(g))
    for a, b in zip(ep, tp):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            close(a.grad, b.grad, rtol=1e-5, atol=1e-7)


def test_exponential_family_abstract_parts_and_identity_transform():
    for D in (TD, ED):
        base = D.ExponentialFamily(batch_shape=(2,), validate_args=False)
        with pytest.raises(NotImplementedError):
            base.entropy()
        with pytest.raises(NotImplementedError):
            base._log_normalizer()

    # torch.distributions.identity_transform: the empty ComposeTransform
    x = np.random.default_rng(0).standard_normal((2, 3))
    for D, mk in ((TD, tt), (ED, e)):
        t = D.identity_transform
        assert isinstance(t, D.ComposeTransform) and t.parts == []
        assert t(mk(x)) is not None and np.array_equal(t(mk(x)).numpy(), x)
        assert np.array_equal(t.inv(mk(x)).numpy(), x)
        assert not np.any(t.log_abs_det_jacobian(mk(x), mk(x)).numpy())
        assert t == D.ComposeTransform([]) and t.bijective
    assert repr(ED.identity_transform).split("(")[0] == repr(TD.identity_transform).split("(")[0]
