"""ember.distributions.transforms, TransformedDistribution, constraints and
constraint_registry against torch.distributions."""
import numpy as np
import pytest
import torch
import torch.distributions as TD
import torch.distributions.transforms as TT

import ember
import ember.distributions as ED
import ember.distributions.transforms as ET
from test_distributions_cases import close, e, npy, tt

# name: (constructor(T), input generator (rng) -> float64 array)
def _real(shape):
    return lambda rng: rng.normal(0, 1.2, size=shape)


def _pos(shape):
    return lambda rng: rng.uniform(0.2, 3.0, size=shape)


def _simplex(shape):
    return lambda rng: rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])


TRANSFORMS = {
    "Exp": (lambda T: T.ExpTransform(), _real((2, 3))),
    "Power": (lambda T: T.PowerTransform(2.5), _pos((2, 3))),
    "Sigmoid": (lambda T: T.SigmoidTransform(), _real((2, 3))),
    "Softplus": (lambda T: T.SoftplusTransform(), _real((2, 3))),
    "Tanh": (lambda T: T.TanhTransform(), _real((2, 3))),
    "Affine": (lambda T: T.AffineTransform(0.5, -2.0), _real((2, 3))),
    "AffineEvent": (lambda T: T.AffineTransform(0.5, 3.0, event_dim=1), _real((2, 3))),
    "StickBreaking": (lambda T: T.StickBreakingTransform(), _real((2, 3))),
    "Compose": (lambda T: T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()]),
                _real((2, 3))),
    "Independent": (lambda T: T.IndependentTransform(T.ExpTransform(), 1), _real((2, 3))),
    "Reshape": (lambda T: T.ReshapeTransform((2, 3), (6,)), _real((4, 2, 3))),
    "Inverse": (lambda T: T.ExpTransform().inv, _pos((2, 3))),
    "LowerCholesky": (lambda T: T.LowerCholeskyTransform(), _real((2, 3, 3))),
    "Cat": (lambda T: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0)], dim=-1,
                                     lengths=[1, 2]), _real((2, 3))),
    "Stack": (lambda T: T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0),
              _real((2, 3))),
    "Softmax": (lambda T: T.SoftmaxTransform(), _real((2, 3))),
    "Abs": (lambda T: T.AbsTransform(), _real((2, 3))),
    "CorrCholesky": (lambda T: T.CorrCholeskyTransform(), _real((2, 6))),
    "PositiveDefinite": (lambda T: T.PositiveDefiniteTransform(), _real((2, 3, 3))),
}
BIJECTIVE_LOGDET = ["Exp", "Power", "Sigmoid", "Softplus", "Tanh", "Affine", "AffineEvent",
                    "StickBreaking", "Compose", "Independent", "Reshape", "Inverse", "Cat", "Stack",
                    "CorrCholesky"]


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_forward_inverse(name):
    make, gen = TRANSFORMS[name]
    x = gen(np.random.default_rng(0))
    te, tto = make(ET), make(TT)
    ye, yt = te(e(x)), tto(tt(x))
    close(ye, yt, rtol=1e-6, atol=1e-9)
    close(te.inv(ye), tto.inv(yt), rtol=1e-5, atol=1e-8)
    assert te.bijective == tto.bijective
    assert repr(te.domain) == repr(tto.domain) and repr(te.codomain) == repr(tto.codomain)
    assert tuple(te.forward_shape(x.shape)) == tuple(tto.forward_shape(x.shape))
    assert tuple(te.inverse_shape(yt.shape)) == tuple(tto.inverse_shape(yt.shape))


@pytest.mark.parametrize("name", BIJECTIVE_LOGDET)
def test_transform_log_abs_det_jacobian_and_gradient(name):
    make, gen = TRANSFORMS[name]
    x = gen(np.random.default_rng(1))
    te, tto = make(ET), make(TT)
    xe, xt = e(x, True), tt(x, True)
    le, lt = te.log_abs_det_jacobian(xe, te(xe)), tto.log_abs_det_jacobian(xt, tto(xt))
    close(le, lt, rtol=1e-6, atol=1e-9)
    (ge,) = ember.autograd.grad((le * le).sum() + te(xe).sum(), [xe])
    (gt,) = torch.autograd.grad((lt * lt).sum() + tto(xt).sum(), [xt])
    close(ge, gt, rtol=1e-5, atol=1e-8)


