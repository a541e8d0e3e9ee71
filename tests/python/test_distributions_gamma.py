"""The Gamma family (Gamma, Chi2, Beta, Dirichlet, StudentT, InverseGamma, FisherSnedecor)
and the count families built on ember's sampling ops: reparameterized gradients and KL
divergences against torch."""
import numpy as np
import pytest
import torch
import torch.distributions as TD

import ember
import ember.distributions as ED
from test_distributions_cases import close, e, npy, tt

needs_gamma_op = pytest.mark.skipif(not hasattr(ember._C, "_standard_gamma"),
                                    reason="ember._standard_gamma is not in ember yet")


@needs_gamma_op
def test_gamma_rsample_gradient_is_torchs_standard_gamma_grad():
    """x = g / rate with g ~ Gamma(alpha, 1): dx/dalpha = standard_gamma_grad(alpha, g) / rate,
    dx/drate = -x / rate; torch's _standard_gamma_grad is the oracle."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.3, 4, size=(2, 3)), rng.uniform(0.5, 2, size=(2, 3))
    ae, be = e(a, True), e(b, True)
    ember.manual_seed(1)
    x = ED.Gamma(ae, be).rsample((40,))
    ga, gb = ember.autograd.grad(x.sum(), [ae, be])
    xs, at, bt = tt(npy(x)), tt(a), tt(b)
    want_a = (torch._standard_gamma_grad(at.expand_as(xs), xs * bt) / bt).sum(0)
    want_b = (-xs / bt).sum(0)
    close(ga, want_a, rtol=1e-4)  # both ops approximate the implicit gradient
    close(gb, want_b, rtol=1e-6)


# the gradient of the mean of many rsamples approaches the gradient of the analytic mean
MEAN_GRADS = {
    "Beta": (lambda D, a, b: D.Beta(a, b), 2),
    "Dirichlet": (lambda D, a, b: D.Dirichlet((ember if D is ED else torch).stack([a, b], -1)), 2),
    "Chi2": (lambda D, a, b: D.Chi2(a + b), 1),
    "InverseGamma": (lambda D, a, b: D.InverseGamma(a + 3.0, b), 2),
    "StudentT": (lambda D, a, b: D.StudentT(a + 4.0, b, a), 2),
    "FisherSnedecor": (lambda D, a, b: D.FisherSnedecor(a + 2, b + 6.0), 2),
}


@needs_gamma_op
@pytest.mark.parametrize("name", sorted(MEAN_GRADS))
def test_rsample_gradient_matches_the_gradient_of_the_mean(name):
    make, _ = MEAN_GRADS[name]
    a, b = np.array([1.5, 2.5]), np.array([0.8, 3.0])
    ae, be, at, bt = e(a, True), e(b, True), tt(a, True), tt(b, True)
    ember.manual_seed(9)
    de = make(ED, ae, be)
    n = 20000
    ge = ember.autograd.grad(de.rsample((n,)).sum() / n, [ae, be])
    gt = torch.autograd.grad(make(TD, at, bt).mean.sum(), [at, bt], allow_unused=True)
    for x, y in zip(ge, gt):
        want = np.zeros(2) if y is None else npy(y)
        np.testing.assert_allclose(npy(x), want, rtol=0.08, atol=0.02)


KL = {
    "Gamma": lambda D, a, b: D.Gamma(a, b),
    "Beta": lambda D, a, b: D.Beta(a, b),
    "Dirichlet": lambda D, a, b: D.Dirichlet((ember if D is ED else torch).stack([a, b, a * b], -1)),
    "Poisson": lambda D, a, b: D.Poisson(a * b),
    "Binomial": lambda D, a, b: D.Binomial(7, probs=a / (a + b)),
    "Chi2": lambda D, a, b: D.Chi2(a + b),
    "ContinuousBernoulli": lambda D, a, b: D.ContinuousBernoulli(a / (a + b)),
}


@pytest.mark.parametrize("name", [k for k, v in KL.items() if v])
def test_kl_same_family(name):
    rng = np.random.default_rng(3)
    p = [rng.uniform(0.3, 3, size=(2, 3)) for _ in range(2)]
    q = [rng.uniform(0.3, 3, size=(2, 3)) for _ in range(2)]
    pe, qe = [e(x, True) for x in p], [e(x, True) for x in q]
    pt, qt = [tt(x, True) for x in p], [tt(x, True) for x in q]
    ke = ED.kl_divergence(KL[name](ED, *pe), KL[name](ED, *qe))
    kt = TD.kl_divergence(KL[name](TD, *pt), KL[name](TD, *qt))
    close(ke, kt, rtol=1e-5, atol=1e-8)
    ge = ember.autograd.grad(ke.sum(), pe + qe, allow_unused=True)
    gt = torch.autograd.grad(kt.sum(), pt + qt, allow_unused=True)
    for x, y in zip(ge, gt):
        if y is None:
            assert x is None or not npy(x).any()
        else:
            close(x, y, rtol=1e-4, atol=1e-7)


def test_binomial_kl_larger_q_count_not_implemented():
    p, q = ED.Binomial(3, probs=ember.tensor([0.5])), ED.Binomial(5, probs=ember.tensor([0.5]))
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        ED.kl_divergence(p, q)
    close(ED.kl_divergence(q, p), TD.kl_divergence(TD.Binomial(5, torch.tensor([0.5])),
                                                  TD.Binomial(3, torch.tensor([0.5]))))


def test_gamma_validation_and_dirichlet_dims():
    with pytest.raises(ValueError, match="must be at least one-dimensional"):
        ED.Dirichlet(ember.tensor(1.0))
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        ED.Gamma(ember.tensor([-1.0]), ember.tensor([1.0]))
    with pytest.raises(ValueError, match="Expected parameter df"):
        ED.Chi2(ember.tensor([0.0]))
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        ED.Multinomial(ember.tensor(3), probs=ember.ones(3) / 3)
