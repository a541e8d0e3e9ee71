// Matrix products of bfloat16/float16 (blas.h's gemm/gemv/dot route them here).
//
// Note [Half matmul]: where the CPU has AMX, bfloat16 and float16 products run on ember's tile
// kernel (Note [AMX bfloat16 gemm]; float16 as two bfloat16 planes, Note [AMX float16 gemm]);
// bfloat16 without AMX on oneDNN's matmul. Otherwise the operands are widened to float32 (exact)
// into contiguous buffers and multiplied by ember's float32 gemm, which accumulates in float32;
// the float32 result is rounded once into C. That is torch's numerics (float32 accumulation,
// one rounding) at float32's speed plus the widening, O(mk + kn + mn) against the product's
// O(mnk).
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