def test_transform_cache_equality_and_sign():
    t = ET.ExpTransform(cache_size=1)
    x = ember.randn(3)
    y = t(x)
    assert t.inv(y) is x  # cached: the exact input back
    assert ET.ExpTransform() == ET.ExpTransform() and ET.ExpTransform() != ET.SigmoidTransform()
    assert ET.AffineTransform(1.0, 2.0) == ET.AffineTransform(1.0, 2.0)
    assert ET.AffineTransform(1.0, -2.0).sign == -1
    assert ET.ComposeTransform([ET.ExpTransform(), ET.AffineTransform(0.0, -1.0)]).sign == -1
    assert t.inv.inv is t
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ET.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="different numbers of elements"):
        ET.ReshapeTransform((2, 3), (5,))


def _transformed(D, T, loc, scale):
    return D.TransformedDistribution(D.Normal(loc, scale),
                                     [T.AffineTransform(1.0, 2.0), T.SigmoidTransform()])


def test_transformed_distribution_against_torch():
    rng = np.random.default_rng(2)
    loc, scale = rng.normal(size=(2, 3)), rng.uniform(0.5, 2, size=(2, 3))
    le, se, lt, st = e(loc, True), e(scale, True), tt(loc, True), tt(scale, True)
    de, dt = _transformed(ED, ET, le, se), _transformed(TD, TT, lt, st)
    assert tuple(de.batch_shape) == (2, 3) and tuple(de.event_shape) == ()
    v = rng.uniform(0.05, 0.95, size=(4, 2, 3))
    lpe, lpt = de.log_prob(e(v)), dt.log_prob(tt(v))
    close(lpe, lpt, rtol=1e-6)
    close(de.cdf(e(v)), dt.cdf(tt(v)), rtol=1e-6)
    close(de.icdf(e(v)), dt.icdf(tt(v)), rtol=1e-6)
    ge = ember.autograd.grad(lpe.sum(), [le, se])
    gt = torch.autograd.grad(lpt.sum(), [lt, st])
    for a, b in zip(ge, gt):
        close(a, b, rtol=1e-5)
    s = de.rsample((5,))
    assert tuple(s.shape) == (5, 2, 3) and bool(de.support.check(s).all())
    assert tuple(de.expand((4, 2, 3)).sample().shape) == (4, 2, 3)


def test_transformed_distribution_event_dims():
    # a batch of scalar Normals pushed through a vector transform becomes one vector event
    de = ED.TransformedDistribution(ED.Normal(ember.zeros(4, 3), ember.ones(4, 3)),
                                    ET.StickBreakingTransform())
    dt = TD.TransformedDistribution(TD.Normal(torch.zeros(4, 3), torch.ones(4, 3)),
                                    TT.StickBreakingTransform())
    assert tuple(de.batch_shape) == tuple(dt.batch_shape) == (4,)
    assert tuple(de.event_shape) == tuple(dt.event_shape) == (4,)
    v = np.random.default_rng(3).dirichlet(np.ones(4), size=4).astype(np.float32)
    close(de.log_prob(e(v)), dt.log_prob(tt(v)), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        ED.TransformedDistribution(ED.Normal(0.0, 1.0), "exp")


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "boolean", "simplex",
               "nonnegative_integer", "positive_integer", "lower_cholesky", "lower_triangular",
               "one_hot", "real_vector", "corr_cholesky", "square", "symmetric"]


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_constraint_checks(name):
    rng = np.random.default_rng(4)
    samples = [rng.normal(size=(3, 4)), rng.uniform(0, 1, size=(3, 4)),
               rng.integers(0, 3, size=(3, 4)).astype(np.float64), np.zeros((3, 4)),
               np.eye(4)[:3], rng.dirichlet(np.ones(4), size=3), np.tril(rng.uniform(0.1, 1, size=(3, 3))),
               np.tril(rng.normal(size=(2, 3, 3))), np.eye(3)]
    ce, ct = getattr(ED.constraints, name), getattr(TD.constraints, name)
    assert repr(ce) == repr(ct)
    assert ce.is_discrete == ct.is_discrete and ce.event_dim == ct.event_dim
    for s in samples:
        close(ce.check(e(s)), ct.check(tt(s)))


