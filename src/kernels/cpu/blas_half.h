// Matrix products of bfloat16/float16 (blas.h's gemm/gemv/dot route them here).
//
// Note [Half matmul]: the operands are widened to float32 (exact) into contiguous buffers and
// multiplied by OpenBLAS's sgemm, which accumulates in float32; the float32 result is rounded
// once into C. That is torch's numerics (float32 accumulation, one rounding), and it runs at
// sgemm's speed: float16 has no product instruction on this class of CPU (torch falls back to a
// scalar loop), and the widening costs O(mk + kn + mn) against the product's O(mnk).
#pragma once
#include <cstdint>

#include "kernels/cpu/blas.h"

namespace ember::kernels {

void gemm_half(DType dt, int64_t m, int64_t n, int64_t k, Scalar alpha, MatRef a, MatRef b,
               Scalar beta, void* c, int64_t ldc);
void gemv_half(DType dt, int64_t m, int64_t n, Scalar alpha, MatRef a, const void* x, int64_t incx,
               Scalar beta, void* y, int64_t incy);
void dot_half(DType dt, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy,
              void* out);

}  // namespace ember::kernels
