// erf, erfc and erfinv of float32 lanes. erf is computed in float32 lanes (no exp, no
// division: two polynomials and blends, within 1 ulp of the correctly rounded value, as
// PyTorch's SLEEF erff is); erfc in float32 lanes up to |x| = 2.65 (a table of polynomials
// with float32 pairs) and in float64 lanes beyond, since it must stay relatively accurate down
// to float32's denormals; erfinv's start in float32 lanes, its Newton
// residual in float32 pairs (float64 lanes near ±1) (float32 erf, erfc and erfinv went through
// std:: one element at a time: 8x PyTorch's time). The coefficients are fitted by
// tools/fit_erf.py (least squares on Chebyshev nodes against mpmath; it prints the errors).
// Included once per target like unary_hwy-inl.h (see there).
#if defined(EMBER_KERNELS_CPU_ERF_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_KERNELS_CPU_ERF_HWY_INL_H_
#undef EMBER_KERNELS_CPU_ERF_HWY_INL_H_
#else
#define EMBER_KERNELS_CPU_ERF_HWY_INL_H_
#endif

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/cpu/unary_hwy-inl.h"  // Widened

HWY_BEFORE_NAMESPACE();
namespace ember::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// |x| < 1: erf(x) = x P(x^2), relative error 3.7e-11.
constexpr double kErfSmall[] = {
    -9.6736075881926915e-06, 0.00011268276222328147, -0.00084844023049851589, 0.0052210540357974745,
    -0.02686543864061022,    0.11283782630571304,    -0.37612638476925175,    1.1283791670626497,
};
// x >= 1: erfc(x) = exp(-x^2) / x * R((1/x - C) / H), relative error 1.7e-11 up to 10.5.
constexpr double kErfcTailC = 0.54761904761904767, kErfcTailH = 0.45238095238095238;
constexpr double kErfcTail[] = {
    1.0731101181951073e-06,  -1.3445934933519771e-06, -3.9178983336591255e-06,
    8.4204562846164633e-06,  -5.3833286240462059e-06, 1.710141679508908e-06,
    1.0122629525310328e-05,  -5.798790815411388e-05,  0.00015441333585581178,
    -0.00025061539973791463, 0.00010960270389058942,  0.00094373306851594258,
    -0.0040879093285277664,  0.0091914131828260224,   -0.0043118915343533775,
    -0.07687601453165499,    0.50275815205692731,
};

// 0.45 <= x <= 2.65: erf(x) = M(x - 1.55), absolute error 2.0e-14 (erfc's middle range,
// erfinv's Newton residual).
constexpr double kErfMiddle[] = {
    1.0049177027934946e-09,  2.8463751218550299e-08,  -6.4602674426048488e-08,
    -3.5464593045526657e-07, 1.2249312161372419e-06,  1.6189693209972199e-06,
    -1.3227809273031537e-05, 8.4207386136691237e-06,  8.6212619961940936e-05,
    -0.00020500888632649379, -0.00021949042759901563, 0.0016305989458551458,
    -0.0016087120351523944,  -0.0055361426890232161,  0.017518511400244498,
    -0.0093326458042842023,  -0.047612416112850123,   0.1295078140000048,
    -0.15826841923956897,    0.10210865757412682,     0.97162273326201354,
};

template <class T, size_t N, class D, class V>
HWY_INLINE V Horner(D d, const T (&c)[N], V t) {
  V r = hn::Set(d, c[0]);
  for (size_t i = 1; i < N; ++i) r = hn::MulAdd(r, t, hn::Set(d, c[i]));
  return r;
}

