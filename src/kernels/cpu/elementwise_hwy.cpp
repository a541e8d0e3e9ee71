// The SIMD kernels of elementwise_hwy.h. Highway's foreach_target.h includes this
// file once per instruction set (HWY_TARGET_INCLUDE); everything between
// HWY_BEFORE_NAMESPACE and HWY_AFTER_NAMESPACE is compiled for that target, in its own
// namespace, so no AVX-512 instruction leaks into code that runs on older CPUs. The part
// under HWY_ONCE is compiled once and picks a copy at run time (HWY_DYNAMIC_DISPATCH).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <strings.h>

#include "kernels/cpu/elementwise_hwy.h"

// SSSE3 adds nothing over SSE4 for these kernels; skipping it saves a compilation.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/elementwise_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "kernels/cpu/unary_hwy-inl.h"  // kF32, kMax, Run: the loop of the one-input ops
#include "kernels/cpu/erf_hwy-inl.h"
#include "kernels/cpu/exp_hwy-inl.h"
#include "kernels/cpu/trig_hwy-inl.h"  // SinOp, CosOp, SinCosF32Run

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// log2(x) = k + log(m) / ln2 with x = 2^k * m, m in [sqrt(1/2), sqrt(2)). Unlike
// log(x) / ln2 (Highway's Log2) it is exact for powers of two, as PyTorch's log2 is.
template <class D, class V>
HWY_INLINE V Log2Exact(D d, V x) {
  using T = hn::TFromD<D>;
  using TI = hwy::MakeSigned<T>;
  const hn::Rebind<TI, D> di;
  constexpr int kMantBits = kF32<T> ? 23 : 52;
  constexpr TI kBias = kF32<T> ? 0x7F : 0x3FF;
  constexpr TI kOne = kF32<T> ? TI(0x3F800000) : TI(0x3FF0000000000000LL);
  constexpr TI kSqrtHalf = kF32<T> ? TI(0x3F3504F3) : TI(0x3FE6A09E00000000LL);  // as Highway
  constexpr TI kMantMask = (TI(1) << kMantBits) - 1;
  // Denormals: scale into the normal range and take the scale back out of k.
  const auto denormal = hn::Lt(x, hn::Set(d, std::numeric_limits<T>::min()));
  x = hn::IfThenElse(denormal, hn::Mul(x, hn::Set(d, T(kF32<T> ? 0x1p25 : 0x1p54))), x);
  const V k_shift = hn::IfThenElseZero(denormal, hn::Set(d, T(kF32<T> ? -25 : -54)));
  // Adding (1 - sqrt(1/2)) to the bits carries into the exponent exactly when the
  // mantissa is >= sqrt(2)'s (musl's log does the same).
  const auto bits = hn::Add(hn::BitCast(di, x), hn::Set(di, kOne - kSqrtHalf));
  const auto k = hn::Sub(hn::ShiftRight<kMantBits>(bits), hn::Set(di, kBias));
  const auto m_bits = hn::Add(hn::And(bits, hn::Set(di, kMantMask)), hn::Set(di, kSqrtHalf));
  const V m = hn::BitCast(d, m_bits);
  const V kf = hn::Add(hn::ConvertTo(d, k), k_shift);
  return hn::MulAdd(hn::Log(d, m), hn::Set(d, T(1.442695040888963407359924681)), kf);
}

template <class D>
HWY_INLINE auto NoLanes(D d) {
  return hn::FirstN(d, 0);
}

