// The loss kernels, compiled once per instruction set: loss.cpp includes this file as
// namespace `generic` (baseline x86-64), loss_avx2.cpp again under
// `#pragma GCC target("avx2,fma")` as namespace `avx2`; loss.cpp picks one at run time
// (kernels/cpu/cpu.h). Everything here has internal linkage or lives in the ISA-named
// namespace, so the two copies never merge at link time. Include it only from those files.
//
// The class losses walk positions; a position's classes are contiguous when inner == 1 (the
// (N, C) case: the `Unit` instantiations, whose class loops the compiler vectorizes) and
// strided by `inner` otherwise.
#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/loss.h"
#include "kernels/cpu/parallel.h"

#ifndef EMBER_LOSS_ISA
#error "define EMBER_LOSS_ISA (the namespace of this copy) before including loss_impl.h"
#endif

namespace ember::kernels::EMBER_LOSS_ISA {
namespace {

constexpr int kLanes = 16;
// Elements of class work per block of positions (a fixed function of the sizes, so the
// summation order never depends on the thread count): a (100, 10) batch is one block and
// stays on the calling thread.
constexpr int64_t kClassBlock = 16384;
// Elements per block of a pointwise loss.
constexpr int64_t kPointBlock = kGrain;

#include "kernels/cpu/branchless.h"  // pick, exp_f, exp_of: this ISA's own copies

// logf without branches, so a tile's log-sum-exps vectorize: Cephes' polynomial (about 1 ulp)
// for positive normal x; 0 gives -inf and NaN stays NaN (the callers pass sums of exps >= 1,
// or NaN; never negative, subnormal or infinite values).
inline float log_f(float x) {
  const int32_t ix = std::bit_cast<int32_t>(x);
  int32_t e = ((ix >> 23) & 0xff) - 126;  // x = f * 2^e, f in [0.5, 1)
  float f = std::bit_cast<float>((ix & 0x007fffff) | 0x3f000000);
  const bool small = f < 0.707106781186547524f;  // then use 2f, e - 1
  e -= int32_t(small);
  f = f + pick(small, f, 0.0f) - 1.0f;  // f in [-0.29, 0.41]
  const float z = f * f;
  float y = 7.0376836292e-2f;
  y = y * f - 1.1514610310e-1f;
  y = y * f + 1.1676998740e-1f;
  y = y * f - 1.2420140846e-1f;
  y = y * f + 1.4249322787e-1f;
  y = y * f - 1.6668057665e-1f;
  y = y * f + 2.0000714765e-1f;
  y = y * f - 2.4999993993e-1f;
  y = y * f + 3.3333331174e-1f;
  y = y * f * z;
  const float fe = float(e);
  y += -2.12194440e-4f * fe - 0.5f * z;
  float r = f + y + 0.693359375f * fe;
  r = pick(x == 0.0f, -float(INFINITY), r);
  return pick(x != x, x, r);
}
template <class T>
T log_of(T x) {
  if constexpr (std::is_same_v<T, float>) return log_f(x);
  else return std::log(x);
}

// ---- one row of classes: n values at stride s (1 when Unit) ---------------------------------
// The contiguous versions accumulate in kLanes independent lanes, which GCC vectorizes when
// the lane loop is the inner one and the function is not inlined into a bigger loop nest.

// Tails: a row's last n % kLanes values also run through the vectorized lane loops (a scalar
// exp per leftover class costs as much as a vector one), as one more step over the LAST kLanes
// values of the row, whose first lanes (already counted) are masked out. Rows shorter than
// kLanes take the scalar loop.

// The max of n contiguous values. A NaN may be skipped: it reaches the loss through the exp sum.
template <class T>
[[gnu::noinline]] T max_contig(const T* x, int64_t n) {
  T lane[kLanes], m = T(-INFINITY);
  for (int k = 0; k < kLanes; ++k) lane[k] = m;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lane[k] = x[i + k] > lane[k] ? x[i + k] : lane[k];
  if (i < n && n >= kLanes) {  // the max may see a value twice
    for (int k = 0; k < kLanes; ++k)
      lane[k] = x[n - kLanes + k] > lane[k] ? x[n - kLanes + k] : lane[k];
  } else {
    for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  }
  for (int k = 0; k < kLanes; ++k) m = lane[k] > m ? lane[k] : m;
  return m;
}

// sum of f(x[i], w[i]) over n contiguous values (w[i] = 1 when w is null): T lanes over
// chunks of kChunk values, each chunk flushed into a double, so a float32 row of any length
// keeps the error of ~kChunk / kLanes float additions per value (Note [Reduction
// accumulators] in reduce.h).
constexpr int64_t kChunk = 32 * kLanes;
template <class T, class F>
double sum_contig(const T* x, const T* w, int64_t n, const F& f) {
  double total = 0;
  for (int64_t i = 0; i < n;) {
    T lane[kLanes] = {};
    const int64_t end = std::min(n, i + kChunk);
    for (; i + kLanes <= end; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lane[k] += f(x[i + k], w ? w[i + k] : T(1));
    if (i < end && n >= kLanes) {  // the tail (end == n here)
      const int64_t skip = kLanes - (n - i), b = n - kLanes;
      for (int k = 0; k < kLanes; ++k)
        lane[k] += pick(k >= skip, f(x[b + k], w ? w[b + k] : T(1)), T(0));
    } else {
      for (; i < end; ++i) lane[0] += f(x[i], w ? w[i] : T(1));
    }
    i = end;
    T s = T(0);
    for (int k = 0; k < kLanes; ++k) s += lane[k];
    total += double(s);
  }
  return total;
}

template <class T>
[[gnu::noinline]] double exp_sum_contig(const T* x, int64_t n, T m) {
  return sum_contig<T>(x, nullptr, n, [m](T e, T) { return exp_of(T(e - m)); });
}

template <class T>
[[gnu::noinline]] double dot_contig(const T* x, const T* w, int64_t n) {
  return sum_contig(x, w, n, [](T e, T wi) { return wi * e; });
}

template <class T, bool Unit>
T row_max(const T* x, int64_t n, int64_t s) {
  if constexpr (Unit) return max_contig(x, n);
  T m = T(-INFINITY);
  for (int64_t i = 0; i < n; ++i) m = x[i * s] > m ? x[i * s] : m;
  return m;
}

// sum exp(x - m)
template <class T, bool Unit>
double row_exp_sum(const T* x, int64_t n, int64_t s, T m) {
  if constexpr (Unit) return exp_sum_contig(x, n, m);
  double r = 0;
  for (int64_t i = 0; i < n; ++i) r += double(exp_of(T(x[i * s] - m)));
  return r;
}

// sum w[c] * x[c] (sum x[c] when w is null); w is contiguous.
template <class T, bool Unit>
double row_dot(const T* x, const T* w, int64_t n, int64_t s) {
  if constexpr (Unit) return dot_contig(x, w, n);
  double r = 0;
  for (int64_t i = 0; i < n; ++i) r += (w ? double(w[i]) : 1.0) * double(x[i * s]);
  return r;
}

// log sum exp of one row, stable.
template <class T, bool Unit>
double row_lse(const T* x, int64_t n, int64_t s) {
  const T m = row_max<T, Unit>(x, n, s);
  return double(m) + double(log_of(T(row_exp_sum<T, Unit>(x, n, s, m))));
}

// Offset of position p's first class in an (outer, C, inner) array.
inline int64_t row_offset(int64_t p, int64_t C, int64_t inner) {
  return inner == 1 ? p * C : (p / inner) * C * inner + p % inner;
}

// Runs f(p0, p1) -> LossSums over fixed blocks of `block` positions (several threads when there
// are several blocks) and combines the partial sums in block order.
template <class F>
LossSums blocked(int64_t n, int64_t block, const F& f) {
  if (n <= 0) return {};
  const int64_t nb = (n + block - 1) / block;
  if (nb == 1) return f(0, n);
  std::vector<LossSums> part(static_cast<size_t>(nb));
  parallel_for(0, nb, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) part[b] = f(b * block, std::min(n, (b + 1) * block));
  });
  LossSums r;
  for (const LossSums& p : part) r.loss += p.loss, r.weight += p.weight;
  return r;
}

int64_t class_block(int64_t classes) {
  return std::max<int64_t>(1, kClassBlock / std::max<int64_t>(classes, 1));
}

// Calls f.template operator()<T, Unit>() for the input dtype and layout.
template <class F>
auto visit_class(DType dt, const ClassLoss& a, F&& f) {
  return visit_floating(dt, [&]<class T>() {
    return a.inner == 1 ? f.template operator()<T, true>() : f.template operator()<T, false>();
  });
}

// ---- cross entropy with class indices --------------------------------------------------------

template <class T, bool Unit>
LossSums ce_range(const ClassLoss& a, const T* x, T* loss, T* lse, int64_t p0, int64_t p1) {
  const int64_t C = a.classes, s = a.inner;
  const T* w = reinterpret_cast<const T*>(a.weight);
  const double keep = 1 - a.smoothing, share = a.smoothing / double(C);
  const double sw = a.smoothing > 0 ? (w ? row_dot<T, true>(w, nullptr, C, 1) : double(C)) : 0;
  LossSums r;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t t = a.target[p];
    if (t == a.ignore_index) {  // no loss, no weight, no gradient: the row is not even read
      if (loss) loss[p] = T(0);
      if (lse) lse[p] = T(0);
      continue;
    }
    const T* xr = x + row_offset(p, C, s);
    const double L = row_lse<T, Unit>(xr, C, s), wt = w ? double(w[t]) : 1.0;
    double l = keep * wt * (L - double(xr[t * s]));
    if (a.smoothing > 0) l += share * (L * sw - row_dot<T, Unit>(xr, w, C, s));
    if (loss) loss[p] = T(l);
    if (lse) lse[p] = T(L);
    r.loss += l;
    r.weight += wt;
  }
  return r;
}

