// erf of float32 lanes, computed in float64 lanes and rounded once, so that it is within a
// hair of the correctly rounded value, as std::erff is (float32 erf went through std::erf
// one element at a time: 8x PyTorch's time). The coefficients are fitted by
// tools/fit_erf.py (least squares on Chebyshev nodes against mpmath; it prints the errors).
// Included once per target like unary_hwy-inl.h (see there).
#if defined(EMBER_KERNELS_CPU_ERF_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_ERF_HWY_INL_H_
#undef EMBER_KERNELS_CPU_ERF_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_ERF_HWY_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/cpu/unary_hwy-inl.h"  // Widened

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// |x| < 1: erf(x) = x P(x^2), relative error 3.7e-11.
constexpr double kErfSmall[] = {
    -9.6736075881926915e-06, 0.00011268276222328147, -0.00084844023049851589,
    0.0052210540357974745,   -0.02686543864061022,   0.11283782630571304,
    -0.37612638476925175,    1.1283791670626497,
};
// 1 <= |x| < 4: erf(|x|) = Q((|x| - 2.5) / 1.5), absolute error 1.1e-11.
constexpr double kErfLarge[] = {
    -1.5397579247508329e-05, 3.2935544208498858e-05, 7.6693552411229138e-05,
    -0.00029380799571269783, 0.00010032235203759133, 0.00091885871317634192,
    -0.0018600287557197792,  0.00044345158594584163, 0.0045585291064025903,
    -0.0096221841833439656,  0.0066768545644399066,  0.0092677831751414707,
    -0.031875965645882152,   0.046453578033444909,   -0.043650819388803386,
    0.028181554648515877,    -0.012252847421527428,  0.0032674262996301301,
    0.99959304797570991,
};

template <size_t N, class D, class V>
HWY_INLINE V Horner(D d, const double (&c)[N], V t) {
  V r = hn::Set(d, c[0]);
  for (size_t i = 1; i < N; ++i) r = hn::MulAdd(r, t, hn::Set(d, c[i]));
  return r;
}

// erf of float64 lanes holding float32 values: |x| >= 4 is ±1 (1 - erf(4) = 1.5e-8 is below
// half a float32 ulp of 1), ±inf too; NaN stays NaN; -0 stays -0 (x P(0)).
template <class DD, class VD>
HWY_INLINE VD ErfOfFloatValues(DD dd, VD x) {
  const VD ax = hn::Abs(x);
  const VD small = hn::Mul(x, Horner(dd, kErfSmall, hn::Mul(x, x)));
  const VD t = hn::Mul(hn::Sub(hn::Min(ax, hn::Set(dd, 4.0)), hn::Set(dd, 2.5)),
                       hn::Set(dd, 1.0 / 1.5));
  VD large = hn::CopySign(Horner(dd, kErfLarge, t), x);
  large = hn::IfThenElse(hn::Ge(ax, hn::Set(dd, 4.0)), hn::CopySign(hn::Set(dd, 1.0), x), large);
  const VD y = hn::IfThenElse(hn::Lt(ax, hn::Set(dd, 1.0)), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, y);  // (Min(NaN, 4) is 4 on x86)
}

template <class D, class V>
HWY_INLINE V ErfF32(D d, V x) {
  return Widened(d, x, [](auto dd, auto xd) { return ErfOfFloatValues(dd, xd); });
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_KERNELS_CPU_ERF_HWY_INL_H_
