#include "kernels/cpu/special_functions.h"

#include "kernels/cpu/special_hwy.h"

#include <boost/math/special_functions/airy.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <limits>

namespace ember::kernels {

namespace {

namespace bm = boost::math;
// Kernels never throw out of a parallel loop: every Boost error returns its IEEE value.
using Quiet = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                   bm::policies::pole_error<bm::policies::ignore_error>,
                                   bm::policies::overflow_error<bm::policies::ignore_error>,
                                   bm::policies::underflow_error<bm::policies::ignore_error>,
                                   bm::policies::evaluation_error<bm::policies::ignore_error>,
                                   bm::policies::promote_double<false>>;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_nonpositive_integer(double x) { return x <= 0 && x == std::floor(x); }

double digamma_of(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(kInf, -x);  // torch 2.x: digamma(0) = -inf
  if (std::isinf(x)) return x > 0 ? kInf : kNaN;
  if (is_nonpositive_integer(x)) return kNaN;
  return bm::digamma(x, Quiet());
}

// The n-th derivative of digamma. At its poles (0, -1, -2, ...) it diverges to +inf for odd
// n and to -inf for even n, as torch returns at 0.
double polygamma_of(int64_t n, double x) {
  if (n == 0) return digamma_of(x);
  if (std::isnan(x)) return x;
  if (is_nonpositive_integer(x) && !std::isinf(x)) return n % 2 ? kInf : -kInf;
  if (std::isinf(x)) return x > 0 ? 0.0 : kNaN;
  // n! / x^(n+1) overflows long before n leaves int's range (Boost takes an int): +-inf by parity
  if (n > 1000000) return n % 2 ? kInf : -kInf;
  if (n == 1) return bm::trigamma(x, Quiet());
  return bm::polygamma(int(n), x, Quiet());
}

// exp(x^2) erfc(x). Below 26 the product of the two library functions is accurate (erfc
// has not yet underflowed); above, the asymptotic series of erfc (Abramowitz & Stegun
// 7.1.23), sum_k (-1)^k (2k-1)!! / (2x^2)^k, whose 9th term is below 1e-20 there.
double erfcx_of(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return x < -26.7 ? kInf : 2 * std::exp(x * x) - erfcx_of(-x);
  if (x < 26) return std::exp(x * x) * std::erfc(x);
  if (std::isinf(x)) return 0.0;
  const double r = 1 / (2 * x * x);
  double sum = 1, term = 1;
  for (int k = 1; k <= 8; ++k) {
    term *= -(2 * k - 1) * r;
    sum += term;
  }
  return sum / (x * std::sqrt(M_PI));
}

// log(ndtr(x)); far in the lower tail through erfcx, which does not underflow.
double log_ndtr_of(double x) {
  const double t = x * M_SQRT1_2;
  if (x < -1) return std::log(erfcx_of(-t) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

double ndtri_of(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  return 0.0 - M_SQRT2 * bm::erfc_inv(2 * p, Quiet());  // +0 at p = 1/2, as torch
}

// I0 is even, I1 odd: Boost takes |x|.
double bessel_i(int order, double x) {
  if (std::isnan(x)) return x;
  double v = bm::cyl_bessel_i(order, std::fabs(x), Quiet());
  return order == 1 && x < 0 ? -v : v;
}

// exp(-|x|) I_order(x). Past 700, where I overflows, the asymptotic series of I (A&S 9.7.1),
// sum_k (-1)^k a_k / x^k, a_k = prod_j (4 order^2 - (2j-1)^2) / (k! 8^k), to 12 terms.
double bessel_ie(int order, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  double v;
  if (std::isinf(ax)) v = 0.0;
  else if (ax < 700) v = std::exp(-ax) * bm::cyl_bessel_i(order, ax, Quiet());
  else {
    double sum = 1, term = 1;
    for (int k = 1; k <= 12; ++k) {
      term *= -(4.0 * order * order - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * ax);
      sum += term;
    }
    v = sum / std::sqrt(2 * M_PI * ax);
  }
  return order == 1 && x < 0 ? -v : v;
}

// J0 is even, J1 odd; NaN at +-inf as torch.
double bessel_j(int order, double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  double v = bm::cyl_bessel_j(order, std::fabs(x), Quiet());
  return order == 1 && x < 0 ? -v : v;
}

// Y (Neumann) and K on x >= 0, torch's edges: NaN below 0, -inf (Y) / +inf (K) at 0; at +inf
// Y is NaN and K 0. K's scaled form exp(x) K(x) past 700, where K underflows, by K's
// asymptotic series (A&S 9.7.2), sum_k a_k / x^k, a_k = prod_j (4 order^2 - (2j-1)^2) / (k! 8^k).
double bessel_y(int order, double x) {
  if (std::isnan(x) || x < 0 || x == kInf) return kNaN;
  if (x == 0) return -kInf;
  return bm::cyl_neumann(order, x, Quiet());
}

double bessel_k(int order, double x, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (x == kInf) return 0.0;
  if (!scaled) return bm::cyl_bessel_k(order, x, Quiet());
  if (x < 700) return std::exp(x) * bm::cyl_bessel_k(order, x, Quiet());
  double sum = 1, term = 1;
  for (int k = 1; k <= 12; ++k) {
    term *= (4.0 * order * order - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * x);
    sum += term;
  }
  return sum * std::sqrt(M_PI / (2 * x));
}

double entr_of(double x) {
  if (std::isnan(x)) return x;
  if (x < 0 || std::isinf(x)) return -kInf;
  return x == 0 ? 0.0 : -x * std::log(x);
}

// P(a, x) (upper: Q) with torch's edges: NaN for a or x negative or NaN and for a = x = 0;
// a = 0 is the limit P = 1; x = inf gives P = 1, a = inf (x finite) P = 0.
double gammainc_of(bool upper, double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0 || (a == 0 && x == 0)) return kNaN;
  double p;
  if (a == 0 || std::isinf(x)) p = std::isinf(a) ? kNaN : 1.0;
  else if (std::isinf(a)) p = 0.0;
  else if (x == 0) p = 0.0;
  else return upper ? bm::gamma_q(a, x, Quiet()) : bm::gamma_p(a, x, Quiet());
  return upper ? 1.0 - p : p;
}

double apply(MathFn f, int64_t n, double x) {
  switch (f) {
    case MathFn::Lgamma: return std::lgamma(x);
    case MathFn::Digamma: return digamma_of(x);
    case MathFn::Polygamma: return polygamma_of(n, x);
    case MathFn::Erfc: return std::erfc(x);
    case MathFn::Erfcx: return erfcx_of(x);
    case MathFn::I0: return bessel_i(0, x);
    case MathFn::I1: return bessel_i(1, x);
    case MathFn::I0e: return bessel_ie(0, x);
    case MathFn::I1e: return bessel_ie(1, x);
    case MathFn::BesselJ0: return bessel_j(0, x);
    case MathFn::BesselJ1: return bessel_j(1, x);
    case MathFn::BesselY0: return bessel_y(0, x);
    case MathFn::BesselY1: return bessel_y(1, x);
    case MathFn::BesselK0: return bessel_k(0, x, false);
    case MathFn::BesselK1: return bessel_k(1, x, false);
    case MathFn::BesselK0e: return bessel_k(0, x, true);
    case MathFn::BesselK1e: return bessel_k(1, x, true);
    case MathFn::SphericalJ0:  // sin(x) / x, 1 at 0, 0 at +-inf
      return std::isinf(x) ? 0.0 : x == 0 ? 1.0 : std::sin(x) / x;
    case MathFn::AiryAi: return std::isinf(x) ? kNaN : bm::airy_ai(x, Quiet());
    case MathFn::Entr: return entr_of(x);
    case MathFn::Sinc: return x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
    case MathFn::Ndtr: return 0.5 * std::erfc(-x * M_SQRT1_2);
    case MathFn::Ndtri: return ndtri_of(x);
    case MathFn::LogNdtr: return log_ndtr_of(x);
  }
  return x;
}

}  // namespace

double i0e(double x) { return bessel_ie(0, x); }

void math_fn(MathFn f, DType dt, const Loop& L, int64_t n) {
  // float32 erfc: contiguous runs on the SIMD kernel (erf_hwy-inl.h), within 1 ulp of this
  // loop's double evaluation.
  const bool simd_erfc_f32 =
      f == MathFn::Erfc && dt == DType::Float32 && simd_special_enabled(SpecialOp::Sinh);
  visit_floating(dt, [&]<class T>() {
    for_each(
        L,
        [f, n, simd_erfc_f32](char** p, const int64_t* s, int64_t len) {
          if constexpr (sizeof(T) == 4) {
            if (simd_erfc_f32 && s[0] == 4 && s[1] == 4)
              return simd_erfc(reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]),
                               len);
          }
          for (int64_t i = 0; i < len; ++i)
            *reinterpret_cast<T*>(p[0] + i * s[0]) =
                T(apply(f, n, double(*reinterpret_cast<const T*>(p[1] + i * s[1]))));
        },
        kGrain / 64);  // each element costs ~100 adds
  });
}

void binary_fn(BinaryFn f, DType dt, const Loop& L) {
  visit_floating(dt, [&]<class T>() {
    for_each(
        L,
        [f](char** p, const int64_t* s, int64_t len) {
          for (int64_t i = 0; i < len; ++i) {
            const T x = *reinterpret_cast<const T*>(p[1] + i * s[1]);
            const T y = *reinterpret_cast<const T*>(p[2] + i * s[2]);
            T r;
            if (f == BinaryFn::GammaInc || f == BinaryFn::GammaIncc)
              r = T(gammainc_of(f == BinaryFn::GammaIncc, double(x), double(y)));
            else if (std::isnan(y)) r = y;
            else if (x == T(0)) r = T(0);
            else r = x * (f == BinaryFn::Xlogy ? std::log(y) : std::log1p(y));
            *reinterpret_cast<T*>(p[0] + i * s[0]) = r;
          }
        },
        kGrain / 16);
  });
}

}  // namespace ember::kernels