// A polynomial picked per lane from 8 (index: float, truncated and clamped to [0, 7]) by table
// lookups, as a0h + p + small: rows are a_n .. a2, a1 lo, a0 lo, a1 hi, a0 hi (float32 pairs
// for a0 and a1), t = x - centre[i] (exact where x and the centre are within 2x), p = a1h t
// exactly (its rounding error goes into small). Needs vectors of at least 8 float32 lanes.
template <class V>
struct PiecewisePoly {
  V a0h, p, small;
};
template <size_t R, size_t K, class D, class V>
HWY_INLINE PiecewisePoly<V> PiecewisePolyF32(D d, V x, V index, const float (&centre)[K],
                                             const float (&rows)[R][K]) {
  static_assert(K >= 8 && R >= 5);
  const hn::RebindToSigned<D> di;
  const auto i = hn::Min(hn::Max(hn::ConvertTo(di, index), hn::Zero(di)), hn::Set(di, 7));
  const auto idx = hn::IndicesFromVec(d, i);
  const auto row = [&](const float* r) { return hn::TableLookupLanes(hn::LoadU(d, r), idx); };
  const V t = hn::Sub(x, row(centre));
  V r = row(rows[0]);
  for (size_t j = 1; j < R - 3; ++j) r = hn::MulAdd(r, t, row(rows[j]));  // t R + a1 lo
  const V a1h = row(rows[R - 2]);
  const V p = hn::Mul(a1h, t), pl = hn::MulSub(a1h, t, p);
  return {row(rows[R - 1]), p, hn::MulAdd(r, t, hn::Add(row(rows[R - 3]), pl))};
}

// float32 erf: |x| < 1: erf(x) = x + x Q(x^2) (one FMA: the correction is at most 16% of the
// result, so Q's rounding costs a fraction of an ulp); 1 <= |x| < 4: erf(|x|) = 1 - E(|x| -
// 2.5), E erfc's polynomial (erfc <= 0.16 there keeps E's error small against 1); from
// |x| = 3.919206 on (where erf rounds to 1) exactly ±1, ±inf too. -0 stays -0, NaN stays NaN
// (a final mask). Both polynomials are computed for every lane and blended: no branch, no exp,
// no division. Within 1 ulp of erf rounded from float64, and the correctly rounded value for
// 98% of a uniform grid on [-6, 6] (torch's SLEEF erff: 96.5%).
struct ErfCoefs {  // within 1 ulp
  static constexpr float q[] = {1.0595288e-06f, -1.3911712e-05f, 1.195695e-04f,
                                -8.542671e-04f, 5.223785e-03f,   -2.6866134e-02f,
                                1.1283791e-01f, -3.7612638e-01f, 1.2837917e-01f};
  static constexpr float e[] = {3.512868e-07f,   -8.901393e-07f,  -3.4625564e-06f, 1.5719286e-05f,
                                -7.75675e-06f,   -8.1100516e-05f, 2.5342466e-04f,  -2.5873006e-04f,
                                -5.4453424e-04f, 2.7975547e-03f,  -6.116587e-03f,  8.622604e-03f,
                                -8.350212e-03f,  5.4456885e-03f,  -2.1782785e-03f, 4.0695237e-04f};
};
// Lower degrees, absolute error 8e-8 (PyTorch's own gelu erf is within 1.5e-7): for gelu,
// whose x Phi(x) loses more than that to cancellation below 0 anyway. A third fewer operations.
struct ErfCoarseCoefs {
  static constexpr float q[] = {7.882504e-05f,  -8.018863e-04f,  5.1893136e-03f, -2.685433e-02f,
                                1.1283597e-01f, -3.7612626e-01f, 1.2837917e-01f};
  static constexpr float e[] = {8.7091075e-06f,  -2.1406126e-05f, -5.941175e-05f, 2.808726e-04f,
                                -2.9200417e-04f, -5.74204e-04f,   2.8237593e-03f, -6.100024e-03f,
                                8.612777e-03f,   -8.354325e-03f,  5.4470706e-03f, -2.1779793e-03f,
                                4.0692065e-04f};
};

