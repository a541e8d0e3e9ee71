// sin and cos: the ops' structs for the one-input loop (unary_hwy-inl.h) and float32's own
// formula, which computes both from one range reduction (Note [float32 sin and cos]), so
// that SinCosF32Run gives sin and cos of one input in one pass with the bits of the two ops.
// Included once per target like unary_hwy-inl.h (see there).
#if defined(EMBER_KERNELS_CPU_TRIG_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_TRIG_HWY_INL_H_
#undef EMBER_KERNELS_CPU_TRIG_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_TRIG_HWY_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/cpu/trig_large_hwy-inl.h"
#include "kernels/cpu/unary_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Note [float32 sin and cos]: for 2^-12 <= |x| <= 39000, x = q pi/2 + y with q the integer
// nearest x 2/pi, |y| <= pi/4 (a hair more where the float32 product rounds q the other way).
// q comes from the sum x 2/pi + 1.5 2^23, whose low mantissa bits are q in two's complement
// (no float-to-int conversion: its quadrant bits are the sum's bits), and x is reduced as it
// is, sign included, so sin(-x) = -sin(x) bit for bit without taking |x| apart. x - q C1 is
// exact (an FMA; C1 = pi/2 to 24 bits, |q| < 2^15, the difference a multiple of 2^-24 below
// 1); q C2 and q C3 follow with one rounding each (C1 + C2 + C3 = pi/2 within 1e-23). Then,
// with z = y^2,  sin y = y + y z P(z)  and  cos y = 1 + z R(z),  P of degree 2 and R of degree
// 3 fitted for relative error (4e-9 and 1e-10 with float32 coefficients). Every lane computes
// both; bit 0 of q picks which one is sin(x) and which cos(x), bit 1 of q (of q + 1 for cos)
// their signs. So sin, cos and sincos of a lane are the same bits, and sincos costs one
// polynomial more than sin. Below 2^-12, sin(x) rounds to x and cos(x) to 1 (the formula's
// values too, except -0, whose sin y + y z P would be +0): Fix returns those, so the formula
// never sees a denormal (whose products cost 1.3-1.5x on this CPU). Every float32 in [2^-12,
// 39000] checked against the float64 value rounded (docs/performance.md): at most 1.52 ulp,
// 84-99% correctly rounded (Highway's Sin/Cos, reducing by pi and by odd multiples of pi/2,
// could not share a reduction: 2.42 ulp, 62-98%), at 0.8-0.9x Highway's time.

// a b + c with the product exact: an FMA; on targets without one (SSE4, scalar) in float64
// lanes, where the product of two floats is exact, the sum then rounded twice (to float64,
// to float32): the same value but in rare double-rounding cases, exact where a b + c fits.
template <class D, class V>
HWY_INLINE V ExactMulAdd(D d, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulAdd(a, b, c);
#else
  return Widened(
      d, a, [](auto, auto ad, auto bd, auto cd) { return hn::MulAdd(ad, bd, cd); }, b, c);
#endif
}

#if HWY_NATIVE_FMA
constexpr bool kExactQuadrantPlus1 = true;
#else
constexpr bool kExactQuadrantPlus1 = false;
#endif

