"""ember.special: torch.special's names over ember's ops. The functions are C++ ops
(src/ops/special_functions.cpp: Boost.Math and the C++ library); this module only names them."""
from typing import TYPE_CHECKING, Any

from . import _C
from ._dtype import TORCH_TYPE_NAMES

# name -> (signature, what it computes, example call, what the call prints): the text of
# each generated function's docstring (the C++ op of each: _UNARY_AND_BINARY below).
_DOCS = {
    "gammaln": (
        "gammaln(input, *, out=None)", "The log of the absolute value of the gamma function.",
        "ember.special.gammaln(ember.tensor([0.5, 1.0, 2.0]))",
        "tensor([0.5724, 0.0000, 0.0000])"),
    "digamma": (
        "digamma(input, *, out=None)", "The logarithmic derivative of the gamma function, psi(x).",
        "ember.special.digamma(ember.tensor([1.0, 2.0]))", "tensor([-0.5772,  0.4228])"),
    "psi": (
        "psi(input, *, out=None)", "Alias of digamma.",
        "ember.special.psi(ember.tensor([1.0, 2.0]))", "tensor([-0.5772,  0.4228])"),
    "polygamma": (
        "polygamma(n, input, *, out=None)", "The n-th derivative of the digamma function.",
        "ember.special.polygamma(1, ember.tensor([1.0, 2.0]))", "tensor([1.6449, 0.6449])"),
    "erf": (
        "erf(input, *, out=None)", "The error function.",
        "ember.special.erf(ember.tensor([0.0, 0.5, 2.0]))", "tensor([0.0000, 0.5205, 0.9953])"),
    "erfc": (
        "erfc(input, *, out=None)",
        "The complementary error function 1 - erf(x), accurate for large x.",
        "ember.special.erfc(ember.tensor([0.0, 0.5, 2.0]))", "tensor([1.0000, 0.4795, 0.0047])"),
    "erfcx": (
        "erfcx(input, *, out=None)", "The scaled complementary error function exp(x^2) * erfc(x).",
        "ember.special.erfcx(ember.tensor([0.0, 1.0, 10.0]))", "tensor([1.0000, 0.4276, 0.0561])"),
    "erfinv": (
        "erfinv(input, *, out=None)", "The inverse of erf on (-1, 1).",
        "ember.special.erfinv(ember.tensor([0.0, 0.5, -0.9]))",
        "tensor([ 0.0000,  0.4769, -1.1631])"),
    "expit": (
        "expit(input, *, out=None)", "The logistic sigmoid 1 / (1 + exp(-x)).",
        "ember.special.expit(ember.tensor([0.0, 2.0]))", "tensor([0.5000, 0.8808])"),
    "expm1": (
        "expm1(input, *, out=None)", "exp(x) - 1, accurate near 0.",
        "ember.special.expm1(ember.tensor([1e-10, 1.0]))", "tensor([1.0000e-10, 1.7183e+00])"),
    "log1p": (
        "log1p(input, *, out=None)", "log(1 + x), accurate near 0.",
        "ember.special.log1p(ember.tensor([1e-10, 1.0]))", "tensor([1.0000e-10, 6.9315e-01])"),
    "logit": (
        "logit(input, eps=None, *, out=None)",
        "log(p / (1 - p)); with eps, p is first clamped to [eps, 1 - eps].",
        "ember.special.logit(ember.tensor([0.25, 0.5, 1.0]), eps=1e-6)",
        "tensor([-1.0986,  0.0000, 13.8023])"),
    "i0": (
        "i0(input, *, out=None)", "The modified Bessel function of the first kind, order 0.",
        "ember.special.i0(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 1.2661])"),
    "i1": (
        "i1(input, *, out=None)", "The modified Bessel function of the first kind, order 1.",
        "ember.special.i1(ember.tensor([0.0, 1.0]))", "tensor([0.0000, 0.5652])"),
    "ndtr": (
        "ndtr(input, *, out=None)", "The standard normal cumulative distribution function.",
        "ember.special.ndtr(ember.tensor([0.0, 1.0]))", "tensor([0.5000, 0.8413])"),
    "ndtri": (
        "ndtri(input, *, out=None)",
        "The inverse of ndtr: the standard normal quantile of a probability.",
        "ember.special.ndtri(ember.tensor([0.5, 0.975]))", "tensor([0.0000, 1.9600])"),
    "log_ndtr": (
        "log_ndtr(input, *, out=None)", "log(ndtr(x)), accurate far into the lower tail.",
        "ember.special.log_ndtr(ember.tensor([0.0, -10.0]))", "tensor([ -0.6931, -53.2313])"),
    "sinc": (
        "sinc(input, *, out=None)", "The normalized sinc function sin(pi x) / (pi x), 1 at 0.",
        "ember.special.sinc(ember.tensor([0.0, 0.5, -0.5]))", "tensor([1.0000, 0.6366, 0.6366])"),
    "xlogy": (
        "xlogy(input, other, *, out=None)",
        "input * log(other), 0 where input is 0 (unless other is NaN).",
        "ember.special.xlogy(ember.tensor([0.0, 2.0]), ember.tensor([0.0, 3.0]))",
        "tensor([0.0000, 2.1972])"),
    "xlog1py": (
        "xlog1py(input, other, *, out=None)",
        "input * log1p(other), 0 where input is 0 (unless other is NaN).",
        "ember.special.xlog1py(ember.tensor([0.0, 2.0]), ember.tensor([-1.0, 1.0]))",
        "tensor([0.0000, 1.3863])"),
    "i0e": (
        "i0e(input, *, out=None)", "The exponentially scaled i0: exp(-|x|) * i0(x).",
        "ember.special.i0e(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 0.4658])"),
    "i1e": (
        "i1e(input, *, out=None)", "The exponentially scaled i1: exp(-|x|) * i1(x).",
        "ember.special.i1e(ember.tensor([0.0, 1.0]))", "tensor([0.0000, 0.2079])"),
    "entr": (
        "entr(input, *, out=None)", "-x * log(x) elementwise: 0 at 0, -inf below 0.",
        "ember.special.entr(ember.tensor([0.0, 0.5, -1.0]))", "tensor([0.0000, 0.3466,   -inf])"),
    "bessel_j0": (
        "bessel_j0(input, *, out=None)", "The Bessel function of the first kind, order 0.",
        "ember.special.bessel_j0(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 0.7652])"),
    "bessel_j1": (
        "bessel_j1(input, *, out=None)", "The Bessel function of the first kind, order 1.",
        "ember.special.bessel_j1(ember.tensor([0.0, 1.0]))", "tensor([0.0000, 0.4401])"),
    "gammainc": (
        "gammainc(input, other, *, out=None)",
        "The regularized lower incomplete gamma function P(input, other).",
        "ember.special.gammainc(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 1.0]))",
        "tensor([0.6321, 0.2642])"),
    "gammaincc": (
        "gammaincc(input, other, *, out=None)",
        "The regularized upper incomplete gamma function Q(input, other) = 1 - P.",
        "ember.special.gammaincc(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 1.0]))",
        "tensor([0.3679, 0.7358])"),
    "bessel_y0": (
        "bessel_y0(input, *, out=None)", "The Bessel function of the second kind, order 0.",
        "ember.special.bessel_y0(ember.tensor([1.0, 2.0]))", "tensor([0.0883, 0.5104])"),
    "bessel_y1": (
        "bessel_y1(input, *, out=None)", "The Bessel function of the second kind, order 1.",
        "ember.special.bessel_y1(ember.tensor([1.0, 2.0]))", "tensor([-0.7812, -0.1070])"),
    "modified_bessel_i0": (
        "modified_bessel_i0(input, *, out=None)",
        "The modified Bessel function of the first kind, order 0 (i0).",
        "ember.special.modified_bessel_i0(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 1.2661])"),
    "modified_bessel_i1": (
        "modified_bessel_i1(input, *, out=None)",
        "The modified Bessel function of the first kind, order 1 (i1).",
        "ember.special.modified_bessel_i1(ember.tensor([0.0, 1.0]))", "tensor([0.0000, 0.5652])"),
    "modified_bessel_k0": (
        "modified_bessel_k0(input, *, out=None)",
        "The modified Bessel function of the second kind, order 0.",
        "ember.special.modified_bessel_k0(ember.tensor([0.5, 1.0]))", "tensor([0.9244, 0.4210])"),
    "modified_bessel_k1": (
        "modified_bessel_k1(input, *, out=None)",
        "The modified Bessel function of the second kind, order 1.",
        "ember.special.modified_bessel_k1(ember.tensor([0.5, 1.0]))", "tensor([1.6564, 0.6019])"),
    "scaled_modified_bessel_k0": (
        "scaled_modified_bessel_k0(input, *, out=None)", "exp(x) * modified_bessel_k0(x).",
        "ember.special.scaled_modified_bessel_k0(ember.tensor([0.5, 1.0]))",
        "tensor([1.5241, 1.1445])"),
    "scaled_modified_bessel_k1": (
        "scaled_modified_bessel_k1(input, *, out=None)", "exp(x) * modified_bessel_k1(x).",
        "ember.special.scaled_modified_bessel_k1(ember.tensor([0.5, 1.0]))",
        "tensor([2.7310, 1.6362])"),
    "spherical_bessel_j0": (
        "spherical_bessel_j0(input, *, out=None)",
        "The spherical Bessel function of the first kind, order 0: sin(x) / x.",
        "ember.special.spherical_bessel_j0(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 0.8415])"),
    "airy_ai": (
        "airy_ai(input, *, out=None)", "The Airy function Ai.",
        "ember.special.airy_ai(ember.tensor([0.0, 1.0]))", "tensor([0.3550, 0.1353])"),
    "exp2": (
        "exp2(input, *, out=None)", "2 ** x.",
        "ember.special.exp2(ember.tensor([0.0, 3.0, -1.0]))", "tensor([1.0000, 8.0000, 0.5000])"),
    "logsumexp": (
        "logsumexp(input, dim, keepdim=False, *, out=None)",
        "log(sum(exp(input))) over dim, computed without overflow.",
        "ember.special.logsumexp(ember.tensor([[0.0, 0.0], [1000.0, 1000.0]]), 1)",
        "tensor([6.9315e-01, 1.0007e+03])"),
    "chebyshev_polynomial_t": (
        "chebyshev_polynomial_t(input, n, *, out=None)",
        "The Chebyshev polynomial of the first kind T_n(x), over broadcast input and n.",
        "ember.special.chebyshev_polynomial_t(ember.tensor([0.5, 2.0]), 2)",
        "tensor([-0.5000,  7.0000])"),
    "chebyshev_polynomial_u": (
        "chebyshev_polynomial_u(input, n, *, out=None)",
        "The Chebyshev polynomial of the second kind U_n(x).",
        "ember.special.chebyshev_polynomial_u(ember.tensor([0.5, 2.0]), 2)", "tensor([ 0., 15.])"),
    "chebyshev_polynomial_v": (
        "chebyshev_polynomial_v(input, n, *, out=None)",
        "The Chebyshev polynomial of the third kind V_n(x).",
        "ember.special.chebyshev_polynomial_v(ember.tensor([0.5, 2.0]), 2)", "tensor([-1., 11.])"),
    "chebyshev_polynomial_w": (
        "chebyshev_polynomial_w(input, n, *, out=None)",
        "The Chebyshev polynomial of the fourth kind W_n(x).",
        "ember.special.chebyshev_polynomial_w(ember.tensor([0.5, 2.0]), 2)", "tensor([ 1., 19.])"),
    "shifted_chebyshev_polynomial_t": (
        "shifted_chebyshev_polynomial_t(input, n, *, out=None)",
        "T_n(2x - 1), the Chebyshev polynomial of the first kind shifted to [0, 1].",
        "ember.special.shifted_chebyshev_polynomial_t(ember.tensor([0.25, 1.0]), 2)",
        "tensor([-0.5000,  1.0000])"),
    "shifted_chebyshev_polynomial_u": (
        "shifted_chebyshev_polynomial_u(input, n, *, out=None)", "U_n(2x - 1), shifted to [0, 1].",
        "ember.special.shifted_chebyshev_polynomial_u(ember.tensor([0.25, 1.0]), 2)",
        "tensor([0., 3.])"),
    "shifted_chebyshev_polynomial_v": (
        "shifted_chebyshev_polynomial_v(input, n, *, out=None)", "V_n(2x - 1), shifted to [0, 1].",
        "ember.special.shifted_chebyshev_polynomial_v(ember.tensor([0.25, 1.0]), 2)",
        "tensor([1., 1.])"),
    "shifted_chebyshev_polynomial_w": (
        "shifted_chebyshev_polynomial_w(input, n, *, out=None)", "W_n(2x - 1), shifted to [0, 1].",
        "ember.special.shifted_chebyshev_polynomial_w(ember.tensor([0.25, 1.0]), 2)",
        "tensor([-1.,  5.])"),
    "hermite_polynomial_h": (
        "hermite_polynomial_h(input, n, *, out=None)",
        "The physicists' Hermite polynomial H_n(x).",
        "ember.special.hermite_polynomial_h(ember.tensor([0.0, 1.0]), 2)", "tensor([-2.,  2.])"),
    "hermite_polynomial_he": (
        "hermite_polynomial_he(input, n, *, out=None)",
        "The probabilists' Hermite polynomial He_n(x).",
        "ember.special.hermite_polynomial_he(ember.tensor([0.0, 1.0]), 2)", "tensor([-1.,  0.])"),
    "laguerre_polynomial_l": (
        "laguerre_polynomial_l(input, n, *, out=None)", "The Laguerre polynomial L_n(x).",
        "ember.special.laguerre_polynomial_l(ember.tensor([0.0, 1.0]), 2)",
        "tensor([ 1.0000, -0.5000])"),
    "legendre_polynomial_p": (
        "legendre_polynomial_p(input, n, *, out=None)", "The Legendre polynomial P_n(x).",
        "ember.special.legendre_polynomial_p(ember.tensor([0.5, 1.0]), 2)",
        "tensor([-0.1250,  1.0000])"),
    "zeta": (
        "zeta(input, other, *, out=None)",
        "The Hurwitz zeta function sum over k >= 0 of (k + other) ** -input.",
        "ember.special.zeta(ember.tensor([2.0, 4.0]), 1.0)", "tensor([1.6449, 1.0823])"),
}