def test_parameterized_constraints():
    x = np.linspace(-2, 5, 15)
    for make in [lambda C: C.interval(-1.0, 2.0), lambda C: C.half_open_interval(-1.0, 2.0),
                 lambda C: C.greater_than(1.0), lambda C: C.greater_than_eq(1.0),
                 lambda C: C.less_than(1.0), lambda C: C.integer_interval(0, 3),
                 lambda C: C.independent(C.positive, 1)]:
        ce, ct = make(ED.constraints), make(TD.constraints)
        assert repr(ce) == repr(ct)
        close(ce.check(e(x)), ct.check(tt(x)))
    assert ED.constraints.is_dependent(ED.constraints.dependent)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        ED.constraints.dependent.check(ember.zeros(2))


@pytest.mark.parametrize("cname", ["real", "positive", "unit_interval", "simplex", "greater_than",
                                   "less_than", "interval", "real_vector", "lower_cholesky",
                                   "corr_cholesky", "positive_definite"])
def test_biject_to_and_transform_to(cname):
    C, TC = ED.constraints, TD.constraints
    pick = {"greater_than": lambda c: c.greater_than(1.5), "less_than": lambda c: c.less_than(-1.0),
            "interval": lambda c: c.interval(-1.0, 3.0)}.get(cname, lambda c: getattr(c, cname))
    shape = {"lower_cholesky": (2, 3, 3), "positive_definite": (2, 3, 3)}.get(cname, (2, 3))
    x = np.random.default_rng(5).normal(size=shape)
    for reg, treg in [(ED.transform_to, TD.transform_to), (ED.biject_to, TD.biject_to)]:
        try:
            tt_ = treg(pick(TC))
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                reg(pick(C))
            continue
        te = reg(pick(C))
        ye = te(e(x))
        close(ye, tt_(tt(x)), rtol=1e-6)
        assert bool(pick(C).check(ye).all())


@pytest.mark.parametrize("diag", [0, 1, -1, -2])
def test_tril_vec_round_trip(diag):
    from ember.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix
    from torch.distributions.utils import tril_matrix_to_vec as t_to_vec, vec_to_tril_matrix as t_to_mat
    m = np.random.default_rng(6).normal(size=(2, 4, 4))
    ve, vt = tril_matrix_to_vec(e(m), diag), t_to_vec(tt(m), diag)
    close(ve, vt)
    close(vec_to_tril_matrix(ve, diag), t_to_mat(vt, diag))


def test_utils_probs_logits_and_broadcast_all():
    from ember.distributions import utils as EU
    from torch.distributions import utils as TU
    p = np.random.default_rng(7).uniform(0, 1, size=(3, 4))
    for binary in (False, True):
        close(EU.probs_to_logits(e(p), binary), TU.probs_to_logits(tt(p), binary))
        close(EU.logits_to_probs(e(p), binary), TU.logits_to_probs(tt(p), binary))
    close(EU.clamp_probs(e(np.array([0.0, 1.0]))), TU.clamp_probs(tt(np.array([0.0, 1.0]))))
    a, b = EU.broadcast_all(e(p[:, :1]), 2.0)
    assert tuple(a.shape) == tuple(b.shape) == (3, 1) and b.dtype == ember.float64
    with pytest.raises(ValueError, match="Input arguments must all be instances of numbers.Number"):
        EU.broadcast_all(e(p), "x")
    with pytest.raises(RuntimeError, match="(?i)shape mismatch"):
        EU.broadcast_all(e(p), ember.zeros(5))


