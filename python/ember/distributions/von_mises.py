"""VonMises: the circular distribution of an angle, with density exp(k cos(x - loc)) /
(2 pi I0(k)); sampled by Best and Fisher's rejection method (1979), vectorized."""
import math

import ember
from . import constraints
from .distribution import CenteredAtLoc, Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz and Stegun
# 9.8.1-9.8.4): in (x / 3.75)^2 below 3.75, in 3.75 / x (times exp(x) / sqrt(x)) above.
_BESSEL_SMALL = {
    0: [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
    1: [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3],
}
_BESSEL_LARGE = {
    0: [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
        0.2635537e-1, -0.1647633e-1, 0.392377e-2],
    1: [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
        -0.2895312e-1, 0.1787654e-1, -0.420059e-2],
}


def _polyval(y, coefs):
    """Horner's rule over the (few) coefficients; each step is one tensor op."""
    result = ember.full_like(y, coefs[-1])
    for c in reversed(coefs[:-1]):
        result = result * y + c
    return result


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0 and order 0 or 1."""
    if order not in (0, 1):
        raise ValueError(f"_log_modified_bessel_fn: order must be 0 or 1, got {order}")
    small = _polyval((x / 3.75).pow(2), _BESSEL_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _polyval(3.75 / x, _BESSEL_LARGE[order]).log()
    return ember.where(x < 3.75, small.log(), large)


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Rounds of proposals for every entry at once until each has one accepted; returns angles
    in [-pi, pi)."""
    x = ember.zeros(shape, dtype=loc.dtype)
    done = ember.zeros(shape, dtype=ember.bool)
    rounds = 0
    while not bool(done.all()):
        # each round accepts with probability above 1/2 for any valid parameters; only nan or
        # infinite ones (validate_args=False) can keep it going
        rounds += 1
        if rounds > 1000:
            raise ValueError("VonMises.sample: no proposal accepted in 1000 rounds; loc and "
                             "concentration must be finite with concentration > 0")
        u1, u2, u3 = ember.rand((3,) + tuple(shape), dtype=loc.dtype).unbind(0)
        z = ember.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        accept = accept & ~done
        x = ember.where(accept, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return ember.remainder(x + math.pi + loc, 2 * math.pi) - math.pi


class VonMises(CenteredAtLoc, Distribution):
    """loc: the mean angle (any real, read modulo 2 pi); concentration: kappa > 0.

    >>> d = ember.distributions.VonMises(ember.tensor(0.0), ember.tensor(1.0))
    >>> d.log_prob(ember.tensor(0.0)), d.mean
    (tensor(-1.0738), tensor(0.))
    """
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, ember.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * ember.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self):
        return self.loc.to(ember.float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(ember.float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return ember.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=ember.Size()):
        """In double precision, as torch: in single precision a tiny concentration makes the
        acceptance test fail for ever."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            x = _rejection_sample(self._loc, self._concentration, self._proposal_r, shape)
            return x.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        loc = self.loc.expand(batch_shape)
        concentration = self.concentration.expand(batch_shape)
        return type(self)(loc, concentration, validate_args=self.__dict__.get("_validate_args"))

    @property
    def mean(self):
        """The circular mean."""
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance, 1 - I1(k) / I0(k)."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
