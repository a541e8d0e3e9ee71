"""ember.special: torch.special's names over ember's ops. The functions are C++ ops
(src/ops/special_functions.cpp: Boost.Math and the C++ library); this module only names them."""
from typing import TYPE_CHECKING, Any

from . import _C

def _with_out(name, fn, doc):
    """torch.special's f(..., *, out=None) over the C++ op `fn`."""
    def f(*args, out=None, **kwargs):
        from ._comparison import _into
        return _into(fn(*args, **kwargs), out, name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"torch.special.{name}: {doc}"
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
    globals()[_name] = _with_out(_name, _fn, "elementwise (src/ops/special_functions.cpp).")
softmax = _C.softmax  # torch.special.softmax/log_softmax take no out=
log_softmax = _C.log_softmax

_POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p"]
for _name in _POLYNOMIALS + ["zeta"]:
    globals()[_name] = _with_out(_name, getattr(_C, "_special_" + _name),
                                 "elementwise over broadcast operands "
                                 "(src/ops/special_polynomials.cpp).")
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
    (for negative decimals, input / 10^-decimals then times it, as torch)."""
    from ._comparison import _into
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"round(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if not input.dtype.is_floating_point:  # unlike torch.round, which returns integers as they are
        name = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}.get(input.dtype.name, input.dtype.name)
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
    """The multivariate log-gamma function of dimension p (torch.special.multigammaln)."""
    from ._comparison import _into
    return _into(_C.mvlgamma(input, p), out, "multigammaln")


__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "erf", "erfc", "erfcx",
           "erfinv", "expit", "expm1", "log1p", "logit", "i0", "i1", "ndtr", "ndtri", "log_ndtr",
           "sinc", "xlogy", "xlog1py", "i0e", "i1e", "entr", "bessel_j0", "bessel_j1", "gammainc",
           "gammaincc", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "exp2", "softmax",
           "log_softmax", "logsumexp", "zeta", "round"] + _POLYNOMIALS