// kKeepNaN = false leaves NaN lanes at ±1 (for gelu, whose x * (1 + erf) is NaN anyway).
template <class C = ErfCoefs, bool kKeepNaN = true, class D, class V>
HWY_INLINE V ErfF32(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V ax = hn::Abs(x);
  // x^2 kept normal: a denormal operand costs a microcode assist, and Q(2^-100) is Q(0).
  const V q = Horner(d, C::q, hn::Max(hn::Mul(x, x), hn::Set(d, 0x1p-100f)));
  const V small = hn::MulAdd(x, q, x);
  // NaN may become 4 here (masked below); |x| - 2.5 is exact for |x| in [1, 4].
  const V t = hn::Sub(hn::Min(ax, hn::Set(d, 4.0f)), hn::Set(d, 2.5f));
  // From 3.919206 on, erf rounds to ±1: exactly, whatever E's error at the end of its range.
  const V e = Horner(d, C::e, t);
  const auto saturated = hn::Ge(ax, hn::Set(d, 3.919206f));
  const V large = hn::CopySign(hn::IfThenElse(saturated, one, hn::Sub(one, e)), x);
  const V y = hn::IfThenElse(hn::Lt(ax, one), small, large);
  if constexpr (!kKeepNaN) return y;
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// erfc of float64 lanes holding float32 values: 1 - x P(x^2) below 1; above, the tail
// formula, whose relative error does not grow as erfc(x) shrinks toward float32's denormals
// (|x| is clamped at 10.5, where erfc is 7e-50 and float32 has 0, so exp(-x^2) stays a
// normal double: no microcode assist); x <= -1 is 2 - erfc(-x); NaN stays NaN.
template <class DD, class VD>
HWY_INLINE VD ErfcOfFloatValues(DD dd, VD x) {
  const VD one = hn::Set(dd, 1.0);
  const VD small = hn::NegMulAdd(x, Horner(dd, kErfSmall, hn::Mul(x, x)), one);
  const VD ax = hn::Min(hn::Max(hn::Abs(x), one), hn::Set(dd, 10.5));
  const VD u = hn::Div(one, ax);
  const VD w = hn::Mul(hn::Sub(u, hn::Set(dd, kErfcTailC)), hn::Set(dd, 1.0 / kErfcTailH));
  const VD tail =
      hn::Mul(hn::Mul(hn::Exp(dd, hn::Neg(hn::Mul(ax, ax))), u), Horner(dd, kErfcTail, w));
  const VD large = hn::IfThenElse(hn::Lt(x, hn::Zero(dd)), hn::Sub(hn::Set(dd, 2.0), tail), tail);
  const VD y = hn::IfThenElse(hn::Lt(hn::Abs(x), one), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// float32 erfc of 0.5 <= x <= 2.65 in float32 lanes, as a pair (hi, lo): x's interval (8 of
// equal width in x^2, by a table lookup) gives a polynomial a0 + a1 t + t^2 R(t) in t = x - c
// (exact, c the interval's float32 centre), fitted to erfc with relative error 1.4e-10; a0 and
// a1 are float32 pairs, a1h t is split by FMA and a0h + a1h t summed as a pair (Fast2Sum:
// |a1h t| <= 0.61 a0h), so only t^2 R(t) (at most ~10% of erfc: 2 x |t| <= 0.45) is rounded.
// Needs vectors of at least 8 float32 lanes. tools/fit_erf.py (show_erfc_tables):
// erfc tables on [0.5, 2.65], 8 intervals, index (x^2 - 0.25) * 1.18124769, relative error 1.4e-10
constexpr float kErfcCentre[8] = {0.773584425f, 1.22056448f, 1.53209794f, 1.78856552f,
                                  2.01208043f,  2.21290469f, 2.39684367f, 2.56757164f};
constexpr float kErfcTable[12][8] = {
    {0.00349711441f, 0.000867387687f, -0.0109268539f, -0.0150871845f, 0.00598662905f,
     -0.00261354353f, -0.0146485101f, -0.00507641258f},
    {-0.00145350525f, 0.0054579908f, 0.00334295025f, 0.000833093247f, -0.00237947237f,
     -0.000846386945f, 0.00114550011f, 0.000463187869f},
    {-0.0187347308f, -0.00508654956f, 0.00567647628f, 0.00623823144f, 0.00308197434f, 0.0010474259f,
     3.88636472e-05f, -0.000565473805f},
    {0.0237897281f, -0.020388145f, -0.0182578862f, -0.0074182027f, -0.000160615396f, 0.00268461346f,
     0.00305861398f, 0.0025058249f},
    {0.0568257608f, 0.0508707836f, 0.0112457853f, -0.00851626694f, -0.013111067f, -0.011282214f,
     -0.00795228127f, -0.00503902463f},
    {-0.144192278f, -0.00105842017f, 0.0466925427f, 0.0466374829f, 0.0336534157f, 0.0211187843f,
     0.0122428276f, 0.00674109301f},
    {-0.0407012105f, -0.167841464f, -0.132885292f, -0.0828452632f, -0.0465776436f, -0.0247057416f,
     -0.0126222493f, -0.00628203666f},
    {0.479807109f, 0.310465664f, 0.165314779f, 0.0823505223f, 0.0396162383f, 0.018650936f,
     0.00865234714f, 0.00397122232f},
    {-1.42469005e-08f, -1.29699309e-08f, 1.34785216e-09f, 9.09854414e-11f, -8.68322303e-10f,
     -2.2319778e-10f, -5.63914714e-11f, 2.3415006e-11f},
    {-7.39524753e-09f, -1.26575428e-09f, 5.58741664e-10f, 3.16415755e-10f, 2.19505455e-10f,
     2.90142008e-11f, 6.56587675e-12f, -1.09751748e-11f},
    {-0.620238841f, -0.254362345f, -0.107900925f, -0.0460427776f, -0.0196891911f, -0.00842825975f,
     -0.00360989221f, -0.00154668419f},
    {0.273949027f, 0.0843224376f, 0.0302566923f, 0.0114253294f, 0.00443401653f, 0.00175092253f,
     0.000699822092f, 0.000282221677f},
};

template <class D, class V>
HWY_INLINE V ErfcTableF32(D d, V x, V& lo) {
  const auto e =
      PiecewisePolyF32(d, x, hn::Mul(hn::MulSub(x, x, hn::Set(d, 0.25f)), hn::Set(d, 1.18124769f)),
                       kErfcCentre, kErfcTable);
  const V sh = hn::Add(e.a0h, e.p), sl = hn::Sub(e.p, hn::Sub(sh, e.a0h));  // = a0h + p
  lo = hn::Add(sl, e.small);
  return sh;
}

// float32 erfc. With at least 8 float32 lanes: |x| < 0.5 is (1 - x) - x Q(x^2) with erf's
// ErfCoefs::q and 1 - x as a pair (Fast2Sum), so only x Q (at most 4% of the result) is
// rounded before the last sum; 0.5 <= |x| <= 2.65 is ErfcTableF32 (2 - it for x < 0, the pair
// kept until the last sum); beyond,
// ErfcOfFloatValues in float64 lanes, only for vectors with such a lane (6% of the vectors of
// 8 standard-normal values). Correctly rounded on ~99% of the test points (torch's SLEEF
// erfcf: 95%), within 1 ulp. Narrower targets: ErfcOfFloatValues, except that 1 <= |x| <= 2.65
// is 1 -+ erf(|x|) from kErfMiddle (erfc >= 1.8e-4 there, so M's 2e-14 absolute error is at
// most 1.1e-10 relative), the tail formula only for half vectors with a lane beyond.
template <class D, class V>
HWY_INLINE V ErfcF32(D d, V x) {
  if constexpr (hn::MaxLanes(D()) >= 8) {
    const V one = hn::Set(d, 1.0f);
    const V ax = hn::Abs(x);
    const V q = Horner(d, ErfCoefs::q, hn::Max(hn::Mul(x, x), hn::Set(d, 0x1p-100f)));
    const V hi = hn::Sub(one, x), lo = hn::Sub(hn::Sub(one, hi), x);  // 1 - x = hi + lo
    const V small = hn::Add(hi, hn::NegMulAdd(x, q, lo));
    V el;
    const V eh = ErfcTableF32(d, hn::Min(hn::Max(ax, hn::Set(d, 0.5f)), hn::Set(d, 2.65f)), el);
    // x < 0: 2 - erfc(|x|), 2 - eh as a pair (Fast2Sum) before el is subtracted
    const V two = hn::Set(d, 2.0f), u = hn::Sub(two, eh), ul = hn::Sub(hn::Sub(two, u), eh);
    const V large =
        hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Add(u, hn::Sub(ul, el)), hn::Add(eh, el));
    V y = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.5f)), small, large);
    const auto far = hn::Gt(ax, hn::Set(d, 2.65f));
    if (HWY_UNLIKELY(!hn::AllFalse(d, far)))
      y = hn::IfThenElse(far,
                         Widened(d, x, [](auto dd, auto xd) { return ErfcOfFloatValues(dd, xd); }),
                         y);
    return hn::IfThenElse(hn::IsNaN(x), x, y);
  } else {
    return Widened(d, x, [](auto dd, auto xd) {
      const auto one = hn::Set(dd, 1.0);
      const auto ax = hn::Abs(xd);
      const auto small = hn::NegMulAdd(xd, Horner(dd, kErfSmall, hn::Mul(xd, xd)), one);
      const auto m =
          Horner(dd, kErfMiddle, hn::Sub(hn::Min(ax, hn::Set(dd, 2.65)), hn::Set(dd, 1.55)));
      auto y = hn::IfThenElse(hn::Lt(ax, one), small, hn::Sub(one, hn::CopySign(m, xd)));
      const auto far = hn::Gt(ax, hn::Set(dd, 2.65));
      if (HWY_UNLIKELY(!hn::AllFalse(dd, far)))
        y = hn::IfThenElse(far, ErfcOfFloatValues(dd, xd), y);
      return hn::IfThenElse(hn::IsNaN(xd), xd, y);
    });
  }
}

