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

// Pairs of a run: kRun 32-bit words per row, a multiple of any vector's lanes.
constexpr size_t kRun = 512;

// The runs of one plane: the top and bottom pairs of each output, and its window's first index.
struct Runs {
  HWY_ALIGN uint32_t top[kRun];
  HWY_ALIGN uint32_t bottom[kRun];
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

// Outputs [0, n) of the runs into out and idx (n <= kRun).
void MaxRuns(const Runs& r, size_t n, int32_t w, uint16_t inf_bits, uint16_t* out, int64_t* idx) {
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const hn::Rebind<uint16_t, decltype(di)> d16;
  const size_t N = hn::Lanes(du);
  const auto inf = hn::Set(di, int32_t(inf_bits));
  const auto low = hn::Set(du, 0xFFFFu);
  HWY_ALIGN uint16_t out_tail[hn::MaxLanes(d16)];  // the last partial vector's outputs
  for (size_t i = 0; i < n; i += N) {
    const auto top = hn::Load(du, r.top + i), bottom = hn::Load(du, r.bottom + i);
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
    const bool whole = i + N <= n;
    uint16_t* o = whole ? out + i : out_tail;
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, bits)), d16, o);
    if (idx) {  // widened by a plain loop (the compiler's sign extension), on every target
      HWY_ALIGN int32_t at[hn::MaxLanes(di)];
      hn::Store(hn::Add(hn::Load(di, r.first + i), arg), di, at);
      const size_t m = std::min(N, n - i);
      for (size_t k = 0; k < m; ++k) idx[i + k] = at[k];
    }
    if (!whole) std::memcpy(out + i, out_tail, (n - i) * sizeof(uint16_t));
  }
}

void MaxPool2x2Half(bool fp16, const uint16_t* src, int64_t rs, int64_t w, int64_t ho,
                    int64_t wo, uint16_t* out, int64_t* idx) {
  Runs r;
  const uint16_t inf_bits = fp16 ? 0x7C00 : 0x7F80;
  size_t fill = 0;
  int64_t done = 0;  // outputs written before the current runs
  const auto flush = [&] {
    const size_t N = hn::Lanes(hn::ScalableTag<uint32_t>());
    const size_t end = std::min(kRun, (fill + N - 1) / N * N);  // zeros up to a whole vector
    std::fill(r.top + fill, r.top + end, 0u);
    std::fill(r.bottom + fill, r.bottom + end, 0u);
    std::fill(r.first + fill, r.first + end, 0);
    MaxRuns(r, fill, int32_t(w), inf_bits, out + done, idx ? idx + done : nullptr);
    done += int64_t(fill);
    fill = 0;
  };
  for (int64_t oh = 0; oh < ho; ++oh) {
    const uint16_t* row = src + 2 * oh * rs;
    for (int64_t k0 = 0; k0 < wo;) {
      const int64_t n = std::min<int64_t>(wo - k0, int64_t(kRun - fill));
      std::memcpy(r.top + fill, row + 2 * k0, size_t(n) * 4);
      std::memcpy(r.bottom + fill, row + rs + 2 * k0, size_t(n) * 4);
      const int32_t first = int32_t(2 * oh * w + 2 * k0);
      for (int64_t k = 0; k < n; ++k) r.first[fill + size_t(k)] = first + 2 * int32_t(k);
      fill += size_t(n);
      k0 += n;
      if (fill == kRun) flush();
    }
  }
  if (fill) flush();
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(MaxPool2x2Half);

void max_pool2x2_half_plane(bool fp16, const uint16_t* src, int64_t rs, int64_t w, int64_t ho,
                            int64_t wo, uint16_t* out, int64_t* idx) {
  HWY_DYNAMIC_DISPATCH(MaxPool2x2Half)(fp16, src, rs, w, ho, wo, out, idx);
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
