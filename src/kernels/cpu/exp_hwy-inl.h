// Highway's float32 Exp with its last steps done by AVX-512's own instructions, for arguments in
// [-87.3, 88.7] (ExpOp's fast range, softmax's clamped x - max). Included once per target like
// unary_hwy-inl.h (see there).
//
// Note [Exp by scalef]: hn::Exp computes q = trunc(x / ln2 +- 0.5) as an int32 (with an overflow
// fix-up), reduces x by q * ln2 in two parts, evaluates its polynomial, then multiplies by 2^q
// as two powers of two built with integer shifts (so that q = 128 does not overflow), and masks
// x < -104 to zero: about 26 instructions a vector, of which the polynomial is a third. On
// AVX-512, `vrndscaleps` gives trunc as a float (q exactly, |q| < 2^23) and `vscalefps` gives
// y * 2^q in one instruction; on that range y * 2^q is a normal float32, so both scalings are
// exact and the result has the same bits as hn::Exp's: checked once for all 2,237,661,200
// float32 values in [-87.3, 88.7] (a throwaway program comparing the two vector by vector; the
// tests check exp against std::exp and the half exps against the float32 one). 14
// instructions: float32 exp on 64K elements 31 -> 21-24 us, bfloat16 38 -> 28 us (one thread,
// loaded machine). Other targets, float64 and partial vectors take hn::Exp.
#if defined(EMBER_KERNELS_CPU_EXP_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_EXP_HWY_INL_H_
#undef EMBER_KERNELS_CPU_EXP_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_EXP_HWY_INL_H_
#endif

#include <type_traits>

#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// hn::Exp(d, x), bit for bit, for every x in [-87.3, 88.7] (Note [Exp by scalef]); elsewhere
// whatever hn::Exp gives on targets without AVX-512, and unspecified on AVX-512.
template <class D, class V>
HWY_INLINE V ExpInRange(D d, V x) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (std::is_same_v<V, hn::Vec512<float>>) {
    // The same operations as hn::Exp (math-inl.h), in its order.
    const V t = hn::MulAdd(x, hn::Set(d, 1.442695040888963407359924681f),
                           hn::Or(hn::Set(d, 0.5f), hn::And(x, hn::Set(d, -0.0f))));
    const V q{_mm512_roundscale_ps(t.raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)};
    V r = hn::MulAdd(q, hn::Set(d, -0.693145751953125f), x);  // ExpImpl<float>::ExpReduce
    r = hn::MulAdd(q, hn::Set(d, -1.428606765330187045e-6f), r);
    const V y = hn::Add(hn::impl::ExpImpl<float>().ExpPoly(d, r), hn::Set(d, 1.0f));
    return V{_mm512_scalef_ps(y.raw, q.raw)};
  }
#endif
  return hn::Exp(d, x);
}

