// The per-target loop of the one-input SIMD kernels (elementwise_hwy.cpp, special_hwy.cpp):
// a vector at a time through Op::Vec, elements outside Op's accurate range [lo, hi] through
// Op::Fix (a vectorized fix-up: special values, overflow, large arguments) or, where an Op
// has none, Op::One (the scalar formula); the tail goes through a padded copy. Like Highway's own
// -inl.h headers it is included once per target from the files foreach_target.h re-includes;
// the guard flips with HWY_TARGET_TOGGLE so that each target gets its copy.
#if defined(EMBER_KERNELS_CPU_UNARY_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_UNARY_HWY_INL_H_
#undef EMBER_KERNELS_CPU_UNARY_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_UNARY_HWY_INL_H_
#endif

#include <cstring>
#include <limits>

#include "hwy/highway.h"
#include "kernels/cpu/half_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
constexpr bool kF32 = sizeof(T) == 4;
template <class T>
constexpr T kMax = std::numeric_limits<T>::max();

// An Op with kAnyInput = true is accurate everywhere (no lo/hi, no One).
template <class Op>
constexpr bool any_input() {
  if constexpr (requires { Op::kAnyInput; }) return Op::kAnyInput;
  else return false;
}

// What fills the tail's padding lanes: a value in Op's range (0.5, or Op::pad<T>), so the
// padded vector takes the fast path.
template <class Op, class T>
constexpr T pad_value() {
  if constexpr (requires { Op::template pad<T>; }) return Op::template pad<T>;
  else return T(0.5);
}

// Whether Op has a vectorized fix-up Fix(d, x), and a Rest(d, x) mask of the lanes it leaves
// to Op::One.
template <class Op>
constexpr bool has_fix() {
  return requires(hn::ScalableTag<float> d, hn::Vec<hn::ScalableTag<float>> v) { Op::Fix(d, v); };
}
template <class Op>
constexpr bool has_rest() {
  return requires(hn::ScalableTag<float> d, hn::Vec<hn::ScalableTag<float>> v) { Op::Rest(d, v); };
}

// f(dd, xd) applied to the float32 lanes of x in float64 lanes (half a vector at a time),
// rounded once back to float32: the fix-ups of float32 ops that need more range or
// precision than float32 has (exp near overflow, denormal results, huge sin/cos arguments).
// More float32 vectors may follow x: f then takes the float64 lanes of each, in order.
template <class D, class F, class... More>
HWY_INLINE hn::Vec<D> Widened(D d, hn::Vec<D> x, const F& f, More... more) {
  static_assert(sizeof(hn::TFromD<D>) == 4, "Widened takes float32 lanes");
#if HWY_TARGET == HWY_SCALAR
  // Not hn::DemoteTo: on this target it saturates at the largest float instead of rounding
  // to inf. The cast is IEEE conversion (round to nearest, inf beyond) under GCC.
  const hn::Rebind<double, D> dd;
  return hn::Set(d, static_cast<float>(
                        hn::GetLane(f(dd, hn::PromoteTo(dd, x), hn::PromoteTo(dd, more)...))));
#else
  // In registers: a store of two halves reloaded as one vector stalls store forwarding.
  const hn::Repartition<double, D> dd;  // half the lanes, twice as wide
  const hn::Half<D> dh;
  const auto lo =
      f(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)), hn::PromoteTo(dd, hn::LowerHalf(dh, more))...);
  const auto hi =
      f(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)), hn::PromoteTo(dd, hn::UpperHalf(dh, more))...);
  return hn::Combine(d, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
#endif
}

// f(x), except that float32 lanes with |x| < limit are x itself: where Highway's float32 tanh,
// expm1, sin and log1p already return x bit for bit (checked for every float32 below each limit
// on the AVX2 target: tanh 0x1.6a09e8p-25, expm1 0x1.6a09e8p-24, sin 0x1.d12ed6p-12, log1p
// 0x1.000002p-24, ±0 included where the op keeps -0; other targets take f). Their polynomials and
// divisions on a denormal x took 2-2.6x the time of randn (a division by or of a denormal is slow
// even on cores without FP assists); f sees 0.5 in those lanes instead. float64 and the targets
// without FMA take f(x), or x for ±0 with kKeepZero (expm1, sin: as before).
template <bool kKeepZero = false, class D, class V, class F>
HWY_INLINE V KeepTiny(D d, V x, float limit, const F& f) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // the targets with FMA, whose bits were checked
  if constexpr (kF32<hn::TFromD<D>>) {
    const auto tiny = hn::Lt(hn::Abs(x), hn::Set(d, limit));
    if (HWY_UNLIKELY(!hn::AllFalse(d, tiny)))
      return hn::IfThenElse(tiny, x, f(hn::IfThenElse(tiny, hn::Set(d, 0.5f), x)));
    return f(x);
  }
#endif
  (void)limit;
  if constexpr (kKeepZero) return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, f(x));  // keeps -0
  else return f(x);
}

// The lanes of x in Op's range: [lo, hi], or Op::InRange(d, x) where Op has its own test (sin
// and cos: 2^-12 <= |x| <= 39000 as one integer compare).
template <class Op, class D, class V>
HWY_INLINE auto InRange(D d, V x) {
  using T = hn::TFromD<D>;
  if constexpr (requires { Op::InRange(d, x); }) return Op::InRange(d, x);
  else
    return hn::And(hn::Ge(x, hn::Set(d, Op::template lo<T>)),
                   hn::Le(x, hn::Set(d, Op::template hi<T>)));
}

