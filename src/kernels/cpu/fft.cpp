// ember.fft's kernels: KISS FFT plans (Bluestein for lengths with a large prime factor), the
// real-input transforms as one half-length complex transform plus a twiddle pass, and a cache
// of plans. See fft.h.
#include "kernels/cpu/fft.h"

#include <kissfft/kissfft.hh>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <numbers>
#include <vector>

#include "kernels/cpu/parallel.h"

namespace ember::kernels {
namespace {

template <class T>
using cpx = std::complex<T>;

// Above this prime factor kissfft's generic O(n p) butterfly loses to Bluestein's three
// power-of-two transforms of length >= 2n - 1.
constexpr int64_t kMaxDirectFactor = 64;
// From this length on, a transform runs as the four-step FFT (Note [Four-step FFT]).
constexpr int64_t kFourStepMin = 1 << 14;

int64_t largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) largest = p, n /= p;
  return std::max(largest, n);
}

// exp(sign * i * pi * num / den), computed in double whatever T is.
template <class T>
cpx<T> unit(double sign, int64_t num, int64_t den) {
  double a = sign * std::numbers::pi * double(num) / double(den);
  return cpx<T>(T(std::cos(a)), T(std::sin(a)));
}

// A complex transform of one length in one direction.
template <class T>
class Plan {
 public:
  // real: the plan of a real transform of length 2n, which also holds exp(-2 pi i k / 2n)
  // for k in [0, n] (fft_r2c / fft_c2r's twiddles).
  Plan(int64_t n, bool forward, bool real)
      : n_(n), forward_(forward), real_(real),
        bluestein_(largest_prime_factor(n) > kMaxDirectFactor) {
    if (real) {
      twiddles_.resize(static_cast<size_t>(n + 1));
      for (int64_t k = 0; k <= n; ++k) twiddles_[size_t(k)] = unit<T>(-1.0, k, n);
    }
    if (!bluestein_) {
      n1_ = four_step_split(n);
      if (n1_ == 0) {
        kiss_ = std::make_unique<kissfft<T>>(size_t(n), !forward);
        return;
      }
      // Note [Four-step FFT]: with n = n1 n2, j = j2 + n2 j1 and k = k1 + n1 k2,
      // X_k = sum_j2 W_n^(j2 k1) [sum_j1 x_j W_n1^(j1 k1)] W_n2^(j2 k2): n2 transforms of length
      // n1 (strided reads), a twiddle product, n1 transforms of length n2 (strided writes).
      // Each small transform stays in cache, where kissfft's log(n) passes over a large
      // array would each go to memory: 1.4-1.8x faster at 2^19 points here.
      const int64_t n2 = n / n1_;
      kiss_ = std::make_unique<kissfft<T>>(size_t(n1_), !forward);
      kiss_inv_ = std::make_unique<kissfft<T>>(size_t(n2), !forward);
      chirp_.resize(size_t(n));  // here: the twiddles W_n^(j2 k1), row j2
      for (int64_t j2 = 0; j2 < n2; ++j2)
        for (int64_t k1 = 0; k1 < n1_; ++k1)
          chirp_[size_t(j2 * n1_ + k1)] = unit<T>(forward ? -2.0 : 2.0, j2 * k1, n);
      return;
    }
    // Note [Bluestein]: jk = (j^2 + k^2 - (k - j)^2) / 2 turns the DFT into a convolution with
    // the chirp w_j = exp(-+i pi j^2 / n): X_k = w_k sum_j (x_j w_j) conj(w_{k-j}), done by
    // power-of-two transforms of length m >= 2n - 1.
    m_ = 1;
    while (m_ < 2 * n - 1) m_ *= 2;
    kiss_ = std::make_unique<kissfft<T>>(size_t(m_), false);
    kiss_inv_ = std::make_unique<kissfft<T>>(size_t(m_), true);
    chirp_.resize(size_t(n));
    int64_t k2 = 0;  // k^2 mod 2n, kept small so the angle stays exact for large n
    for (int64_t k = 0; k < n; ++k) {
      chirp_[size_t(k)] = unit<T>(forward ? -1.0 : 1.0, k2, n);
      k2 = (k2 + 2 * k + 1) % (2 * n);
    }
    std::vector<cpx<T>> b(size_t(m_), cpx<T>(0));
    for (int64_t k = 0; k < n; ++k) {
      b[size_t(k)] = std::conj(chirp_[size_t(k)]);
      if (k) b[size_t(m_ - k)] = b[size_t(k)];
    }
    kernel_.resize(size_t(m_));
    kiss_->transform(b.data(), kernel_.data());
    for (auto& v : kernel_) v /= T(m_);  // the inverse transform's 1/m, folded in once
  }

