// SIMD versions of the hyperbolic functions of special.h (sinh, cosh, asinh, acosh, atanh)
// on contiguous runs, with Google Highway, compiled per instruction set and picked at run
// time like elementwise_hwy.cpp (and switched off with it by EMBER_DISABLE_SIMD). Within
// 4 ULP of the correctly rounded result inside each op's input range; a vector holding an
// element outside it (NaN, inf, overflow, |x| >= 1 for atanh, x < 1 for acosh) computes
// those elements with std::, as the scalar loop does.
#pragma once
#include <cstdint>

#include "kernels/cpu/special.h"

namespace ember::kernels {

// True when `op` has a SIMD kernel and SIMD is on.
bool simd_special_enabled(SpecialOp op);
// out[i] = op(in[i]) for i in [0, n); `out` may be `in`.
void simd_special(SpecialOp op, const float* in, float* out, int64_t n);
void simd_special(SpecialOp op, const double* in, double* out, int64_t n);
// out[i] = erfc(in[i]) for float32 (erf_hwy-inl.h: float64 lanes, rounded once); `out` may
// be `in`. On when simd_special_enabled is.
void simd_erfc(const float* in, float* out, int64_t n);
// The same for erfinv (float32; within 1 ulp of special.cpp's double evaluation).
void simd_erfinv(const float* in, float* out, int64_t n);

}  // namespace ember::kernels