template <class T, bool Unit>
void ce_backward_range(const ClassLoss& a, const T* x, const T* lse, const T* grad, double scale,
                       T* gx, int64_t p0, int64_t p1) {
  const int64_t C = a.classes, s = Unit ? 1 : a.inner;
  const T* w = reinterpret_cast<const T*>(a.weight);
  const double keep = 1 - a.smoothing, share = a.smoothing / double(C);
  const double sw = a.smoothing > 0 ? (w ? row_dot<T, true>(w, nullptr, C, 1) : double(C)) : 0;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t off = row_offset(p, C, a.inner), t = a.target[p];
    const T* xr = x + off;
    T* gr = gx + off;
    if (t == a.ignore_index) {
      for (int64_t c = 0; c < C; ++c) gr[c * s] = T(0);
      continue;
    }
    const double gi = (grad ? double(grad[p]) : 1.0) * scale, wt = w ? double(w[t]) : 1.0;
    const T coef = T(gi * (keep * wt + share * sw)), L = lse[p], cs = T(gi * share);
    if (w && a.smoothing > 0) {
      for (int64_t c = 0; c < C; ++c) gr[c * s] = coef * exp_of(T(xr[c * s] - L)) - cs * w[c];
    } else {
      for (int64_t c = 0; c < C; ++c) gr[c * s] = coef * exp_of(T(xr[c * s] - L)) - cs;
    }
    gr[t * s] -= T(gi * keep * wt);
  }
}

