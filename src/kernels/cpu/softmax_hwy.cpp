// The SIMD softmax of softmax_hwy.h. Highway's foreach_target.h includes this file once per
// instruction set (HWY_TARGET_INCLUDE); the part under HWY_ONCE is compiled once, splits the rows
// over the pool and calls the best copy (HWY_DYNAMIC_DISPATCH). Same layout as nn_hwy.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/half.h"

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/softmax_hwy.h"

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/softmax_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "kernels/cpu/exp_hwy-inl.h"
#include "kernels/cpu/half_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// e^x for x <= 0 (x - max): 0 below -86.6 (the true value is < 2.5e-38; exp_f's cut, and no
// denormal reaches a multiply), NaN kept. Highway's Exp is accurate on the clamped range, and
// ExpInRange gives its bits there (Note [Exp by scalef]).
template <class D, class V>
HWY_INLINE V ExpNonPositive(D d, V x) {
  const V lo = hn::Set(d, -86.6f);
  const V e = ExpInRange(d, hn::Max(x, lo));
  const V r = hn::IfThenZeroElse(hn::Lt(x, lo), e);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// One row of n elements of format Fmt. e = exp(x - m) goes to y itself for float32 and to the
// float32 scratch (n floats) for the half formats, so they round once at the end. The last
// partial vector goes through padded copies (padding -inf: it leaves the max alone and adds
// exp(-inf) = 0 to the sum), so every element sees the same vector formulas.
template <class Fmt>
void Row(const typename Fmt::S* x, typename Fmt::S* y, int64_t n, bool log, float* scratch) {
  using S = typename Fmt::S;
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = int64_t(hn::Lanes(d));
  const int64_t full = n - n % N, tail = n - full;
  float* e_out = nullptr;
  if constexpr (std::is_same_v<Fmt, FormatF32>) e_out = y;
  else e_out = scratch;
  HWY_ALIGN float xt[hn::MaxLanes(d)];
  HWY_ALIGN float et[hn::MaxLanes(d)];
  HWY_ALIGN S yt[hn::MaxLanes(d)];
  if (tail) {
    std::fill(xt, xt + N, -std::numeric_limits<float>::infinity());
    for (int64_t k = 0; k < tail; ++k) xt[k] = Fmt::Widen(x[full + k]);
  }
  // max: two accumulators; a NaN makes the whole row NaN below, whichever max it gives
  V m0 = hn::Set(d, -std::numeric_limits<float>::infinity()), m1 = m0;
  int64_t i = 0;
  for (; i + 2 * N <= full; i += 2 * N) {
    m0 = hn::Max(m0, Fmt::Load(d, x + i));
    m1 = hn::Max(m1, Fmt::Load(d, x + i + N));
  }
  if (i < full) m0 = hn::Max(m0, Fmt::Load(d, x + i));
  if (tail) m1 = hn::Max(m1, hn::Load(d, xt));
  const V vm = hn::Set(d, hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1))));
  // e = exp(x - m), kept for softmax; its sum in four float accumulators
  V s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
  auto step = [&](V xv, float* dst, V& acc) {
    const V e = ExpNonPositive(d, hn::Sub(xv, vm));
    if (!log) hn::StoreU(e, d, dst);
    acc = hn::Add(acc, e);
  };
  for (i = 0; i + 4 * N <= full; i += 4 * N) {
    step(Fmt::Load(d, x + i), e_out + i, s0);
    step(Fmt::Load(d, x + i + N), e_out + i + N, s1);
    step(Fmt::Load(d, x + i + 2 * N), e_out + i + 2 * N, s2);
    step(Fmt::Load(d, x + i + 3 * N), e_out + i + 3 * N, s3);
  }
  for (; i < full; i += N) step(Fmt::Load(d, x + i), e_out + i, s0);
  if (tail) step(hn::Load(d, xt), et, s1);
  HWY_ALIGN float lanes[4 * hn::MaxLanes(d)];
  hn::Store(s0, d, lanes);
  hn::Store(s1, d, lanes + N);
  hn::Store(s2, d, lanes + 2 * N);
  hn::Store(s3, d, lanes + 3 * N);
  double s = 0;
  for (int64_t k = 0; k < 4 * N; ++k) s += lanes[k];
  // the result: (x - m) - log(s), or e * (1 / s)
  const V ls = hn::Set(d, float(std::log(s))), inv = hn::Set(d, float(1.0 / s));
  auto result = [&](V xv, const float* e) {
    return log ? hn::Sub(hn::Sub(xv, vm), ls) : hn::Mul(hn::LoadU(d, e), inv);
  };
  for (i = 0; i < full; i += N) Fmt::Store(d, result(Fmt::Load(d, x + i), e_out + i), y + i);
  if (tail) {
    Fmt::Store(d, result(hn::Load(d, xt), et), yt);
    std::copy(yt, yt + tail, y + full);
  }
}

template <class Fmt>
void RowsOf(const void* x, void* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  using S = typename Fmt::S;
  const auto* xs = static_cast<const S*>(x);
  auto* ys = static_cast<S*>(y);
  std::vector<float> scratch(std::is_same_v<Fmt, FormatF32> ? 0 : size_t(n));
  for (int64_t r = r0; r < r1; ++r) Row<Fmt>(xs + r * n, ys + r * n, n, log, scratch.data());
}

// format: 0 float32, 1 bfloat16, 2 float16.
void Rows(int format, const void* x, void* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  if (format == 0) RowsOf<FormatF32>(x, y, r0, r1, n, log);
  else if (format == 1) RowsOf<FormatBf16>(x, y, r0, r1, n, log);
  else RowsOf<FormatF16>(x, y, r0, r1, n, log);
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(Rows);

void softmax_rows_simd(DType dt, const void* x, void* y, int64_t rows, int64_t n, bool log) {
  const int format = dt == DType::Float32 ? 0 : dt == DType::BFloat16 ? 1 : 2;
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)),
               [&](int64_t r0, int64_t r1) {
                 HWY_DYNAMIC_DISPATCH(Rows)(format, x, y, r0, r1, n, log);
               });
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
