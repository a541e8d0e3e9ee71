// Contiguous bfloat16/float16 <-> float32 conversions (kernels/cpu/half.h), compiled once per
// instruction set by Highway and picked at run time, as elementwise_hwy.cpp. Rounding and NaN
// as Note [Half rounding] in include/ember/half.h: float16 through F16C (AVX2 and AVX-512
// targets; the scalar functions of half.h elsewhere, which give the same bits), bfloat16 with
// integer arithmetic (round to nearest even, NaN -> 0xFFFF).
#include <cstdint>

#include "ember/half.h"
#include "kernels/cpu/half.h"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/half_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/cpu/half_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whole vectors through half_hwy-inl.h; the tail through half.h's scalar functions (the same
// bits).
void Bf16ToF32(const uint16_t* in, float* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t N = int64_t(hn::Lanes(df));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(LoadBf16(df, in + i), df, out + i);
  for (; i < n; ++i) out[i] = float_from_bf16_bits(in[i]);
}

void F32ToBf16(const float* in, uint16_t* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t N = int64_t(hn::Lanes(df));
  int64_t i = 0;
  for (; i + N <= n; i += N) StoreBf16(df, hn::LoadU(df, in + i), out + i);
  for (; i < n; ++i) {
    const float f = in[i];
    out[i] = f != f ? uint16_t(0xFFFF) : bf16_bits_from_float(f);
  }
}

void F16ToF32(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
#if HWY_TARGET <= HWY_AVX2  // F16C; elsewhere the scalar loop is as fast as the lane-wise one
  const hn::ScalableTag<float> df;
  const int64_t N = int64_t(hn::Lanes(df));
  for (; i + N <= n; i += N) hn::StoreU(LoadF16(df, in + i), df, out + i);
#endif
  for (; i < n; ++i) out[i] = float_from_f16_bits(in[i]);
}

void F32ToF16(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
#if HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> df;
  const int64_t N = int64_t(hn::Lanes(df));
  for (; i + N <= n; i += N) StoreF16(df, hn::LoadU(df, in + i), out + i);
#endif
  for (; i < n; ++i) out[i] = f16_bits_from_float(in[i]);
}

// format: 1 bfloat16, 2 float16 (as softmax_hwy.cpp).
float SumHalf(int format, const uint16_t* in, int64_t n) {
  const hn::ScalableTag<float> df;
  using V = hn::Vec<decltype(df)>;
  const int64_t N = int64_t(hn::Lanes(df));
  auto load = [&](const uint16_t* p) { return format == 1 ? LoadBf16(df, p) : LoadF16(df, p); };
  V s0 = hn::Zero(df), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, load(in + i));
    s1 = hn::Add(s1, load(in + i + N));
    s2 = hn::Add(s2, load(in + i + 2 * N));
    s3 = hn::Add(s3, load(in + i + 3 * N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, load(in + i));
  HWY_ALIGN float lanes[4 * hn::MaxLanes(df)];
  hn::Store(s0, df, lanes);
  hn::Store(s1, df, lanes + N);
  hn::Store(s2, df, lanes + 2 * N);
  hn::Store(s3, df, lanes + 3 * N);
  double s = 0;
  for (int64_t k = 0; k < 4 * N; ++k) s += lanes[k];
  for (; i < n; ++i) s += format == 1 ? float_from_bf16_bits(in[i]) : float_from_f16_bits(in[i]);
  return float(s);
}

// relu_half_bits in 16-bit lanes: x > 0 as a signed compare of the bits (sign clear, not +0).
void ReluHalf(int format, const uint16_t* in, uint16_t* out, int64_t n) {
  const hn::ScalableTag<int16_t> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const bool bf16 = format == 0;
  const auto inf = hn::Set(d, int16_t(bf16 ? 0x7F80 : 0x7C00)), mask = hn::Set(d, 0x7FFF);
  const auto quiet = hn::Set(d, int16_t(bf16 ? -1 : 0x0200));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto b = hn::LoadU(d, reinterpret_cast<const int16_t*>(in + i));
    const auto nan = hn::Gt(hn::And(b, mask), inf);
    const auto keep = hn::IfThenElseZero(hn::Gt(b, hn::Zero(d)), b);
    hn::StoreU(hn::IfThenElse(nan, hn::Or(b, quiet), keep), d, reinterpret_cast<int16_t*>(out + i));
  }
  for (; i < n; ++i) out[i] = relu_half_bits(in[i], bf16);
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {
HWY_EXPORT(Bf16ToF32);
HWY_EXPORT(F32ToBf16);
HWY_EXPORT(F16ToF32);
HWY_EXPORT(F32ToF16);
HWY_EXPORT(SumHalf);
HWY_EXPORT(ReluHalf);

void half_relu(DType dt, const void* in, void* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ReluHalf)
  (dt == DType::BFloat16 ? 0 : 1, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), n);
}

float half_sum(DType dt, const void* in, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumHalf)(dt == DType::BFloat16 ? 1 : 2,
                                       static_cast<const uint16_t*>(in), n);
}

void half_to_float(DType dt, const void* in, float* out, int64_t n) {
  const auto* p = static_cast<const uint16_t*>(in);
  if (dt == DType::BFloat16) HWY_DYNAMIC_DISPATCH(Bf16ToF32)(p, out, n);
  else HWY_DYNAMIC_DISPATCH(F16ToF32)(p, out, n);
}

void float_to_half(DType dt, const float* in, void* out, int64_t n) {
  auto* p = static_cast<uint16_t*>(out);
  if (dt == DType::BFloat16) HWY_DYNAMIC_DISPATCH(F32ToBf16)(in, p, n);
  else HWY_DYNAMIC_DISPATCH(F32ToF16)(in, p, n);
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
