#include "kernels/cpu/special.h"

#include "kernels/cpu/special_hwy.h"
#include "kernels/cpu/half.h"

#include <cmath>
#include <limits>

namespace ember::kernels {

namespace {

// erfinv: Giles' single-precision approximation ("Approximating the erfinv function",
// 2010) refined by two Newton steps on erf(x) = y, which brings it to double precision.
double erfinv_of(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1) return std::numeric_limits<double>::infinity();
  if (y == -1) return -std::numeric_limits<double>::infinity();
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      x = c + x * w;
  } else {
    w = std::sqrt(w) - 3.0;
    x = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      x = c + x * w;
  }
  x *= y;
  for (int i = 0; i < 2; ++i) {
    double d = std::erf(x) - y;
    x -= d / (M_2_SQRTPI * std::exp(-x * x));
  }
  return x;
}

template <class T>
T apply(SpecialOp op, T a) {
  switch (op) {
    case SpecialOp::Sinh: return std::sinh(a);
    case SpecialOp::Cosh: return std::cosh(a);
    case SpecialOp::Asinh: return std::asinh(a);
    case SpecialOp::Acosh: return std::acosh(a);
    case SpecialOp::Atanh: return std::atanh(a);
    case SpecialOp::Erfinv: return T(erfinv_of(double(a)));
    case SpecialOp::Acos: return std::acos(a);
    case SpecialOp::Asin: return std::asin(a);
    case SpecialOp::Atan: return std::atan(a);
    case SpecialOp::Log10: return std::log10(a);
    case SpecialOp::Exp2: return std::exp2(a);
  }
  return a;
}

template <class T>
bool test(ClassifyOp op, T a) {
  switch (op) {
    case ClassifyOp::IsNan: return std::isnan(a);
    case ClassifyOp::IsInf: return std::isinf(a);
    case ClassifyOp::IsPosInf: return std::isinf(a) && a > 0;
    case ClassifyOp::IsNegInf: return std::isinf(a) && a < 0;
    case ClassifyOp::IsFinite: return std::isfinite(a);
  }
  return false;
}

}  // namespace

void special(SpecialOp op, DType dt, const Loop& L) {
  if (is_half(dt))  // Note [Half kernels]
    return run_in_float(L, {dt, dt}, [&](const Loop& F) { special(op, DType::Float32, F); });
  visit_floating(dt, [&]<class T>() {
    // Transcendentals cost ~20x an add: split over threads earlier than kGrain.
    const bool simd = simd_special_enabled(op);
    // float32 erfinv has its own SIMD kernel (erf_hwy-inl.h); float64 stays on erfinv_of.
    const bool simd_erfinv_f32 =
        op == SpecialOp::Erfinv && sizeof(T) == 4 && simd_special_enabled(SpecialOp::Sinh);
    for_each(
        L,
        [op, simd, simd_erfinv_f32](char** p, const int64_t* s, int64_t n) {
          if (simd && s[0] == sizeof(T) && s[1] == sizeof(T)) {
            simd_special(op, reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]), n);
            return;
          }
          if constexpr (sizeof(T) == 4) {
            if (simd_erfinv_f32 && s[0] == 4 && s[1] == 4)
              return simd_erfinv(reinterpret_cast<const float*>(p[1]),
                                 reinterpret_cast<float*>(p[0]), n);
          }
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<T*>(p[0] + i * s[0]) =
                apply(op, *reinterpret_cast<const T*>(p[1] + i * s[1]));
        },
        kGrain / 16);
  });
}

void classify(ClassifyOp op, DType dt, const Loop& L) {
  if (is_half(dt))
    return run_in_float(L, {DType::Bool, dt},
                        [&](const Loop& F) { classify(op, DType::Float32, F); });
  visit_floating(dt, [&]<class T>() {
    for_each(L, [op](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<bool*>(p[0] + i * s[0]) =
            test(op, *reinterpret_cast<const T*>(p[1] + i * s[1]));
    });
  });
}

void ternary(TernaryOp op, DType dt, const Loop& L, double value) {
  if (is_half(dt))
    return run_in_float(L, {dt, dt, dt, dt},
                        [&](const Loop& F) { ternary(op, DType::Float32, F, value); });
  visit_floating(dt, [&]<class T>() {
    const T v = T(value);
    for_each(L, [op, v](char** p, const int64_t* s, int64_t n) {
      auto get = [&](int k, int64_t i) { return *reinterpret_cast<const T*>(p[k] + i * s[k]); };
      T* out = reinterpret_cast<T*>(p[0]);
      const int64_t os = s[0] / int64_t(sizeof(T));
      switch (op) {
        case TernaryOp::Lerp:
          for (int64_t i = 0; i < n; ++i) {
            const T a = get(1, i), b = get(2, i), w = get(3, i);
            out[i * os] = std::abs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
          }
          break;
        case TernaryOp::Addcmul:
          for (int64_t i = 0; i < n; ++i) out[i * os] = get(1, i) + v * get(2, i) * get(3, i);
          break;
        case TernaryOp::Addcdiv:
          for (int64_t i = 0; i < n; ++i) out[i * os] = get(1, i) + v * get(2, i) / get(3, i);
          break;
      }
    });
  });
}

}  // namespace ember::kernels
