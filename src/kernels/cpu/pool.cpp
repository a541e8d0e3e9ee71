#include "kernels/cpu/pool.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ember/half.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/pool_hwy.h"

namespace ember::kernels {
namespace {

// Calls f(plane, src) for every (n, c) plane, planes split across threads when the work
// (elements touched per plane times planes) is large enough.
template <class T, class F>
void for_planes(const Pool2dGeom& g, int64_t work_per_plane, const T* in, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, work_per_plane));
  parallel_for(0, g.n * g.c, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t i = p / std::max<int64_t>(g.c, 1), c = p - i * g.c;
      f(p, in ? in + i * g.in_stride[0] + c * g.in_stride[1] : nullptr);
    }
  });
}

// A 2-d pooling (or a 3-d one over a single plane with windows of depth 1).
inline bool flat(const Pool2dGeom& g) { return g.d == 1 && g.od == 1 && g.kd == 1 && g.pd == 0; }

// The rows (or columns) [lo, hi) of window o, stepping by dilation d from the first one
// inside the input: o * s - p + j * d for j < k, clipped to [0, size).
struct Span {
  int64_t lo, hi;
};
inline Span window(int64_t o, int64_t s, int64_t p, int64_t k, int64_t d, int64_t size) {
  int64_t lo = o * s - p;
  const int64_t hi = std::min(lo + (k - 1) * d + 1, size);
  while (lo < 0) lo += d;
  return {lo, hi};
}

// NaN wins, then the first strictly larger value (PyTorch's order of comparisons).
// (`|`, not `||`: no short-circuit branch, so the callers' selects compile without jumps.)
template <class T>
inline bool takes(T v, T best) {
  if constexpr (is_half_v<T>) return takes(float(v), float(best));
  else if constexpr (std::is_floating_point_v<T>) return (v > best) | (v != v);
  else return v > best;
}

// The common CNN case: K x K windows, no padding or dilation, every window inside the
// input, contiguous rows. No bounds to compute per window, and the K * K loads unroll.
template <int K>
bool fixed_window(const Pool2dGeom& g) {
  return flat(g) && g.kh == K && g.kw == K && g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1 &&
         g.in_stride[3] == 1 && (g.ho - 1) * g.sh + K <= g.h && (g.wo - 1) * g.sw + K <= g.w;
}

// t ? a : b without a jump: GCC turns the ternary on floats into a branch, and on random
// data a branch per comparison mispredicts half the time, which costs far more than the
// comparisons themselves.
template <class T>
inline T select(bool t, T a, T b) {
  using U =
      std::conditional_t<sizeof(T) == 8, uint64_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t,
                                            std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
  U ua, ub;
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  const U m = U(0) - U(t);
  const U r = (ua & m) | (ub & ~m);
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}