// erf(x) - a for 0 <= x <= 0.48 and a within a few ulp of erf(x), in float32 lanes only:
// erf(x) = x (c0 + s c1 + s^2 P(s)), s = x^2, with c0, c1 and s carried as float32 pairs
// (hi + lo, the products split by FMA) so that the two large terms x c0h and x s c1h are
// exact and x c0h - a is exact (Sterbenz); the rest is at most ~3% of a, so its float32
// rounding stays below ~0.05 ulp of a. The Newton step then rounds correctly on 99.84% of
// |y| <= 1/2 (torch's float32 erfinv: 99.36%; the float64 residual: 99.98%), within 1 ulp.
struct ErfSmallPairCoefs {
  static constexpr float c0h = static_cast<float>(kErfSmall[7]);
  static constexpr float c0l = static_cast<float>(kErfSmall[7] - c0h);
  static constexpr float c1h = static_cast<float>(kErfSmall[6]);
  static constexpr float c1l = static_cast<float>(kErfSmall[6] - c1h);
  static constexpr float p[] = {static_cast<float>(kErfSmall[0]),
                                static_cast<float>(kErfSmall[1]),
                                static_cast<float>(kErfSmall[2]),
                                static_cast<float>(kErfSmall[3]),
                                static_cast<float>(kErfSmall[4]),
                                static_cast<float>(kErfSmall[5]),
                                c1l};
};