def _docstring(name):
    signature, text, call, printed = _DOCS[name]
    return f"{signature} -> Tensor\n\n{text}\n\n>>> {call}\n{printed}\n"


def _with_out(name, fn):
    """torch.special's f(..., *, out=None) over the C++ op `fn`."""
    def f(*args, out=None, **kwargs):
        from ._comparison import _into
        return _into(fn(*args, **kwargs), out, name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _docstring(name)
    return f


# torch.special name -> the C++ op (src/ops/special_functions.cpp unless said otherwise)
_UNARY_AND_BINARY = {
    "gammaln": _C.lgamma, "digamma": _C.digamma, "psi": _C.digamma, "polygamma": _C.polygamma,
    "erf": _C.erf, "erfc": _C.erfc, "erfcx": _C._special_erfcx, "erfinv": _C.erfinv,
    "expit": _C.sigmoid, "expm1": _C.expm1, "log1p": _C.log1p, "logit": _C.logit, "i0": _C.i0,
    "i1": _C._special_i1, "ndtr": _C._special_ndtr, "ndtri": _C._special_ndtri,
    "log_ndtr": _C._special_log_ndtr, "sinc": _C.sinc, "xlogy": _C.xlogy,
    "xlog1py": _C._special_xlog1py, "i0e": _C._special_i0e, "i1e": _C._special_i1e,
    "entr": _C._special_entr, "bessel_j0": _C._special_bessel_j0,
    "bessel_j1": _C._special_bessel_j1, "gammainc": _C.igamma, "gammaincc": _C.igammac,
    "bessel_y0": _C._special_bessel_y0, "bessel_y1": _C._special_bessel_y1,
    # (torch records no gradient for the modified_bessel_* names)
    "modified_bessel_i0": _C.i0, "modified_bessel_i1": _C._special_i1,
    "modified_bessel_k0": _C._special_modified_bessel_k0,
    "modified_bessel_k1": _C._special_modified_bessel_k1,
    "scaled_modified_bessel_k0": _C._special_scaled_modified_bessel_k0,
    "scaled_modified_bessel_k1": _C._special_scaled_modified_bessel_k1,
    "spherical_bessel_j0": _C._special_spherical_bessel_j0, "airy_ai": _C._special_airy_ai,
    "exp2": _C.exp2, "logsumexp": _C.logsumexp,
}
for _name, _fn in _UNARY_AND_BINARY.items():
    globals()[_name] = _with_out(_name, _fn)
softmax = _C.softmax  # torch.special.softmax/log_softmax take no out=
log_softmax = _C.log_softmax

_POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p"]
for _name in _POLYNOMIALS + ["zeta"]:
    # (src/ops/special_polynomials.cpp: elementwise over broadcast operands)
    globals()[_name] = _with_out(_name, getattr(_C, "_special_" + _name))
del _name, _fn

if TYPE_CHECKING:  # the loops above bind these names; a type checker sees them here
    from ._C import Tensor

    def _op(*args: Any, out: Any = None, **kwargs: Any) -> Tensor: ...
    gammaln = digamma = psi = polygamma = erf = erfc = erfcx = erfinv = expit = expm1 = log1p = \
        logit = i0 = i1 = ndtr = ndtri = log_ndtr = sinc = xlogy = xlog1py = i0e = i1e = entr = \
        bessel_j0 = bessel_j1 = gammainc = gammaincc = bessel_y0 = bessel_y1 = \
        modified_bessel_i0 = modified_bessel_i1 = modified_bessel_k0 = modified_bessel_k1 = \
        scaled_modified_bessel_k0 = scaled_modified_bessel_k1 = spherical_bessel_j0 = airy_ai = \
        exp2 = logsumexp = chebyshev_polynomial_t = chebyshev_polynomial_u = \
        chebyshev_polynomial_v = chebyshev_polynomial_w = shifted_chebyshev_polynomial_t = \
        shifted_chebyshev_polynomial_u = shifted_chebyshev_polynomial_v = \
        shifted_chebyshev_polynomial_w = hermite_polynomial_h = hermite_polynomial_he = \
        laguerre_polynomial_l = legendre_polynomial_p = zeta = _op


def round(input, *, decimals=0, out=None):
    """torch.round with `decimals`: round half to even of input * 10^decimals, scaled back
    (for negative decimals, input / 10^-decimals then times it, as torch).

    >>> ember.special.round(ember.tensor([1.2345, 2.5, -0.5]), decimals=2)
    tensor([ 1.2300,  2.5000, -0.5000])
    >>> ember.special.round(ember.tensor([2.5, 3.5, 1234.0]), decimals=-2)
    tensor([   0.,    0., 1200.])
    """
    from ._comparison import _into
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"round(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if not input.dtype.is_floating_point:  # unlike torch.round, which returns integers as they are
        name = TORCH_TYPE_NAMES[input.dtype.name]
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')
    if decimals == 0:
        return _into(_C.round(input), out, "round")
    scale = 10.0 ** abs(decimals) if abs(decimals) <= 308 else float("inf")
    if decimals > 0:
        result = _C.div(_C.round(_C.mul(input, scale)), scale)
    else:
        result = _C.mul(_C.round(_C.div(input, scale)), scale)
    return _into(result, out, "round")


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p (torch.special.multigammaln).

    >>> ember.special.multigammaln(ember.tensor([2.0, 3.0]), 2)
    tensor([0.4516, 1.5502])
    """
    from ._comparison import _into
    return _into(_C.mvlgamma(input, p), out, "multigammaln")


__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "erf", "erfc", "erfcx",
           "erfinv", "expit", "expm1", "log1p", "logit", "i0", "i1", "ndtr", "ndtri", "log_ndtr",
           "sinc", "xlogy", "xlog1py", "i0e", "i1e", "entr", "bessel_j0", "bessel_j1", "gammainc",
           "gammaincc", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "exp2", "softmax",
           "log_softmax", "logsumexp", "zeta", "round"] + _POLYNOMIALS
