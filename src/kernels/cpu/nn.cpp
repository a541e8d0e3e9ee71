// Layer kernels. GELU runs on Highway's SIMD copies (nn_hwy.cpp) for contiguous runs;
// leaky_relu and the normalizations are compiled for the baseline ISA and for AVX2
// from nn_impl.h and dispatched here; embedding rows are plain copies.
#include "kernels/cpu/nn.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu.h"
#include "kernels/cpu/elementwise_hwy.h"
#include "kernels/cpu/nn_hwy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/half.h"

#define EMBER_NN_ISA generic
#define EMBER_NN_VBYTES 16
#include "kernels/cpu/nn_impl.h"
#undef EMBER_NN_ISA
#undef EMBER_NN_VBYTES

namespace ember::kernels {
namespace avx2 {  // nn_avx2.cpp: the same kernels, compiled for AVX2
#include "kernels/cpu/nn_isa.h"
}  // namespace avx2

namespace {

using generic::dispatch_float;

// ---- gelu ----------------------------------------------------------------------------------
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kGeluC = 0.044715;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)

// float32 uses the SIMD kernels' erf (see nn_hwy.h), so strided and contiguous gelu agree;
// float64 std::erf.
template <class T>
T erf_of(T x) {
  if constexpr (sizeof(T) == 4) return erf_f32(x);
  else return std::erf(x);
}

template <class T, bool Tanh>
T gelu_value(T x) {
  if constexpr (Tanh) {
    const T inner = T(kSqrt2OverPi) * (x + T(kGeluC) * x * x * x);
    return T(0.5) * x * (T(1) + std::tanh(inner));
  } else {
    return T(0.5) * x * (T(1) + erf_of(x * T(M_SQRT1_2)));
  }
}

template <class T, bool Tanh>
T gelu_derivative(T x) {
  if constexpr (Tanh) {
    const T x2 = x * x;
    const T t = std::tanh(T(kSqrt2OverPi) * (x + T(kGeluC) * x2 * x));
    const T dinner = T(kSqrt2OverPi) * (T(1) + T(3 * kGeluC) * x2);
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * dinner;
  } else {
    const T cdf = T(0.5) * (T(1) + erf_of(x * T(M_SQRT1_2)));
    return cdf + x * T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
  }
}

// The SIMD kernels cover float32 (both forms) and float64's tanh form; EMBER_DISABLE_SIMD
// and EMBER_SIMD_TARGET act on them as on the elementwise ones (elementwise_hwy.h).
template <class T>
bool has_simd(bool tanh_approx) {
  return (sizeof(T) == 4 || tanh_approx) && simd_unary_enabled(UnaryOp::Tanh);
}

template <class T>
void gelu_run(const T* x, T* out, int64_t n, bool tanh_approx) {
  if constexpr (sizeof(T) == 4) gelu_simd(x, out, n, tanh_approx);
  else gelu_tanh_simd(x, out, n);
}

template <class T>
void gelu_backward_run(const T* g, const T* x, T* out, int64_t n, bool tanh_approx) {
  if constexpr (sizeof(T) == 4) gelu_backward_simd(g, x, out, n, tanh_approx);
  else gelu_tanh_backward_simd(g, x, out, n);
}

// silu with SIMD off: the scalar loops' sigmoid formula (elementwise.cpp).
template <class T>
T sigmoid_scalar(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// Runs kernel(out, in, n) (a SIMD kernel for contiguous runs; in[k] is operand k + 1) over
// one inner run of a Loop: strided or broadcast operands are gathered into blocks on the stack
// and the output scattered, so an element's value never depends on the layout.
template <class T, int N, class K>
void run_gathered(char** p, const int64_t* s, int64_t n, K&& kernel) {
  bool contiguous = true;
  for (int k = 0; k <= N; ++k) contiguous = contiguous && s[k] == int64_t(sizeof(T));
  const T* in[N];
  if (contiguous) {
    for (int k = 0; k < N; ++k) in[k] = reinterpret_cast<const T*>(p[k + 1]);
    return kernel(reinterpret_cast<T*>(p[0]), in, n);
  }
  constexpr int64_t kBlock = 256;
  alignas(64) T buf[N + 1][kBlock];
  for (int k = 0; k < N; ++k) in[k] = buf[k + 1];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t m = std::min(kBlock, n - i0);
    for (int k = 1; k <= N; ++k)
      for (int64_t j = 0; j < m; ++j)
        buf[k][j] = *reinterpret_cast<const T*>(p[k] + (i0 + j) * s[k]);
    kernel(buf[0], in, m);
    for (int64_t j = 0; j < m; ++j) *reinterpret_cast<T*>(p[0] + (i0 + j) * s[0]) = buf[0][j];
  }
}

}  // namespace