template <bool kSin, bool kCos, class D, class V>
HWY_INLINE void SinCosF32(D d, V x, V& sin_out, V& cos_out) {
  const hn::RebindToSigned<D> di;
  // cos alone takes q + 1 from the sum itself: x 2/pi is never a half-integer here, so the
  // FMA's one rounding gives q + 1 exactly (not so with a separate product: SSE4, scalar).
  constexpr bool kPlus1 = kExactQuadrantPlus1 && kCos && !kSin;
  const V shifter = hn::Set(d, kPlus1 ? 0x1.8p23f + 1.0f : 0x1.8p23f);
  const V t = hn::MulAdd(x, hn::Set(d, 0x1.45f306p-1f), shifter);  // 2/pi; q + 1.5 2^23
  const V nq = hn::Sub(shifter, t);                                // -q, exact
  const V y1 = ExactMulAdd(d, nq, hn::Set(d, 0x1.921fb6p+0f), x);  // exact
  const V y2 = ExactMulAdd(d, nq, hn::Set(d, -0x1.777a5cp-25f), y1);
  const V y = ExactMulAdd(d, nq, hn::Set(d, -0x1.ee59dap-50f), y2);
  // The polynomials take y2 (its difference from y changes them by < 2^-35 y relative),
  // so they need not wait for the last step; only sin's leading term is y itself.
  const V z = hn::Mul(y2, y2);
  V ps = hn::MulAdd(hn::Set(d, -0x1.9954p-13f), z, hn::Set(d, 0x1.110778p-7f));
  ps = hn::MulAdd(ps, z, hn::Set(d, -0x1.555546p-3f));
  const V s = hn::MulAdd(hn::Mul(y2, z), ps, y);
  V pc = hn::MulAdd(hn::Set(d, 0x1.99e80cp-16f), z, hn::Set(d, -0x1.6c0c28p-10f));
  pc = hn::MulAdd(pc, z, hn::Set(d, 0x1.55554ap-5f));
  pc = hn::MulAdd(pc, z, hn::Set(d, -0.5f));
  const V c = hn::MulAdd(z, pc, hn::Set(d, 1.0f));
  // sin(x) by q mod 4: sin y, cos y, -sin y, -cos y; cos(x) is the same at q + 1, whose bit 1
  // is q's bits 1 and 0 XORed.
  const auto qi = hn::BitCast(di, t);                   // q (q + 1 for kPlus1) in the low bits
  const V odd = hn::BitCast(d, hn::ShiftLeft<31>(qi));  // the sign bit alone: q odd
  const auto pick = [&](V a, V b) {
#if HWY_TARGET == HWY_SCALAR  // tests the float value, which would miss -0: test the integer
    return hn::BitCast(d, hn::IfNegativeThenElse(hn::BitCast(di, odd), hn::BitCast(di, a),
                                                 hn::BitCast(di, b)));
#else
    return hn::IfNegativeThenElse(odd, a, b);
#endif
  };
  const V neg = hn::And(hn::BitCast(d, hn::ShiftLeft<30>(qi)), hn::SignBit(d));  // bit 1
  if constexpr (kSin) sin_out = hn::Xor(pick(c, s), neg);
  if constexpr (kPlus1) cos_out = hn::Xor(pick(c, s), neg);  // q + 1's own bits
  else if constexpr (kCos) cos_out = hn::Xor(pick(s, c), hn::Xor(neg, odd));
}

// Sin/Cos take the formula above for float32 and Highway's for float64 (reducing by a 4-part
// pi), both accurate for |x| <= 39000. float32's Fix: |x| < 2^-12 gives x (sin) or 1 (cos),
// |x| > 39000 the exact reduction of trig_large_hwy-inl.h; float64's finite elements beyond
// go to std:: (Rest); inf and NaN give NaN.
template <bool Cos>
struct SinCosOp {
  template <class T>
  static constexpr T lo = T(-39000);
  template <class T>
  static constexpr T hi = T(39000);
  static constexpr float kTiny = 0x1p-12f;
  // float32: 2^-12 <= |x| <= 39000, one signed compare of |x|'s bits offset so that 2^-12's
  // are INT32_MIN (NaN's are beyond 39000's; those below 2^-12 wrap to the top).
  template <class D, class V>
  static auto InRange(D d, V x) {
    if constexpr (kF32<hn::TFromD<D>>) {
      const hn::RebindToSigned<D> di;
      constexpr int32_t kLo = 0x39800000, kHi = 0x47185800;  // the bits of 2^-12 and 39000
      const auto bits = hn::And(hn::BitCast(di, x), hn::Set(di, 0x7fffffff));
      const auto off = hn::Add(bits, hn::Set(di, int32_t(0x80000000u - uint32_t(kLo))));
      return hn::RebindMask(d, hn::Lt(off, hn::Set(di, INT32_MIN + (kHi - kLo + 1))));
    } else {
      return hn::And(hn::Ge(x, hn::Set(d, lo<double>)), hn::Le(x, hn::Set(d, hi<double>)));
    }
  }
  template <class D, class V>
  static V Vec(D d, V x) {
    if constexpr (kF32<hn::TFromD<D>>) {
      V s, c;
      SinCosF32<!Cos, Cos>(d, x, s, c);
      return Cos ? c : s;
    } else if constexpr (Cos) {
      return hn::Cos(d, x);
    } else {
      return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, hn::Sin(d, x));  // keeps -0
    }
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    using T = hn::TFromD<D>;
    const V ax = hn::Abs(x);
    const auto finite_large = hn::And(hn::Gt(ax, hn::Set(d, T(39000))), hn::Lt(ax, hn::Inf(d)));
    V y = hn::Sub(x, x);  // NaN for inf and NaN (float64's finite ones are Rest's)
    if constexpr (kF32<T>) {
      if (!hn::AllFalse(d, finite_large)) y = SinCosLargeF32<Cos>(d, x);
      y = hn::IfThenElse(hn::Lt(ax, hn::Set(d, kTiny)), Cos ? hn::Set(d, 1.0f) : x, y);
    }
    return y;
  }
  template <class D, class V>
  static auto Rest(D d, V x) {
    if constexpr (kF32<hn::TFromD<D>>) return hn::FirstN(d, 0);
    else return hn::Lt(hn::Abs(x), hn::Inf(d));
  }
  template <class T>
  static T One(T x) {
    return Cos ? std::cos(x) : std::sin(x);
  }
};
using SinOp = SinCosOp<false>;
using CosOp = SinCosOp<true>;

