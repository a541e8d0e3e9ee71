// The gamma family (lgamma, digamma, polygamma, mvlgamma), Bessel i0/i1, the error-function
// family (erfc, erfcx, ndtr, ndtri, log_ndtr), sinc, logit, xlogy and xlog1py: forward
// through kernels/cpu/special_functions (Boost.Math and the C++ library), backward written
// with ops so that it can be differentiated again.
#include <cmath>

#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/special_functions.h"
#include "ops/iter.h"

namespace ember {

using autograd::SavedTensor;
using kernels::BinaryFn;
using kernels::MathFn;

namespace {

// Floating results; integer and bool inputs compute in float32, as torch.lgamma(int_tensor).
DType float_result(DType d) { return real_float_dtype(d); }

Tensor math_out(MathFn f, const char* name, const Tensor& a, int64_t n) {
  ops::check_defined(a, name);
  const DType dt = float_result(a.dtype());
  Tensor A = to_dtype(a, dt);
  Tensor out = ops::empty_like_inputs(a.sizes(), dt, {&A});
  kernels::math_fn(f, dt, ops::make_loop(a.sizes(), {&out, &A}), n);
  return out;
}

Tensor gauss(const Tensor& x) {  // exp(-x^2 / 2) / sqrt(2 pi), the normal density
  return mul(exp(mul(mul(x, x), Scalar(-0.5))), Scalar(1 / std::sqrt(2 * M_PI)));
}

// d f / d a, times g.
Tensor math_backward(MathFn f, int64_t n, const Tensor& g, const Tensor& a, const Tensor& out) {
  switch (f) {
    case MathFn::Lgamma: return mul(g, digamma(a));
    case MathFn::Digamma: return mul(g, polygamma(1, a));
    case MathFn::Polygamma: return mul(g, polygamma(n + 1, a));
    case MathFn::Erfc: return mul(g, mul(exp(neg(mul(a, a))), Scalar(-M_2_SQRTPI)));
    case MathFn::Erfcx:  // 2 x erfcx(x) - 2 / sqrt(pi)
      return mul(g, sub(mul(mul(a, out), Scalar(2.0)), Scalar(M_2_SQRTPI)));
    case MathFn::I0: return mul(g, special_i1(a));
    case MathFn::I1: {  // i0(x) - i1(x) / x, 1/2 at 0
      Tensor d = sub(i0(a), div(out, a));
      return mul(g, masked_fill(d, eq(a, Scalar(0.0)), Scalar(0.5)));
    }
    case MathFn::I0e: return mul(g, sub(special_i1e(a), mul(sign(a), out)));
    case MathFn::I1e: {  // i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0
      Tensor d = sub(sub(special_i0e(a), mul(sign(a), out)), div(out, a));
      return mul(g, masked_fill(d, eq(a, Scalar(0.0)), Scalar(0.5)));
    }
    case MathFn::Entr: return mul(g, neg(add(log(a), Scalar(1.0))));
    default: break;  // the Bessel and Airy functions of torch.special: no gradient in torch either
    case MathFn::Sinc: {  // (cos(pi x) - sinc(x)) / x, 0 at 0
      Tensor d = div(sub(cos(mul(a, Scalar(M_PI))), out), a);
      return mul(g, masked_fill(d, eq(a, Scalar(0.0)), Scalar(0.0)));
    }
    case MathFn::Ndtr: return mul(g, gauss(a));
    case MathFn::Ndtri:  // sqrt(2 pi) exp(ndtri(p)^2 / 2)
      return mul(g, mul(exp(mul(mul(out, out), Scalar(0.5))), Scalar(std::sqrt(2 * M_PI))));
    case MathFn::LogNdtr:  // gauss(x) / ndtr(x), as exp(-(log_ndtr(x) + x^2 / 2)) / sqrt(2 pi)
      return mul(g, mul(exp(neg(add(out, mul(mul(a, a), Scalar(0.5))))),
                        Scalar(1 / std::sqrt(2 * M_PI))));
  }
  return g;
}

// torch.special's Bessel (J, Y, K, scaled K, spherical J0) and Airy functions record no node.
bool differentiable(MathFn f) {
  switch (f) {
    case MathFn::BesselJ0:
    case MathFn::BesselJ1:
    case MathFn::BesselY0:
    case MathFn::BesselY1:
    case MathFn::BesselK0:
    case MathFn::BesselK1:
    case MathFn::BesselK0e:
    case MathFn::BesselK1e:
    case MathFn::SphericalJ0:
    case MathFn::AiryAi: return false;
    default: return true;
  }
}

Tensor math_op(MathFn f, const char* name, const char* node, const Tensor& a, int64_t n = 0) {
  Tensor out = math_out(f, name, a, n);
  if (autograd::any_requires_grad(a) && differentiable(f)) {
    autograd::record(node, {&a}, {&out},
                     [f, n, sa = SavedTensor(a), so = SavedTensor(out, true)](Grads& g, const Node&)
                         -> Grads { return {math_backward(f, n, g[0], sa.get(), so.get())}; });
  }
  return out;
}

// The in-place form `a.f_()`: a must already be floating (torch: "result type Float can't be
// cast to the desired output type Long").
template <class F>
Tensor& inplace(const char* name, Tensor& a, F f) {
  ops::check_defined(a, name);
  EMBER_CHECK(is_floating(a.dtype()), Error, name,
              ": result type Float can't be cast to the "
              "desired output type ",
              dtype_name(a.dtype()));
  return autograd::apply_inplace(a, name, f);
}

}  // namespace

#define EMBER_MATH(name, Enum, Node)              \
  Tensor name(const Tensor& a) {                  \
    EMBER_PROFILE_OP(#name);                      \
    return math_op(MathFn::Enum, #name, Node, a); \
  }
EMBER_MATH(lgamma, Lgamma, "LgammaBackward0")
EMBER_MATH(digamma, Digamma, "DigammaBackward0")
EMBER_MATH(erfc, Erfc, "ErfcBackward0")
EMBER_MATH(i0, I0, "I0Backward0")
EMBER_MATH(sinc, Sinc, "SincBackward0")
EMBER_MATH(special_erfcx, Erfcx, "SpecialErfcxBackward0")
EMBER_MATH(special_i1, I1, "SpecialI1Backward0")
EMBER_MATH(special_ndtr, Ndtr, "SpecialNdtrBackward0")
EMBER_MATH(special_ndtri, Ndtri, "SpecialNdtriBackward0")
EMBER_MATH(special_log_ndtr, LogNdtr, "SpecialLogNdtrBackward0")
EMBER_MATH(special_i0e, I0e, "SpecialI0EBackward0")
EMBER_MATH(special_i1e, I1e, "SpecialI1EBackward0")
EMBER_MATH(special_entr, Entr, "SpecialEntrBackward0")
EMBER_MATH(special_bessel_j0, BesselJ0, "")
EMBER_MATH(special_bessel_j1, BesselJ1, "")
EMBER_MATH(special_bessel_y0, BesselY0, "")
EMBER_MATH(special_bessel_y1, BesselY1, "")
EMBER_MATH(special_modified_bessel_k0, BesselK0, "")
EMBER_MATH(special_modified_bessel_k1, BesselK1, "")
EMBER_MATH(special_scaled_modified_bessel_k0, BesselK0e, "")
EMBER_MATH(special_scaled_modified_bessel_k1, BesselK1e, "")
EMBER_MATH(special_spherical_bessel_j0, SphericalJ0, "")
EMBER_MATH(special_airy_ai, AiryAi, "")
#undef EMBER_MATH

Tensor& lgamma_(Tensor& a) {
  return inplace("lgamma_", a, [](const Tensor& x) { return lgamma(x); });
}
Tensor& digamma_(Tensor& a) {
  return inplace("digamma_", a, [](const Tensor& x) { return digamma(x); });
}
Tensor& erfc_(Tensor& a) {
  return inplace("erfc_", a, [](const Tensor& x) { return erfc(x); });
}
Tensor& i0_(Tensor& a) {
  return inplace("i0_", a, [](const Tensor& x) { return i0(x); });
}
Tensor& sinc_(Tensor& a) {
  return inplace("sinc_", a, [](const Tensor& x) { return sinc(x); });
}

Tensor polygamma(int64_t n, const Tensor& a) {
  EMBER_RECORD(polygamma, n, a);
  EMBER_PROFILE_OP("polygamma");
  EMBER_CHECK(n >= 0, Error, "polygamma(n, x) does not support negative n, got n=", n);
  if (n == 0) return digamma(a);  // the same node name as torch
  return math_op(MathFn::Polygamma, "polygamma", "PolygammaBackward0", a, n);
}

Tensor& polygamma_(Tensor& a, int64_t n) {
  EMBER_CHECK(n >= 0, Error, "polygamma_(n, x) does not support negative n, got n=", n);
  return inplace("polygamma_", a, [n](const Tensor& x) { return polygamma(n, x); });
}

// sum_{i<p} lgamma(a - i/2) + p (p - 1) / 4 log(pi), a composite (its gradient follows).
Tensor mvlgamma(const Tensor& a, int64_t p) {
  EMBER_RECORD(mvlgamma, a, p);
  EMBER_PROFILE_OP("mvlgamma");
  ops::check_defined(a, "mvlgamma");
  EMBER_CHECK(p >= 1, Error, "mvlgamma: p has to be greater than or equal to 1, got p=", p);
  const DType dt = float_result(a.dtype());
  Tensor halves = mul(arange(Scalar(int64_t(0)), Scalar(p), Scalar(int64_t(1)), dt), Scalar(-0.5));
  Tensor terms = lgamma(add(unsqueeze(to_dtype(a, dt), -1), halves));
  return add(sum(terms, {-1}), Scalar(double(p) * double(p - 1) / 4 * std::log(M_PI)));
}

Tensor& mvlgamma_(Tensor& a, int64_t p) {
  return inplace("mvlgamma_", a, [p](const Tensor& x) { return mvlgamma(x, p); });
}

// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given.
Tensor logit(const Tensor& a, std::optional<double> eps) {
  EMBER_RECORD(logit, a, eps);
  EMBER_PROFILE_OP("logit");
  ops::check_defined(a, "logit");
  Tensor x = to_dtype(a, float_result(a.dtype()));
  if (eps) x = clamp(x, Scalar(*eps), Scalar(1.0 - *eps));
  return log(div(x, sub(Scalar(1.0), x)));
}

Tensor& logit_(Tensor& a, std::optional<double> eps) {
  return inplace("logit_", a, [eps](const Tensor& x) { return logit(x, eps); });
}

// ---- xlogy, xlog1py, igamma, igammac ---------------------------------------------------
namespace {

Tensor binary_out(BinaryFn f, const char* name, const Tensor& x, const Tensor& y) {
  ops::check_defined(x, name);
  ops::check_defined(y, name);
  const DType dt = float_result(result_type(x, y));
  Dims shape = broadcast_shapes(x.sizes(), y.sizes(), name);
  Tensor X = to_dtype(x, dt), Y = to_dtype(y, dt);
  Tensor out = ops::empty_like_inputs(shape, dt, {&X, &Y});
  kernels::binary_fn(f, dt, ops::make_loop(shape, {&out, &X, &Y}));
  return out;
}

// P(a, x) and Q(a, x): differentiable in x only, as torch (d/dx P = x^(a-1) e^-x / Gamma(a)).
Tensor gammainc_op(BinaryFn f, const char* name, const Tensor& a, const Tensor& x) {
  ops::check_defined(a, name);
  ops::check_defined(x, name);
  EMBER_CHECK(is_floating(a.dtype()) || is_floating(x.dtype()), NotImplementedError, name,
              ": not implemented for ", dtype_name(a.dtype()), " and ", dtype_name(x.dtype()),
              " (floating point only)");
  Tensor out = binary_out(f, name, a, x);
  if (autograd::any_requires_grad(a, x)) {
    const bool upper = f == BinaryFn::GammaIncc;
    autograd::record(upper ? "IgammacBackward0" : "IgammaBackward0", {&a, &x}, {&out},
                     [upper, name, sa = SavedTensor(a), sx = SavedTensor(x), shx = Dims(x.sizes()),
                      dx = x.dtype()](Grads& g, const Node& n) -> Grads {
                       EMBER_CHECK(!n.needs_input_grad(0), NotImplementedError,
                                   "the derivative for '", name, ": input' is not implemented.");
                       Tensor A = sa.get(), X = sx.get();
                       Tensor d = exp(sub(sub(mul(sub(A, Scalar(1.0)), log(X)), X), lgamma(A)));
                       Tensor gx = mul(g[0], upper ? neg(d) : d);
                       return {Tensor(), autograd::sum_to(gx, shx, dx)};
                     });
  }
  return out;
}

Tensor xlog_op(BinaryFn f, const char* name, const Tensor& x, const Tensor& y) {
  Tensor out = binary_out(f, name, x, y);
  if (autograd::any_requires_grad(x, y)) {
    const bool l1p = f == BinaryFn::Xlog1py;
    autograd::record(l1p ? "SpecialXlog1PyBackward0" : "XlogyBackward0", {&x, &y}, {&out},
                     [l1p, sx = SavedTensor(x), sy = SavedTensor(y), shx = Dims(x.sizes()),
                      shy = Dims(y.sizes()), dx = x.dtype(),
                      dy = y.dtype()](Grads& g, const Node& n) -> Grads {
                       Tensor X = sx.get(), Y = sy.get(), gx, gy;
                       if (n.needs_input_grad(
                               0)) {  // g log(y), 0 where x == 0 and y is at the pole or beyond
                         Tensor d = l1p ? special_xlog1py(g[0], Y) : xlogy(g[0], Y);
                         Tensor m =
                             logical_and(eq(X, Scalar(0.0)), le(Y, Scalar(l1p ? -1.0 : 0.0)));
                         gx = to_dtype(autograd::sum_to(masked_fill(d, m, Scalar(0.0)), shx), dx);
                       }
                       if (n.needs_input_grad(1)) {  // g x / y  (or / (1 + y))
                         Tensor d = div(mul(g[0], X), l1p ? add(Y, Scalar(1.0)) : Y);
                         gy = to_dtype(autograd::sum_to(d, shy), dy);
                       }
                       return {gx, gy};
                     });
  }
  return out;
}

}  // namespace

Tensor xlogy(const Tensor& x, const Tensor& y) {
  EMBER_RECORD(xlogy, x, y);
  EMBER_PROFILE_OP("xlogy");
  return xlog_op(BinaryFn::Xlogy, "xlogy", x, y);
}
Tensor xlogy(const Tensor& x, Scalar y) { return xlogy(x, scalar_tensor(y, result_type(x, y))); }
Tensor xlogy(Scalar x, const Tensor& y) { return xlogy(scalar_tensor(x, result_type(y, x)), y); }
Tensor& xlogy_(Tensor& x, const Tensor& y) {
  return inplace("xlogy_", x,
                 [&y](const Tensor& t) { return xlog_op(BinaryFn::Xlogy, "xlogy_", t, y); });
}
Tensor& xlogy_(Tensor& x, Scalar y) {
  return inplace("xlogy_", x, [y](const Tensor& t) { return xlogy(t, y); });
}

Tensor special_xlog1py(const Tensor& x, const Tensor& y) {
  EMBER_PROFILE_OP("special_xlog1py");
  return xlog_op(BinaryFn::Xlog1py, "special_xlog1py", x, y);
}
Tensor special_xlog1py(const Tensor& x, Scalar y) {
  return special_xlog1py(x, scalar_tensor(y, result_type(x, y)));
}
Tensor special_xlog1py(Scalar x, const Tensor& y) {
  EMBER_RECORD(special_xlog1py, x, y);
  return special_xlog1py(scalar_tensor(x, result_type(y, x)), y);
}

Tensor igamma(const Tensor& a, const Tensor& x) {
  EMBER_RECORD(igamma, a, x);
  EMBER_PROFILE_OP("igamma");
  return gammainc_op(BinaryFn::GammaInc, "igamma", a, x);
}
Tensor igammac(const Tensor& a, const Tensor& x) {
  EMBER_RECORD(igammac, a, x);
  EMBER_PROFILE_OP("igammac");
  return gammainc_op(BinaryFn::GammaIncc, "igammac", a, x);
}
Tensor& igamma_(Tensor& a, const Tensor& x) {
  return inplace("igamma_", a, [&x](const Tensor& t) { return igamma(t, x); });
}
Tensor& igammac_(Tensor& a, const Tensor& x) {
  return inplace("igammac_", a, [&x](const Tensor& t) { return igammac(t, x); });
}

}  // namespace ember