// ---- cross entropy with class indices, few classes: tiles of kW positions --------------------
// With few classes a row is too short for SIMD (C = 10: one 8-wide step, a remainder and a
// horizontal sum per row). Instead kW positions are copied class-major into a small buffer,
// buf[c * kW + j], and every step (max, exp, sum, gradient) runs across the kW positions at
// full SIMD width, with no remainders and no horizontal reductions.

constexpr int kW = 8;
constexpr int64_t kTileClasses = 256;    // the buffer's capacity: C * kW values on the stack
constexpr int64_t kRowTileClasses = 64;  // (N, C) rows use tiles below this; longer rows vectorize

bool use_tiles(const ClassLoss& a) {
  return a.classes <= (a.inner == 1 ? kRowTileClasses : kTileClasses);
}

// The width of the tile at position p (< end): never crosses an outer slice.
int tile_width(const ClassLoss& a, int64_t p, int64_t end) {
  int64_t w = std::min<int64_t>(kW, end - p);
  if (a.inner != 1) w = std::min(w, a.inner - p % a.inner);
  return int(w);
}

// buf[c * kW + j] = x at position p + j, class c; lanes j >= wd are zero.
template <class T>
void load_tile(const ClassLoss& a, const T* x, int64_t p, int wd, T* buf) {
  const int64_t C = a.classes, in = a.inner;
  if (wd < kW) std::fill(buf, buf + C * kW, T(0));
  if (in == 1) {
    for (int j = 0; j < wd; ++j)
      for (int64_t c = 0; c < C; ++c) buf[c * kW + j] = x[(p + j) * C + c];
    return;
  }
  const T* xb = x + row_offset(p, C, in);
  if (wd == kW) {  // whole vectors
    for (int64_t c = 0; c < C; ++c)
      for (int j = 0; j < kW; ++j) buf[c * kW + j] = xb[c * in + j];
  } else {
    for (int64_t c = 0; c < C; ++c)
      for (int j = 0; j < wd; ++j) buf[c * kW + j] = xb[c * in + j];
  }
}

