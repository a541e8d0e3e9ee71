// The SIMD GELU kernels of nn_hwy.h. Highway's foreach_target.h includes this file once
// per instruction set (HWY_TARGET_INCLUDE); the part under HWY_ONCE is compiled once and
// picks a copy at run time (HWY_DYNAMIC_DISPATCH). Same layout as elementwise_hwy.cpp.
#include <cmath>
#include <cstring>

#include "kernels/cpu/nn_hwy.h"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/nn_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "kernels/cpu/erf_hwy-inl.h"  // ErfF32

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Constants shared with the scalar formulas in nn.cpp.
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluC = 0.044715;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// e^x for x <= 0 that may be very negative (or NaN: Max gives the bound then): clamped
// where the result is below the smallest normal float, so the polynomial never sees -inf
// and no denormal reaches a multiply (each costs a microcode assist per vector: gelu of
// NaN, inf or |x| > 13.2 was 6x slower with the bound at -88). Beyond |x| = 13.2 the pdf
// term it feeds is below 1e-37 and vanishes against the cdf term either way.
template <class D, class V>
HWY_INLINE V ExpNeg(D d, V x) {
  using T = hn::TFromD<D>;
  return hn::Exp(d, hn::Max(x, hn::Set(d, T(sizeof(T) == 4 ? -87.3 : -708.0))));
}

// erf(x / sqrt(2)) of the erf form, to gelu's accuracy (erf_hwy-inl.h); NaN lanes are left
// at ±1: every use multiplies by x, which makes them NaN.
template <class D, class V>
HWY_INLINE V GeluErf(D d, V x) {
  return ErfF32<ErfCoarseCoefs, false>(d, hn::Mul(x, hn::Set(d, hn::TFromD<D>(M_SQRT1_2))));
}

// tanh of the tanh form's inner argument, clamped where tanh is ±1 (so x^3 = inf is fine).
template <class D, class V>
HWY_INLINE V TanhInner(D d, V x, V x2) {
  using T = hn::TFromD<D>;
  const V cubic = hn::MulAdd(hn::Mul(hn::Set(d, T(kGeluC)), x2), x, x);  // x + c x^3
  const V inner = hn::Mul(hn::Set(d, T(kSqrt2OverPi)), cubic);
  const V lim = hn::Set(d, T(20));
  return hn::Tanh(d, hn::Min(hn::Max(inner, hn::Neg(lim)), lim));
}

template <bool Tanh, class D, class V>
HWY_INLINE V GeluVec(D d, V x) {
  using T = hn::TFromD<D>;
  const V half_x = hn::Mul(hn::Set(d, T(0.5)), x);
  if constexpr (Tanh) {
    return hn::MulAdd(half_x, TanhInner(d, x, hn::Mul(x, x)), half_x);
  } else {
    return hn::MulAdd(half_x, GeluErf(d, x), half_x);
  }
}

template <bool Tanh, class D, class V>
HWY_INLINE V GeluGradVec(D d, V x) {
  using T = hn::TFromD<D>;
  const V half = hn::Set(d, T(0.5));
  const V one = hn::Set(d, T(1));
  const V x2 = hn::Mul(x, x);
  if constexpr (Tanh) {
    const V t = TanhInner(d, x, x2);
    const V dinner =
        hn::Mul(hn::Set(d, T(kSqrt2OverPi)), hn::MulAdd(hn::Set(d, T(3 * kGeluC)), x2, one));
    const V left = hn::Mul(half, hn::Add(one, t));
    return hn::MulAdd(hn::Mul(hn::Mul(half, x), hn::NegMulAdd(t, t, one)), dinner, left);
  } else {
    const V cdf = hn::Mul(half, hn::Add(one, GeluErf(d, x)));
    const V pdf = hn::Mul(hn::Set(d, T(kInvSqrt2Pi)), ExpNeg(d, hn::Mul(hn::Neg(half), x2)));
    return hn::MulAdd(x, pdf, cdf);
  }
}

// Whole vectors, then the tail through a padded copy, so every element gets the same
// formula whatever its position (results don't depend on how work was split over threads).
template <bool Tanh, class T>
HWY_INLINE void Forward(const T* x, T* out, int64_t count) {
  const hn::ScalableTag<T> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(GeluVec<Tanh>(d, hn::LoadU(d, x + i)), d, out + i);
  if (i == n) return;
  HWY_ALIGN T buf[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  std::memcpy(buf, x + i, (n - i) * sizeof(T));
  hn::Store(GeluVec<Tanh>(d, hn::Load(d, buf)), d, buf);
  std::memcpy(out + i, buf, (n - i) * sizeof(T));
}

template <bool Tanh, class T>
HWY_INLINE void Backward(const T* g, const T* x, T* out, int64_t count) {
  const hn::ScalableTag<T> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Mul(hn::LoadU(d, g + i), GeluGradVec<Tanh>(d, hn::LoadU(d, x + i))), d, out + i);
  if (i == n) return;
  HWY_ALIGN T bx[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  HWY_ALIGN T bg[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  std::memcpy(bx, x + i, (n - i) * sizeof(T));
  std::memcpy(bg, g + i, (n - i) * sizeof(T));
  hn::Store(hn::Mul(hn::Load(d, bg), GeluGradVec<Tanh>(d, hn::Load(d, bx))), d, bx);
  std::memcpy(out + i, bx, (n - i) * sizeof(T));
}

void GeluF32(const float* x, float* out, int64_t n, bool tanh_approx) {
  if (tanh_approx) Forward<true>(x, out, n);
  else Forward<false>(x, out, n);
}
void GeluTanhF64(const double* x, double* out, int64_t n) { Forward<true>(x, out, n); }
void GeluBackwardF32(const float* g, const float* x, float* out, int64_t n, bool tanh_approx) {
  if (tanh_approx) Backward<true>(g, x, out, n);
  else Backward<false>(g, x, out, n);
}
void GeluTanhBackwardF64(const double* g, const double* x, double* out, int64_t n) {
  Backward<true>(g, x, out, n);
}
float ErfOne(float x) {
  const hn::ScalableTag<float> d;
  return hn::GetLane(ErfF32<ErfCoarseCoefs>(d, hn::Set(d, x)));
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(GeluF32);
HWY_EXPORT(GeluTanhF64);
HWY_EXPORT(GeluBackwardF32);
HWY_EXPORT(GeluTanhBackwardF64);
HWY_EXPORT(ErfOne);

void gelu_simd(const float* x, float* out, int64_t n, bool tanh_approx) {
  HWY_DYNAMIC_DISPATCH(GeluF32)(x, out, n, tanh_approx);
}
void gelu_tanh_simd(const double* x, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(GeluTanhF64)(x, out, n);
}
void gelu_backward_simd(const float* g, const float* x, float* out, int64_t n, bool tanh_approx) {
  HWY_DYNAMIC_DISPATCH(GeluBackwardF32)(g, x, out, n, tanh_approx);
}
void gelu_tanh_backward_simd(const double* g, const double* x, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(GeluTanhBackwardF64)(g, x, out, n);
}

float erf_f32(float x) { return HWY_DYNAMIC_DISPATCH(ErfOne)(x); }

}  // namespace ember::kernels
#endif  // HWY_ONCE