// exp of the lanes outside ExpOp's range [lo, hi]: inf above kExpInf, 0 below kExpZero (where
// std::exp rounds to those), NaN for NaN; float32 in the bands between, where the result is
// finite but near overflow or denormal, in float64 lanes (whose range covers float32's)
// rounded once. float64's bands are ExpRest's (std::).
template <class T>
constexpr T kExpLo = kF32<T> ? T(-87.3) : T(-708.3);  // Highway's exp is
template <class T>
constexpr T kExpHi = kF32<T> ? T(88.7) : T(709.7);  // accurate in between
template <class T>
constexpr T kExpInf = kF32<T> ? T(88.7229) : T(709.8);  // > log(max)
template <class T>
constexpr T kExpZero = kF32<T> ? T(-103.98) : T(-745.2);  // < log(min/2)
// Below kExpEasy (exp < 2^-132.7, at most 17 bits) most float32 lanes of the denormal band round
// surely (Note [Denormal exp in float32 lanes]); above, most need float64 lanes.
constexpr float kExpEasy = -92.0f;
template <class D, class V>
HWY_INLINE V ExpFix(D d, V x) {
  using T = hn::TFromD<D>;
  V r = hn::IfThenElseZero(hn::Gt(x, hn::Zero(d)), hn::Inf(d));
  if constexpr (kF32<T>) {
    // The denormal band below kExpEasy in float32 lanes, unless a lane's rounding is hard
    // (Note [Denormal exp in float32 lanes]); the rest of the bands in float64 lanes.
    const auto easy = hn::And(hn::Ge(x, hn::Set(d, kExpZero<T>)), hn::Lt(x, hn::Set(d, kExpEasy)));
    const auto wide = [&] {
      return Widened(d, x, [](auto dd, auto xd) { return hn::Exp(dd, xd); });
    };
    hn::Mask<D> hard;  // (a vector all in the band without hard lanes took ExpBand, inline)
    const auto band =
        hn::And(hn::Ge(x, hn::Set(d, kExpZero<T>)), hn::Le(x, hn::Set(d, kExpInf<T>)));
    const auto inside = hn::And(hn::Ge(x, hn::Set(d, kExpLo<T>)), hn::Le(x, hn::Set(d, kExpHi<T>)));
    const auto out = hn::AndNot(inside, band);
    if (HWY_UNLIKELY(!hn::AllFalse(d, out))) {
      hard = hn::AndNot(easy, out);
      V y;
      if (hn::AllFalse(d, hard)) {
        y = ExpDenormalF32(d, hn::IfThenElse(easy, x, hn::Set(d, T(-95))), hard);
        hard = hn::And(hard, easy);
      }
      if (HWY_UNLIKELY(!hn::AllFalse(d, hard))) y = wide();
      r = hn::IfThenElse(band, y, r);
    }
  }
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}
// ExpOp::Band: y = exp(x) where every lane of x is in the float32 denormal band below kExpEasy
// and no lane's rounding is hard (Note [Denormal exp in float32 lanes]), inline in Patch.
template <class D, class V>
HWY_INLINE bool ExpBand(D d, V x, V& y) {
  if constexpr (kF32<hn::TFromD<D>>) {
    const auto easy =
        hn::And(hn::Ge(x, hn::Set(d, kExpZero<float>)), hn::Lt(x, hn::Set(d, kExpEasy)));
    if (!hn::AllTrue(d, easy)) return false;
    hn::Mask<D> hard;
    y = ExpDenormalF32(d, x, hard);
    return hn::AllFalse(d, hard);
  }
  return false;
}
template <class D, class V>
HWY_INLINE auto ExpRest(D d, V x) {  // float64 exp with a finite, nonzero result
  using T = hn::TFromD<D>;
  if constexpr (kF32<T>) return NoLanes(d);
  else return hn::And(hn::Ge(x, hn::Set(d, kExpZero<T>)), hn::Le(x, hn::Set(d, kExpInf<T>)));
}