// The inverse of load_tile for the first wd lanes.
template <class T>
void store_tile(const ClassLoss& a, const T* buf, int64_t p, int wd, T* x) {
  const int64_t C = a.classes, in = a.inner;
  if (in == 1) {
    for (int j = 0; j < wd; ++j)
      for (int64_t c = 0; c < C; ++c) x[(p + j) * C + c] = buf[c * kW + j];
    return;
  }
  T* xb = x + row_offset(p, C, in);
  if (wd == kW) {
    for (int64_t c = 0; c < C; ++c)
      for (int j = 0; j < kW; ++j) xb[c * in + j] = buf[c * kW + j];
  } else {
    for (int64_t c = 0; c < C; ++c)
      for (int j = 0; j < wd; ++j) xb[c * in + j] = buf[c * kW + j];
  }
}

// L[j] = log sum_c exp(buf[c][j]), stable. (A NaN may be skipped by the max: it reaches L
// through the sum.)
template <class T>
[[gnu::noinline]] void tile_lse(const T* buf, int64_t C, T* L) {
  T m[kW], s[kW];
  for (int j = 0; j < kW; ++j) m[j] = T(-INFINITY), s[j] = T(0);
  for (int64_t c = 0; c < C; ++c)
    for (int j = 0; j < kW; ++j) {
      const T e = buf[c * kW + j];
      m[j] = e > m[j] ? e : m[j];
    }
  for (int64_t c = 0; c < C; ++c)
    for (int j = 0; j < kW; ++j) s[j] += exp_of(T(buf[c * kW + j] - m[j]));
  for (int j = 0; j < kW; ++j) L[j] = m[j] + log_of(s[j]);
}

template <class T>
LossSums ce_tiles(const ClassLoss& a, const T* x, T* loss, T* lse, int64_t p0, int64_t p1) {
  const int64_t C = a.classes;
  const T* w = reinterpret_cast<const T*>(a.weight);
  const double keep = 1 - a.smoothing, share = a.smoothing / double(C);
  const double sw = a.smoothing > 0 ? (w ? row_dot<T, true>(w, nullptr, C, 1) : double(C)) : 0;
  alignas(64) T buf[kTileClasses * kW];
  T L[kW], dot[kW];
  LossSums r;
  for (int64_t p = p0; p < p1;) {
    const int wd = tile_width(a, p, p1);
    load_tile(a, x, p, wd, buf);
    tile_lse(buf, C, L);
    if (a.smoothing > 0) {  // sum_c w[c] * x[c] per lane
      for (int j = 0; j < kW; ++j) dot[j] = T(0);
      for (int64_t c = 0; c < C; ++c) {
        const T wc = w ? w[c] : T(1);
        for (int j = 0; j < kW; ++j) dot[j] += wc * buf[c * kW + j];
      }
    }
    for (int j = 0; j < wd; ++j, ++p) {
      const int64_t t = a.target[p];
      double l = 0;
      if (t != a.ignore_index) {
        const double wt = w ? double(w[t]) : 1.0;
        l = keep * wt * (double(L[j]) - double(buf[t * kW + j]));
        if (a.smoothing > 0) l += share * (double(L[j]) * sw - double(dot[j]));
        r.loss += l;
        r.weight += wt;
      }
      if (loss) loss[p] = T(l);
      if (lse) lse[p] = L[j];
    }
  }
  return r;
}