  int64_t n() const { return n_; }
  bool forward() const { return forward_; }
  bool real() const { return real_; }
  const std::vector<cpx<T>>& twiddles() const { return twiddles_; }
  // Complex values of scratch run() needs.
  int64_t scratch() const {
    return bluestein_ ? 2 * m_ : n1_ ? n_ + 2 * kBlock * std::max(n1_, n_ / n1_) : 0;
  }

  // out = DFT(in), unscaled; in and out (n values each) must not overlap.
  void run(const cpx<T>* in, cpx<T>* out, cpx<T>* work) const {
    if (n_ == 1) {
      out[0] = in[0];
      return;
    }
    if (n1_) {
      four_step(in, out, work);
      return;
    }
    if (!bluestein_) {
      kiss_->transform(in, out);
      return;
    }
    cpx<T>* a = work;
    cpx<T>* fa = work + m_;
    for (int64_t j = 0; j < n_; ++j) a[j] = in[j] * chirp_[size_t(j)];
    std::fill(a + n_, a + m_, cpx<T>(0));
    kiss_->transform(a, fa);
    for (int64_t j = 0; j < m_; ++j) fa[j] *= kernel_[size_t(j)];
    kiss_inv_->transform(fa, a);
    for (int64_t k = 0; k < n_; ++k) out[k] = a[k] * chirp_[size_t(k)];
  }

 private:
  // The n1 of a four-step split of n (both factors >= 64, n1 the largest divisor <= sqrt n),
  // or 0 to run kissfft on the whole length.
  static int64_t four_step_split(int64_t n) {
    if (n < kFourStepMin) return 0;
    for (int64_t n1 = int64_t(std::sqrt(double(n))); n1 >= 64; --n1)
      if (n % n1 == 0) return n1;
    return 0;
  }

  // Columns move in blocks of kBlock, so the strided reads and writes touch whole cache lines.
  static constexpr int64_t kBlock = 8;

  void four_step(const cpx<T>* in, cpx<T>* out, cpx<T>* work) const {
    const int64_t n1 = n1_, n2 = n_ / n1_, big = std::max(n1, n2);
    cpx<T>* t = work;  // n values: row j2 holds the length-n1 transform of column j2
    cpx<T>* g = work + n_;
    cpx<T>* h = g + kBlock * big;
    for (int64_t j0 = 0; j0 < n2; j0 += kBlock) {
      const int64_t nb = std::min(kBlock, n2 - j0);
      for (int64_t j1 = 0; j1 < n1; ++j1)
        for (int64_t b = 0; b < nb; ++b) g[b * n1 + j1] = in[j0 + b + n2 * j1];
      for (int64_t b = 0; b < nb; ++b) {
        cpx<T>* row = t + (j0 + b) * n1;
        kiss_->transform(g + b * n1, row);
        const cpx<T>* w = chirp_.data() + (j0 + b) * n1;
        for (int64_t k1 = 0; k1 < n1; ++k1) row[k1] *= w[k1];
      }
    }
    for (int64_t k0 = 0; k0 < n1; k0 += kBlock) {
      const int64_t nb = std::min(kBlock, n1 - k0);
      for (int64_t k2 = 0; k2 < n2; ++k2)
        for (int64_t b = 0; b < nb; ++b) g[b * n2 + k2] = t[k2 * n1 + k0 + b];
      for (int64_t b = 0; b < nb; ++b) kiss_inv_->transform(g + b * n2, h + b * n2);
      for (int64_t k2 = 0; k2 < n2; ++k2)
        for (int64_t b = 0; b < nb; ++b) out[k0 + b + n1 * k2] = h[b * n2 + k2];
    }
  }

