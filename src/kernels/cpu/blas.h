// Matrix products: thin wrappers over OpenBLAS (float32/float64) and a plain loop for the
// integer dtypes, which BLAS does not cover. Matrices are row-major views given by a
// pointer, a leading dimension (the row stride, in elements) and a `trans` flag: with
// trans, the operand is the transpose of the stored row-major matrix, so a tensor's
// x.t() reaches BLAS without a copy. The ops layer (src/ops/linalg.cpp) picks the layout
// and guarantees every size and leading dimension fits BLAS's 32-bit int.
#pragma once
#include <cstdint>

#include "ember/dtype.h"
#include "ember/scalar.h"

namespace ember::kernels {

// A matrix as BLAS sees it: op(A)[i, j] = trans ? ptr[j * ld + i] : ptr[i * ld + j].
struct MatRef {
  const void* ptr = nullptr;
  bool trans = false;
  int64_t ld = 1;  // >= 1 and >= the stored row length
};

// C[m, n] = alpha * op(A)[m, k] @ op(B)[k, n] + beta * C, where C is row-major with
// leading dimension ldc. beta == 0 never reads C (NaN there is ignored, as in BLAS).
// For integer dtypes alpha and beta are truncated to integers (as in PyTorch).
void gemm(DType dt, int64_t m, int64_t n, int64_t k, Scalar alpha, MatRef a, MatRef b, Scalar beta,
          void* c, int64_t ldc);

// The same product for `batch` triples: A, B and C of batch i start at byte offsets
// a_off[i], b_off[i] and i * c_stride elements. Batches run in parallel when each product
// is too small for BLAS's own threads to pay off.
void gemm_batched(DType dt, int64_t batch, int64_t m, int64_t n, int64_t k, Scalar alpha, MatRef a,
                  const int64_t* a_off, MatRef b, const int64_t* b_off, Scalar beta, void* c,
                  int64_t ldc, int64_t c_stride);

// y[m] = alpha * op(A)[m, n] @ x[n] + beta * y. incx, incy > 0 (elements).
void gemv(DType dt, int64_t m, int64_t n, Scalar alpha, MatRef a, const void* x, int64_t incx,
          Scalar beta, void* y, int64_t incy);

// *out = sum_i x[i * incx] * y[i * incy] (out has dtype dt). incx, incy > 0.
void dot(DType dt, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out);

}  // namespace ember::kernels