// Taps outer, output columns inner: each tap is one pass over a row of outputs with a
// constant input stride, which the compiler vectorizes (the per-window order of comparisons,
// and so the result and its index, is the scalar loop's: tap (0,0) first, then row-major).
template <class T, int K>
void max_plane_fixed(const Pool2dGeom& g, const T* src, T* o, int64_t* idx) {
  using C = std::conditional_t<is_half_v<T>, float, T>;  // compared as
  // bfloat16 widens by a shift, and the maximum is one of the inputs, so it narrows back by
  // the inverse shift with its bits intact (no rounding step: the loops stay vectorized).
  const auto load = [](const T* p) {
    if constexpr (std::is_same_v<T, bfloat16_t>) return float_from_bf16_bits(p->bits);
    else return C(*p);
  };
  constexpr int64_t kChunk = 256;
  C best[kChunk];
  int32_t arg[kChunk];
  const int64_t rs = g.in_stride[2], sw = g.sw;
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const T* row = src + oh * g.sh * rs;
    for (int64_t w0 = 0; w0 < g.wo; w0 += kChunk) {
      const int64_t n = std::min(kChunk, g.wo - w0);
      const T* base = row + w0 * sw;
      for (int64_t k = 0; k < n; ++k) {
        best[k] = load(base + k * sw);
        arg[k] = 0;
      }
      for (int i = 0; i < K; ++i) {
        for (int j = 0; j < K; ++j) {
          if (i == 0 && j == 0) continue;
          const T* tap = base + i * rs + j;
          const int32_t at = int32_t(i * g.w + j);
          for (int64_t k = 0; k < n; ++k) {
            const C v = load(tap + k * sw);
            const bool t = takes(v, best[k]);
            best[k] = t ? v : best[k];
            arg[k] = t ? at : arg[k];
          }
        }
      }
      T* out = o + oh * g.wo + w0;
      if constexpr (std::is_same_v<T, bfloat16_t>) {
        for (int64_t k = 0; k < n; ++k)
          out[k].bits = uint16_t(std::bit_cast<uint32_t>(best[k]) >> 16);
      } else {
        for (int64_t k = 0; k < n; ++k) out[k] = T(best[k]);
      }
      if (idx) {
        int64_t* ix = idx + oh * g.wo + w0;
        const int64_t first = oh * g.sh * g.w + w0 * sw;
        for (int64_t k = 0; k < n; ++k) ix[k] = first + k * sw + arg[k];
      }
    }
  }
}

template <class T>
void max_forward(const Pool2dGeom& g, const T* in, T* out, int64_t* indices) {
  const int64_t sh = g.in_stride[2], sw = g.in_stride[3], plane_out = g.od * g.ho * g.wo;
  const int fixed = fixed_window<2>(g) ? 2 : fixed_window<3>(g) ? 3 : 0;
  // MaxPool2d(2) on 16-bit floats and float32: whole vectors (Note [Max pool 2x2 on bits]).
  constexpr bool simd_type = is_half_v<T> || std::is_same_v<T, float>;
  const bool simd2x2 = simd_type && fixed == 2 && g.sh == 2 && g.sw == 2 &&
                       g.h * g.w <= std::numeric_limits<int32_t>::max();
  for_planes(g, plane_out * g.kd * g.kh * g.kw, in, [&](int64_t p, const T* src) {
    T* o = out + p * plane_out;
    int64_t* idx = indices ? indices + p * plane_out : nullptr;
    if constexpr (is_half_v<T>) {
      if (simd2x2)
        return max_pool2x2_half_plane(std::is_same_v<T, float16_t>,
                                      reinterpret_cast<const uint16_t*>(src), g.in_stride[2], g.w,
                                      g.ho, g.wo, reinterpret_cast<uint16_t*>(o), idx);
    } else if constexpr (std::is_same_v<T, float>) {
      if (simd2x2) return max_pool2x2_f32_plane(src, g.in_stride[2], g.w, g.ho, g.wo, o, idx);
    }
    if (fixed == 2) return max_plane_fixed<T, 2>(g, src, o, idx);
    if (fixed == 3) return max_plane_fixed<T, 3>(g, src, o, idx);
    int64_t j = 0;  // output element
    for (int64_t oz = 0; oz < g.od; ++oz) {
      const Span zs = window(oz, g.sd, g.pd, g.kd, g.dd, g.d);
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        const Span r = window(oh, g.sh, g.ph, g.kh, g.dh, g.h);
        for (int64_t ow = 0; ow < g.wo; ++ow, ++j) {
          const Span cs = window(ow, g.sw, g.pw, g.kw, g.dw, g.w);
          T best;
          if constexpr (is_half_v<T>) best = T(-std::numeric_limits<float>::infinity());
          else if constexpr (std::is_floating_point_v<T>)
            best = -std::numeric_limits<T>::infinity();
          else best = std::numeric_limits<T>::lowest();
          int64_t arg = (zs.lo * g.h + r.lo) * g.w + cs.lo;
          for (int64_t iz = zs.lo; iz < zs.hi; iz += g.dd) {
            for (int64_t ih = r.lo; ih < r.hi; ih += g.dh) {
              const T* row = src + iz * g.in_stride_d + ih * sh;
              for (int64_t iw = cs.lo; iw < cs.hi; iw += g.dw) {
                const T v = row[iw * sw];
                const bool t = takes(v, best);
                best = select(t, v, best);
                arg = select(t, (iz * g.h + ih) * g.w + iw, arg);
              }
            }
          }
          o[j] = best;
          if (idx) idx[j] = arg;
        }
      }
    }
  });
}