template <class D, class V>
HWY_INLINE V ErfResidualSmallF32(D d, V x, V a) {
  using C = ErfSmallPairCoefs;
  const V c0h = hn::Set(d, C::c0h), c1h = hn::Set(d, C::c1h);
  const V s = hn::Mul(x, x);
  const V sl = hn::MulSub(x, x, s);               // s + sl = x^2 exactly
  const V rest = hn::Mul(s, Horner(d, C::p, s));  // s (s P(s) + c1l)
  const V ah = hn::Mul(x, c0h), al = hn::MulSub(x, c0h, ah);
  const V ch = hn::Mul(s, c1h), cl = hn::MulSub(s, c1h, ch);
  const V dh = hn::Mul(x, ch), dl = hn::MulSub(x, ch, dh);
  // x (rest + cl + sl c1h + c0l): the small terms, each a few % of a at most.
  const V small =
      hn::MulAdd(x, hn::Add(rest, hn::MulAdd(sl, c1h, cl)), hn::Mul(x, hn::Set(d, C::c0l)));
  return hn::Add(hn::Add(hn::Sub(ah, a), dh), hn::Add(hn::Add(al, dl), small));
}

// erf(x) - a for 0.45 <= x <= 2.66 and a within a few ulp of erf(x), in float32 lanes only:
// x's interval (8 of width 0.276, by a table lookup) gives erf's Taylor expansion at its
// float32 centre c, a0 + a1 t + t^2 R(t), t = x - c (exact); a0 and a1 are float32 pairs, so
// a0h - a (Sterbenz) and a1h t (split by FMA) are exact, and R's float32 rounding is below
// ~0.05 ulp of x after the Newton step. Needs vectors of at least 8 float32 lanes.
// tools/fit_erf.py: erf Taylor tables on [0.45, 2.66], 8 intervals, 1/width 3.6199095 (rows: a9 ..
// a2, a1 lo, a0 lo, a1 hi, a0 hi)
constexpr float kErfTaylorCentre[16] = {0.58812499f, 0.864374995f, 1.140625f,   1.416875f,
                                        1.69312501f, 1.96937501f,  2.24562502f, 2.5218749f,
                                        2.5218749f,  2.5218749f,   2.5218749f,  2.5218749f,
                                        2.5218749f,  2.5218749f,   2.5218749f,  2.5218749f};