template <class T>
void ce_backward_tiles(const ClassLoss& a, const T* x, const T* lse, const T* grad, double scale,
                       T* gx, int64_t p0, int64_t p1) {
  const int64_t C = a.classes;
  const T* w = reinterpret_cast<const T*>(a.weight);
  const double keep = 1 - a.smoothing, share = a.smoothing / double(C);
  const double sw = a.smoothing > 0 ? (w ? row_dot<T, true>(w, nullptr, C, 1) : double(C)) : 0;
  alignas(64) T buf[kTileClasses * kW];
  T coef[kW], cs[kW], L[kW];
  for (int64_t p = p0; p < p1;) {
    const int wd = tile_width(a, p, p1);
    load_tile(a, x, p, wd, buf);
    bool ignored = false;
    for (int j = 0; j < kW; ++j) {
      coef[j] = cs[j] = L[j] = T(0);
      if (j >= wd) continue;
      const int64_t t = a.target[p + j];
      if (t == a.ignore_index) {
        ignored = true;
        continue;
      }
      const double gi = (grad ? double(grad[p + j]) : 1.0) * scale, wt = w ? double(w[t]) : 1.0;
      coef[j] = T(gi * (keep * wt + share * sw));
      cs[j] = T(gi * share);
      L[j] = lse[p + j];
    }
    for (int64_t c = 0; c < C; ++c) {
      const T wc = w ? w[c] : T(1);
      for (int j = 0; j < kW; ++j)
        buf[c * kW + j] = coef[j] * exp_of(T(buf[c * kW + j] - L[j])) - cs[j] * wc;
    }
    for (int j = 0; j < wd; ++j) {
      const int64_t t = a.target[p + j];
      if (t != a.ignore_index) {
        const double gi = (grad ? double(grad[p + j]) : 1.0) * scale, wt = w ? double(w[t]) : 1.0;
        buf[t * kW + j] -= T(gi * keep * wt);
      } else if (ignored) {  // exactly 0, even where x is inf or NaN
        for (int64_t c = 0; c < C; ++c) buf[c * kW + j] = T(0);
      }
    }
    store_tile(a, buf, p, wd, gx);
    p += wd;
  }
}

// ---- cross entropy with class probabilities ----------------------------------------------------

template <class T, bool Unit>
LossSums ce_probs_range(const ClassLoss& a, const T* x, const T* y, T* loss, T* lse, int64_t p0,
                        int64_t p1) {
  const int64_t C = a.classes, s = a.inner, st = Unit ? 1 : s;
  const T* w = reinterpret_cast<const T*>(a.weight);
  const double keep = 1 - a.smoothing, share = a.smoothing / double(C);
  LossSums r;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t off = row_offset(p, C, s);
    const T *xr = x + off, *yr = y + off;
    const double L = row_lse<T, Unit>(xr, C, s);
    double l = 0;
    for (int64_t c = 0; c < C; ++c)
      l +=
          (w ? double(w[c]) : 1.0) * (keep * double(yr[c * st]) + share) * (L - double(xr[c * st]));
    if (loss) loss[p] = T(l);
    if (lse) lse[p] = T(L);
    r.loss += l;
    r.weight += 1;
  }
  return r;
}

