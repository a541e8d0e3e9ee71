// Window functions (torch.*_window, torch.signal.windows): every sample computed from its
// index in double in one pass over the output, then rounded to the output dtype.
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// With x_i = i / denom (denom: N - 1 for a symmetric window, N for a periodic one), out[i] is
//   CosineSum    sum_k (-1)^k p[k] cos(2 pi k x_i)          p = the coefficients a_0 .. a_{np-1}
//   Bartlett     1 - |2 x_i - 1|
//   Kaiser       I0(p[0] sqrt(1 - (2 x_i - 1)^2)) / I0(p[0])   p[0] = beta >= 0
//   Gaussian     exp(-((i - denom / 2) / p[0])^2 / 2)        p[0] = std
//   Exponential  exp(-|i - p[0]| / p[1])                      p[0] = center, p[1] = tau
//   Sine         sin(pi (i + 1/2) / denom)
enum class Window { CosineSum, Bartlett, Kaiser, Gaussian, Exponential, Sine };

// Writes out[0 .. n) (contiguous, floating dtype `dt`).
void window(Window kind, DType dt, void* out, int64_t n, double denom, const double* p, int64_t np);

}  // namespace ember::kernels
