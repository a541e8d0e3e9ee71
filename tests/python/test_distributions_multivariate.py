"""MultivariateNormal (its Cholesky factor and triangular solves composed from ember ops)
against torch.distributions.MultivariateNormal."""
import numpy as np
import pytest
import torch
import torch.distributions as TD

import ember
import ember.distributions as ED
from test_distributions_cases import close, e, npy, tt


def _spd(rng, batch, n):
    x = rng.normal(size=tuple(batch) + (n, n))
    return x @ np.swapaxes(x, -1, -2) + 0.5 * np.eye(n)


def _pair(kind, seed=0, batch=(2,), loc_batch=(3, 1), n=3, grad=False):
    rng = np.random.default_rng(seed)
    loc = rng.normal(size=tuple(loc_batch) + (n,))
    mat = _spd(rng, batch, n)
    if kind == "scale_tril":
        mat = np.linalg.cholesky(mat)
    ie = [e(loc, grad), e(mat, grad)]
    it = [tt(loc, grad), tt(mat, grad)]
    return (ED.MultivariateNormal(ie[0], **{kind: ie[1]}), TD.MultivariateNormal(it[0], **{kind: it[1]}),
            ie, it)


KINDS = ["covariance_matrix", "precision_matrix", "scale_tril"]


def _same_grads(out_e, ie, out_t, it):
    """The gradients of ember's out_e with respect to ie and of torch's out_t with respect to
    it agree (rtol 1e-5, atol 1e-8)."""
    for a, b in zip(ember.autograd.grad(out_e, ie), torch.autograd.grad(out_t, it)):
        close(a, b, rtol=1e-5, atol=1e-8)


def _check_against_torch(de, dt, ie, it, props, v, lp_atol=1e-8):
    """ember's distribution de (parameters ie) against torch's dt (parameters it): the
    properties props, log_prob at v, entropy, and the parameters' gradients of
    log_prob(v).sum() + entropy().sum()."""
    for prop in props:
        close(getattr(de, prop), getattr(dt, prop), rtol=1e-6, atol=1e-9)
    lpe, lpt = de.log_prob(e(v)), dt.log_prob(tt(v))
    close(lpe, lpt, rtol=1e-6, atol=lp_atol)
    close(de.entropy(), dt.entropy(), rtol=1e-6)
    _same_grads(lpe.sum() + de.entropy().sum(), ie, lpt.sum() + dt.entropy().sum(), it)


@pytest.mark.parametrize("kind", KINDS)
def test_mvn_against_torch(kind):
    de, dt, ie, it = _pair(kind, grad=True)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape) == (3, 2)
    assert tuple(de.event_shape) == tuple(dt.event_shape) == (3,)
    _check_against_torch(de, dt, ie, it, ["mean", "mode", "variance", "stddev", "covariance_matrix",
                                          "precision_matrix", "scale_tril"],
                         np.random.default_rng(1).normal(size=(4, 3, 2, 3)), lp_atol=1e-9)


def test_mvn_rsample_gradient_and_statistics():
    de, dt, ie, it = _pair("covariance_matrix", batch=(), loc_batch=(), grad=True)
    ember.manual_seed(0)
    x = de.rsample((20000,))
    assert tuple(x.shape) == (20000, 3)
    xs = npy(x)
    np.testing.assert_allclose(xs.mean(0), npy(dt.mean), atol=0.06)
    np.testing.assert_allclose(np.cov(xs.T), npy(dt.covariance_matrix), rtol=0.05, atol=0.05)
    # the same draws through torch: x = loc + L eps, eps = L^-1 (x - loc)
    L = npy(dt.scale_tril)
    eps = np.linalg.solve(L, (xs[:50] - npy(dt.loc)).T).T
    xt = dt.loc + (torch.linalg.cholesky(it[1]) @ tt(eps).unsqueeze(-1)).squeeze(-1)
    _same_grads((x[:50] ** 2).sum(), ie, (xt ** 2).sum(), it)


def test_mvn_expand_and_kl():
    de, dt, _, _ = _pair("scale_tril")
    ee, te = de.expand((5, 3, 2)), dt.expand((5, 3, 2))
    assert tuple(ee.batch_shape) == (5, 3, 2) and tuple(ee.sample().shape) == (5, 3, 2, 3)
    v = np.random.default_rng(2).normal(size=(5, 3, 2, 3))
    close(ee.log_prob(e(v)), te.log_prob(tt(v)), rtol=1e-6)
    qe, qt, qie, qit = _pair("covariance_matrix", seed=5, batch=(1,), loc_batch=(2,), grad=True)
    pe, pt, pie, pit = _pair("precision_matrix", seed=6, batch=(2,), loc_batch=(1,), grad=True)
    ke, kt = ED.kl_divergence(pe, qe), TD.kl_divergence(pt, qt)
    close(ke, kt, rtol=1e-6)
    _same_grads(ke.sum(), pie + qie, kt.sum(), pit + qit)