template <class T, bool Unit>
void ce_probs_backward_range(const ClassLoss& a, const T* x, const T* y, const T* lse,
                             const T* grad, double scale, T* gx, T* gy, int64_t p0, int64_t p1) {
  const int64_t C = a.classes, s = Unit ? 1 : a.inner;
  const T* w = reinterpret_cast<const T*>(a.weight);
  const double keep = 1 - a.smoothing, share = a.smoothing / double(C);
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t off = row_offset(p, C, a.inner);
    const T *xr = x + off, *yr = y + off, L = lse[p];
    const double gi = (grad ? double(grad[p]) : 1.0) * scale;
    if (gx) {
      double q = 0;  // sum_c w[c] q[c]
      for (int64_t c = 0; c < C; ++c)
        q += (w ? double(w[c]) : 1.0) * (keep * double(yr[c * s]) + share);
      const T coef = T(gi * q), k = T(gi * keep), sh = T(gi * share);
      T* gr = gx + off;
      if (w) {
        for (int64_t c = 0; c < C; ++c)
          gr[c * s] = coef * exp_of(T(xr[c * s] - L)) - w[c] * (k * yr[c * s] + sh);
      } else {
        for (int64_t c = 0; c < C; ++c)
          gr[c * s] = coef * exp_of(T(xr[c * s] - L)) - (k * yr[c * s] + sh);
      }
    }
    if (gy) {
      const T k = T(-gi * keep);
      T* gr = gy + off;
      for (int64_t c = 0; c < C; ++c) gr[c * s] = k * (w ? w[c] : T(1)) * (xr[c * s] - L);
    }
  }
}

// ---- nll ------------------------------------------------------------------------------------

template <class T>
LossSums nll_range(const ClassLoss& a, const T* x, T* loss, int64_t p0, int64_t p1) {
  const T* w = reinterpret_cast<const T*>(a.weight);
  LossSums r;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t t = a.target[p];
    double l = 0;
    if (t != a.ignore_index) {
      const double wt = w ? double(w[t]) : 1.0;
      l = -wt * double(x[row_offset(p, a.classes, a.inner) + t * a.inner]);
      r.weight += wt;
    }
    if (loss) loss[p] = T(l);
    r.loss += l;
  }
  return r;
}

// ---- pointwise losses -------------------------------------------------------------------------

// log(sigmoid(x)) without overflow for any x.
template <class T>
T log_sigmoid(T x) {
  return std::min(x, T(0)) - std::log1p(std::exp(-std::abs(x)));
}

template <PointLoss Op, class T>
T point_value(T x, T y, T w, T pw) {
  if constexpr (Op == PointLoss::Mse) {
    const T d = x - y;
    return d * d;
  } else if constexpr (Op == PointLoss::L1) {
    return std::abs(x - y);
  } else if constexpr (Op == PointLoss::Bce) {  // log clamped at -100, as PyTorch
    const T lx = std::max(std::log(x), T(-100)), l1x = std::max(std::log1p(-x), T(-100));
    return w * ((y - 1) * l1x - y * lx);
  } else {
    return w * ((1 - y) * x - (1 + (pw - 1) * y) * log_sigmoid(x));
  }
}