constexpr float kErfTaylor[12][16] = {
    {-0.00331239169f, -0.00334981922f, -0.00018248675f, 0.00168126309f, 0.00114212127f,
     3.56740202e-05f, -0.000368809764f, -0.000232944134f, -0.000232944134f, -0.000232944134f,
     -0.000232944134f, -0.000232944134f, -0.000232944134f, -0.000232944134f, -0.000232944134f,
     -0.000232944134f},
    {0.00784148369f, -0.00153022492f, -0.00606935797f, -0.00364488224f, 0.000208427387f,
     0.00159326312f, 0.00101402728f, 0.000213099585f, 0.000213099585f, 0.000213099585f,
     0.000213099585f, 0.000213099585f, 0.000213099585f, 0.000213099585f, 0.000213099585f,
     0.000213099585f},
    {0.0117645599f, 0.0187392849f, 0.00885034539f, -0.00274439016f, -0.00627707317f,
     -0.00376944663f, -0.00070569251f, 0.000583814923f, 0.000583814923f, 0.000583814923f,
     0.000583814923f, 0.000583814923f, 0.000583814923f, 0.000583814923f, 0.000583814923f,
     0.000583814923f},
    {-0.0446657948f, -0.0117563484f, 0.0165462587f, 0.0215459839f, 0.0114265205f, 0.00122546812f,
     -0.00288328622f, -0.00271215779f, -0.00271215779f, -0.00271215779f, -0.00271215779f,
     -0.00271215779f, -0.00271215779f, -0.00271215779f, -0.00271215779f, -0.00271215779f},
    {-0.0178882703f, -0.0665107295f, -0.0598191433f, -0.0251071211f, 0.00314787519f, 0.0129355881f,
     0.0107336445f, 0.00575564429f, 0.00575564429f, 0.00575564429f, 0.00575564429f, 0.00575564429f,
     0.00575564429f, 0.00575564429f, 0.00575564429f, 0.00575564429f},
    {0.180647403f, 0.115949072f, 0.0232405402f, -0.0363303758f, -0.0495116338f, -0.0364392847f,
     -0.0193173513f, -0.00797317736f, -0.00797317736f, -0.00797317736f, -0.00797317736f,
     -0.00797317736f, -0.00797317736f, -0.00797317736f, -0.00797317736f, -0.00797317736f},
    {-0.0820301026f, 0.0880711228f, 0.164052159f, 0.152324542f, 0.101279594f, 0.0525648631f,
     0.0220605563f, 0.00762432581f, 0.00762432581f, 0.00762432581f, 0.00762432581f, 0.00762432581f,
     0.00762432581f, 0.00762432581f, 0.00762432581f, 0.00762432581f},
    {-0.469576269f, -0.462036908f, -0.35040459f, -0.214746118f, -0.108683631f, -0.0459620394f,
     -0.0163575523f, -0.00492186286f, -0.00492186286f, -0.00492186286f, -0.00492186286f,
     -0.00492186286f, -0.00492186286f, -0.00492186286f, -0.00492186286f, -0.00492186286f},
    {1.52442825e-09f, -9.27330746e-09f, -5.96464522e-09f, -6.54608678e-09f, 1.29051447e-09f,
     -3.91246036e-10f, -1.00334449e-10f, -2.14648308e-12f, -2.14648308e-12f, -2.14648308e-12f,
     -2.14648308e-12f, -2.14648308e-12f, -2.14648308e-12f, -2.14648308e-12f, -2.14648308e-12f,
     -2.14648308e-12f},
    {2.96698541e-08f, 1.08153921e-08f, -1.89982465e-08f, 2.09452171e-08f, -2.1168173e-08f,
     -1.54012252e-08f, 1.49308104e-08f, -2.24390302e-08f, -2.24390302e-08f, -2.24390302e-08f,
     -2.24390302e-08f, -2.24390302e-08f, -2.24390302e-08f, -2.24390302e-08f, -2.24390302e-08f,
     -2.24390302e-08f},
    {0.79842937f, 0.534532964f, 0.307204038f, 0.151563212f, 0.0641911402f, 0.0233383887f,
     0.00728418678f, 0.00195166818f, 0.00195166818f, 0.00195166818f, 0.00195166818f, 0.00195166818f,
     0.00195166818f, 0.00195166818f, 0.00195166818f, 0.00195166818f},
    {0.594441056f, 0.778447688f, 0.893274486f, 0.954904616f, 0.98335427f, 0.994649172f,
     0.998505712f, 0.9996382f, 0.9996382f, 0.9996382f, 0.9996382f, 0.9996382f, 0.9996382f,
     0.9996382f, 0.9996382f, 0.9996382f},
};