// log, log2, log1p outside their range: the pole (-inf), below it NaN, +inf, NaN.
template <class D, class V>
HWY_INLINE V LogFix(D d, V x, V pole) {
  V r = hn::IfThenElse(hn::Eq(x, pole), hn::Neg(hn::Inf(d)), hn::NaN(d));
  r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// One struct per op: Vec (Highway), One (std::, exactly the scalar loop's formula in
// elementwise.cpp) and the input range [lo, hi] where Vec is accurate. NaN is never in range.
// Fix (unary_hwy-inl.h) computes the elements outside the range in the vector loop: the
// same values as One, within the rounding of a float64 evaluation for float32. Where a
// float64 result has no vector formula (exp in the bands where it is denormal or just
// below overflow, sin/cos of |x| > 39000), Rest sends those elements to One.
struct ExpOp {
  template <class T>
  static constexpr T lo = kExpLo<T>;
  template <class T>
  static constexpr T hi = kExpHi<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    return ExpInRange(d, x);  // x in [lo, hi]: hn::Exp's bits (Note [Exp by scalef])
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    return ExpFix(d, x);
  }
  template <class D, class V>
  static auto Rest(D d, V x) {
    return ExpRest(d, x);
  }
  template <class D, class V>
  static bool Band(D d, V x, V& y) {
    return ExpBand(d, x, y);
  }
  template <class T>
  static T One(T x) {
    return std::exp(x);
  }
};
struct Expm1Op {
  template <class T>
  static constexpr T lo = ExpOp::lo<T>;
  template <class T>
  static constexpr T hi = ExpOp::hi<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    return KeepTiny<true>(d, x, 0x1p-24f, [d](V v) { return hn::Expm1(d, v); });  // keeps -0
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    using T = hn::TFromD<D>;
    if constexpr (kF32<T>) {
      // Below lo the float64 path gives -1 (e^x < 2^-125 vanishes against -1 in float64):
      // without a lane above hi, no float64 lanes (elu/selu/celu of -100 took 1.8x randn).
      if (hn::AllFalse(d, hn::Gt(x, hn::Set(d, hi<T>))))
        return hn::IfThenElse(hn::IsNaN(x), x, hn::Set(d, T(-1)));
      const V y = Widened(d, x, [](auto dd, auto xd) {
        return hn::Expm1(dd, hn::Min(hn::Max(xd, hn::Set(dd, -200.0)), hn::Set(dd, 700.0)));
      });
      return hn::IfThenElse(hn::IsNaN(x), x, y);
    } else {  // below lo, expm1 is -1; above the Rest band, inf
      return hn::IfThenElse(hn::IsNaN(x), x,
                            hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Inf(d), hn::Set(d, T(-1))));
    }
  }
  template <class D, class V>
  static auto Rest(D d, V x) {
    using T = hn::TFromD<D>;
    if constexpr (kF32<T>) return NoLanes(d);
    else return hn::And(hn::Gt(x, hn::Zero(d)), hn::Le(x, hn::Set(d, T(709.8))));
  }
  template <class T>
  static T One(T x) {
    return std::expm1(x);
  }
};
struct LogOp {  // x <= 0 gives -inf or NaN
  template <class T>
  static constexpr T lo = std::numeric_limits<T>::denorm_min();
  template <class T>
  static constexpr T hi = kMax<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    return hn::Log(d, x);
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    return LogFix(d, x, hn::Zero(d));
  }
  template <class T>
  static T One(T x) {
    return std::log(x);
  }
};
struct Log2Op {
  template <class T>
  static constexpr T lo = LogOp::lo<T>;
  template <class T>
  static constexpr T hi = kMax<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    return Log2Exact(d, x);
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    return LogFix(d, x, hn::Zero(d));
  }
  template <class T>
  static T One(T x) {
    return std::log2(x);
  }
};
struct Log1pOp {  // the smallest T above -1
  template <class T>
  static constexpr T lo = T(-1) + std::numeric_limits<T>::epsilon() / 2;
  template <class T>
  static constexpr T hi = kMax<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    return KeepTiny(d, x, 0x1p-24f, [d](V v) { return hn::Log1p(d, v); });
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    return LogFix(d, x, hn::Set(d, hn::TFromD<D>(-1)));
  }
  template <class T>
  static T One(T x) {
    return std::log1p(x);
  }
};
struct TanhOp {  // saturates to ±1 by itself; only ±inf and NaN are outside
  template <class T>
  static constexpr T lo = -kMax<T>;
  template <class T>
  static constexpr T hi = kMax<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    return KeepTiny(d, x, 0x1p-25f, [d](V v) { return hn::Tanh(d, v); });
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    return hn::IfThenElse(hn::IsNaN(x), x, hn::CopySign(hn::Set(d, hn::TFromD<D>(1)), x));
  }
  template <class T>
  static T One(T x) {
    return std::tanh(x);
  }
};
struct SigmoidOp {  // below lo, exp(-x) overflows: the same formula on ExpOp's fix-up
  template <class T>
  static constexpr T lo = -ExpOp::hi<T>;
  template <class T>
  static constexpr T hi = kMax<T>;
  template <class D, class V>
  static V Vec(D d, V x) {
    // exp(-x) clamped at exp(lo): beyond, 1 + e rounds to 1 anyway, and a denormal e would
    // cost a microcode assist per vector.
    using T = hn::TFromD<D>;
    const V one = hn::Set(d, T(1));
    return hn::Div(one, hn::Add(one, hn::Exp(d, hn::Max(hn::Neg(x), hn::Set(d, kExpLo<T>)))));
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    const V one = hn::Set(d, hn::TFromD<D>(1));
    return hn::Div(one, hn::Add(one, ExpFix(d, hn::Neg(x))));
  }
  template <class D, class V>
  static auto Rest(D d, V x) {
    return ExpRest(d, hn::Neg(x));
  }
  template <class T>
  static T One(T x) {
    return T(1) / (T(1) + std::exp(-x));
  }
};
// silu(x) = x sigmoid(x) and silu'(x) = s (1 + x (1 - s)), s = sigmoid(x), on SigmoidOp's
// range, fix-up and Rest: one pass and no temporary, and silu gives exactly the values of
// x * sigmoid(x) in two ops (torch's x / (1 + e^-x) is within an ulp of them).
template <bool Grad>
struct SiluOp {
  template <class T>
  static constexpr T lo = SigmoidOp::lo<T>;
  template <class T>
  static constexpr T hi = SigmoidOp::hi<T>;
  template <class D, class V>
  static V Of(D d, V x, V s) {
    if constexpr (!Grad) return hn::Mul(x, s);
    const V one = hn::Set(d, hn::TFromD<D>(1));
    return hn::Mul(s, hn::MulAdd(x, hn::Sub(one, s), one));
  }
  template <class D, class V>
  static V Vec(D d, V x) {
    return Of(d, x, SigmoidOp::Vec(d, x));
  }
  template <class D, class V>
  static V Fix(D d, V x) {
    return Of(d, x, SigmoidOp::Fix(d, x));
  }
  template <class D, class V>
  static auto Rest(D d, V x) {
    return SigmoidOp::Rest(d, x);
  }
  template <class T>
  static T One(T x) {
    const T s = SigmoidOp::One(x);
    if constexpr (Grad) return s * std::fma(x, T(1) - s, T(1));
    else return x * s;
  }
};