template <PointLoss Op, class T>
double point_range(const PointArgs& a, T* loss, int64_t b, int64_t e) {
  const T *x = reinterpret_cast<const T*>(a.x), *y = reinterpret_cast<const T*>(a.y);
  const T *w = reinterpret_cast<const T*>(a.w), *pw = reinterpret_cast<const T*>(a.pw);
  auto at = [&](int64_t i) {
    return point_value<Op, T>(x[i], y[i], w ? w[i] : T(1), pw ? pw[i] : T(1));
  };
  double lane[kLanes] = {}, r = 0;
  int64_t i = b;
  if (loss) {
    for (; i < e; ++i) r += double(loss[i] = at(i));
    return r;
  }
  for (; i + kLanes <= e; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lane[k] += double(at(i + k));
  for (; i < e; ++i) r += double(at(i));
  for (int k = 0; k < kLanes; ++k) r += lane[k];
  return r;
}

// d loss / dx and d loss / dy of one element (before the outer gradient).
template <PointLoss Op, class T>
void point_grad(T x, T y, T w, T pw, bool has_pw, T& dx, T& dy) {
  if constexpr (Op == PointLoss::Mse) {
    dx = T(2) * (x - y), dy = -dx;
  } else if constexpr (Op == PointLoss::L1) {
    dx = T((x > y) - (x < y)), dy = -dx;
  } else if constexpr (Op == PointLoss::Bce) {  // PyTorch's 1e-12 floor on x (1 - x)
    dx = w * (x - y) / std::max((T(1) - x) * x, T(1e-12));
    dy = -w * std::log(x / (T(1) - x));
  } else {
    const T sig = T(1) / (T(1) + std::exp(-x));
    dx = w * ((pw * y + 1 - y) * sig - pw * y);
    dy = has_pw ? w * (log_sigmoid(-x) - pw * log_sigmoid(x)) : -w * x;
  }
}

template <PointLoss Op, class T>
void point_backward_range(const PointArgs& a, const T* grad, double scale, T* gx, T* gy, int64_t b,
                          int64_t e) {
  const T *x = reinterpret_cast<const T*>(a.x), *y = reinterpret_cast<const T*>(a.y);
  const T *w = reinterpret_cast<const T*>(a.w), *pw = reinterpret_cast<const T*>(a.pw);
  const T sc = T(scale);
  for (int64_t i = b; i < e; ++i) {
    T dx, dy;
    point_grad<Op, T>(x[i], y[i], w ? w[i] : T(1), pw ? pw[i] : T(1), pw != nullptr, dx, dy);
    const T gi = grad ? T(grad[i] * sc) : sc;
    if (gx) gx[i] = dx * gi;
    if (gy) gy[i] = dy * gi;
  }
}

template <class F>
auto visit_point(PointLoss op, DType dt, F&& f) {
  return visit_floating(dt, [&]<class T>() {
    switch (op) {
      case PointLoss::Mse: return f.template operator()<PointLoss::Mse, T>();
      case PointLoss::L1: return f.template operator()<PointLoss::L1, T>();
      case PointLoss::Bce: return f.template operator()<PointLoss::Bce, T>();
      case PointLoss::BceLogits: break;
    }
    return f.template operator()<PointLoss::BceLogits, T>();
  });
}

}  // namespace

LossSums cross_entropy(DType dt, const ClassLoss& a, const char* x, char* loss, char* lse) {
  const bool tiles = use_tiles(a);
  return visit_class(dt, a, [&]<class T, bool Unit>() {
    return blocked(a.positions(), class_block(a.classes), [&](int64_t p0, int64_t p1) {
      auto* l = reinterpret_cast<T*>(loss);
      auto* s = reinterpret_cast<T*>(lse);
      if (tiles) return ce_tiles<T>(a, reinterpret_cast<const T*>(x), l, s, p0, p1);
      return ce_range<T, Unit>(a, reinterpret_cast<const T*>(x), l, s, p0, p1);
    });
  });
}

void cross_entropy_backward(DType dt, const ClassLoss& a, const char* x, const char* lse,
                            const char* grad, double scale, char* gx) {
  const bool tiles = use_tiles(a);
  visit_class(dt, a, [&]<class T, bool Unit>() {
    parallel_for(0, a.positions(), class_block(a.classes), [&](int64_t p0, int64_t p1) {
      auto* xs = reinterpret_cast<const T*>(x);
      auto* ls = reinterpret_cast<const T*>(lse);
      auto* g = reinterpret_cast<const T*>(grad);
      if (tiles) ce_backward_tiles<T>(a, xs, ls, g, scale, reinterpret_cast<T*>(gx), p0, p1);
      else ce_backward_range<T, Unit>(a, xs, ls, g, scale, reinterpret_cast<T*>(gx), p0, p1);
    });
  });
}

