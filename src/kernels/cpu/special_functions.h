// The gamma family, Bessel functions and the error-function family, computed in double with
// the C++ library and Boost.Math (header-only, Debian's libboost-dev), then rounded to the
// output dtype. Edges follow PyTorch 2.x: digamma(0) = -inf, digamma(-0.0) = +inf,
// lgamma and digamma of a negative integer are inf and NaN, NaN in gives NaN out.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

enum class MathFn {
  Lgamma,
  Digamma,
  Polygamma,
  Erfc,
  Erfcx,
  I0,
  I1,
  I0e,
  I1e,
  BesselJ0,
  BesselJ1,
  BesselY0,
  BesselY1,
  BesselK0,
  BesselK1,
  BesselK0e,
  BesselK1e,
  SphericalJ0,
  AiryAi,
  Entr,
  Sinc,
  Ndtr,
  Ndtri,
  LogNdtr
};
// out = f(a) over Loop{out, a}, both of floating dtype `dt`; `n` is polygamma's order.
void math_fn(MathFn f, DType dt, const Loop& L, int64_t n = 0);

// Over Loop{out, x, y}: x * log(y) and x * log1p(y), 0 where x == 0 unless y is NaN; the
// regularized incomplete gamma functions P(x, y) and Q(x, y) (torch.igamma / igammac).
// exp(-|x|) I0(x) for one double (what math_fn(MathFn::I0e) computes per element).
double i0e(double x);

enum class BinaryFn { Xlogy, Xlog1py, GammaInc, GammaIncc };
void binary_fn(BinaryFn f, DType dt, const Loop& L);

}  // namespace ember::kernels
