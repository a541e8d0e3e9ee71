"""KL divergences between different families, registered with kl.register_kl: each is
E_p[-log q(x)] - H(p), the cross-entropy written with p's moments in closed form, or infinite
where p has mass outside q's support (the pairs torch.distributions.kl registers)."""
import math

import ember
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from ._kl_registry import _infinite_like, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant, xlogy

# ---- across families: E_p[-log q] - H(p), with the moments of p in closed form ------------

def _normal_cross_entropy(mean, second_central, q):
    """E_p[-log q(x)] for q Normal, given E_p[x] and E_p[(x - E x)^2]."""
    return (q.scale.log() + 0.5 * math.log(2 * math.pi)
            + (second_central + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2)))


def _gumbel_cross_entropy(mean, mgf_at_minus_inv_scale, q):
    """E_p[-log q(x)] for q Gumbel: log(scale) + E[(x - loc)/scale] + E[exp(-(x - loc)/scale)],
    given E_p[x] and E_p[exp(-x / q.scale)]."""
    return (q.scale.log() + (mean - q.loc) / q.scale
            + (q.loc / q.scale).exp() * mgf_at_minus_inv_scale)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    return _normal_cross_entropy((p.high + p.low) / 2, width.pow(2) / 12, q) - width.log()


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    return _normal_cross_entropy(p.loc, 2 * p.scale.pow(2), q) - p.entropy()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return _normal_cross_entropy(p.rate.reciprocal(), p.rate.pow(-2), q) - p.entropy()


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    return _normal_cross_entropy(p.mean, p.variance, q) - p.entropy()


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mgf = (-p.loc / q.scale + p.scale.pow(2) / (2 * q.scale.pow(2))).exp()
    return _gumbel_cross_entropy(p.loc, mgf, q) - p.entropy()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # E[exp(-t x)] = exp(-t loc) Gamma(1 + t scale) for x ~ Gumbel(loc, scale)
    ratio = p.scale / q.scale
    mgf = (-p.loc / q.scale + ember.lgamma(1 + ratio)).exp()
    return _gumbel_cross_entropy(p.mean, mgf, q) - p.entropy()


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    mgf = p.rate / (p.rate + q.scale.reciprocal())
    return _gumbel_cross_entropy(p.rate.reciprocal(), mgf, q) - p.entropy()


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    mgf = q.scale / (p.high - p.low) * ((-p.low / q.scale).exp() - (-p.high / q.scale).exp())
    return _gumbel_cross_entropy((p.high + p.low) / 2, mgf, q) - p.entropy()


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|x - q.loc| for x ~ Normal: the folded normal's mean
    d = p.loc - q.loc
    abs_mean = (p.scale * math.sqrt(2 / math.pi) * (-0.5 * (d / p.scale).pow(2)).exp()
                + d * ember.erf(d / (p.scale * math.sqrt(2))))
    return (2 * q.scale).log() + abs_mean / q.scale - p.entropy()


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return ember.where(p.low < q.support.lower_bound, math.inf, result)


def _x_log_x(x):
    return xlogy(x, x)  # 0 at x = 0


def _uniform_mean_log(p):
    """E[log x] for x ~ Uniform(low, high), low >= 0."""
    width = p.high - p.low
    return (_x_log_x(p.high) - _x_log_x(p.low)) / width - 1


def _uniform_mean_log1m(p):
    """E[log(1 - x)] for x ~ Uniform(low, high), high <= 1."""
    width = p.high - p.low
    return -(_x_log_x(1 - p.high) - _x_log_x(1 - p.low)) / width - 1


def _exponential_cross_entropy(mean, q):
    return -q.rate.log() + q.rate * mean


def _gamma_cross_entropy(mean, mean_log, q):
    a, b = q.concentration, q.rate
    return a.lgamma() - a * b.log() - (a - 1) * mean_log + b * mean


def _beta_cross_entropy(mean_log, mean_log1m, q):
    a, b = q.concentration1, q.concentration0
    return a.lgamma() + b.lgamma() - (a + b).lgamma() - (a - 1) * mean_log - (b - 1) * mean_log1m


def _continuous_bernoulli_cross_entropy(mean, q):
    # log q(x) = x logit(p) + log(1 - p) + log C(p)
    return -(mean * q.logits + ember.log1p(-q.probs) + q._cont_bern_log_norm())


def _beta_mean_log(p):
    return p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    result = (-(p.high - p.low).log() - q.alpha.log() - q.alpha * q.scale.log()
              + (q.alpha + 1) * _uniform_mean_log(p))
    return ember.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    result = -(p.high - p.low).log() + _beta_cross_entropy(_uniform_mean_log(p), _uniform_mean_log1m(p), q)
    return ember.where((p.high > q.support.upper_bound) | (p.low < q.support.lower_bound), math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    result = -(p.high - p.low).log() + _gamma_cross_entropy(p.mean, _uniform_mean_log(p), q)
    return ember.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() + _continuous_bernoulli_cross_entropy(p.mean, q)
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return ember.where(outside, math.inf, result)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # log q(k) = k log(rate) - rate for k in {0, 1}
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _continuous_bernoulli_cross_entropy(p.mean, q)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(p.mean, q)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    return -p.entropy() + _gamma_cross_entropy(p.mean, _beta_mean_log(p), q)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return ember.where(outside, math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(p.mean, q)


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # torch's rule: infinite unless q's interval reaches past [0, 1] on both sides
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return ember.where(outside, math.inf, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    # E[log x] = -euler - log(rate)
    return -p.entropy() + _gamma_cross_entropy(p.mean, -euler_constant - p.rate.log(), q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(p.mean, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    # E[exp(-x / s)] = (1 + 1 / (rate s)) ^ -concentration
    mgf = (1 + (p.rate * q.scale).reciprocal()).pow(-p.concentration)
    return -p.entropy() + _gumbel_cross_entropy(p.mean, mgf, q)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    mean = p.alpha * p.scale / (p.alpha - 1)
    result = -p.entropy() + _exponential_cross_entropy(mean, q)
    return ember.where(p.alpha <= 1, math.inf, result)  # no finite mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean = p.alpha * p.scale / (p.alpha - 1)
    result = -p.entropy() + _gamma_cross_entropy(mean, p.scale.log() + p.alpha.reciprocal(), q)
    return ember.where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    a = p.alpha
    mean = a * p.scale / (a - 1)
    variance = p.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
    result = -p.entropy() + _normal_cross_entropy(mean, variance, q)
    return ember.where(a <= 2, math.inf, result)  # no finite variance


def _kl_infinite(p, q):
    """The support of p reaches where q has no mass."""
    return _infinite_like(p.low if isinstance(p, Uniform) else p.rate if isinstance(p, Poisson)
                          else p.mean)


for _p, _qs in ((Normal, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
                (Laplace, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
                (Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
                (Exponential, (Beta, ContinuousBernoulli, Pareto, Uniform)),
                (Gamma, (Beta, ContinuousBernoulli, Pareto, Uniform)),
                (Pareto, (Beta, ContinuousBernoulli, Uniform)),
                (Beta, (Pareto,)), (ContinuousBernoulli, (Pareto,)),
                (Poisson, (Bernoulli, Binomial))):
    for _q in _qs:
        register_kl(_p, _q)(_kl_infinite)
