// The gamma family, Bessel functions and the error-function family, computed in double with
// the C++ library and Boost.Math (header-only, Debian's libboost-dev), then rounded to the
// output dtype. Edges follow PyTorch 2.x: digamma(0) = -inf, digamma(-0.0) = +inf,
// lgamma and digamma of a negative integer are inf and NaN, NaN in gives NaN out.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

enum class MathFn { Lgamma, Digamma, Polygamma, Erfc, Erfcx, I0, I1, Sinc, Ndtr, Ndtri, LogNdtr };
// out = f(a) over Loop{out, a}, both of floating dtype `dt`; `n` is polygamma's order.
void math_fn(MathFn f, DType dt, const Loop& L, int64_t n = 0);

// x * log(y) and x * log1p(y), 0 where x == 0 unless y is NaN; over Loop{out, x, y}.
enum class XlogFn { Xlogy, Xlog1py };
void xlog_fn(XlogFn f, DType dt, const Loop& L);

}  // namespace ember::kernels