// ---- activations ----------------------------------------------------------------------------

void gelu(DType dt, const Loop& L, bool tanh_approx) {
  if (is_half(dt))  // Note [Half kernels]
    return run_in_float(L, {dt, dt}, [&](const Loop& F) { gelu(DType::Float32, F, tanh_approx); });
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const bool simd = has_simd<T>(tanh_approx);
    for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      if (simd && s[0] == sizeof(T) && s[1] == sizeof(T)) {
        gelu_run(reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]), n, tanh_approx);
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const T x = *reinterpret_cast<const T*>(p[1] + i * s[1]);
        *reinterpret_cast<T*>(p[0] + i * s[0]) =
            tanh_approx ? gelu_value<T, true>(x) : gelu_value<T, false>(x);
      }
    });
  });
}

void gelu_backward(DType dt, const Loop& L, bool tanh_approx) {
  if (is_half(dt))
    return run_in_float(L, {dt, dt, dt},
                        [&](const Loop& F) { gelu_backward(DType::Float32, F, tanh_approx); });
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const bool simd = has_simd<T>(tanh_approx);
    for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      if (simd && s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == sizeof(T)) {
        gelu_backward_run(reinterpret_cast<const T*>(p[1]), reinterpret_cast<const T*>(p[2]),
                          reinterpret_cast<T*>(p[0]), n, tanh_approx);
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const T x = *reinterpret_cast<const T*>(p[2] + i * s[2]);
        const T d = tanh_approx ? gelu_derivative<T, true>(x) : gelu_derivative<T, false>(x);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1]) * d;
      }
    });
  });
}

// An activation's kernel over Loop{out, x} (N = 1) or Loop{gx, g, x} (N = 2): half dtypes in
// float32; each inner run through simd(out, in, m) (via run_gathered), or with SIMD off (op's
// switch, elementwise_hwy.h) through one(in, i), the scalar formula for element i.
template <int N, class Simd, class One>
void run_activation(DType dt, const Loop& L, UnaryOp op, const Simd& simd, const One& one) {
  if (is_half(dt)) {
    const auto body = [&](const Loop& F) { run_activation<N>(DType::Float32, F, op, simd, one); };
    if constexpr (N == 1) return run_in_float(L, {dt, dt}, body);
    else return run_in_float(L, {dt, dt, dt}, body);
  }
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const bool on = simd_unary_enabled(op);
    for_each(L, [&](char** p, const int64_t* s, int64_t n) {
      run_gathered<T, N>(p, s, n, [&](T* out, const T* const* in, int64_t m) {
        if (on) return simd(out, in, m);
        for (int64_t i = 0; i < m; ++i) out[i] = one(in, i);
      });
    });
  });
}

void silu(DType dt, const Loop& L) {
  run_activation<1>(
      dt, L, UnaryOp::Sigmoid, [](auto* out, auto in, int64_t m) { simd_silu(in[0], out, m); },
      [](auto in, int64_t i) { return in[0][i] * sigmoid_scalar(in[0][i]); });
}

void silu_backward(DType dt, const Loop& L) {
  run_activation<2>(
      dt, L, UnaryOp::Sigmoid,
      [](auto* out, auto in, int64_t m) { simd_silu_backward(in[0], in[1], out, m); },
      [](auto in, int64_t i) {
        const auto x = in[1][i], sg = sigmoid_scalar(x);
        return in[0][i] * (sg * std::fma(x, decltype(x)(1) - sg, decltype(x)(1)));
      });
}

void hardswish(DType dt, const Loop& L) {
  run_activation<1>(
      dt, L, UnaryOp::Sigmoid, [](auto* out, auto in, int64_t m) { simd_hardswish(in[0], out, m); },
      [](auto in, int64_t i) {
        using T = std::remove_cvref_t<decltype(in[0][i])>;
        const T x = in[0][i];
        return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
      });
}

