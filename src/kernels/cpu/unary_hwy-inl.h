// The per-target loop of the one-input SIMD kernels (elementwise_hwy.cpp, special_hwy.cpp):
// a vector at a time through Op::Vec, elements outside Op's accurate range [lo, hi] through
// Op::One (the scalar formula), and the tail through a padded copy. Like Highway's own
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

// Stores y, except that elements of x outside Op's range get Op::One(x) instead.
template <class Op, class D, class V>
HWY_INLINE void Patch(D d, V x, V y, hn::TFromD<D>* dst) {
  using T = hn::TFromD<D>;
  const auto ok = hn::And(hn::Ge(x, hn::Set(d, Op::template lo<T>)),
                          hn::Le(x, hn::Set(d, Op::template hi<T>)));
  if (HWY_LIKELY(hn::AllTrue(d, ok))) {
    hn::StoreU(y, d, dst);
    return;
  }
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<T>());
  HWY_ALIGN T xs[kLanes];
  HWY_ALIGN T ys[kLanes];
  hn::Store(x, d, xs);
  hn::Store(y, d, ys);
  const size_t n = hn::Lanes(d);
  for (size_t j = 0; j < n; ++j) {
    const T v = xs[j];
    dst[j] = v >= Op::template lo<T> && v <= Op::template hi<T> ? ys[j] : Op::One(v);
  }
}

// One vector: src and dst may be the same memory.
template <class Op, class T>
HWY_INLINE void Block(const T* src, T* dst) {
  const hn::ScalableTag<T> d;
  const auto x = hn::LoadU(d, src);
  const auto y = Op::Vec(d, x);
  if constexpr (any_input<Op>()) hn::StoreU(y, d, dst);
  else Patch<Op>(d, x, y, dst);
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

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_KERNELS_CPU_UNARY_HWY_INL_H_
