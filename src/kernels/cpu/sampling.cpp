#include "kernels/cpu/sampling.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace ember::kernels {

void standard_gamma(Generator& g, const double* alpha, double* out, int64_t n, double tiny) {
  auto lock = g.lock();
  for (int64_t i = 0; i < n; ++i) {
    double x = 0;
    if (alpha[i] > 0 && std::isfinite(alpha[i])) x = std::gamma_distribution<double>(alpha[i])(g);
    else if (alpha[i] == INFINITY) x = INFINITY;
    out[i] = std::max(tiny, x);  // NaN and alpha <= 0 end here too
  }
}

namespace {
namespace bm = boost::math;
using Quiet = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                   bm::policies::overflow_error<bm::policies::ignore_error>,
                                   bm::policies::underflow_error<bm::policies::ignore_error>,
                                   bm::policies::evaluation_error<bm::policies::ignore_error>>;

// dx/da along the level set of P(a, x). dP/da by a central difference of Boost's P (or of Q
// in the upper tail, where P rounds to 1), with a step on the scale over which P changes
// (a below 1, sqrt(a) above): truncation and rounding errors stay near 1e-8 relative.
// Beyond a = 1e8 the normal limit x = a + sqrt(a) z gives dx/da = (x + a) / (2a).
double gamma_grad_one(double x, double a) {
  if (!(a > 0) || !(x > 0) || !std::isfinite(a) || !std::isfinite(x)) return 0.0;
  if (a > 1e8) return (x + a) / (2 * a);
  const double h = 1e-4 * std::min(a, std::sqrt(a));
  const bool upper = bm::gamma_p(a, x, Quiet()) > 0.5;
  auto F = [&](double s) {
    return upper ? -bm::gamma_q(s, x, Quiet()) : bm::gamma_p(s, x, Quiet());
  };
  const double dP_da = (F(a + h) - F(a - h)) / (2 * h);
  const double dP_dx = bm::gamma_p_derivative(a, x, Quiet());
  return dP_dx > 0 ? -dP_da / dP_dx : 0.0;
}
}  // namespace

void standard_gamma_grad(const double* x, const double* alpha, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = gamma_grad_one(x[i], alpha[i]);
}

// Above 1e15 (where <random>'s integer samplers would overflow or loop) the normal limit,
// whose error is far below the spacing of doubles there.
constexpr double kHuge = 1e15;

double normal_limit(Generator& g, double mean, double var) {
  return std::round(mean + std::sqrt(var) * std::normal_distribution<double>()(g));
}

void poisson(Generator& g, const double* rate, double* out, int64_t n) {
  auto lock = g.lock();
  for (int64_t i = 0; i < n; ++i) {
    const double r = rate[i];
    if (!(r > 0)) out[i] = r == 0 ? 0.0 : std::nan("");
    else if (r > kHuge) out[i] = std::isinf(r) ? r : std::max(0.0, normal_limit(g, r, r));
    else out[i] = double(std::poisson_distribution<int64_t>(r)(g));
  }
}

void binomial(Generator& g, const double* count, const double* prob, double* out, int64_t n) {
  auto lock = g.lock();
  for (int64_t i = 0; i < n; ++i) {
    const double c = std::floor(count[i]), p = prob[i];
    if (std::isnan(c) || std::isnan(p) || c == INFINITY) out[i] = std::nan("");
    else if (c <= 0 || p <= 0) out[i] = 0;
    else if (p >= 1) out[i] = c;
    else if (c > kHuge) out[i] = std::clamp(normal_limit(g, c * p, c * p * (1 - p)), 0.0, c);
    else out[i] = double(std::binomial_distribution<int64_t>(int64_t(c), p)(g));
  }
}

void bernoulli(Generator& g, const double* p, int64_t p_stride, double* out, int64_t n) {
  auto lock = g.lock();
  for (int64_t i = 0; i < n; ++i) out[i] = g.next_double() < p[i * p_stride] ? 1.0 : 0.0;
}

void fill(Generator& g, Fill kind, double a, double b, double* out, int64_t n) {
  auto lock = g.lock();
  switch (kind) {
    case Fill::Exponential: {
      std::exponential_distribution<double> d(a);
      for (int64_t i = 0; i < n; ++i) out[i] = d(g);
      break;
    }
    case Fill::Geometric: {
      // The trials up to and including the first success (torch's support, from 1), by
      // inversion in double: <random>'s int64 sampler overflows for p near 0.
      const double l = std::log1p(-a);
      for (int64_t i = 0; i < n; ++i)
        out[i] = std::max(1.0, std::ceil(std::log(1.0 - g.next_double()) / l));
      break;
    }
    case Fill::Cauchy: {
      std::cauchy_distribution<double> d(a, b);
      for (int64_t i = 0; i < n; ++i) out[i] = d(g);
      break;
    }
    case Fill::LogNormal: {
      std::lognormal_distribution<double> d(a, b);
      for (int64_t i = 0; i < n; ++i) out[i] = d(g);
      break;
    }
  }
}

void multinomial(Generator& g, const double* w, int64_t rows, int64_t cats, int64_t k,
                 bool replacement, int64_t* out) {
  auto lock = g.lock();
  std::vector<double> cdf(size_t(cats), 0.0);
  auto keys = std::vector<std::pair<double, int64_t>>(size_t(cats));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = w + r * cats;
    int64_t* o = out + r * k;
    if (replacement) {
      std::partial_sum(row, row + cats, cdf.begin());
      const double total = cdf.back();
      for (int64_t j = 0; j < k; ++j) {
        const double u = g.next_double() * total;
        // the first category whose CDF exceeds u; zero-weight categories are never chosen
        int64_t c = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        while (c > 0 && (c >= cats || row[c] == 0)) --c;  // rounding at the top end
        o[j] = c;
      }
      continue;
    }
    for (int64_t c = 0; c < cats; ++c) {
      // log(u) / w: larger is more likely first; zero weights get -inf and come last
      const double u = 1.0 - g.next_double();  // (0, 1]
      keys[size_t(c)] = {row[c] > 0 ? std::log(u) / row[c] : -INFINITY, c};
    }
    std::partial_sort(keys.begin(), keys.begin() + k, keys.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    for (int64_t j = 0; j < k; ++j) o[j] = keys[size_t(j)].second;
  }
}

}  // namespace ember::kernels