// g * silu'(x): the derivative of each vector through Patch (Vec, Fix, Rest), then the product.
template <class D, class V>
HWY_INLINE V SiluGradVec(D d, V g, V x) {
  HWY_ALIGN hn::TFromD<D> buf[hn::MaxLanes(hn::ScalableTag<hn::TFromD<D>>())];
  Patch<SiluOp<true>>(d, x, buf);
  return hn::Mul(g, hn::Load(d, buf));
}

// hardswish(x) = x min(max(x + 3, 0), 6) / 6, as torch's kernel writes it (the same
// roundings); NaN and -inf give NaN through the product. Its gradient: 0 for x <= -3, g from 3
// on, g (x / 3 + 1/2) between and for NaN (torch's vectorized kernel's blends).
struct HardswishOp {
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    using T = hn::TFromD<D>;
    const V r6 = hn::Min(hn::Max(hn::Add(x, hn::Set(d, T(3))), hn::Zero(d)), hn::Set(d, T(6)));
    return hn::Div(hn::Mul(x, r6), hn::Set(d, T(6)));
  }
};
template <class D, class V>
HWY_INLINE V HardswishGradVec(D d, V g, V x) {
  using T = hn::TFromD<D>;
  const V three = hn::Set(d, T(3));
  const V inside = hn::Mul(g, hn::Add(hn::Div(x, three), hn::Set(d, T(0.5))));
  return hn::IfThenElse(hn::Le(x, hn::Neg(three)), hn::Zero(d),
                        hn::IfThenElse(hn::Ge(x, three), g, inside));
}
// out = Grad(d, g, x) over contiguous runs of g and x (the gradient of an activation); the tail
// through padded copies.
template <class T, class Grad>
HWY_INLINE void GradRun(const T* g, const T* x, T* out, int64_t count, const Grad& grad) {
  const hn::ScalableTag<T> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(grad(d, hn::LoadU(d, g + i), hn::LoadU(d, x + i)), d, out + i);
  if (i == n) return;
  HWY_ALIGN T bx[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  HWY_ALIGN T bg[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  std::memcpy(bx, x + i, (n - i) * sizeof(T));
  std::memcpy(bg, g + i, (n - i) * sizeof(T));
  hn::Store(grad(d, hn::Load(d, bg), hn::Load(d, bx)), d, bx);
  std::memcpy(out + i, bx, (n - i) * sizeof(T));
}

// softplus(x) = x where beta x > threshold, else log1p(exp(beta x)) / beta (torch's formula),
// with exp and log1p as ember's own kernels compute them (ExpOp and Log1pOp through Patch:
// NaN, overflow, the denormal band); log1p(e) is e itself below 2^-25 (where Highway's Log1p
// returns e too) without an add on a denormal. Its gradient: g where beta x > threshold, else
// g e / (e + 1) with e = exp(beta x), as torch's. kUnit: beta is 1 (no multiply, no divide).
template <bool Grad, bool kUnit, class D, class V>
HWY_INLINE V SoftplusVec(D d, V x, V g, V beta, V threshold) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T buf[hn::MaxLanes(hn::ScalableTag<T>())];
  const V z = kUnit ? x : hn::Mul(x, beta);
  Patch<ExpOp>(d, z, buf);
  const V e = hn::Load(d, buf);
  const auto linear = hn::Gt(z, threshold);
  if constexpr (Grad) {
    // Below 2^-24 (2^-53), e + 1 rounds to 1: the quotient is g e itself, taken without
    // dividing a denormal (slow on every core: softplus' backward of -100 took 2.8x randn).
    const V one = hn::Set(d, T(1)), ge = MulExact(d, g, e);
    const auto small = hn::Lt(e, hn::Set(d, T(kF32<T> ? 0x1p-24 : 0x1p-53)));
    if (hn::AllTrue(d, small)) return ge;  // no blend of denormals with a quotient (-100)
    const V q = hn::Div(hn::IfThenElse(small, one, ge), hn::Add(e, one));
    return hn::IfThenElse(linear, g, hn::IfThenElse(small, ge, q));
  } else {
    const V tiny = hn::Set(d, T(kF32<T> ? 0x1p-25 : 0x1p-54));
    const auto big = hn::Ge(e, tiny);
    V l = e;  // e itself for NaN too; no log1p when no lane needs it (softplus of -100)
    if (!hn::AllFalse(d, big)) {
      Patch<Log1pOp>(d, hn::Max(e, tiny), buf);
      l = hn::IfThenElse(big, hn::Load(d, buf), e);
    }
    return hn::IfThenElse(linear, x, kUnit ? l : hn::Div(l, beta));
  }
}

// Softplus or its gradient (g non-null) over a contiguous run; the tail through padded copies.
template <bool Grad, bool kUnit, class T>
HWY_INLINE void SoftplusRun(const T* g, const T* x, T* out, int64_t count, T beta, T threshold) {
  const hn::ScalableTag<T> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  const auto vb = hn::Set(d, beta), vt = hn::Set(d, threshold);
  const auto load_g = [&](const T* p) { return Grad ? hn::LoadU(d, p) : hn::Zero(d); };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(SoftplusVec<Grad, kUnit>(d, hn::LoadU(d, x + i), load_g(g + i), vb, vt), d, out + i);
  if (i == n) return;
  HWY_ALIGN T bx[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  HWY_ALIGN T bg[hn::MaxLanes(hn::ScalableTag<T>())] = {};
  std::memcpy(bx, x + i, (n - i) * sizeof(T));
  if (Grad) std::memcpy(bg, g + i, (n - i) * sizeof(T));
  hn::Store(SoftplusVec<Grad, kUnit>(d, hn::Load(d, bx), hn::Load(d, bg), vb, vt), d, bx);
  std::memcpy(out + i, bx, (n - i) * sizeof(T));
}

template <class T>
HWY_INLINE void Softplus(const T* g, const T* x, T* out, int64_t n, T beta, T threshold) {
  if (g && beta == T(1)) SoftplusRun<true, true>(g, x, out, n, beta, threshold);
  else if (g) SoftplusRun<true, false>(g, x, out, n, beta, threshold);
  else if (beta == T(1)) SoftplusRun<false, true>(g, x, out, n, beta, threshold);
  else SoftplusRun<false, false>(g, x, out, n, beta, threshold);
}

// erf: float32 on erf_hwy-inl.h everywhere (NaN and ±inf included); float64 stays on std::.
struct ErfOp {
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    return ErfF32(d, x);
  }
};

// Square root, its reciprocal and 1/x are exact IEEE operations in every instruction set:
// the same bits as the scalar loop for every input (NaN, ±inf, -0, negatives), so they
// need no range check. (The scalar loop can't vectorize std::sqrt: it may set errno.)
struct SqrtOp {
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    return hn::Sqrt(x);
  }
};
struct RsqrtOp {
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    return hn::Div(hn::Set(d, hn::TFromD<D>(1)), hn::Sqrt(x));
  }
};
struct ReciprocalOp {
  static constexpr bool kAnyInput = true;
  template <class D, class V>
  static V Vec(D d, V x) {
    return hn::Div(hn::Set(d, hn::TFromD<D>(1)), x);
  }
};

