#include "kernels/cpu/special_polynomials.h"

#include <cmath>
#include <limits>

namespace ember::kernels {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kRecurrenceCap = int64_t(1) << 24;

// torch casts the degree to int64 (truncation); NaN, +-inf and values beyond int64 come out
// as INT64_MIN there, i.e. negative: -1 here.
int64_t degree_of(double n) {
  const double t = std::trunc(n);
  if (!(t >= 0) || t >= 9.2233720368547758e18) return -1;
  return int64_t(t);
}

bool odd(int64_t n) { return n % 2 != 0; }

// The four kinds of Chebyshev polynomials share P_{k+1} = 2x P_k - P_{k-1} from P_0 = 1 and
// P_1 = 2x - c (c = 0 for T after halving, see below). For large n the closed forms in
// theta = acos(x) (|x| < 1) or acosh(|x|) (|x| > 1) replace the n-step recurrence.
enum class Kind { T, U, V, W };

double chebyshev_at_one(Kind k, int64_t n, bool negative) {
  const double s = negative && odd(n) ? -1.0 : 1.0;
  switch (k) {
    case Kind::T: return s;
    case Kind::U: return s * double(n + 1);
    case Kind::V: return negative ? s * double(2 * n + 1) : 1.0;
    case Kind::W: return negative ? s : double(2 * n + 1);
  }
  return kNaN;
}

double chebyshev_closed(Kind k, double x, int64_t n) {
  const double m = double(n);
  if (std::abs(x) < 1) {
    const double t = std::acos(x);
    switch (k) {
      case Kind::T: return std::cos(m * t);
      case Kind::U: return std::sin((m + 1) * t) / std::sin(t);
      case Kind::V: return std::cos((m + 0.5) * t) / std::cos(t / 2);
      case Kind::W: return std::sin((m + 0.5) * t) / std::sin(t / 2);
    }
  }
  // |x| > 1: hyperbolic forms at |x|, then P_n(-x) = (-1)^n P_n(x) for T and U, while V and
  // W trade places: V_n(-x) = (-1)^n W_n(x).
  const double t = std::acosh(std::abs(x)), s = x < 0 && odd(n) ? -1.0 : 1.0;
  Kind kk = k;
  if (x < 0 && k == Kind::V) kk = Kind::W;
  else if (x < 0 && k == Kind::W) kk = Kind::V;
  double r = kNaN;
  switch (kk) {
    case Kind::T: r = std::cosh(m * t); break;
    case Kind::U: r = std::sinh((m + 1) * t) / std::sinh(t); break;
    case Kind::V: r = std::cosh((m + 0.5) * t) / std::cosh(t / 2); break;
    case Kind::W: r = std::sinh((m + 0.5) * t) / std::sinh(t / 2); break;
  }
  return std::isnan(r) ? kInf * s : s * r;  // inf / inf past overflow: the limit is +-inf
}

double chebyshev(Kind k, double x, int64_t n) {
  if (n < 0) return 0.0;
  if (std::isnan(x)) return n == 0 ? 1.0 : x;
  if (std::abs(x) == 1) return chebyshev_at_one(k, n, x < 0);
  if (n == 0) return 1.0;
  if (n > 16) return chebyshev_closed(k, x, n);
  const double first[] = {x, 2 * x, 2 * x - 1, 2 * x + 1};
  double p = 1.0, q = first[int(k)];
  for (int64_t i = 1; i < n; ++i) {
    const double r = 2 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}

// H_{k+1} = 2x H_k - 2k H_{k-1} and He_{k+1} = x He_k - k He_{k-1}; torch returns NaN above
// degree `cap` (its limit for the dtype), which also bounds the loop.
double hermite(bool physicists, double x, int64_t n, int64_t cap) {
  if (n < 0) return 0.0;
  if (n == 0) return 1.0;
  if (n > cap) return kNaN;
  const double a = physicists ? 2.0 : 1.0;
  double p = 1.0, q = a * x;
  for (int64_t k = 1; k < n; ++k) {
    const double r = a * (x * q - double(k) * p);
    p = q;
    q = r;
  }
  return q;
}

// (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_n(0) = 1.
double laguerre(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (n == 0 || x == 0) return 1.0;
  if (n > kRecurrenceCap) return kNaN;
  double p = 1.0, q = 1.0 - x;
  for (int64_t k = 1; k < n && std::isfinite(q); ++k) {
    const double r = ((2.0 * double(k) + 1.0 - x) * q - double(k) * p) / double(k + 1);
    p = q;
    q = r;
  }
  return q;
}

// (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; P_n(1) = 1, P_n(-1) = (-1)^n.
double legendre(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (std::abs(x) == 1) return x < 0 && odd(n) ? -1.0 : 1.0;
  if (n == 0) return 1.0;
  if (n > kRecurrenceCap) return kNaN;
  double p = 1.0, q = x;
  for (int64_t k = 1; k < n && std::isfinite(q); ++k) {
    const double r = ((2.0 * double(k) + 1.0) * x * q - double(k) * p) / double(k + 1);
    p = q;
    q = r;
  }
  return q;
}

double polynomial(PolyFn f, double x, int64_t n, int64_t hermite_cap) {
  switch (f) {
    case PolyFn::ChebyshevT: return chebyshev(Kind::T, x, n);
    case PolyFn::ChebyshevU: return chebyshev(Kind::U, x, n);
    case PolyFn::ChebyshevV: return chebyshev(Kind::V, x, n);
    case PolyFn::ChebyshevW: return chebyshev(Kind::W, x, n);
    case PolyFn::ShiftedT: return chebyshev(Kind::T, 2 * x - 1, n);
    case PolyFn::ShiftedU: return chebyshev(Kind::U, 2 * x - 1, n);
    case PolyFn::ShiftedV: return chebyshev(Kind::V, 2 * x - 1, n);
    case PolyFn::ShiftedW: return chebyshev(Kind::W, 2 * x - 1, n);
    case PolyFn::HermiteH: return hermite(true, x, n, hermite_cap);
    case PolyFn::HermiteHe: return hermite(false, x, n, hermite_cap);
    case PolyFn::LaguerreL: return laguerre(x, n);
    case PolyFn::LegendreP: return legendre(x, n);
  }
  return kNaN;
}

// The Hurwitz zeta function, from Cephes' zeta.c (Cephes Math Library Release 2.0, Copyright
// 1984, 1987 by Stephen L. Moshier; BSD-3-Clause, as redistributed with SciPy's xsf headers in
// the scipy sdist on PyPI), restructured without goto. Euler-Maclaurin summation: the first
// terms (k + q)^-x summed directly until k + q > 9, then the tail by the integral plus the
// Bernoulli-number corrections B_2j x (x+1)...(x+2j) / ((2j)! (n+q)^(x+2j+1)).
// zeta_A[j] = (2j+2)! / B_{2j+2}.
constexpr double kZetaA[] = {12.0,
                             -720.0,
                             30240.0,
                             -1209600.0,
                             47900160.0,
                             -1.8924375803183791606e9,
                             7.47242496e10,
                             -2.950130727918164224e12,
                             1.1646782814350067249e14,
                             -4.5979787224074726105e15,
                             1.8152105401943546773e17,
                             -7.1661652561756670113e18};
constexpr double kMachEp = 1.11022302462515654042e-16;  // 2^-53

double zeta_of(double x, double q) {
  if (x == 1.0) return kInf;
  if (!(x > 1.0)) return kNaN;  // x < 1 and NaN
  if (q <= 0.0) {
    if (q == std::floor(q)) return kInf;  // a pole
    if (x != std::floor(x)) return kNaN;  // (k + q)^-x undefined for negative k + q
  }
  if (std::isnan(q)) return q;
  double s = std::pow(q, -x), a = q, b = 0.0;
  for (int i = 0; i < 9 || a <= 9.0;) {
    ++i;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (std::abs(b / s) < kMachEp) return s;
  }
  const double w = a;
  s += b * w / (x - 1.0) - 0.5 * b;
  double fac = 1.0, k = 0.0;
  for (double A : kZetaA) {
    fac *= x + k;
    b /= w;
    const double t = fac * b / A;
    s += t;
    if (std::abs(t / s) < kMachEp) break;
    k += 1.0;
    fac *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

}  // namespace

void polynomial_fn(PolyFn f, DType dt, const Loop& L) {
  visit_floating(dt, [&]<class T>() {
    const int64_t cap = sizeof(T) == 4 ? 128 : 512;
    for_each(
        L,
        [f, cap](char** p, const int64_t* s, int64_t len) {
          for (int64_t i = 0; i < len; ++i) {
            const double x = double(*reinterpret_cast<const T*>(p[1] + i * s[1]));
            const double n = double(*reinterpret_cast<const T*>(p[2] + i * s[2]));
            *reinterpret_cast<T*>(p[0] + i * s[0]) = T(polynomial(f, x, degree_of(n), cap));
          }
        },
        kGrain / 64);
  });
}

void hurwitz_zeta(DType dt, const Loop& L) {
  visit_floating(dt, [&]<class T>() {
    for_each(
        L,
        [](char** p, const int64_t* s, int64_t len) {
          for (int64_t i = 0; i < len; ++i) {
            const double x = double(*reinterpret_cast<const T*>(p[1] + i * s[1]));
            const double q = double(*reinterpret_cast<const T*>(p[2] + i * s[2]));
            *reinterpret_cast<T*>(p[0] + i * s[0]) = T(zeta_of(x, q));
          }
        },
        kGrain / 64);
  });
}

}  // namespace ember::kernels