// Stores Op::Vec(x), except that elements of x outside Op's range (InRange) get Op::Fix(d, x)
// (a whole vector computed for them alone; Vec is skipped when no element needs it), and
// those of them in Op::Rest(d, x) (narrow bands a vector formula can't match, e.g. float64
// exp whose result is denormal) get Op::One(x). An Op without Fix takes Op::One for every
// element outside its range. Op::Band(d, x, y), where Op has it, is tried first: true when it
// computed y for the whole vector inline (exp's denormal band: Fix is an out-of-line call).
template <class Op, class D, class V>
HWY_INLINE void Patch(D d, V x, hn::TFromD<D>* dst) {
  using T = hn::TFromD<D>;
  const auto ok = InRange<Op>(d, x);
  if (HWY_LIKELY(hn::AllTrue(d, ok))) {
    hn::StoreU(Op::Vec(d, x), d, dst);
    return;
  }
  V y;
  if constexpr (requires { Op::Band(d, x, y); }) {  // an inline path for a whole vector
    if (Op::Band(d, x, y)) {
      hn::StoreU(y, d, dst);
      return;
    }
  }
  if constexpr (has_fix<Op>()) {
    y = hn::AllFalse(d, ok) ? Op::Fix(d, x) : hn::IfThenElse(ok, Op::Vec(d, x), Op::Fix(d, x));
    bool rest = false;
    if constexpr (has_rest<Op>()) rest = !hn::AllFalse(d, hn::AndNot(ok, Op::Rest(d, x)));
    if (HWY_LIKELY(!rest)) {
      hn::StoreU(y, d, dst);
      return;
    }
  } else {
    y = Op::Vec(d, x);
  }
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<T>());
  HWY_ALIGN T xs[kLanes];
  HWY_ALIGN T ys[kLanes];
  HWY_ALIGN T rest[kLanes];
  HWY_ALIGN T in[kLanes];
  hn::Store(x, d, xs);
  hn::Store(y, d, ys);
  hn::Store(hn::IfThenElseZero(ok, hn::Set(d, T(1))), d, in);
  if constexpr (has_rest<Op>())
    hn::Store(hn::IfThenElseZero(Op::Rest(d, x), hn::Set(d, T(1))), d, rest);
  const size_t n = hn::Lanes(d);
  for (size_t j = 0; j < n; ++j) {
    const T v = xs[j];
    if constexpr (has_rest<Op>()) dst[j] = in[j] == T(0) && rest[j] != T(0) ? Op::One(v) : ys[j];
    else dst[j] = in[j] != T(0) ? ys[j] : Op::One(v);
  }
}

// One vector: src and dst may be the same memory.
template <class Op, class T>
HWY_INLINE void Block(const T* src, T* dst) {
  const hn::ScalableTag<T> d;
  const auto x = hn::LoadU(d, src);
  if constexpr (any_input<Op>()) hn::StoreU(Op::Vec(d, x), d, dst);
  else Patch<Op>(d, x, dst);
}

// The tail goes through a padded copy, so every element gets the same formula whatever its
// position (results don't depend on how the work was split over threads).
template <class Op, class T>
HWY_INLINE void Run(const T* in, T* out, int64_t count) {
  const hn::ScalableTag<T> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) Block<Op>(in + i, out + i);
  if (i == n) return;
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<T>());
  HWY_ALIGN T buf[kLanes];
  for (size_t j = 0; j < lanes; ++j) buf[j] = i + j < n ? in[i + j] : pad_value<Op, T>();
  Block<Op>(buf, buf);
  std::memcpy(out + i, buf, (n - i) * sizeof(T));
}

// Op's float32 path on the widened lanes x of RunAs (Patch for lanes outside Op's range).
template <class Op, class D>
HWY_INLINE hn::Vec<D> ValueAs(D d, hn::Vec<D> x) {
  if constexpr (!any_input<Op>()) {
    const auto ok = InRange<Op>(d, x);
    if (HWY_UNLIKELY(!hn::AllTrue(d, ok))) {
      HWY_ALIGN float buf[hn::MaxLanes(d)];
      Patch<Op>(d, x, buf);
      return hn::Load(d, buf);
    }
  }
  return Op::Vec(d, x);
}

// One vector of RunAs: Op's float32 path on widened lanes x, rounded once into dst.
template <class Op, class Fmt, class D>
HWY_INLINE void BlockAs(D d, hn::Vec<D> x, typename Fmt::S* dst) {
  Fmt::Store(d, ValueAs<Op>(d, x), dst);
}

// Run for bfloat16/float16 storage (half_hwy-inl.h's formats): each vector widened in registers,
// Op's float32 path, rounded once on store (two vectors a step where the format converts pairs
// faster, Fmt::kPairs); the tail through padded copies.
template <class Op, class Fmt>
HWY_INLINE void RunAs(const typename Fmt::S* in, typename Fmt::S* out, int64_t count) {
  using S = typename Fmt::S;
  const hn::ScalableTag<float> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  if constexpr (requires { Fmt::kPairs; }) {
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      hn::Vec<decltype(d)> a, b;
      Fmt::Load2(d, in + i, a, b);
      Fmt::Store2(d, ValueAs<Op>(d, a), ValueAs<Op>(d, b), out + i);
    }
  }
  for (; i + lanes <= n; i += lanes) BlockAs<Op, Fmt>(d, Fmt::Load(d, in + i), out + i);
  if (i == n) return;
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<float>());
  HWY_ALIGN float xt[kLanes];
  HWY_ALIGN S yt[kLanes];
  for (size_t j = 0; j < lanes; ++j)
    xt[j] = i + j < n ? Fmt::Widen(in[i + j]) : pad_value<Op, float>();
  BlockAs<Op, Fmt>(d, hn::Load(d, xt), yt);
  std::memcpy(out + i, yt, (n - i) * sizeof(S));
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_KERNELS_CPU_UNARY_HWY_INL_H_