def test_mvn_bad_arguments():
    def same(fn):
        with pytest.raises(Exception) as te:
            fn(TD, torch)
        with pytest.raises(te.type) as ee:
            fn(ED, ember)
        first = lambda err: str(err.value).split("\n")[0].split(" of distribution")[0]  # noqa: E731
        assert first(ee).replace("ember", "torch") == first(te)

    same(lambda D, T: D.MultivariateNormal(T.zeros(2)))
    same(lambda D, T: D.MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)))
    same(lambda D, T: D.MultivariateNormal(T.tensor(0.0), T.eye(2)))
    same(lambda D, T: D.MultivariateNormal(T.zeros(2), T.ones(2)))
    same(lambda D, T: D.MultivariateNormal(T.zeros(2), T.tensor([[1.0, 2.0], [2.0, 1.0]])))
    same(lambda D, T: D.MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 1.0], [0.0, 1.0]])))
    same(lambda D, T: D.MultivariateNormal(T.zeros(2), T.eye(2)).log_prob(T.zeros(3)))
    # without validation the factorization itself reports the matrix
    with pytest.raises(RuntimeError, match="leading minor of order 2 is not positive-definite"):
        ED.MultivariateNormal(ember.zeros(2), ember.tensor([[1.0, 2.0], [2.0, 1.0]]), validate_args=False)


def test_positive_definite_constraint():
    rng = np.random.default_rng(3)
    mats = np.stack([_spd(rng, (), 3), -np.eye(3), np.triu(np.ones((3, 3)))])
    close(ED.constraints.positive_definite.check(e(mats)), TD.constraints.positive_definite.check(tt(mats)))
    assert repr(ED.constraints.positive_definite) == repr(TD.constraints.positive_definite)


def _lowrank(D, loc, w, d):
    return D.LowRankMultivariateNormal(loc, w, d)


def test_lowrank_mvn_against_torch():
    rng = np.random.default_rng(7)
    loc, w, d = rng.normal(size=(2, 4)), rng.normal(size=(3, 1, 4, 2)), rng.uniform(0.5, 2, size=(4,))
    ie, it = [e(loc, True), e(w, True), e(d, True)], [tt(loc, True), tt(w, True), tt(d, True)]
    de, dt = _lowrank(ED, *ie), _lowrank(TD, *it)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape) == (3, 2)
    _check_against_torch(de, dt, ie, it, ["mean", "variance", "covariance_matrix", "precision_matrix",
                                          "scale_tril"], rng.normal(size=(5, 3, 2, 4)))
    ember.manual_seed(0)
    s = npy(de.expand((3, 2)).sample((20000,)))
    np.testing.assert_allclose(s.var(0), npy(dt.variance), rtol=0.06)
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 4 x m"):
        ED.LowRankMultivariateNormal(ember.zeros(4), ember.zeros(3, 2), ember.ones(4))
    with pytest.raises(ValueError, match="Expected parameter cov_diag"):
        ED.LowRankMultivariateNormal(ember.zeros(4), ember.zeros(4, 2), -ember.ones(4))


def test_lkj_cholesky_against_torch():
    conc = np.array([0.5, 1.0, 3.0])
    ce, ct = e(conc, True), tt(conc, True)
    de, dt = ED.LKJCholesky(4, ce), TD.LKJCholesky(4, ct)
    assert tuple(de.batch_shape) == (3,) and tuple(de.event_shape) == (4, 4)
    ember.manual_seed(0)
    s = de.sample((4000,))
    assert bool(de.support.check(s).all())
    lpe, lpt = de.log_prob(s), dt.log_prob(tt(npy(s)))
    close(lpe, lpt, rtol=1e-6, atol=1e-8)
    (ge,), (gt,) = ember.autograd.grad(lpe.sum(), [ce]), torch.autograd.grad(lpt.sum(), [ct])
    close(ge, gt, rtol=1e-5)
    # E[r_10^2] = 1 / (2 eta + d - 1); every squared correlation as in torch's own samples
    corr = npy(s) @ np.swapaxes(npy(s), -1, -2)
    np.testing.assert_allclose((corr[..., 1, 0] ** 2).mean(0), 1 / (2 * conc + 3), rtol=0.1)
    torch.manual_seed(0)
    ts = dt.sample((4000,)).numpy()
    tcorr = ts @ np.swapaxes(ts, -1, -2)
    np.testing.assert_allclose((corr ** 2).mean(0), (tcorr ** 2).mean(0), rtol=0.12, atol=0.01)
    assert tuple(de.expand((2, 3)).sample().shape) == (2, 3, 4, 4)
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2"):
        ED.LKJCholesky(1)