// run.template operator()<Op>() with op's struct; false when op has no SIMD kernel here (erf
// has one for float32 lanes only).
template <bool F32Lanes, class R>
HWY_INLINE bool WithOp(int op, R&& run) {
  switch (UnaryOp(op)) {
#define EMBER_SIMD_OP(Enum, Op) \
  case UnaryOp::Enum: run.template operator()<Op>(); return true;
    EMBER_SIMD_OP(Exp, ExpOp)
    EMBER_SIMD_OP(Expm1, Expm1Op)
    EMBER_SIMD_OP(Log, LogOp)
    EMBER_SIMD_OP(Log1p, Log1pOp)
    EMBER_SIMD_OP(Log2, Log2Op)
    EMBER_SIMD_OP(Sin, SinOp)
    EMBER_SIMD_OP(Cos, CosOp)
    EMBER_SIMD_OP(Tanh, TanhOp)
    EMBER_SIMD_OP(Sigmoid, SigmoidOp)
    EMBER_SIMD_OP(Sqrt, SqrtOp)
    EMBER_SIMD_OP(Rsqrt, RsqrtOp)
    EMBER_SIMD_OP(Reciprocal, ReciprocalOp)
#undef EMBER_SIMD_OP
    case UnaryOp::Erf:
      if constexpr (F32Lanes) {
        run.template operator()<ErfOp>();
        return true;
      }
      return false;
    default: return false;  // simd_unary_enabled() is false for the others
  }
}

