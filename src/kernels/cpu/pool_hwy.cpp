// The 2x2 / stride 2 max pooling of pool_hwy.h. Highway's foreach_target.h includes this file
// once per instruction set (HWY_TARGET_INCLUDE); the part under HWY_ONCE picks a copy at run
// time (HWY_DYNAMIC_DISPATCH). Same layout as half_hwy.cpp.
//
// Note [Max pool 2x2 on bits]
// A window's two columns are one 32-bit word of a row (little-endian: the left column in the
// low half), so a 32-bit lane holds one output's pair from each of the two rows, loaded
// without gathers or shuffles. The four candidates are compared as integer keys of their bit
// patterns: |x| for x >= 0, -|x| for x < 0 (so -0 and +0 tie, as float compares have them),
// and NaN above every number. A candidate wins when its key is strictly larger or it is NaN,
// in the scalar loop's order (left, right of the top row, then the bottom row), so a NaN keeps
// its payload and the last NaN wins, ties keep the first index: the float32 compare's result
// for bfloat16 and float16 alike, and the winner's own 16 bits are stored (no rounding).
// The rows of a plane are short (14 and 7 outputs in the Fashion-MNIST CNN), so the pairs of
// several output rows are copied into one contiguous run first and the vectors run over it.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/pool_hwy.h"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/pool_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Outputs of a run: a multiple of any vector's lanes.
constexpr size_t kRun = 512;

// The runs of one plane, element type T: each output's column pair in the top and bottom rows
// (2 kRun elements each), and its window's first index.
template <class T>
struct Runs {
  HWY_ALIGN T top[2 * kRun];
  HWY_ALIGN T bottom[2 * kRun];
  HWY_ALIGN int32_t first[kRun];
};

// The key of the 16-bit pattern in the low half of each lane (Note [Max pool 2x2 on bits]);
// nan gets the lanes holding a NaN.
template <class DI, class VU>
HWY_INLINE hn::Vec<DI> Key(DI di, VU bits, hn::Vec<DI> inf, hn::Mask<DI>& nan) {
  const auto mag = hn::And(hn::BitCast(di, bits), hn::Set(di, 0x7FFF));
  nan = hn::Gt(mag, inf);
  const auto neg = hn::Ne(hn::And(hn::BitCast(di, bits), hn::Set(di, 0x8000)), hn::Zero(di));
  return hn::IfThenElse(nan, hn::Set(di, 0x10000), hn::IfThenElse(neg, hn::Neg(mag), mag));
}

// The window's first index plus each lane's argmax offset into idx[0, m), widened by a plain
// loop (the compiler's sign extension, on every target).
template <class DI>
HWY_INLINE void StoreIndices(DI di, const int32_t* first, hn::Vec<DI> arg, size_t m, int64_t* idx) {
  HWY_ALIGN int32_t at[hn::MaxLanes(di)];
  hn::Store(hn::Add(hn::Load(di, first), arg), di, at);
  for (size_t k = 0; k < m; ++k) idx[k] = at[k];
}

// Outputs [0, n) of 16-bit runs into out and idx (n <= kRun): each 32-bit lane is one pair.
void MaxRuns(const Runs<uint16_t>& r, size_t n, int32_t w, uint16_t inf_bits, uint16_t* out,
             int64_t* idx) {
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const hn::Rebind<uint16_t, decltype(di)> d16;
  const size_t N = hn::Lanes(du);
  const auto inf = hn::Set(di, int32_t(inf_bits));
  const auto low = hn::Set(du, 0xFFFFu);
  HWY_ALIGN uint16_t out_tail[hn::MaxLanes(d16)];  // the last partial vector's outputs
  const auto* top_pairs = reinterpret_cast<const uint32_t*>(r.top);
  const auto* bottom_pairs = reinterpret_cast<const uint32_t*>(r.bottom);
  for (size_t i = 0; i < n; i += N) {
    const auto top = hn::Load(du, top_pairs + i), bottom = hn::Load(du, bottom_pairs + i);
    auto bits = hn::And(top, low);
    hn::Mask<decltype(di)> nan;
    auto best = Key(di, bits, inf, nan);
    auto arg = hn::Zero(di);
    const auto take = [&](hn::Vec<decltype(du)> v, int32_t at) {
      hn::Mask<decltype(di)> v_nan;
      const auto key = Key(di, v, inf, v_nan);
      const auto t = hn::Or(hn::Gt(key, best), v_nan);
      best = hn::IfThenElse(t, key, best);
      bits = hn::IfThenElse(hn::RebindMask(du, t), v, bits);
      arg = hn::IfThenElse(t, hn::Set(di, at), arg);
    };
    take(hn::ShiftRight<16>(top), 1);
    take(hn::And(bottom, low), w);
    take(hn::ShiftRight<16>(bottom), w + 1);
    const size_t m = std::min(N, n - i);
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, bits)), d16, m == N ? out + i : out_tail);
    if (m < N) std::memcpy(out + i, out_tail, m * sizeof(uint16_t));
    if (idx) StoreIndices(di, r.first + i, arg, m, idx + i);
  }
}