template <class D, class V>
HWY_INLINE V ErfResidualMiddleF32(D d, V x, V a) {
  const auto e =
      PiecewisePolyF32(d, x, hn::Mul(hn::Sub(x, hn::Set(d, 0.45f)), hn::Set(d, 3.6199095f)),
                       kErfTaylorCentre, kErfTaylor);
  return hn::Add(hn::Add(hn::Sub(e.a0h, a), e.p), e.small);
}

// erfinv of float32 lanes: Giles' single-precision approximation (the scalar erfinv_of's
// start; its central polynomial refitted to degree 6, relative error 3.2e-6) in float32 lanes, then
// one Newton step whose residual is taken in float64 lanes (in float32 pairs for vectors whose |y|
// are all <= 0.9966, see ErfResidualSmallF32 and ErfResidualMiddleF32): the step squares the error,
// and the one rounding to float32 gives the correctly rounded value except within ~1e-6 ulp of a
// midpoint (float64) or on ~0.2% of the points (float32 pairs). The residual erf(x) - |y| takes
// erf's small-|x| polynomial for |y| <= 1/2, kErfMiddle up to |y| = 0.9998 (its 2e-14 absolute
// error over the slope, >= 1.1e-3 there, is < 1e-4 ulp of x), and near ±1 the step solves erfc(|x|)
// = 1 - |y| (exact for a float32 y) instead, whose difference would not cancel; each residual is
// computed only for the half vectors with a lane that needs it. The step's factor 1/f' = sqrt(pi)/2
// e^{x^2} needs only float32 precision: the correction is at most ~1e-6 of x. ±1 gives ±inf, |y| >
// 1 and NaN give NaN, -0 stays -0.
constexpr float kErfinvF32Max = 0.9966f;  // float32 residuals up to here
// The start's polynomials, from tools/fit_erf.py (show_erfinv_start): for |y| <= 0.9966 (w < 5)
// y G(w - 2.5), where Giles' degree 8 has 4e-7, since the Newton step squares the error
// ((3.2e-6)^2 x^3 < 0.01 ulp of x); w's log without Highway's division.
// erfinv start: G of degree 6, relative error 3.2e-06; log's L of degree 5, absolute error 2.6e-06
constexpr float kErfinvCentral[] = {-3.172221e-06f,  -6.364123e-07f,  2.1720942e-04f,
                                    -1.2654613e-03f, -4.1759675e-03f, 2.466499e-01f,
                                    1.501409e+00f};
constexpr float kErfinvLog[] = {-1.4338636e-01f, 2.2070779e-01f, -2.5397897e-01f,
                                3.3256745e-01f,  -4.999036e-01f, 1.0000046e+00f};