  int64_t n_;
  bool forward_;
  bool real_;
  bool bluestein_;
  int64_t m_ = 0;   // Bluestein's power-of-two length
  int64_t n1_ = 0;  // the four-step split (kiss_: length n1, kiss_inv_: length n / n1)
  std::unique_ptr<kissfft<T>> kiss_, kiss_inv_;
  std::vector<cpx<T>> chirp_, kernel_, twiddles_;
};

// The last few plans used, per type: building one costs O(n) sines and cosines (a 2^20-point
// plan takes about as long as the transform).
template <class T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n, bool forward, bool real = false) {
  static std::mutex mu;
  static std::vector<std::shared_ptr<const Plan<T>>> cache;  // most recently used first
  {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < cache.size(); ++i) {
      if (cache[i]->n() == n && cache[i]->forward() == forward && cache[i]->real() == real) {
        auto p = cache[i];
        cache.erase(cache.begin() + i);
        cache.insert(cache.begin(), p);
        return p;
      }
    }
  }
  auto p = std::make_shared<const Plan<T>>(n, forward, real);
  std::lock_guard<std::mutex> lock(mu);
  cache.insert(cache.begin(), p);
  if (cache.size() > 16) cache.pop_back();
  return p;
}

// Per-thread scratch kept between calls, one buffer per Slot: a 2^20-point transform needs
// ~12 MB of it, and fresh allocations would page-fault (and zero-fill) that much every call.
template <class T, int Slot>
cpx<T>* scratch(int64_t count) {
  thread_local std::vector<cpx<T>> buf;
  if (buf.size() < size_t(count)) buf.resize(size_t(count));
  return buf.data();
}

int64_t rows_per_task(int64_t n) { return std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)); }

}  // namespace

template <class T>
void fft_c2c(const T* in, T* out, int64_t batch, int64_t n, bool forward, T scale) {
  auto plan = get_plan<T>(n, forward);
  auto* src = reinterpret_cast<const cpx<T>*>(in);
  auto* dst = reinterpret_cast<cpx<T>*>(out);
  parallel_for(0, batch, rows_per_task(n), [&](int64_t b, int64_t e) {
    cpx<T>* work = scratch<T, 0>(plan->scratch());
    for (int64_t r = b; r < e; ++r) {
      cpx<T>* o = dst + r * n;
      plan->run(src + r * n, o, work);
      if (scale != T(1))
        for (int64_t k = 0; k < n; ++k) o[k] *= scale;
    }
  });
}

template <class T>
void fft_r2c(const T* in, T* out, int64_t batch, int64_t n, T scale) {
  auto* dst = reinterpret_cast<cpx<T>*>(out);
  const int64_t nout = n / 2 + 1;
  if (n % 2) {  // odd: a full complex transform of the real row
    auto plan = get_plan<T>(n, true);
    parallel_for(0, batch, rows_per_task(n), [&](int64_t b, int64_t e) {
      cpx<T>* work = scratch<T, 0>(plan->scratch());
      cpx<T>* z = scratch<T, 1>(n);
      cpx<T>* full = scratch<T, 2>(n);
      for (int64_t r = b; r < e; ++r) {
        for (int64_t j = 0; j < n; ++j) z[j] = cpx<T>(in[r * n + j], T(0));
        plan->run(z, full, work);
        for (int64_t k = 0; k < nout; ++k) dst[r * nout + k] = full[size_t(k)] * scale;
      }
    });
    return;
  }
  // Even: the row as n / 2 complex values z_j = x_2j + i x_2j+1; with Z = DFT(z),
  // X_k = E_k + W^k O_k where E_k = (Z_k + conj Z_{h-k}) / 2, O_k = (Z_k - conj Z_{h-k}) / 2i.
  const int64_t h = n / 2;
  auto plan = get_plan<T>(h, true, true);
  const auto& tw = plan->twiddles();
  parallel_for(0, batch, rows_per_task(n), [&](int64_t b, int64_t e) {
    cpx<T>* work = scratch<T, 0>(plan->scratch());
    cpx<T>* Z = scratch<T, 1>(h);
    for (int64_t r = b; r < e; ++r) {
      plan->run(reinterpret_cast<const cpx<T>*>(in + r * n), Z, work);
      cpx<T>* X = dst + r * nout;
      X[0] = cpx<T>((Z[0].real() + Z[0].imag()) * scale, T(0));
      X[h] = cpx<T>((Z[0].real() - Z[0].imag()) * scale, T(0));
      const T half = T(0.5) * scale;
      for (int64_t k = 1; k < h; ++k) {
        cpx<T> zk = Z[size_t(k)], zc = std::conj(Z[size_t(h - k)]);
        cpx<T> ev = zk + zc, od = zk - zc;  // 2 E_k and 2i O_k
        X[k] = (ev + cpx<T>(od.imag(), -od.real()) * tw[size_t(k)]) * half;
      }
    }
  });
}