// Note [Denormal exp in float32 lanes]: for x in [-103.98, -87.3) float32's exp is a denormal
// (or the smallest normals), and ExpFix computes it in float64 lanes rounded once: exact to the
// last bit, but four float64 lanes a step with float64's longer polynomial, 1.8-3.3x the time of
// exp on randn (softplus, mish, exp of -100). A denormal result is an integer multiple of
// 2^-149 (the bits of the float are that integer, also for the first normal binade), so it is
// exp(x) 2^149 rounded to the nearest integer (ties to even, as the conversion rounds). Here
// that M = p 2^(q+149) comes from hn::Exp's own float32 reduction and polynomial p (q + 149 in
// [-1, 17], so the scaling is exact), and its nearest integer from a float add (below): no
// float32 operation ever makes a denormal. m, M rounded to float32, is within M 2^-23.5 of
// exp(x) 2^149 over the whole band (measured for every float32 of [-103.98, -87], on AVX2 with
// FMA and on SSE4 without; AVX-512 lanes compute the same FMAs), so the rounding is exp's own
// unless m lies within M 2^-23 of a half-integer: those lanes are returned in `hard`, and the
// caller takes the float64 path for their vector, so every result keeps the float64 path's bits
// (the margin is only 1.4x: what proves it is the check of all 2.2M float32 values of the band,
// tests/python/test_denormal_results.py, run on the AVX2, SSE4 and scalar targets). At x ~ -95
// (M ~ 2^12) 1 lane in 1000 is hard (under 1% of vectors; with the earlier M 2^-20, 6%); near
// -87.3 most are.
//
// Every conversion goes through the float 1.5 2^23 (C): fl(v + C) - C is v rounded to the nearest
// integer, ties to even as cvtps2dq does, and bits(v + C) - bits(C) is that integer, for |v| <
// 2^22. So q = x / ln2 rounded comes from one FMA (hn::Exp rounds halves away from zero: the
// same q but where x / ln2 is within a rounding of a half-integer, where either q leaves the
// reduced argument inside the polynomial's range), and M's integer from one add: no
// saturation fix-ups (8 operations of ToInt32 and NearestInt), no clamp of 2^(q + 149). The
// caller passes x in [kExpZero, kExpEasy] only (M < 2^17, q + 149 in [-1, 17]).
template <class D, class V>
HWY_INLINE V ExpDenormalF32(D d, V x, hn::Mask<D>& hard) {
  const hn::RebindToSigned<D> di;
  hn::impl::ExpImpl<float> impl;
  const V c = hn::Set(d, 0x1.8p23f);
  const auto c_bits = hn::BitCast(di, c);
  const V tq = hn::MulAdd(x, hn::Set(d, 1.442695040888963407359924681f), c);
  const V qf = hn::Sub(tq, c);
  V r = hn::MulAdd(qf, hn::Set(d, -0.693145751953125f), x);  // ExpImpl<float>::ExpReduce
  r = hn::MulAdd(qf, hn::Set(d, -1.428606765330187045e-6f), r);
  // M = (1 + P(r)) 2^(q + 149) as P s + s, one rounding; s's exponent field is q + 149 + 127
  const auto k = hn::Sub(hn::BitCast(di, tq), hn::Sub(c_bits, hn::Set(di, 149 + 127)));
  const V s = hn::BitCast(d, hn::ShiftLeft<23>(k));
  const V m = hn::MulAdd(impl.ExpPoly(d, r), s, s);
  const V tm = hn::Add(m, c);
  const V frac = hn::Abs(hn::Sub(m, hn::Sub(tm, c)));  // distance to the nearest integer
  hard = hn::Gt(frac, hn::NegMulAdd(m, hn::Set(d, 0x1p-23f), hn::Set(d, 0.5f)));
  return hn::BitCast(d, hn::Sub(hn::BitCast(di, tm), c_bits));
}