// The bits of T(0.0f + float(g)) for a bfloat16/float16 pattern g, without the conversions:
// -0 becomes +0, a NaN comes back as the float32 cast writes it (bfloat16 0x7FC0; float16
// quieted, sign and payload kept), every other value is itself.
inline uint16_t zero_plus_half(uint16_t g, bool bf16) {
  const bool nan = (g & 0x7FFFu) > (bf16 ? 0x7F80u : 0x7C00u);
  const uint16_t quiet = bf16 ? uint16_t(0x7FC0) : uint16_t(g | 0x0200u);
  return nan ? quiet : g == 0x8000u ? uint16_t(0) : g;
}

template <class T>
void max_backward(const Pool2dGeom& g, const T* gout, const int64_t* indices, T* gin) {
  [[maybe_unused]] constexpr bool is_bf16 = std::is_same_v<T, bfloat16_t>;
  const int64_t plane_out = g.od * g.ho * g.wo, plane_in = g.d * g.h * g.w;
  for_planes<T>(g, plane_out + plane_in, nullptr, [&](int64_t p, const T*) {
    T* gi = gin + p * plane_in;
    const T* go = gout + p * plane_out;
    const int64_t* idx = indices + p * plane_out;
    std::fill(gi, gi + plane_in, T(0.0f));
    for (int64_t j = 0; j < plane_out; ++j) {
      const int64_t k = idx[j];
      // indices come from the forward: always true. Half types round each sum, so the ops
      // send them here only when no two windows share an element (one exact 0 + g each).
      if (k >= 0 && k < plane_in) {
        if constexpr (is_half_v<T>) gi[k].bits = zero_plus_half(go[j].bits, is_bf16);
        else gi[k] += go[j];
      }
    }
  });
}

// The window's span along one dim: [lo, hi) inside the input, and its length counting
// the padding (the window may reach into the padding, or, with ceil_mode, past it).
struct AvgSpan {
  int64_t lo, hi, padded;
};
inline AvgSpan avg_span(int64_t o, int64_t s, int64_t p, int64_t k, int64_t size) {
  const int64_t lo = o * s - p, hi = std::min(lo + k, size + p);
  return {std::max<int64_t>(lo, 0), std::min(hi, size), hi - lo};
}

// The window of output (oz, oh, ow) and its divisor, as PyTorch computes them.
struct AvgWindow {
  int64_t z0, z1, h0, h1, w0, w1, divisor;
  bool empty() const { return z0 >= z1 || h0 >= h1 || w0 >= w1 || divisor == 0; }
};
inline AvgWindow avg_window(const Pool2dGeom& g, int64_t oz, int64_t oh, int64_t ow,
                            bool include_pad, int64_t divisor_override) {
  const AvgSpan z = avg_span(oz, g.sd, g.pd, g.kd, g.d), h = avg_span(oh, g.sh, g.ph, g.kh, g.h);
  const AvgSpan w = avg_span(ow, g.sw, g.pw, g.kw, g.w);
  const int64_t div = divisor_override != 0 ? divisor_override
                      : include_pad         ? z.padded * h.padded * w.padded
                                            : (z.hi - z.lo) * (h.hi - h.lo) * (w.hi - w.lo);
  return {z.lo, z.hi, h.lo, h.hi, w.lo, w.hi, div};
}