template <class T>
void fft_c2r(const T* in, T* out, int64_t batch, int64_t n, T scale) {
  auto* src = reinterpret_cast<const cpx<T>*>(in);
  const int64_t nin = n / 2 + 1;
  if (n % 2) {  // odd: rebuild the full Hermitian spectrum, one complex inverse transform
    auto plan = get_plan<T>(n, false);
    parallel_for(0, batch, rows_per_task(n), [&](int64_t b, int64_t e) {
      cpx<T>* work = scratch<T, 0>(plan->scratch());
      cpx<T>* full = scratch<T, 1>(n);
      cpx<T>* z = scratch<T, 2>(n);
      for (int64_t r = b; r < e; ++r) {
        const cpx<T>* X = src + r * nin;
        full[0] = cpx<T>(X[0].real(), T(0));
        for (int64_t k = 1; k < nin; ++k) {
          full[size_t(k)] = X[k];
          full[size_t(n - k)] = std::conj(X[k]);
        }
        plan->run(full, z, work);
        for (int64_t j = 0; j < n; ++j) out[r * n + j] = z[size_t(j)].real() * scale;
      }
    });
    return;
  }
  // Even: undo fft_r2c's twiddle pass, Z_k = (X_k + conj X_{h-k}) + i conj(W^k) (X_k - conj
  // X_{h-k}), then one inverse transform of length h gives x_2j + i x_2j+1 (times n).
  const int64_t h = n / 2;
  auto plan = get_plan<T>(h, false, true);
  const auto& tw = plan->twiddles();
  parallel_for(0, batch, rows_per_task(n), [&](int64_t b, int64_t e) {
    cpx<T>* work = scratch<T, 0>(plan->scratch());
    cpx<T>* Z = scratch<T, 1>(h);
    cpx<T>* z = scratch<T, 2>(h);
    for (int64_t r = b; r < e; ++r) {
      const cpx<T>* X = src + r * nin;
      auto at = [&](int64_t k) {  // the ends' imaginary parts are ignored
        return k == 0 || k == h ? cpx<T>(X[k].real(), T(0)) : X[k];
      };
      for (int64_t k = 0; k < h; ++k) {
        cpx<T> xk = at(k), xc = std::conj(at(h - k));
        cpx<T> d = (xk - xc) * std::conj(tw[size_t(k)]);
        Z[size_t(k)] = xk + xc + cpx<T>(-d.imag(), d.real());
      }
      plan->run(Z, z, work);
      T* o = out + r * n;
      for (int64_t j = 0; j < h; ++j) {
        o[2 * j] = z[size_t(j)].real() * scale;
        o[2 * j + 1] = z[size_t(j)].imag() * scale;
      }
    }
  });
}

template void fft_c2c<float>(const float*, float*, int64_t, int64_t, bool, float);
template void fft_c2c<double>(const double*, double*, int64_t, int64_t, bool, double);
template void fft_r2c<float>(const float*, float*, int64_t, int64_t, float);
template void fft_r2c<double>(const double*, double*, int64_t, int64_t, double);
template void fft_c2r<float>(const float*, float*, int64_t, int64_t, float);
template void fft_c2r<double>(const double*, double*, int64_t, int64_t, double);

}  // namespace ember::kernels
