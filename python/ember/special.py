"""ember.special: torch.special's names over ember's ops. The functions are C++ ops
(src/ops/special_functions.cpp: Boost.Math and the C++ library); this module only names them."""
from . import _C

gammaln = _C.lgamma
digamma = psi = _C.digamma
polygamma = _C.polygamma
erf = _C.erf
erfc = _C.erfc
erfcx = _C._special_erfcx
erfinv = _C.erfinv
expit = _C.sigmoid
expm1 = _C.expm1
log1p = _C.log1p
logit = _C.logit
i0 = _C.i0
i1 = _C._special_i1
ndtr = _C._special_ndtr
ndtri = _C._special_ndtri
log_ndtr = _C._special_log_ndtr
sinc = _C.sinc
xlogy = _C.xlogy
xlog1py = _C._special_xlog1py
i0e = _C._special_i0e
i1e = _C._special_i1e
entr = _C._special_entr
bessel_j0 = _C._special_bessel_j0
bessel_j1 = _C._special_bessel_j1
gammainc = _C.igamma
gammaincc = _C.igammac
bessel_y0 = _C._special_bessel_y0
bessel_y1 = _C._special_bessel_y1
modified_bessel_i0 = _C.i0  # (torch records no gradient for the modified_bessel_* names)
modified_bessel_i1 = _C._special_i1
modified_bessel_k0 = _C._special_modified_bessel_k0
modified_bessel_k1 = _C._special_modified_bessel_k1
scaled_modified_bessel_k0 = _C._special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _C._special_scaled_modified_bessel_k1
spherical_bessel_j0 = _C._special_spherical_bessel_j0
airy_ai = _C._special_airy_ai
exp2 = _C.exp2
softmax = _C.softmax
log_softmax = _C.log_softmax
logsumexp = _C.logsumexp


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension p (torch.special.multigammaln)."""
    return _C.mvlgamma(input, p)


__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "erf", "erfc", "erfcx",
           "erfinv", "expit", "expm1", "log1p", "logit", "i0", "i1", "ndtr", "ndtri", "log_ndtr",
           "sinc", "xlogy", "xlog1py", "i0e", "i1e", "entr", "bessel_j0", "bessel_j1", "gammainc",
           "gammaincc", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "exp2", "softmax",
           "log_softmax", "logsumexp"]
