// SIMD kernels for float32/float64 elementwise ops on contiguous runs, written with Google
// Highway and compiled once per instruction set (AVX-512, AVX2, SSE4, and a scalar
// fallback); the best one the CPU has is picked at the first call. elementwise.cpp sends
// contiguous runs here and keeps its scalar loops for strided ones.
//
// - exp, expm1, log, log1p, log2, sin, cos, tanh, sigmoid: libm calls the compiler can't
//   vectorize. Highway's hwy/contrib/math (float32 sin/cos: ember's own, trig_hwy-inl.h,
//   within 2 ULP), within 4 ULP of the correctly rounded result
//   inside a per-op input range; a vector holding any element outside it (NaN, ±inf,
//   overflow/underflow, log of x <= 0, |x| > 39000 for sin/cos, ...) computes those
//   elements with the same std:: function as the scalar loop, so edge cases behave exactly
//   as before.
// - sqrt, rsqrt, reciprocal, and add/sub (alpha 1), mul, div: exact IEEE operations, the
//   same bits as the scalar loops, which the compiler vectorizes only for the baseline SSE2
//   (or not at all: std::sqrt may set errno; in-place ops fail its aliasing check).
//
// Environment: EMBER_DISABLE_SIMD=1 turns these kernels off (the scalar loops run, as
// before); EMBER_SIMD_TARGET=avx3|avx2|sse4|scalar caps the instruction set (and says on
// stderr which one runs), so the tests cover every copy on one CPU.
#pragma once
#include <cstdint>

#include "kernels/cpu/elementwise.h"

namespace ember::kernels {

// True when `op` has a SIMD kernel and SIMD is on.
bool simd_unary_enabled(UnaryOp op);

// out[i] = op(in[i]) for i in [0, n); `out` may be `in`. Only for ops where
// simd_unary_enabled(op) is true.
void simd_unary(UnaryOp op, const float* in, float* out, int64_t n);
void simd_unary(UnaryOp op, const double* in, double* out, int64_t n);
// s[i] = sin(x[i]) and c[i] = cos(x[i]) for i in [0, n) with one range reduction: the same
// bits as simd_unary's Sin and Cos (Note [float32 sin and cos]). s or c may be x. Only when
// simd_unary_enabled(UnaryOp::Sin).
void simd_sincos(const float* x, float* s, float* c, int64_t n);
// The same for bfloat16/float16 storage (dt): each vector widened in registers, the float32
// kernel, rounded once on store (Note [Half kernels] without the float32 block buffers).
void simd_unary_half(UnaryOp op, DType dt, const uint16_t* in, uint16_t* out, int64_t n);

// True when `op` on floats with this alpha has a SIMD kernel (add/sub with alpha 1, mul,
// div: exact IEEE operations, so the same bits as the scalar loop) and SIMD is on.
bool simd_binary_enabled(BinaryOp op, double alpha);

// out[i] = a[i] op b[i] for i in [0, n); a_scalar / b_scalar: that operand is one value
// (stride 0). `out` may be `a` or `b`.
void simd_binary(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                 float* out, int64_t n);
void simd_binary(BinaryOp op, const double* a, bool a_scalar, const double* b, bool b_scalar,
                 double* out, int64_t n);

// out = silu(x) = x * sigmoid(x), and out = g * silu'(x), for contiguous runs of n; the same
// values as sigmoid's kernel times x (sigmoid's fix-ups included). Only when
// simd_unary_enabled(UnaryOp::Sigmoid).
void simd_silu(const float* x, float* out, int64_t n);
void simd_silu(const double* x, double* out, int64_t n);
void simd_silu_backward(const float* g, const float* x, float* out, int64_t n);
void simd_silu_backward(const double* g, const double* x, double* out, int64_t n);

// out = hardswish(x), and out = hardswish's gradient for g (torch's formulas and branches),
// for contiguous runs of n. Only when simd_unary_enabled(UnaryOp::Sigmoid).
void simd_hardswish(const float* x, float* out, int64_t n);
void simd_hardswish(const double* x, double* out, int64_t n);
void simd_hardswish_backward(const float* g, const float* x, float* out, int64_t n);
void simd_hardswish_backward(const double* g, const double* x, double* out, int64_t n);

// g null: out = softplus(x) (x where beta x > threshold, else log1p(exp(beta x)) / beta, with
// ember's exp and log1p kernels); g given: out = its gradient for g (g, or g e / (e + 1) with
// e = exp(beta x)), for contiguous runs of n. Only when simd_unary_enabled(UnaryOp::Exp).
void simd_softplus(const float* g, const float* x, float* out, int64_t n, float beta,
                   float threshold);
void simd_softplus(const double* g, const double* x, double* out, int64_t n, double beta,
                   double threshold);

// Name of the instruction set the kernels run on: "AVX3" (AVX-512), "AVX2", "SSE4", "SCALAR"...
const char* simd_target();

}  // namespace ember::kernels