// The left (Even) and right (Odd) columns of the pairs in lo, hi; on the one-lane scalar
// target, lo holds the left one and hi the right one.
template <class D, class V>
HWY_INLINE V Even(D d, V hi, V lo) {
#if HWY_TARGET == HWY_SCALAR
  (void)d, (void)hi;
  return lo;
#else
  return hn::ConcatEven(d, hi, lo);
#endif
}
template <class D, class V>
HWY_INLINE V Odd(D d, V hi, V lo) {
#if HWY_TARGET == HWY_SCALAR
  (void)d, (void)lo;
  return hi;
#else
  return hn::ConcatOdd(d, hi, lo);
#endif
}

// Outputs [0, n) of float32 runs: the pairs split into left and right columns by ConcatEven /
// ConcatOdd, compared as floats in the scalar loop's order ((v > best) | isnan(v)), so the
// winner's own bits (a NaN's payload too) are stored.
void MaxRuns(const Runs<float>& r, size_t n, int32_t w, uint16_t, float* out, int64_t* idx) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t N = hn::Lanes(df);
  HWY_ALIGN float out_tail[hn::MaxLanes(df)];
  for (size_t i = 0; i < n; i += N) {
    const auto t0 = hn::Load(df, r.top + 2 * i), t1 = hn::Load(df, r.top + 2 * i + N);
    const auto b0 = hn::Load(df, r.bottom + 2 * i), b1 = hn::Load(df, r.bottom + 2 * i + N);
    auto best = Even(df, t1, t0);
    auto arg = hn::Zero(di);
    const auto take = [&](hn::Vec<decltype(df)> v, int32_t at) {
      const auto t = hn::Or(hn::Gt(v, best), hn::IsNaN(v));
      best = hn::IfThenElse(t, v, best);
      arg = hn::IfThenElse(hn::RebindMask(di, t), hn::Set(di, at), arg);
    };
    take(Odd(df, t1, t0), 1);
    take(Even(df, b1, b0), w);
    take(Odd(df, b1, b0), w + 1);
    const size_t m = std::min(N, n - i);
    hn::StoreU(best, df, m == N ? out + i : out_tail);
    if (m < N) std::memcpy(out + i, out_tail, m * sizeof(float));
    if (idx) StoreIndices(di, r.first + i, arg, m, idx + i);
  }
}

// One plane: the pairs of successive output rows are copied into runs of kRun outputs (rows
// of the CNN are 14 and 7 outputs wide, shorter than one vector), and each full run (and the
// last one) goes through MaxRuns.
template <class T>
void MaxPlane(const T* src, int64_t rs, int64_t w, int64_t ho, int64_t wo, uint16_t inf_bits,
              T* out, int64_t* idx) {
  Runs<T> r;
  size_t fill = 0;
  int64_t done = 0;  // outputs written before the current runs
  const auto flush = [&] {
    const size_t N = hn::Lanes(hn::ScalableTag<uint32_t>());
    const size_t end = std::min(kRun, (fill + N - 1) / N * N);  // zeros up to a whole vector
    std::fill(r.top + 2 * fill, r.top + 2 * end, T(0));
    std::fill(r.bottom + 2 * fill, r.bottom + 2 * end, T(0));
    std::fill(r.first + fill, r.first + end, 0);
    MaxRuns(r, fill, int32_t(w), inf_bits, out + done, idx ? idx + done : nullptr);
    done += int64_t(fill);
    fill = 0;
  };
  for (int64_t oh = 0; oh < ho; ++oh) {
    const T* row = src + 2 * oh * rs;
    for (int64_t k0 = 0; k0 < wo;) {
      const int64_t n = std::min<int64_t>(wo - k0, int64_t(kRun - fill));
      std::memcpy(r.top + 2 * fill, row + 2 * k0, size_t(n) * 2 * sizeof(T));
      std::memcpy(r.bottom + 2 * fill, row + rs + 2 * k0, size_t(n) * 2 * sizeof(T));
      const int32_t first = int32_t(2 * oh * w + 2 * k0);
      for (int64_t k = 0; k < n; ++k) r.first[fill + size_t(k)] = first + 2 * int32_t(k);
      fill += size_t(n);
      k0 += n;
      if (fill == kRun) flush();
    }
  }
  if (fill) flush();
}

void MaxPool2x2Half(bool fp16, const uint16_t* src, int64_t rs, int64_t w, int64_t ho, int64_t wo,
                    uint16_t* out, int64_t* idx) {
  MaxPlane(src, rs, w, ho, wo, fp16 ? 0x7C00 : 0x7F80, out, idx);
}

void MaxPool2x2F32(const float* src, int64_t rs, int64_t w, int64_t ho, int64_t wo, float* out,
                   int64_t* idx) {
  MaxPlane(src, rs, w, ho, wo, 0, out, idx);
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(MaxPool2x2Half);
HWY_EXPORT(MaxPool2x2F32);

void max_pool2x2_half_plane(bool fp16, const uint16_t* src, int64_t rs, int64_t w, int64_t ho,
                            int64_t wo, uint16_t* out, int64_t* idx) {
  HWY_DYNAMIC_DISPATCH(MaxPool2x2Half)(fp16, src, rs, w, ho, wo, out, idx);
}

void max_pool2x2_f32_plane(const float* src, int64_t rs, int64_t w, int64_t ho, int64_t wo,
                           float* out, int64_t* idx) {
  HWY_DYNAMIC_DISPATCH(MaxPool2x2F32)(src, rs, w, ho, wo, out, idx);
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
