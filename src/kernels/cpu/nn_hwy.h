// SIMD GELU on contiguous runs, written with Google Highway and compiled once per
// instruction set (like elementwise_hwy.h; the best copy is picked at the first call).
// nn.cpp sends contiguous runs here and computes strided ones with the same formulas in
// scalar code.
//
// The erf form exists for float32 only: erf is the elementwise kernels' float32 erf with
// lower degrees (erf_hwy-inl.h, ErfCoarseCoefs: absolute error 8e-8, PyTorch's 1.5e-7; no exp
// and no division). float64 keeps std::erf for full accuracy (gradcheck needs it) and gets the
// tanh form only.
#pragma once
#include <cstdint>

namespace ember::kernels {

// out[i] = gelu(x[i]); out may be x.
void gelu_simd(const float* x, float* out, int64_t n, bool tanh_approx);
void gelu_tanh_simd(const double* x, double* out, int64_t n);
// out[i] = g[i] * gelu'(x[i]).
void gelu_backward_simd(const float* g, const float* x, float* out, int64_t n, bool tanh_approx);
void gelu_tanh_backward_simd(const double* g, const double* x, double* out, int64_t n);

// The SIMD gelu's erf (ErfCoarseCoefs) on one value, for the strided path.
float erf_f32(float x);

}  // namespace ember::kernels