template <class T>
HWY_INLINE void Unary(int op, const T* in, T* out, int64_t n) {
  if (WithOp<kF32<T>>(op, [&]<class Op>() { Run<Op>(in, out, n); })) return;
  if (UnaryOp(op) == UnaryOp::Erf)  // float64 erf stays on std::
    for (int64_t i = 0; i < n; ++i) out[i] = std::erf(in[i]);
}

// format: 1 bfloat16, 2 float16.
void UnaryHalf(int op, int format, const uint16_t* in, uint16_t* out, int64_t n) {
  if (format == 1) WithOp<true>(op, [&]<class Op>() { RunAs<Op, FormatBf16>(in, out, n); });
  else WithOp<true>(op, [&]<class Op>() { RunAs<Op, FormatF16>(in, out, n); });
}

// ---- binary arithmetic: exact IEEE operations, so the tail can take the scalar formula
struct AddOp {
  template <class V>
  static V Vec(V a, V b) {
    return hn::Add(a, b);
  }
  template <class T>
  static T One(T a, T b) {
    return a + b;
  }
};
struct SubOp {
  template <class V>
  static V Vec(V a, V b) {
    return hn::Sub(a, b);
  }
  template <class T>
  static T One(T a, T b) {
    return a - b;
  }
};
struct MulOp {
  template <class V>
  static V Vec(V a, V b) {
    return hn::Mul(a, b);
  }
  template <class T>
  static T One(T a, T b) {
    return a * b;
  }
};
struct DivOp {
  template <class V>
  static V Vec(V a, V b) {
    return hn::Div(a, b);
  }
  template <class T>
  static T One(T a, T b) {
    return a / b;
  }
};

