#include "kernels/cpu/window.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/special_functions.h"

namespace ember::kernels {

namespace {

// Note: a cosine sum evaluates cos(2 pi k i / denom) by rotation, not one cos per element:
// each block of kBlock samples starts from an exact cos/sin of its first angle and turns it by
// a table of the block's offsets (cos(a + b) = cos a cos b - sin a sin b), so every sample is
// two multiplies per term and within a few ulp of double; hamming_window(2**31) is then bound
// by memory, not by cos.
constexpr int64_t kBlock = 256;

template <class T>
void cosine_sum(T* out, int64_t n, double denom, const double* a, int64_t na) {
  const double w = 2 * M_PI / denom;
  std::vector<double> cb(na * kBlock), sb(na * kBlock);  // cos/sin(w k j), j < kBlock
  for (int64_t k = 0; k < na; ++k)
    for (int64_t j = 0; j < kBlock; ++j) {
      cb[k * kBlock + j] = std::cos(w * double(k * j));
      sb[k * kBlock + j] = std::sin(w * double(k * j));
    }
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  parallel_for(0, blocks, std::max<int64_t>(1, kGrain / kBlock), [&](int64_t b0, int64_t b1) {
    double acc[kBlock];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t i0 = b * kBlock, len = std::min(kBlock, n - i0);
      std::fill(acc, acc + len, 0.0);
      for (int64_t k = 0; k < na; ++k) {
        // the angle of the block's first sample, reduced exactly: (k i0) mod denom turns
        const double turns = std::fmod(double(k) * double(i0), denom);
        const double c0 = std::cos(w * turns), s0 = std::sin(w * turns);
        const double coef = (k % 2 ? -a[k] : a[k]);
        const double* c = &cb[k * kBlock];
        const double* s = &sb[k * kBlock];
        for (int64_t j = 0; j < len; ++j) acc[j] += coef * (c0 * c[j] - s0 * s[j]);
      }
      for (int64_t j = 0; j < len; ++j) out[i0 + j] = T(acc[j]);
    }
  });
}

template <class T, class F>
void each(T* out, int64_t n, int64_t grain, const F& f) {
  parallel_for(0, n, grain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) out[i] = T(f(double(i)));
  });
}

}  // namespace

void window(Window kind, DType dt, void* out, int64_t n, double denom, const double* p,
            int64_t np) {
  visit_floating(dt, [&]<class T>() {
    T* o = static_cast<T*>(out);
    switch (kind) {
      case Window::CosineSum: return cosine_sum(o, n, denom, p, np);
      case Window::Bartlett:
        return each(o, n, kGrain, [&](double i) { return 1 - std::fabs(2 * i / denom - 1); });
      case Window::Kaiser: {
        // I0(z) / I0(beta) = i0e(z) / i0e(beta) exp(z - beta): finite for any beta (I0
        // itself overflows double past 713)
        const double beta = p[0], scale = i0e(beta);
        return each(o, n, kGrain / 64, [&](double i) {
          const double x = 2 * i / denom - 1;
          const double z = beta * std::sqrt(std::max(0.0, 1 - x * x));
          return i0e(z) / scale * std::exp(z - beta);
        });
      }
      case Window::Gaussian:
        return each(o, n, kGrain / 8, [&](double i) {
          const double t = (i - denom / 2) / p[0];
          return std::exp(-0.5 * t * t);
        });
      case Window::Exponential:
        return each(o, n, kGrain / 8,
                    [&](double i) { return std::exp(-std::fabs(i - p[0]) / p[1]); });
      case Window::Sine:
        return each(o, n, kGrain / 8, [&](double i) { return std::sin(M_PI * (i + 0.5) / denom); });
    }
  });
}

}  // namespace ember::kernels
