// sin and cos of float32 arguments of any size, for the lanes beyond Highway's reduction
// (|x| > 39000): the argument is reduced exactly with the bits of 2/pi (Payne-Hanek, the
// windows of two_over_pi.h) in float64 lanes, and sin/cos of the remainder, |y| <= pi/4,
// is computed in float64 too, so the one rounding to float32 at the end is as good as std::sinf's.
// Included once per target like unary_hwy-inl.h (see there).
#if defined(EMBER_KERNELS_CPU_TRIG_LARGE_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_TRIG_LARGE_HWY_INL_H_
#undef EMBER_KERNELS_CPU_TRIG_LARGE_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_TRIG_LARGE_HWY_INL_H_
#endif

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/cpu/two_over_pi.h"
#include "kernels/cpu/unary_hwy-inl.h"  // Widened

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// sin(x) (Cos = false) or cos(x) of float64 lanes that hold float32 values, |x| >= 2^-126
// (normal floats; the caller sends only huge ones), NaN and inf giving NaN.
template <bool Cos, class DD, class VD>
HWY_INLINE VD SinCosOfFloatValues(DD dd, VD x) {
  using VI = hn::Vec<hn::RebindToSigned<DD>>;
  const hn::RebindToSigned<DD> di;
  const VD ax = hn::Abs(x);
  // x = m 2^e: the float's biased exponent picks the windows; m = |x| 2^-e is exact.
  const VI biased64 = hn::ShiftRight<52>(hn::BitCast(di, ax));
  const VI biased =
      hn::Min(hn::Max(hn::Sub(biased64, hn::Set(di, 1023 - 127)), hn::Zero(di)), hn::Set(di, 255));
  // 2^-e as a double: exponent field 1023 - e = 1023 - (biased - 150).
  const VD inv_scale = hn::BitCast(dd, hn::ShiftLeft<52>(hn::Sub(hn::Set(di, 1023 + 150), biased)));
  const VD m = hn::Mul(ax, inv_scale);
  const VD w0 = hn::GatherIndex(dd, kTwoOverPiWindows.w0.data(), biased);
  const VD w1 = hn::GatherIndex(dd, kTwoOverPiWindows.w1.data(), biased);
  const VD w2 = hn::GatherIndex(dd, kTwoOverPiWindows.w2.data(), biased);
  // Each product is exact (< 2^52); p0 keeps its value mod 4 exactly.
  const VD p0 = hn::Mul(hn::Mul(m, w0), hn::Set(dd, 0x1p-26));
  const VD p1 = hn::Mul(hn::Mul(m, w1), hn::Set(dd, 0x1p-54));
  const VD p2 = hn::Mul(hn::Mul(m, w2), hn::Set(dd, 0x1p-82));
  const VD f0 = hn::NegMulAdd(hn::Floor(hn::Mul(p0, hn::Set(dd, 0.25))), hn::Set(dd, 4.0), p0);
  // |x| 2/pi = q + r with q an integer (the quadrant) and |r| <= 1/2: r = (f0 - q) + p1 + p2,
  // the first sum error-free (TwoSum) since the remainder can be far smaller than p1.
  const VD q = hn::Round(hn::Add(f0, p1));
  const VD a = hn::Sub(f0, q);
  const VD s = hn::Add(a, p1);
  const VD bb = hn::Sub(s, a);
  const VD err = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(p1, bb));
  const VD r = hn::Add(s, hn::Add(err, p2));
  const VD y = hn::Mul(r, hn::Set(dd, 1.57079632679489661923));
  // sin(|x|) by quadrant q mod 4: sin y, cos y, -sin y, -cos y; cos(|x|) is quadrant q + 1.
  const VI quadrant = hn::Add(hn::ConvertTo(di, q), hn::Set(di, Cos ? 1 : 0));
  const auto use_cos = hn::RebindMask(dd, hn::Ne(hn::And(quadrant, hn::Set(di, 1)), hn::Zero(di)));
  const auto negate = hn::RebindMask(dd, hn::Ne(hn::And(quadrant, hn::Set(di, 2)), hn::Zero(di)));
  // |y| <= pi/4: Taylor polynomials, truncated below 1e-10 relative (float32 needs 6e-8).
  const VD z = hn::Mul(y, y);
  VD ps = hn::Set(dd, -1.0 / 39916800);  // sin y = y (1 - z/3! + z^2/5! - ... - z^5/11!)
  for (double c : {1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6, 1.0})
    ps = hn::MulAdd(ps, z, hn::Set(dd, c));
  VD pc = hn::Set(dd, 1.0 / 479001600);  // cos y = 1 - z/2! + ... + z^6/12!
  for (double c : {-1.0 / 3628800, 1.0 / 40320, -1.0 / 720, 1.0 / 24, -0.5, 1.0})
    pc = hn::MulAdd(pc, z, hn::Set(dd, c));
  VD v = hn::IfThenElse(use_cos, pc, hn::Mul(ps, y));
  v = hn::IfThenElse(negate, hn::Neg(v), v);
  if constexpr (!Cos) v = hn::Xor(v, hn::And(hn::SignBit(dd), x));  // sin(-x) = -sin(x)
  // inf and NaN give NaN (inf - inf), as std:: does.
  const auto finite = hn::Lt(ax, hn::Set(dd, HUGE_VAL));
  return hn::IfThenElse(finite, v, hn::Sub(x, x));
}

// The float32 lanes of x through SinCosOfFloatValues.
template <bool Cos, class D, class V>
HWY_INLINE V SinCosLargeF32(D d, V x) {
  return Widened(d, x, [](auto dd, auto xd) { return SinCosOfFloatValues<Cos>(dd, xd); });
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_KERNELS_CPU_TRIG_LARGE_HWY_INL_H_