template <class Op, class T>
HWY_INLINE void RunBinary(const T* a, bool a_scalar, const T* b, bool b_scalar, T* out,
                          int64_t count) {
  const hn::ScalableTag<T> d;
  const size_t n = size_t(count), lanes = hn::Lanes(d);
  size_t i = 0;
  if (!a_scalar && !b_scalar) {
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(Op::Vec(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
    for (; i < n; ++i) out[i] = Op::One(a[i], b[i]);
  } else if (b_scalar) {
    const T bv = *b;
    const auto vb = hn::Set(d, bv);
    for (; i + lanes <= n; i += lanes) hn::StoreU(Op::Vec(hn::LoadU(d, a + i), vb), d, out + i);
    for (; i < n; ++i) out[i] = Op::One(a[i], bv);
  } else {
    const T av = *a;
    const auto va = hn::Set(d, av);
    for (; i + lanes <= n; i += lanes) hn::StoreU(Op::Vec(va, hn::LoadU(d, b + i)), d, out + i);
    for (; i < n; ++i) out[i] = Op::One(av, b[i]);
  }
}

template <class T>
HWY_INLINE void Binary(int op, const T* a, bool a_scalar, const T* b, bool b_scalar, T* out,
                       int64_t n) {
  switch (BinaryOp(op)) {
    case BinaryOp::Add: return RunBinary<AddOp>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::Sub: return RunBinary<SubOp>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::Mul: return RunBinary<MulOp>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::Div: return RunBinary<DivOp>(a, a_scalar, b, b_scalar, out, n);
    default: return;  // simd_binary_enabled() is false for the others
  }
}

void BinaryF32(int op, const float* a, bool as, const float* b, bool bs, float* out, int64_t n) {
  Binary(op, a, as, b, bs, out, n);
}
void BinaryF64(int op, const double* a, bool as, const double* b, bool bs, double* out, int64_t n) {
  Binary(op, a, as, b, bs, out, n);
}

// An activation's per-target entry points: Name{F32,F64} (Op through Run) and Name{GradF32,
// GradF64} (GradVec through GradRun).
#define EMBER_ACTIVATION_ENTRIES(Name, Op, GradVec)                                     \
  void Name##F32(const float* x, float* out, int64_t n) { Run<Op>(x, out, n); }         \
  void Name##F64(const double* x, double* out, int64_t n) { Run<Op>(x, out, n); }       \
  void Name##GradF32(const float* g, const float* x, float* out, int64_t n) {           \
    GradRun(g, x, out, n, [](auto d, auto vg, auto vx) { return GradVec(d, vg, vx); }); \
  }                                                                                     \
  void Name##GradF64(const double* g, const double* x, double* out, int64_t n) {        \
    GradRun(g, x, out, n, [](auto d, auto vg, auto vx) { return GradVec(d, vg, vx); }); \
  }
EMBER_ACTIVATION_ENTRIES(Silu, SiluOp<false>, SiluGradVec)
EMBER_ACTIVATION_ENTRIES(Hardswish, HardswishOp, HardswishGradVec)
#undef EMBER_ACTIVATION_ENTRIES
void SoftplusF32(const float* g, const float* x, float* out, int64_t n, float beta,
                 float threshold) {
  Softplus(g, x, out, n, beta, threshold);
}
void SoftplusF64(const double* g, const double* x, double* out, int64_t n, double beta,
                 double threshold) {
  Softplus(g, x, out, n, beta, threshold);
}
void UnaryF32(int op, const float* in, float* out, int64_t n) { Unary(op, in, out, n); }
void UnaryF64(int op, const double* in, double* out, int64_t n) { Unary(op, in, out, n); }
void SinCosEntryF32(const float* x, float* s, float* c, int64_t n) { SinCosF32Run(x, s, c, n); }
const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::kernels {

HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);
HWY_EXPORT(UnaryHalf);
HWY_EXPORT(SinCosEntryF32);
HWY_EXPORT(TargetName);
HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(SiluF32);
HWY_EXPORT(SiluF64);
HWY_EXPORT(SiluGradF32);
HWY_EXPORT(SiluGradF64);
HWY_EXPORT(HardswishF32);
HWY_EXPORT(HardswishF64);
HWY_EXPORT(HardswishGradF32);
HWY_EXPORT(HardswishGradF64);
HWY_EXPORT(SoftplusF32);
HWY_EXPORT(SoftplusF64);

