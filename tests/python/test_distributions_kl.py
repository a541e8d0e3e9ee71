"""kl_divergence and register_kl against torch.distributions.kl."""
import numpy as np
import pytest
import torch
import torch.distributions as TD

import ember
import ember.distributions as ED
from test_distributions_cases import close, e, tt



def _params(kind, shape=(2, 3), seed=0):
    rng = np.random.default_rng(seed)
    if kind == "real":
        return rng.normal(0, 1.5, size=shape)
    if kind == "pos":
        return rng.uniform(0.3, 2.5, size=shape)
    if kind == "unit":
        return rng.uniform(0.05, 0.95, size=shape)
    raise ValueError(kind)


# name -> (constructor(D, *params), parameter kinds)
FAMILIES = {
    "Normal": (lambda D, a, b: D.Normal(a, b), ["real", "pos"]),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), ["real", "pos"]),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), ["real", "pos"]),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), ["real", "pos"]),
    "Exponential": (lambda D, r: D.Exponential(r), ["pos"]),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), ["pos"]),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), ["real", "pos"]),
    "Pareto": (lambda D, s, a: D.Pareto(s, a), ["pos", "pos"]),
    "Uniform": (lambda D, a, w: D.Uniform(a, a + w), ["real", "pos"]),
    "UniformPositive": (lambda D, a, w: D.Uniform(a + 2.0, a + 2.0 + w), ["pos", "pos"]),
    "Bernoulli": (lambda D, p: D.Bernoulli(p), ["unit"]),
    "Geometric": (lambda D, p: D.Geometric(p), ["unit"]),
    "Categorical": (lambda D, l: D.Categorical(logits=l), ["real"]),
    "OneHotCategorical": (lambda D, l: D.OneHotCategorical(logits=l), ["real"]),
    "IndependentNormal": (lambda D, a, b: D.Independent(D.Normal(a, b), 1), ["real", "pos"]),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), ["pos", "pos"]),
    "Beta": (lambda D, a, b: D.Beta(a, b), ["pos", "pos"]),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(p), ["unit"]),
    "Poisson": (lambda D, r: D.Poisson(r), ["pos"]),
    "Binomial": (lambda D, p: D.Binomial(4, p), ["unit"]),
    "ParetoFinite": (lambda D, s, a: D.Pareto(s, a + 2.0), ["pos", "pos"]),
    "ParetoHeavy": (lambda D, s, a: D.Pareto(s, a * 0.8), ["pos", "pos"]),
    "UniformUnit": (lambda D, a, w: D.Uniform(a * 0.3, a * 0.3 + w * 0.25), ["unit", "unit"]),
    "UniformWide": (lambda D, a, w: D.Uniform(-a, 1 + w), ["pos", "pos"]),
}
PAIRS = [("Normal", "Normal"), ("Laplace", "Laplace"), ("Gumbel", "Gumbel"), ("Cauchy", "Cauchy"),
         ("Exponential", "Exponential"), ("HalfNormal", "HalfNormal"), ("LogNormal", "LogNormal"),
         ("Pareto", "Pareto"), ("Uniform", "Uniform"), ("Bernoulli", "Bernoulli"),
         ("Geometric", "Geometric"), ("Categorical", "Categorical"),
         ("OneHotCategorical", "OneHotCategorical"), ("IndependentNormal", "IndependentNormal"),
         ("Uniform", "Normal"), ("Uniform", "Gumbel"), ("Uniform", "Exponential"),
         ("UniformPositive", "Exponential"), ("UniformPositive", "Pareto"),
         ("Laplace", "Normal"), ("Exponential", "Normal"), ("Gumbel", "Normal"),
         ("Normal", "Gumbel"), ("Exponential", "Gumbel"), ("Normal", "Laplace"),
         ("Normal", "Exponential"), ("Normal", "Pareto"), ("Normal", "Uniform"),
         ("Laplace", "Exponential"), ("Gumbel", "Uniform"), ("Exponential", "Pareto"),
         ("Exponential", "Uniform"), ("Pareto", "Uniform"),
         ("UniformUnit", "Beta"), ("Uniform", "Beta"), ("UniformPositive", "Gamma"),
         ("Uniform", "Gamma"), ("UniformUnit", "ContinuousBernoulli"),
         ("Bernoulli", "Poisson"), ("Beta", "ContinuousBernoulli"), ("Beta", "Exponential"),
         ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "UniformWide"), ("Beta", "Uniform"),
         ("Beta", "Pareto"), ("ContinuousBernoulli", "Exponential"),
         ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "UniformWide"),
         ("ContinuousBernoulli", "Pareto"), ("Exponential", "Gamma"), ("Gamma", "Exponential"),
         ("Gamma", "Gumbel"), ("Gamma", "Normal"), ("Gamma", "Beta"), ("Gamma", "Uniform"),
         ("ParetoFinite", "Exponential"), ("ParetoFinite", "Gamma"), ("ParetoFinite", "Normal"),
         ("ParetoHeavy", "Exponential"), ("ParetoHeavy", "Normal"), ("Normal", "Gamma"),
         ("Laplace", "Beta"), ("Gumbel", "Gamma"), ("Poisson", "Bernoulli"),
         ("Poisson", "Binomial")]