// One vector of SinCosF32Run: what Patch<SinOp> and Patch<CosOp> store (float32 has no Rest).
template <class D, class V>
HWY_INLINE void SinCosBlock(D d, V x, float* s_dst, float* c_dst) {
  V s, c;
  const auto ok = SinOp::InRange(d, x);
  if (HWY_LIKELY(hn::AllTrue(d, ok))) {
    SinCosF32<true, true>(d, x, s, c);
  } else if (hn::AllFalse(d, ok)) {
    s = SinOp::Fix(d, x);
    c = CosOp::Fix(d, x);
  } else {
    SinCosF32<true, true>(d, x, s, c);
    s = hn::IfThenElse(ok, s, SinOp::Fix(d, x));
    c = hn::IfThenElse(ok, c, CosOp::Fix(d, x));
  }
  hn::StoreU(s, d, s_dst);
  hn::StoreU(c, d, c_dst);
}

// s = sin(x), c = cos(x) for n float32 elements: the bits of Run<SinOp> and Run<CosOp>, one
// reduction per element. s or c may be x.
HWY_INLINE void SinCosF32Run(const float* x, float* s, float* c, int64_t count) {
  const hn::ScalableTag<float> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {  // two vectors a step: 3-5% (latency-bound)
    const auto x0 = hn::LoadU(d, x + i), x1 = hn::LoadU(d, x + i + lanes);
    if (HWY_LIKELY(hn::AllTrue(d, hn::And(SinOp::InRange(d, x0), SinOp::InRange(d, x1))))) {
      hn::Vec<decltype(d)> s0, c0, s1, c1;
      SinCosF32<true, true>(d, x0, s0, c0);
      SinCosF32<true, true>(d, x1, s1, c1);
      hn::StoreU(s0, d, s + i);
      hn::StoreU(c0, d, c + i);
      hn::StoreU(s1, d, s + i + lanes);
      hn::StoreU(c1, d, c + i + lanes);
    } else {
      SinCosBlock(d, x0, s + i, c + i);
      SinCosBlock(d, x1, s + i + lanes, c + i + lanes);
    }
  }
  for (; i + lanes <= n; i += lanes) SinCosBlock(d, hn::LoadU(d, x + i), s + i, c + i);
  if (i == n) return;
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<float>());
  HWY_ALIGN float buf[kLanes], bs[kLanes], bc[kLanes];
  for (size_t j = 0; j < lanes; ++j) buf[j] = i + j < n ? x[i + j] : pad_value<SinOp, float>();
  SinCosBlock(d, hn::Load(d, buf), bs, bc);
  std::memcpy(s + i, bs, (n - i) * sizeof(float));
  std::memcpy(c + i, bc, (n - i) * sizeof(float));
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_KERNELS_CPU_TRIG_HWY_INL_H_