// fl(g e) for float32 lanes whose |e| < 2^-126 (a denormal or zero), without a float32 multiply
// by a denormal made in registers (ExpDenormalF32's results): on this Zen 4 such a multiply cost
// ~50 ns a vector (softplus' backward of -100 took 8x randn; a denormal loaded from memory
// costs nothing). e = m 2^-149 with m its bits, so |g| m is exact in float64 and the product
// is that times 2^-149: its nearest integer where it is below 2^23 (the denormal's bits), else
// float64's rounding of the normal value. The sign is the XOR of the signs.
#if HWY_TARGET != HWY_SCALAR
template <class D, class V>
HWY_INLINE V MulByDenormalF32(D d, V g, V e) {
  const hn::RebindToSigned<D> di;
  const hn::Repartition<double, D> dd;
  const hn::Half<D> dh;
  const hn::Half<decltype(di)> dih;
  const hn::Rebind<int32_t, decltype(dd)> dd_i;
  const auto m = hn::BitCast(di, hn::Abs(e));
  const V ag = hn::Abs(g);
  const auto product = [&](auto gh, auto mh) {
    return hn::Mul(hn::PromoteTo(dd, gh), hn::PromoteTo(dd, mh));
  };
  const auto lo = product(hn::LowerHalf(dh, ag), hn::LowerHalf(dih, m));
  const auto hi = product(hn::UpperHalf(dh, ag), hn::UpperHalf(dih, m));
  const V pf = hn::Combine(d, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
  const auto bits = [&](auto p) {  // the nearest integer, ties to even (exact below 2^24)
    return hn::DemoteTo(dd_i, hn::Round(hn::Min(p, hn::Set(dd, 0x1p24))));
  };
  const auto normal = [&](auto p) {
    return hn::DemoteTo(dh, hn::Mul(hn::Max(p, hn::Set(dd, 0x1p23)), hn::Set(dd, 0x1p-149)));
  };
  const V den = hn::BitCast(d, hn::Combine(di, bits(hi), bits(lo)));
  const V r =
      hn::IfThenElse(hn::Lt(pf, hn::Set(d, 0x1p23f)), den, hn::Combine(d, normal(hi), normal(lo)));
  const V signed_r = hn::Or(r, hn::And(hn::Xor(g, e), hn::SignBit(d)));
  // NaN products: a NaN g times 1 (g quieted, as times e), or inf times 0 (e itself); never
  // a multiply by the denormal (even in lanes that are blended away).
  const V one_or_zero =
      hn::IfThenElseZero(hn::RebindMask(d, hn::Ne(m, hn::Zero(di))), hn::Set(d, 1.0f));
  return hn::IfThenElse(hn::IsNaN(pf), hn::Mul(g, one_or_zero), signed_r);
}
#endif

// fl(g e) for float32 lanes whose e are all denormals or zeros, in float32 lanes: the result's
// bits are the integer |g| m rounded (m = e's bits), as in MulByDenormalF32, where that is
// below 2^23 in every lane (`ok`; else the caller takes MulByDenormalF32). p = fl(|g| m) and
// its error r = |g| m - p (an FMA, exact) give the rounding: round(p) is |g| m's nearest
// integer unless p is a half-integer (every float below 2^23 is a multiple of 2^-1 or finer,
// so p + r lies on p's side of every half-integer but p itself); then r's sign decides, and
// r = 0 is a tie, to even as round(p). Where |g| m underflows (|g| < 2^-126), p < 1/2 and the
// result is zero either way; NaN and inf give p >= 2^23 or NaN, so not `ok`. No float32
// operation makes a denormal (on this AMD core a blend of such integer-made denormals with a
// product cost ~15 ns a vector, as a multiply by one does).
template <class D, class V>
HWY_INLINE V MulByDenormalSmallF32(D d, V g, V e, bool& ok) {
  const hn::RebindToSigned<D> di;
  const V mf = hn::ConvertTo(d, hn::BitCast(di, hn::Abs(e)));
  const V ag = hn::Abs(g);
  const V p = hn::Mul(ag, mf);
  const V r = hn::MulSub(ag, mf, p);
  const V n0 = hn::Round(p);
  const V t = hn::Sub(p, n0);  // +-1/2 where p is a half-integer
  const auto away =
      hn::And(hn::Eq(hn::Abs(t), hn::Set(d, 0.5f)), hn::Gt(hn::Mul(t, r), hn::Zero(d)));
  const V n = hn::Add(n0, hn::IfThenElseZero(away, hn::Add(t, t)));
  ok = hn::AllTrue(d, hn::Lt(p, hn::Set(d, 0x1p23f)));
  return hn::Or(hn::BitCast(d, hn::ConvertTo(di, n)), hn::And(hn::Xor(g, e), hn::SignBit(d)));
}

// g e, for any float lanes: MulByDenormalF32 where e is a float32 denormal, else the multiply;
// MulByDenormalSmallF32 when every lane is such a product and below 2^-126 (targets with FMA).
template <class D, class V>
HWY_INLINE V MulExact(D d, V g, V e) {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (sizeof(hn::TFromD<D>) == 4) {
    const auto den = hn::Lt(hn::Abs(e), hn::Set(d, 0x1p-126f));
    if (HWY_UNLIKELY(!hn::AllFalse(d, den))) {
#if HWY_NATIVE_FMA  // MulByDenormalSmallF32's error term needs a fused multiply-subtract
      if (hn::AllTrue(d, den)) {  // softplus' backward of -100
        bool ok;
        const V r = MulByDenormalSmallF32(d, g, e, ok);
        if (HWY_LIKELY(ok)) return r;
      }
#endif
      return hn::IfThenElse(den, MulByDenormalF32(d, g, e), hn::Mul(g, hn::IfThenElse(den, g, e)));
    }
  }
#endif
  return hn::Mul(g, e);
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