void hardswish_backward(DType dt, const Loop& L) {
  run_activation<2>(
      dt, L, UnaryOp::Sigmoid,
      [](auto* out, auto in, int64_t m) { simd_hardswish_backward(in[0], in[1], out, m); },
      [](auto in, int64_t i) {
        using T = std::remove_cvref_t<decltype(in[0][i])>;
        const T g = in[0][i], x = in[1][i];
        return x <= T(-3) ? T(0) : x >= T(3) ? g : g * (x / T(3) + T(0.5));
      });
}

// softplus with SIMD off: torch's formulas on std::.
template <class T>
T softplus_scalar(const T* g, T x, T beta, T threshold) {
  const T z = x * beta;
  if (g) return z > threshold ? *g : *g * std::exp(z) / (std::exp(z) + T(1));
  return z > threshold ? x : std::log1p(std::exp(z)) / beta;
}

void softplus(DType dt, const Loop& L, double beta, double threshold, bool grad) {
  const auto simd = [&](auto* out, auto in, int64_t m) {
    using T = std::remove_cvref_t<decltype(*out)>;
    simd_softplus(grad ? in[0] : nullptr, in[grad ? 1 : 0], out, m, T(beta), T(threshold));
  };
  const auto one = [&](auto in, int64_t i) {
    using T = std::remove_cvref_t<decltype(in[0][i])>;
    return softplus_scalar(grad ? in[0] + i : nullptr, in[grad ? 1 : 0][i], T(beta), T(threshold));
  };
  if (grad) run_activation<2>(dt, L, UnaryOp::Exp, simd, one);
  else run_activation<1>(dt, L, UnaryOp::Exp, simd, one);
}

// ---- dropout --------------------------------------------------------------------------------

void dropout_mask(DType dt, int64_t n, uint64_t seed, double p, double scale, void* mask) {
  // u = (z >> 11) / 2^53 is dropped when u < p, i.e. when z >> 11 < ceil(p 2^53): an integer
  // compare (no branch on a coin flip, which would mispredict half the time).
  const uint64_t threshold = uint64_t(std::ceil(p * 0x1.0p53));
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    // The value's bits under an all-ones or all-zeros mask: `kept ? scale : 0` written that
    // way stays branch-free (GCC turns the select, and even scale * kept, into a branch).
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    U* m = static_cast<U*>(mask);
    const U bits = std::bit_cast<U>(T(scale));
    parallel_for(0, n, kGrain, [m, bits, seed, threshold](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        uint64_t z = seed + uint64_t(i + 1) * 0x9E3779B97F4A7C15ULL;  // splitmix64 of (seed, i)
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        m[i] = bits & (U(0) - U((z >> 11) >= threshold));
      }
    });
  });
}

// ---- the per-ISA kernels (nn_impl.h), picked once per process ------------------------------

void leaky_relu(DType dt, const Loop& L, double slope) {
  if (is_half(dt))
    return run_in_float(L, {dt, dt}, [&](const Loop& F) { leaky_relu(DType::Float32, F, slope); });
  if (use_avx2()) return avx2::leaky_relu(dt, L, slope);
  generic::leaky_relu(dt, L, slope);
}

void leaky_relu_backward(DType dt, const Loop& L, double slope) {
  if (is_half(dt))
    return run_in_float(L, {dt, dt, dt},
                        [&](const Loop& F) { leaky_relu_backward(DType::Float32, F, slope); });
  if (use_avx2()) return avx2::leaky_relu_backward(dt, L, slope);
  generic::leaky_relu_backward(dt, L, slope);
}

void relu_backward(DType dt, const Loop& L) {  // half dtypes too, on their bits (nn_impl.h)
  if (use_avx2()) return avx2::relu_backward(dt, L);
  generic::relu_backward(dt, L);
}

void batch_norm_stats(DType dt, ChannelGeom g, const void* x, double eps, void* mean, void* var,
                      void* invstd) {
  if (use_avx2()) return avx2::batch_norm_stats(dt, g, x, eps, mean, var, invstd);
  generic::batch_norm_stats(dt, g, x, eps, mean, var, invstd);
}

void batch_norm_apply(DType dt, ChannelGeom g, const void* x, const void* mean, const void* invstd,
                      const void* w, const void* b, void* y) {
  if (use_avx2()) return avx2::batch_norm_apply(dt, g, x, mean, invstd, w, b, y);
  generic::batch_norm_apply(dt, g, x, mean, invstd, w, b, y);
}

