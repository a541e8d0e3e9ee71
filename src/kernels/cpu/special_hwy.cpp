// The SIMD kernels of special_hwy.h; the layout follows elementwise_hwy.cpp (see there):
// foreach_target.h includes this file once per instruction set, HWY_ONCE dispatches.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/elementwise_hwy.h"
#include "kernels/cpu/special_hwy.h"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/special_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "kernels/cpu/unary_hwy-inl.h"  // kF32, kMax, Run: the loop of the one-input ops
#include "kernels/cpu/erf_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
constexpr T kBelowOne = kF32<T> ? T(1 - 0x1p-24) : T(1 - 0x1p-53);  // the largest T < 1

// One struct per op: Vec (Highway), One (std::, as the scalar loop) and the input range
// [lo, hi] where Vec is accurate (NaN is never in range); pad, where 0.5 is out of that
// range, fills the tail's padding lanes (unary_hwy-inl.h).
// The ops whose Vec is Highway's math function and One the std:: one of the same name.
#define EMBER_HWY_STD_OP(Name, HwyFn, std_fn, LO, HI) \
  struct Name {                                       \
    template <class T>                                \
    static constexpr T lo = LO;                       \
    template <class T>                                \
    static constexpr T hi = HI;                       \
    template <class D, class V>                       \
    static V Vec(D d, V x) {                          \
      return hn::HwyFn(d, x);                         \
    }                                                 \
    template <class T>                                \
    static T One(T x) {                               \
      return std::std_fn(x);                          \
    }                                                 \
  };
EMBER_HWY_STD_OP(SinhOp, Sinh, sinh, kF32<T> ? T(-88.72) : T(-709), kF32<T> ? T(88.72) : T(709))
struct CoshOp {  // (e^|x| + e^-|x|) / 2
  template <class T>
  static constexpr T lo = kF32<T> ? T(-88.7) : T(-709);
  template <class T>
  static constexpr T hi = kF32<T> ? T(88.7) : T(709);
  template <class D, class V>
  static V Vec(D d, V x) {
    using T = hn::TFromD<D>;
    const V e = hn::Exp(d, hn::Abs(x));
    return hn::Mul(hn::Add(e, hn::Div(hn::Set(d, T(1)), e)), hn::Set(d, T(0.5)));
  }
  template <class T>
  static T One(T x) {
    return std::cosh(x);
  }
};
EMBER_HWY_STD_OP(AsinhOp, Asinh, asinh, -kMax<T>, kMax<T>)
struct AcoshOp {
  template <class T>
  static constexpr T lo = T(1);
  template <class T>
  static constexpr T hi = kMax<T>;
  template <class T>
  static constexpr T pad = T(1.5);
  template <class D, class V>
  static V Vec(D d, V x) {
    return hn::Acosh(d, x);
  }
  template <class T>
  static T One(T x) {
    return std::acosh(x);
  }
};
EMBER_HWY_STD_OP(AtanhOp, Atanh, atanh, -kBelowOne<T>, kBelowOne<T>)

// Acos/Asin are defined on [-1, 1]; outside it std:: gives NaN.
EMBER_HWY_STD_OP(AcosOp, Acos, acos, T(-1), T(1))
EMBER_HWY_STD_OP(AsinOp, Asin, asin, T(-1), T(1))
EMBER_HWY_STD_OP(AtanOp, Atan, atan, -kMax<T>, kMax<T>)
// x <= 0, subnormals and inf go to std::
EMBER_HWY_STD_OP(Log10Op, Log10, log10, std::numeric_limits<T>::min(), kMax<T>)

struct ErfcOp {  // float32 only: erf_hwy-inl.h
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    return ErfcF32(d, x);
  }
};
void ErfcF32Run(const float* in, float* out, int64_t n) { Run<ErfcOp>(in, out, n); }
struct ErfinvOp {  // float32 only: erf_hwy-inl.h
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    return ErfinvF32(d, x);
  }
};
void ErfinvF32Run(const float* in, float* out, int64_t n) { Run<ErfinvOp>(in, out, n); }

template <class T>
void Special(int op, const T* in, T* out, int64_t n) {
  switch (SpecialOp(op)) {
    case SpecialOp::Sinh: return Run<SinhOp>(in, out, n);
    case SpecialOp::Cosh: return Run<CoshOp>(in, out, n);
    case SpecialOp::Asinh: return Run<AsinhOp>(in, out, n);
    case SpecialOp::Acosh: return Run<AcoshOp>(in, out, n);
    case SpecialOp::Atanh: return Run<AtanhOp>(in, out, n);
    case SpecialOp::Acos: return Run<AcosOp>(in, out, n);
    case SpecialOp::Asin: return Run<AsinOp>(in, out, n);
    case SpecialOp::Atan: return Run<AtanOp>(in, out, n);
    case SpecialOp::Log10: return Run<Log10Op>(in, out, n);
    case SpecialOp::Erfinv:
    case SpecialOp::Exp2: return;  // not vectorized: simd_special_enabled says so
  }
}
void SpecialF32(int op, const float* in, float* out, int64_t n) { Special(op, in, out, n); }
void SpecialF64(int op, const double* in, double* out, int64_t n) { Special(op, in, out, n); }

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(SpecialF32);
HWY_EXPORT(SpecialF64);
HWY_EXPORT(ErfcF32Run);
HWY_EXPORT(ErfinvF32Run);

void simd_erfinv(const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ErfinvF32Run)(in, out, n);
}

void simd_erfc(const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ErfcF32Run)(in, out, n);
}

bool simd_special_enabled(SpecialOp op) {
  // elementwise_hwy.cpp owns the EMBER_DISABLE_SIMD / EMBER_SIMD_TARGET switches.
  // exp2 stays on std::exp2, exact at integers as PyTorch's is (exp(x ln2) is not).
  return op != SpecialOp::Erfinv && op != SpecialOp::Exp2 && simd_unary_enabled(UnaryOp::Exp);
}

void simd_special(SpecialOp op, const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SpecialF32)(int(op), in, out, n);
}

void simd_special(SpecialOp op, const double* in, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SpecialF64)(int(op), in, out, n);
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