LossSums cross_entropy_probs(DType dt, const ClassLoss& a, const char* x, const char* y, char* loss,
                             char* lse) {
  return visit_class(dt, a, [&]<class T, bool Unit>() {
    return blocked(a.positions(), class_block(a.classes), [&](int64_t p0, int64_t p1) {
      return ce_probs_range<T, Unit>(a, reinterpret_cast<const T*>(x),
                                     reinterpret_cast<const T*>(y), reinterpret_cast<T*>(loss),
                                     reinterpret_cast<T*>(lse), p0, p1);
    });
  });
}

void cross_entropy_probs_backward(DType dt, const ClassLoss& a, const char* x, const char* y,
                                  const char* lse, const char* grad, double scale, char* gx,
                                  char* gy) {
  visit_class(dt, a, [&]<class T, bool Unit>() {
    parallel_for(0, a.positions(), class_block(a.classes), [&](int64_t p0, int64_t p1) {
      ce_probs_backward_range<T, Unit>(a, reinterpret_cast<const T*>(x),
                                       reinterpret_cast<const T*>(y),
                                       reinterpret_cast<const T*>(lse),
                                       reinterpret_cast<const T*>(grad), scale,
                                       reinterpret_cast<T*>(gx), reinterpret_cast<T*>(gy), p0, p1);
    });
  });
}

LossSums nll_loss(DType dt, const ClassLoss& a, const char* x, char* loss) {
  return visit_floating(dt, [&]<class T>() {
    return blocked(a.positions(), kPointBlock, [&](int64_t p0, int64_t p1) {
      return nll_range<T>(a, reinterpret_cast<const T*>(x), reinterpret_cast<T*>(loss), p0, p1);
    });
  });
}

void nll_loss_backward(DType dt, const ClassLoss& a, const char* grad, double scale, char* gx) {
  visit_floating(dt, [&]<class T>() {
    const T* g = reinterpret_cast<const T*>(grad);
    const T* w = reinterpret_cast<const T*>(a.weight);
    const int64_t C = a.classes, in = a.inner, row = C * in;
    // One outer slice at a time: zero it, then write each position's target entry.
    parallel_for(0, a.outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(row, 1)),
                 [&](int64_t o0, int64_t o1) {
                   for (int64_t o = o0; o < o1; ++o) {
                     T* go = reinterpret_cast<T*>(gx) + o * row;
                     std::fill(go, go + row, T(0));
                     for (int64_t j = 0; j < in; ++j) {
                       const int64_t p = o * in + j, t = a.target[p];
                       if (t == a.ignore_index) continue;
                       const double gi = (g ? double(g[p]) : 1.0) * scale;
                       go[t * in + j] = T(-gi * (w ? double(w[t]) : 1.0));
                     }
                   }
                 });
  });
}

double point_loss(PointLoss op, DType dt, const PointArgs& a, char* loss) {
  return visit_point(op, dt, [&]<PointLoss Op, class T>() {
    return blocked(a.n, kPointBlock,
                   [&](int64_t b, int64_t e) {
                     return LossSums{point_range<Op, T>(a, reinterpret_cast<T*>(loss), b, e), 0};
                   })
        .loss;
  });
}

void point_loss_backward(PointLoss op, DType dt, const PointArgs& a, const char* grad, double scale,
                         char* gx, char* gy) {
  visit_point(op, dt, [&]<PointLoss Op, class T>() {
    parallel_for(0, a.n, kGrain, [&](int64_t b, int64_t e) {
      point_backward_range<Op, T>(a, reinterpret_cast<const T*>(grad), scale,
                                  reinterpret_cast<T*>(gx), reinterpret_cast<T*>(gy), b, e);
    });
  });
}

int64_t find_outside_unit(DType dt, const char* x, int64_t n) {
  return visit_floating(dt, [&]<class T>() -> int64_t {
    const T* v = reinterpret_cast<const T*>(x);
    for (int64_t i = 0; i < n; ++i)
      if (!(v[i] >= T(0) && v[i] <= T(1))) return i;
    return -1;
  });
}

}  // namespace ember::kernels::EMBER_LOSS_ISA
