// One vector of float32 lanes from/to bfloat16 or float16 storage, for the Highway kernels that
// widen half data in registers (half_hwy.cpp's conversions, softmax_hwy.cpp). Rounding and NaN as
// Note [Half rounding] (include/ember/half.h): bfloat16 rounds to nearest even with integer
// arithmetic and a NaN becomes 0xFFFF; float16 goes through F16C on AVX2 and AVX-512 targets and
// through half.h's scalar functions elsewhere (the same bits). Included once per target like
// unary_hwy-inl.h (see there).
#if defined(EMBER_KERNELS_CPU_HALF_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_HALF_HWY_INL_H_
#undef EMBER_KERNELS_CPU_HALF_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_HALF_HWY_INL_H_
#endif

#include <cstdint>

#include "ember/half.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes(df) bfloat16 values from p, widened (exact).
template <class DF>
HWY_INLINE hn::Vec<DF> LoadBf16(DF df, const uint16_t* p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::Rebind<uint16_t, DF> du16;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
}

// v rounded to bfloat16 into Lanes(df) values at p.
template <class DF>
HWY_INLINE void StoreBf16(DF df, hn::Vec<DF> v, uint16_t* p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto u = hn::BitCast(du32, v);
  const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du32, 1u));
  auto r = hn::ShiftRight<16>(hn::Add(u, hn::Add(hn::Set(du32, 0x7FFFu), odd)));
  r = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Set(du32, 0xFFFFu), r);
  hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, r)), du16, p);
}

// Lanes(df) float16 values from p, widened (exact).
template <class DF>
HWY_INLINE hn::Vec<DF> LoadF16(DF df, const uint16_t* p) {
#if HWY_TARGET <= HWY_AVX2  // F16C: vcvtph2ps
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
#else
  HWY_ALIGN float buf[hn::MaxLanes(df)];
  for (size_t i = 0; i < hn::Lanes(df); ++i) buf[i] = float_from_f16_bits(p[i]);
  return hn::Load(df, buf);
#endif
}

// v rounded to float16 (nearest even) into Lanes(df) values at p.
template <class DF>
HWY_INLINE void StoreF16(DF df, hn::Vec<DF> v, uint16_t* p) {
#if HWY_TARGET <= HWY_AVX2  // F16C: vcvtps2ph
  const hn::Rebind<hwy::float16_t, DF> dh;
  hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(p));
#else
  HWY_ALIGN float buf[hn::MaxLanes(df)];
  hn::Store(v, df, buf);
  for (size_t i = 0; i < hn::Lanes(df); ++i) p[i] = f16_bits_from_float(buf[i]);
#endif
}

// The storage formats of float32-lane kernels: Load widens a vector (exact), Store rounds once,
// Widen is one element.
struct FormatF32 {
  using S = float;
  template <class D>
  static hn::Vec<D> Load(D d, const float* p) {
    return hn::LoadU(d, p);
  }
  template <class D>
  static void Store(D d, hn::Vec<D> v, float* p) {
    hn::StoreU(v, d, p);
  }
  static float Widen(float x) { return x; }
};
struct FormatBf16 {
  using S = uint16_t;
  template <class D>
  static hn::Vec<D> Load(D d, const uint16_t* p) {
    return LoadBf16(d, p);
  }
  template <class D>
  static void Store(D d, hn::Vec<D> v, uint16_t* p) {
    StoreBf16(d, v, p);
  }
  static float Widen(uint16_t x) { return float_from_bf16_bits(x); }
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // Two vectors (32 values) at a time on AVX-512: one load, each value widened by a zip with
  // zero (in-block order: a gets values 0-3, 8-11, 16-19, 24-27, b the others), and on the way
  // back one two-table permute of the rounded high halves into order (instead of a shift, a
  // pack and a lane permute per vector). The same bits as Load/Store.
  static constexpr bool kPairs = true;
  static void Load2(hn::Full512<float> d, const uint16_t* p, hn::Vec512<float>& a,
                    hn::Vec512<float>& b) {
    const hn::Full512<uint16_t> du16;
    const hn::Full512<uint32_t> du32;
    const auto v = hn::LoadU(du16, p);
    a = hn::BitCast(d, hn::ZipLower(du32, hn::Zero(du16), v));
    b = hn::BitCast(d, hn::ZipUpper(du32, hn::Zero(du16), v));
  }
  static void Store2(hn::Full512<float> d, hn::Vec512<float> a, hn::Vec512<float> b, uint16_t* p) {
    const hn::Full512<uint32_t> du32;
    const auto round = [&](hn::Vec512<float> v) {  // StoreBf16's rounding, kept in 32 bits
      const auto u = hn::BitCast(du32, v);
      const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du32, 1u));
      const auto r = hn::Add(u, hn::Add(hn::Set(du32, 0x7FFFu), odd));
      return hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Set(du32, ~0u), r);
    };
    // Value j sits in the high half of 32-bit lane 4(j / 8) + j % 4 of a (j % 8 < 4) or b.
    alignas(64) static constexpr uint16_t kIdx[32] = {1,  3,  5,  7,  33, 35, 37, 39, 9,  11, 13,
                                                      15, 41, 43, 45, 47, 17, 19, 21, 23, 49, 51,
                                                      53, 55, 25, 27, 29, 31, 57, 59, 61, 63};
    const __m512i idx = _mm512_load_si512(kIdx);
    hn::StoreU(hn::Vec512<uint16_t>{_mm512_permutex2var_epi16(round(a).raw, idx, round(b).raw)},
               hn::Full512<uint16_t>(), p);
  }
#endif
};
struct FormatF16 {
  using S = uint16_t;
  template <class D>
  static hn::Vec<D> Load(D d, const uint16_t* p) {
    return LoadF16(d, p);
  }
  template <class D>
  static void Store(D d, hn::Vec<D> v, uint16_t* p) {
    StoreF16(d, v, p);
  }
  static float Widen(uint16_t x) { return float_from_f16_bits(x); }
};

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