def _make(name, seed, grad):
    make, kinds = FAMILIES[name]
    shape = (2, 3, 4) if "Categorical" in name else (2, 3)
    arrays = [_params(k, shape, seed + i) for i, k in enumerate(kinds)]
    ep = [e(a, grad) for a in arrays]
    tp = [tt(a, grad) for a in arrays]
    return make(ED, *ep), make(TD, *tp), ep, tp


@pytest.mark.parametrize("pname,qname", PAIRS)
def test_kl_pairs_against_torch(pname, qname):
    pe, pt, pep, ptp = _make(pname, 10, True)
    qe, qt, qep, qtp = _make(qname, 20, True)
    ke, kt = ED.kl_divergence(pe, qe), TD.kl_divergence(pt, qt)
    close(ke, kt, rtol=1e-6, atol=1e-9)
    if np.isfinite(kt.detach().numpy()).all():
        ge = ember.autograd.grad(ke.sum(), pep + qep, allow_unused=True)
        gt = torch.autograd.grad(kt.sum(), ptp + qtp, allow_unused=True)
        for a, b in zip(ge, gt):
            if b is not None:
                close(a, b, rtol=1e-5, atol=1e-8)


def test_kl_exponential_family_bregman_matches_closed_form():
    from ember.distributions.kl import _kl_expfamily_expfamily
    p, q = ED.Normal(ember.tensor([0.3, -1.0]), ember.tensor([1.2, 0.5])), ED.Normal(0.0, 1.0)
    q = q.expand((2,))
    close(_kl_expfamily_expfamily(p, q), ED.kl_divergence(p, q), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        _kl_expfamily_expfamily(p, ED.Exponential(ember.ones(2)))


def test_kl_not_implemented_and_register():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type "
                                                 "Cauchy and q type Normal"):
        ED.kl_divergence(ED.Cauchy(0.0, 1.0), ED.Normal(0.0, 1.0))

    class MyNormal(ED.Normal):
        pass

    # the subclass uses the (Normal, Normal) rule until a more specific one is registered
    p, q = MyNormal(0.0, 1.0), ED.Normal(1.0, 2.0)
    close(ED.kl_divergence(p, q), ED.kl_divergence(ED.Normal(0.0, 1.0), q))

    @ED.register_kl(MyNormal, ED.Normal)
    def _kl_mine(p, q):
        return ember.tensor(42.0)

    assert ED.kl_divergence(p, q).item() == 42.0
    with pytest.raises(TypeError, match="type_p must be a class"):
        ED.register_kl(3, ED.Normal)
    with pytest.raises(TypeError, match="type_q must be a class"):
        ED.register_kl(ED.Normal, ED.Normal(0.0, 1.0))


def test_register_kl_takes_any_class_as_torch():
    # torch takes any class: pyro registers rules for its abstract base (a mixin that is no
    # subclass of torch's Distribution) and they apply to every distribution carrying the mixin
    class Mixin:
        pass

    class MixedNormal(ED.Normal, Mixin):
        pass

    class Other(ED.Normal):
        pass

    for lib in (TD, ED):
        lib.register_kl(int, lib.Normal)  # accepted by both, never matches a distribution
    try:
        @ED.register_kl(Other, Mixin)
        def _kl_to_mixin(p, q):
            return ember.tensor(7.0)
        assert ED.kl_divergence(Other(0.0, 1.0), MixedNormal(0.0, 1.0)).item() == 7.0
        # a plain Normal q does not carry the mixin: the (Normal, Normal) rule
        assert ED.kl_divergence(Other(0.0, 1.0), ED.Normal(0.0, 1.0)).item() == 0.0
    finally:
        from ember.distributions._kl_registry import _KL_MEMOIZE, _KL_REGISTRY
        for key in ((Other, Mixin), (int, ED.Normal)):
            _KL_REGISTRY.pop(key, None)
        _KL_MEMOIZE.clear()
        from torch.distributions.kl import _KL_MEMOIZE as tm, _KL_REGISTRY as tr
        tr.pop((int, TD.Normal), None)
        tm.clear()