template <class T>
void avg_forward(const Pool2dGeom& g, bool include_pad, int64_t div_override, const T* in, T* out) {
  const int64_t sh = g.in_stride[2], sw = g.in_stride[3], plane_out = g.od * g.ho * g.wo;
  for_planes(g, plane_out * g.kd * g.kh * g.kw, in, [&](int64_t p, const T* src) {
    T* o = out + p * plane_out;
    int64_t j = 0;
    for (int64_t oz = 0; oz < g.od; ++oz) {
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        for (int64_t ow = 0; ow < g.wo; ++ow, ++j) {
          const AvgWindow a = avg_window(g, oz, oh, ow, include_pad, div_override);
          if (a.empty()) {  // only padding in the window
            o[j] = T(0);
            continue;
          }
          T sum = T(0);
          for (int64_t iz = a.z0; iz < a.z1; ++iz)
            for (int64_t ih = a.h0; ih < a.h1; ++ih)
              for (int64_t iw = a.w0; iw < a.w1; ++iw)
                sum += src[iz * g.in_stride_d + ih * sh + iw * sw];
          o[j] = T(sum / T(a.divisor));
        }
      }
    }
  });
}

template <class T>
void avg_backward(const Pool2dGeom& g, bool include_pad, int64_t div_override, const T* gout,
                  T* gin) {
  const int64_t plane_out = g.od * g.ho * g.wo, plane_in = g.d * g.h * g.w;
  for_planes<T>(g, plane_out * g.kd * g.kh * g.kw + plane_in, nullptr, [&](int64_t p, const T*) {
    T* gi = gin + p * plane_in;
    const T* go = gout + p * plane_out;
    std::fill(gi, gi + plane_in, T(0));
    int64_t j = 0;
    for (int64_t oz = 0; oz < g.od; ++oz) {
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        for (int64_t ow = 0; ow < g.wo; ++ow, ++j) {
          const AvgWindow a = avg_window(g, oz, oh, ow, include_pad, div_override);
          if (a.empty()) continue;
          const T delta = go[j] / T(a.divisor);
          for (int64_t iz = a.z0; iz < a.z1; ++iz)
            for (int64_t ih = a.h0; ih < a.h1; ++ih)
              for (int64_t iw = a.w0; iw < a.w1; ++iw) gi[(iz * g.h + ih) * g.w + iw] += delta;
        }
      }
    }
  });
}

// Adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
inline int64_t start_index(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
inline int64_t end_index(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

// The input window [z0, z1) x [h0, h1) x [w0, w1) that one output of an adaptive pooling
// averages over.
struct AdaptiveWindow {
  int64_t z0, z1, h0, h1, w0, w1;
  int64_t size() const { return (z1 - z0) * (h1 - h0) * (w1 - w0); }
};

// Calls f(j, window) for every output j of one plane, in order (adaptive forward and backward).
template <class F>
void for_adaptive_windows(const Pool2dGeom& g, const F& f) {
  int64_t j = 0;
  for (int64_t oz = 0; oz < g.od; ++oz) {
    const int64_t z0 = start_index(oz, g.od, g.d), z1 = end_index(oz, g.od, g.d);
    for (int64_t oh = 0; oh < g.ho; ++oh) {
      const int64_t h0 = start_index(oh, g.ho, g.h), h1 = end_index(oh, g.ho, g.h);
      for (int64_t ow = 0; ow < g.wo; ++ow, ++j)
        f(j, AdaptiveWindow{z0, z1, h0, h1, start_index(ow, g.wo, g.w), end_index(ow, g.wo, g.w)});
    }
  }
}

template <class T>
void adaptive_forward(const Pool2dGeom& g, const T* in, T* out) {
  const int64_t sh = g.in_stride[2], sw = g.in_stride[3], plane_out = g.od * g.ho * g.wo;
  for_planes(g, g.d * g.h * g.w + plane_out, in, [&](int64_t p, const T* src) {
    T* o = out + p * plane_out;
    for_adaptive_windows(g, [&](int64_t j, const AdaptiveWindow& w) {
      T sum = T(0);
      for (int64_t iz = w.z0; iz < w.z1; ++iz)
        for (int64_t ih = w.h0; ih < w.h1; ++ih)
          for (int64_t iw = w.w0; iw < w.w1; ++iw)
            sum += src[iz * g.in_stride_d + ih * sh + iw * sw];
      o[j] = sum / T(w.size());
    });
  });
}

template <class T>
void adaptive_backward(const Pool2dGeom& g, const T* gout, T* gin) {
  const int64_t plane_out = g.od * g.ho * g.wo, plane_in = g.d * g.h * g.w;
  for_planes<T>(g, 2 * plane_in + plane_out, nullptr, [&](int64_t p, const T*) {
    T* gi = gin + p * plane_in;
    const T* go = gout + p * plane_out;
    std::fill(gi, gi + plane_in, T(0));
    for_adaptive_windows(g, [&](int64_t j, const AdaptiveWindow& w) {
      const T delta = go[j] / T(w.size());
      for (int64_t iz = w.z0; iz < w.z1; ++iz)
        for (int64_t ih = w.h0; ih < w.h1; ++ih)
          for (int64_t iw = w.w0; iw < w.w1; ++iw) gi[(iz * g.h + ih) * g.w + iw] += delta;
    });
  });
}

}  // namespace

void max_pool2d_forward(DType dt, const Pool2dGeom& g, const void* in, void* out,
                        int64_t* indices) {
  if (dt == DType::BFloat16 || dt == DType::Float16) {
    const auto run = [&]<class T>() {
      max_forward<T>(g, static_cast<const T*>(in), static_cast<T*>(out), indices);
    };
    return dt == DType::BFloat16 ? run.operator()<bfloat16_t>() : run.operator()<float16_t>();
  }
  visit_dtype(dt, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>)
      max_forward<T>(g, static_cast<const T*>(in), static_cast<T*>(out), indices);
  });
}

void max_pool2d_backward(DType dt, const Pool2dGeom& g, const void* grad_out,
                         const int64_t* indices, void* grad_in) {
  if (dt == DType::BFloat16 || dt == DType::Float16) {
    const auto run = [&]<class T>() {
      max_backward<T>(g, static_cast<const T*>(grad_out), indices, static_cast<T*>(grad_in));
    };
    return dt == DType::BFloat16 ? run.operator()<bfloat16_t>() : run.operator()<float16_t>();
  }
  visit_floating(dt, [&]<class T>() {
    max_backward<T>(g, static_cast<const T*>(grad_out), indices, static_cast<T*>(grad_in));
  });
}

void avg_pool2d_forward(DType dt, const Pool2dGeom& g, bool count_include_pad,
                        int64_t divisor_override, const void* in, void* out) {
  auto run = [&]<class T>() {
    avg_forward<T>(g, count_include_pad, divisor_override, static_cast<const T*>(in),
                   static_cast<T*>(out));
  };
  if (dt == DType::Int64) run.template operator()<int64_t>();
  else visit_floating(dt, run);
}

void avg_pool2d_backward(DType dt, const Pool2dGeom& g, bool count_include_pad,
                         int64_t divisor_override, const void* grad_out, void* grad_in) {
  visit_floating(dt, [&]<class T>() {
    avg_backward<T>(g, count_include_pad, divisor_override, static_cast<const T*>(grad_out),
                    static_cast<T*>(grad_in));
  });
}

void adaptive_avg_pool2d_forward(DType dt, const Pool2dGeom& g, const void* in, void* out) {
  visit_floating(dt, [&]<class T>() {
    adaptive_forward<T>(g, static_cast<const T*>(in), static_cast<T*>(out));
  });
}

void adaptive_avg_pool2d_backward(DType dt, const Pool2dGeom& g, const void* grad_out,
                                  void* grad_in) {
  visit_floating(dt, [&]<class T>() {
    adaptive_backward<T>(g, static_cast<const T*>(grad_out), static_cast<T*>(grad_in));
  });
}

}  // namespace ember::kernels