def test_registry_composites_and_cdf_transform():
    C, TC = ED.constraints, TD.constraints
    x = np.random.default_rng(8).normal(size=(2, 3))
    for make in [lambda c: c.independent(c.positive, 1), lambda c: c.cat([c.positive, c.real], 1, [1, 2]),
                 lambda c: c.stack([c.positive, c.unit_interval], 0)]:
        for reg, treg in [(ED.biject_to, TD.biject_to), (ED.transform_to, TD.transform_to)]:
            te, tto = reg(make(C)), treg(make(TC))
            close(te(e(x)), tto(tt(x)), rtol=1e-6)
            close(te.log_abs_det_jacobian(e(x), te(e(x))), tto.log_abs_det_jacobian(tt(x), tto(tt(x))),
                  rtol=1e-6)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        ED.biject_to(C.boolean)
    # CumulativeDistributionTransform: y = F(x), log|dy/dx| = log p(x)
    de, dt = ED.Normal(e(np.array(0.5)), e(np.array(2.0))), TD.Normal(tt(np.array(0.5)), tt(np.array(2.0)))
    te, tto = ET.CumulativeDistributionTransform(de), TT.CumulativeDistributionTransform(dt)
    close(te(e(x)), tto(tt(x)))
    close(te.inv(te(e(x))), x, rtol=1e-6)
    close(te.log_abs_det_jacobian(e(x), te(e(x))), tto.log_abs_det_jacobian(tt(x), tto(tt(x))))
    # with_cache gives a cached copy that inverts its own outputs exactly
    cached = ET.AffineTransform(1.0, 3.0).with_cache()
    xe = e(x)
    assert cached.inv(cached(xe)) is xe


def test_rsample_gradients_of_the_relaxed_and_straight_through_families():
    """Their rsample is a fixed differentiable map of parameter-free noise: recover the noise
    from ember's sample, push it through torch's map, compare the gradients."""
    rng = np.random.default_rng(9)
    logits, w = rng.normal(size=(2, 4)), rng.normal(size=(5, 2, 4))
    t = 0.7
    # ExpRelaxedCategorical: y = log_softmax((logits + g) / T), so g = T y - logits (+ const)
    le, lt = e(logits, True), tt(logits, True)
    ember.manual_seed(1)
    y = ED.ExpRelaxedCategorical(ember.tensor(t, dtype=ember.float64), logits=le).rsample((5,))
    (ge,) = ember.autograd.grad((y * e(w)).sum(), [le])
    g = tt(t * npy(y) - logits)
    yt = torch.log_softmax((lt - lt.logsumexp(-1, keepdim=True) + g) / t, -1)
    (gt,) = torch.autograd.grad((yt * tt(w)).sum(), [lt])
    close(ge, gt, rtol=1e-6, atol=1e-9)
    # LogitRelaxedBernoulli: x = (logit(u) + logits) / T
    p = rng.uniform(0.2, 0.8, size=(2, 4))
    pe, pt = e(p, True), tt(p, True)
    x = ED.LogitRelaxedBernoulli(ember.tensor(t, dtype=ember.float64), probs=pe).rsample((5,))
    (ge,) = ember.autograd.grad((x * e(w)).sum(), [pe])
    noise = tt(t * npy(x) - np.log(p / (1 - p)))
    xt = (noise + torch.log(pt) - torch.log1p(-pt)) / t
    (gt,) = torch.autograd.grad((xt * tt(w)).sum(), [pt])
    close(ge, gt, rtol=1e-6, atol=1e-9)
    # OneHotCategoricalStraightThrough: the gradient is that of probs
    le, lt = e(logits, True), tt(logits, True)
    s = ED.OneHotCategoricalStraightThrough(logits=le).rsample((5,))
    (ge,) = ember.autograd.grad((s * e(w)).sum(), [le])
    st = TD.OneHotCategoricalStraightThrough(logits=lt)
    (gt,) = torch.autograd.grad(((tt(npy(s)) + st.probs - st.probs.detach()) * tt(w)).sum(), [lt])
    close(ge, gt, rtol=1e-6, atol=1e-9)
    # LogisticNormal: x = stick_breaking(loc + scale * eps)
    loc, scale = rng.normal(size=(2, 3)), rng.uniform(0.5, 1.5, size=(2, 3))
    ie, it = [e(loc, True), e(scale, True)], [tt(loc, True), tt(scale, True)]
    x = ED.LogisticNormal(*ie).rsample((5,))
    ge = ember.autograd.grad((x * e(w)).sum(), ie)
    eps = (TT.StickBreakingTransform().inv(tt(npy(x))) - tt(loc)) / tt(scale)
    xt = TT.StickBreakingTransform()(it[0] + it[1] * eps)
    gt = torch.autograd.grad((xt * tt(w)).sum(), it)
    for a, b in zip(ge, gt):
        close(a, b, rtol=1e-5, atol=1e-8)