template <class D, class V>
HWY_INLINE V ErfinvF32(D d, V y) {
  const V one = hn::Set(d, 1.0f);
  const V ay = hn::Abs(y);
  const V yc = hn::Min(ay, hn::Set(d, 1.0f - 0x1p-24f));  // keeps log finite (±1 fixed below)
  // w = -log(z), z = 1 - y^2 = 2^k m, m in [sqrt(2)/2, sqrt(2)): log(m) = u L(u), u = m - 1
  // (z is normal: z >= 6e-8)
  const hn::RebindToSigned<D> di;
  const auto zb = hn::BitCast(di, hn::Mul(hn::Sub(one, yc), hn::Add(one, yc)));
  const auto kb = hn::ShiftRight<23>(hn::Sub(zb, hn::Set(di, 0x3F3504F3)));  // arithmetic
  const V u = hn::Sub(hn::BitCast(d, hn::Sub(zb, hn::ShiftLeft<23>(kb))), one);
  const V w = hn::Neg(hn::MulAdd(hn::ConvertTo(d, kb), hn::Set(d, 0.693147182f),
                                 hn::Mul(u, Horner(d, kErfinvLog, u))));
  const auto central = hn::Lt(w, hn::Set(d, 5.0f));
  V p = Horner(d, kErfinvCentral, hn::Sub(w, hn::Set(d, 2.5f)));
  if (HWY_UNLIKELY(!hn::AllTrue(d, central))) {  // |y| > 0.9966 (or NaN) in this vector
    V pt = hn::Set(d, -0.000200214257f);
    const V wt = hn::Sub(hn::Sqrt(w), hn::Set(d, 3.0f));
    for (float c : {0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                    -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f})
      pt = hn::MulAdd(pt, wt, hn::Set(d, c));
    p = hn::IfThenElse(central, p, pt);
  }
  const V x0 = hn::Mul(p, yc);  // |x|, at most 3.9
  // g = 1/f' = sqrt(pi)/2 e^{x0^2}: the correction f g is at most ~1e-6 of x, so g needs only
  // ~1e-3 relative accuracy: e^s = 2^k e^r, |r| <= ln2/2, e^r by its degree-4 Taylor
  // polynomial (error 2.5e-5), sqrt(pi)/2 folded into it; s <= 15.3, so 2^k is a normal float.
  const V s = hn::Mul(x0, x0);
  const V k = hn::Round(hn::Mul(s, hn::Set(d, 1.44269504f)));
  const V r = hn::NegMulAdd(k, hn::Set(d, 0.693147182f), s);
  V er = hn::Set(d, 0.886226925f / 24);
  for (float c : {0.886226925f / 6, 0.886226925f / 2, 0.886226925f, 0.886226925f})
    er = hn::MulAdd(er, r, hn::Set(d, c));
  const V g =
      hn::Mul(er,
              hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, k), hn::Set(di, 127)))));
  // Newton on f(x) = erf(x) - |y| or, |y| > 0.9998, (1 - |y|) - erfc(x): x - f / f' with
  // f' = 2/sqrt(pi) e^{-x^2} for both. A vector whose |y| are all <= 0.9966 takes the residual
  // in float32 pairs (<= 1/2 only with fewer than 8 lanes), the others in float64 lanes.
  constexpr bool kTable = hn::MaxLanes(D()) >= 8;
  V v;
  if (hn::AllTrue(d, hn::Le(ay, hn::Set(d, kTable ? kErfinvF32Max : 0.5f)))) {
    V f = ErfResidualSmallF32(d, x0, ay);
    if constexpr (kTable) {
      const auto middle = hn::Gt(ay, hn::Set(d, 0.5f));
      if (!hn::AllFalse(d, middle)) f = hn::IfThenElse(middle, ErfResidualMiddleF32(d, x0, ay), f);
    }
    v = hn::NegMulAdd(f, g, x0);
  } else {
    v = Widened(
        d, x0,
        [](auto dd, auto x, auto a, auto gd) {
          auto f = hn::Sub(hn::Mul(x, Horner(dd, kErfSmall, hn::Mul(x, x))), a);
          const auto middle = hn::Gt(a, hn::Set(dd, 0.5));
          if (hn::AllFalse(dd, middle)) return hn::NegMulAdd(f, gd, x);
          f = hn::IfThenElse(middle,
                             hn::Sub(Horner(dd, kErfMiddle, hn::Sub(x, hn::Set(dd, 1.55))), a), f);
          const auto tail = hn::Gt(a, hn::Set(dd, 0.9998));
          if (HWY_UNLIKELY(!hn::AllFalse(dd, tail))) {
            const auto r = hn::Sub(hn::Set(dd, 1.0), a);  // 1 - |y|, exact
            f = hn::IfThenElse(tail, hn::Sub(r, ErfcOfFloatValues(dd, x)), f);
          }
          return hn::NegMulAdd(f, gd, x);
        },
        ay, g);
  }
  v = hn::IfThenElse(hn::Eq(ay, one), hn::Inf(d), v);
  v = hn::Xor(v, hn::And(hn::SignBit(d), y));  // erfinv(-y) = -erfinv(y), and -0
  return hn::IfThenElse(hn::Or(hn::IsNaN(y), hn::Gt(ay, one)), hn::NaN(d), v);
}

}  // namespace ember::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_KERNELS_CPU_ERF_HWY_INL_H_