void batch_norm_backward_reduce(DType dt, ChannelGeom g, const void* go, const void* x,
                                const void* mean, void* sum_g, void* sum_gxmu) {
  if (use_avx2()) return avx2::batch_norm_backward_reduce(dt, g, go, x, mean, sum_g, sum_gxmu);
  generic::batch_norm_backward_reduce(dt, g, go, x, mean, sum_g, sum_gxmu);
}

void batch_norm_backward_input(DType dt, ChannelGeom g, const void* go, const void* x,
                               const void* mean, const void* invstd, const void* w,
                               const void* sum_g, const void* sum_gxmu, bool training, void* gx) {
  if (use_avx2()) {
    return avx2::batch_norm_backward_input(dt, g, go, x, mean, invstd, w, sum_g, sum_gxmu, training,
                                           gx);
  }
  generic::batch_norm_backward_input(dt, g, go, x, mean, invstd, w, sum_g, sum_gxmu, training, gx);
}

void layer_norm(DType dt, int64_t rows, int64_t d, const void* x, const void* w, const void* b,
                double eps, void* y, void* mean, void* rstd) {
  if (use_avx2()) return avx2::layer_norm(dt, rows, d, x, w, b, eps, y, mean, rstd);
  generic::layer_norm(dt, rows, d, x, w, b, eps, y, mean, rstd);
}

void layer_norm_backward(DType dt, int64_t rows, int64_t d, const void* go, const void* x,
                         const void* mean, const void* rstd, const void* w, void* gx, void* gw,
                         void* gb) {
  if (use_avx2()) return avx2::layer_norm_backward(dt, rows, d, go, x, mean, rstd, w, gx, gw, gb);
  generic::layer_norm_backward(dt, rows, d, go, x, mean, rstd, w, gx, gw, gb);
}

// ---- embedding ----------------------------------------------------------------------------------

namespace {
inline int64_t index_at(const void* idx, bool is_int32, int64_t i) {
  return is_int32 ? int64_t(static_cast<const int32_t*>(idx)[i])
                  : static_cast<const int64_t*>(idx)[i];
}

template <class T>
void copy_rows(const void* idx, bool is_int32, int64_t n, int64_t dim, const T* w, int64_t ws0,
               int64_t ws1, T* out) {
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(dim, 1));
  parallel_for(0, n, grain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const T* row = w + index_at(idx, is_int32, i) * ws0;
      T* o = out + i * dim;
      if (ws1 == 1) std::memcpy(o, row, size_t(dim) * sizeof(T));
      else
        for (int64_t j = 0; j < dim; ++j) o[j] = row[j * ws1];
    }
  });
}
}  // namespace

int64_t embedding_find_bad(const void* idx, bool is_int32, int64_t n, int64_t num) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = index_at(idx, is_int32, i);
    if (v < 0 || v >= num) return i;
  }
  return -1;
}

void embedding_forward(DType dt, const void* idx, bool is_int32, int64_t n, int64_t dim,
                       const void* weight, int64_t ws0, int64_t ws1, void* out) {
  switch (itemsize(dt)) {
    case 1:
      copy_rows(idx, is_int32, n, dim, static_cast<const uint8_t*>(weight), ws0, ws1,
                static_cast<uint8_t*>(out));
      break;
    case 2:  // bfloat16, float16
      copy_rows(idx, is_int32, n, dim, static_cast<const uint16_t*>(weight), ws0, ws1,
                static_cast<uint16_t*>(out));
      break;
    case 4:
      copy_rows(idx, is_int32, n, dim, static_cast<const uint32_t*>(weight), ws0, ws1,
                static_cast<uint32_t*>(out));
      break;
    default:
      copy_rows(idx, is_int32, n, dim, static_cast<const uint64_t*>(weight), ws0, ws1,
                static_cast<uint64_t*>(out));
      break;
  }
}

void embedding_backward(DType dt, const void* idx, bool is_int32, int64_t n, int64_t dim,
                        const void* go, int64_t padding_idx, void* gw) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* gp = static_cast<const T*>(go);
    T* out = static_cast<T*>(gw);
    // Columns split across threads; each column adds its rows in index order.
    const int64_t grain = std::max<int64_t>(16, kGrain / std::max<int64_t>(n, 1));
    parallel_for(0, dim, grain, [&](int64_t j0, int64_t j1) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = index_at(idx, is_int32, i);
        if (r == padding_idx) continue;
        const T* src = gp + i * dim;
        T* dst = out + r * dim;
        for (int64_t j = j0; j < j1; ++j) dst[j] += src[j];
      }
    });
  });
}

}  // namespace ember::kernels