namespace {

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

// EMBER_SIMD_TARGET=avx2 disables every better target (lower bits are better targets).
void cap_target(const char* want) {
  int64_t cap = 0;
  if (!strcasecmp(want, "scalar") || !strcasecmp(want, "emu128")) cap = HWY_STATIC_TARGET;
  const char* name = strcasecmp(want, "avx512") ? want : "avx3";
  for (int64_t t : {int64_t(HWY_AVX3), int64_t(HWY_AVX2), int64_t(HWY_SSE4)})
    if (!strcasecmp(name, hwy::TargetName(t))) cap = t;
  if (cap) hwy::DisableTargets(cap - 1);
  std::fprintf(stderr, "ember: EMBER_SIMD_TARGET=%s%s: SIMD kernels run on %s\n", want,
               cap ? "" : " is not one of avx3, avx2, sse4, scalar",
               HWY_DYNAMIC_DISPATCH(TargetName)());
}

// Read the environment once, before the first dispatch, and make that first dispatch (which
// detects the CPU) here rather than in several OpenMP threads at once.
bool enabled() {
  static const bool yes = [] {
    if (const char* want = std::getenv("EMBER_SIMD_TARGET"); want && *want) cap_target(want);
    HWY_DYNAMIC_DISPATCH(TargetName)();
    return !env_set("EMBER_DISABLE_SIMD");
  }();
  return yes;
}

}  // namespace

bool simd_unary_enabled(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Expm1:
    case UnaryOp::Log:
    case UnaryOp::Log1p:
    case UnaryOp::Log2:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Reciprocal:
    case UnaryOp::Erf: return enabled();
    default: return false;
  }
}

void simd_unary(UnaryOp op, const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF32)(int(op), in, out, n);
}

void simd_unary(UnaryOp op, const double* in, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF64)(int(op), in, out, n);
}

void simd_sincos(const float* x, float* s, float* c, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SinCosEntryF32)(x, s, c, n);
}

void simd_unary_half(UnaryOp op, DType dt, const uint16_t* in, uint16_t* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryHalf)(int(op), dt == DType::BFloat16 ? 1 : 2, in, out, n);
}

bool simd_binary_enabled(BinaryOp op, double alpha) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: return alpha == 1.0 && enabled();
    case BinaryOp::Mul:
    case BinaryOp::Div: return enabled();
    default: return false;
  }
}

void simd_binary(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                 float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)(int(op), a, a_scalar, b, b_scalar, out, n);
}

void simd_binary(BinaryOp op, const double* a, bool a_scalar, const double* b, bool b_scalar,
                 double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF64)(int(op), a, a_scalar, b, b_scalar, out, n);
}

// simd_name and simd_name_backward for float and double, dispatching to Name's entry points.
#define EMBER_ACTIVATION_DISPATCH(name, Name)                                             \
  void simd_##name(const float* x, float* out, int64_t n) {                               \
    HWY_DYNAMIC_DISPATCH(Name##F32)(x, out, n);                                           \
  }                                                                                       \
  void simd_##name(const double* x, double* out, int64_t n) {                             \
    HWY_DYNAMIC_DISPATCH(Name##F64)(x, out, n);                                           \
  }                                                                                       \
  void simd_##name##_backward(const float* g, const float* x, float* out, int64_t n) {    \
    HWY_DYNAMIC_DISPATCH(Name##GradF32)(g, x, out, n);                                    \
  }                                                                                       \
  void simd_##name##_backward(const double* g, const double* x, double* out, int64_t n) { \
    HWY_DYNAMIC_DISPATCH(Name##GradF64)(g, x, out, n);                                    \
  }
EMBER_ACTIVATION_DISPATCH(silu, Silu)
EMBER_ACTIVATION_DISPATCH(hardswish, Hardswish)
#undef EMBER_ACTIVATION_DISPATCH

void simd_softplus(const float* g, const float* x, float* out, int64_t n, float beta,
                   float threshold) {
  HWY_DYNAMIC_DISPATCH(SoftplusF32)(g, x, out, n, beta, threshold);
}
void simd_softplus(const double* g, const double* x, double* out, int64_t n, double beta,
                   double threshold) {
  HWY_DYNAMIC_DISPATCH(SoftplusF64)(g, x, out, n, beta, threshold);
}

const char* simd_target() {
  enabled();
  return HWY_DYNAMIC_DISPATCH(TargetName)();
}

}  // namespace ember::kernels
#endif  // HWY_ONCE