@pytest.mark.parametrize("kind", KINDS)
def test_wishart_against_torch(kind):
    rng = np.random.default_rng(11)
    mat = _spd(rng, (2,), 3)
    if kind == "scale_tril":
        mat = np.linalg.cholesky(mat)
    df = np.array([4.5, 7.0])
    ie, it = [e(df, True), e(mat, True)], [tt(df, True), tt(mat, True)]
    de, dt = ED.Wishart(ie[0], **{kind: ie[1]}), TD.Wishart(it[0], **{kind: it[1]})
    _check_against_torch(de, dt, ie, it, ["mean", "mode", "variance", "covariance_matrix",
                                          "precision_matrix", "scale_tril"],
                         np.stack([_spd(rng, (2,), 3) for _ in range(4)]))


def test_wishart_sampling_and_errors():
    cov = e(_spd(np.random.default_rng(12), (), 3))
    d = ED.Wishart(ember.tensor(6.0, dtype=ember.float64), cov)
    ember.manual_seed(0)
    s = d.rsample((8000,))
    assert tuple(s.shape) == (8000, 3, 3) and bool(d.support.check(s).all())
    np.testing.assert_allclose(npy(s).mean(0), npy(d.mean), rtol=0.06, atol=0.15)
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1 = 2"):
        ED.Wishart(ember.tensor(1.5), ember.eye(3))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix"):
        ED.Wishart(ember.tensor(5.0))
    with pytest.warns(UserWarning, match="Low df values detected"):
        ED.Wishart(ember.tensor(2.5), ember.eye(3))


@pytest.mark.parametrize("pkind,qkind", [("lowrank", "lowrank"), ("lowrank", "full"),
                                         ("full", "lowrank")])
def test_kl_with_lowrank(pkind, qkind):
    rng = np.random.default_rng(13)

    def make(kind, grad):
        loc = rng.normal(size=(2, 3))
        if kind == "lowrank":
            w, d = rng.normal(size=(3, 2)), rng.uniform(0.5, 2, size=(3,))
            ie, it = [e(loc, grad), e(w, grad), e(d, grad)], [tt(loc, grad), tt(w, grad), tt(d, grad)]
            return _lowrank(ED, *ie), _lowrank(TD, *it), ie, it
        cov = _spd(rng, (), 3)
        ie, it = [e(loc, grad), e(cov, grad)], [tt(loc, grad), tt(cov, grad)]
        return ED.MultivariateNormal(*ie), TD.MultivariateNormal(*it), ie, it

    pe, pt, pie, pit = make(pkind, True)
    qe, qt, qie, qit = make(qkind, True)
    ke, kt = ED.kl_divergence(pe, qe), TD.kl_divergence(pt, qt)
    close(ke, kt, rtol=1e-6)
    _same_grads(ke.sum(), pie + qie, kt.sum(), pit + qit)
    with pytest.raises(ValueError, match="different event shapes"):
        ED.kl_divergence(pe, ED.MultivariateNormal(ember.zeros(2, dtype=ember.float64),
                                                   ember.eye(2, dtype=ember.float64)))


def test_positive_semidefinite_constraint():
    rng = np.random.default_rng(14)
    x = rng.normal(size=(4, 2))
    clear = np.stack([_spd(rng, (), 4), -np.eye(4), np.diag([1.0, 2.0, -0.5, 3.0]), np.zeros((4, 4)),
                      np.triu(np.ones((4, 4)))])
    close(ED.constraints.positive_semidefinite.check(e(clear)),
          TD.constraints.positive_semidefinite.check(tt(clear)))
    assert repr(ED.constraints.positive_semidefinite) == repr(TD.constraints.positive_semidefinite)
    assert bool(ED.constraints.positive_semidefinite.check(e(x @ x.T)))  # rank 2: PSD


def test_wishart_kl_by_bregman_divergence():
    rng = np.random.default_rng(15)
    a, b = _spd(rng, (), 3), _spd(rng, (), 3)

    def kl(D, T, wrap):
        return D.kl_divergence(D.Wishart(T.tensor(5.0, dtype=T.float64), wrap(a)),
                               D.Wishart(T.tensor(6.5, dtype=T.float64), wrap(b)))

    close(kl(ED, ember, e), kl(TD, torch, tt), rtol=1e-6)
