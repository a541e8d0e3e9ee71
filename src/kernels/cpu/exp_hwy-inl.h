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

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
