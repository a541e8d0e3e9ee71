// LAPACK factorizations and triangular solves (OpenBLAS carries LAPACK's symbols), batched.
// Every matrix is column-major and contiguous, `batch` of them back to back (the ops layer
// makes these copies: a row-major tensor's transpose is its column-major layout). float32
// and float64 only; sizes fit LAPACK's 32-bit int (checked by src/ops/linalg_lapack.cpp).
#pragma once
#include <cstdint>

#include "ember/dtype.h"

namespace ember::kernels {

// LU with partial pivoting, in place: A_i = P_i L_i U_i. ipiv holds n 1-based rows per
// matrix; info[i] > 0 when U_i[info, info] is exactly zero (the factorization is still done).
void getrf_batched(DType dt, int64_t batch, int64_t n, void* a, int32_t* ipiv, int32_t* info);

// Solves A_i X = B_i (or A_i^T X = B_i with trans) in place in b (n x k per matrix), from
// getrf's factors. a_step/b_step: elements between consecutive matrices (0 reuses one).
void getrs_batched(DType dt, int64_t batch, int64_t n, int64_t k, const void* lu, int64_t a_step,
                   const int32_t* ipiv, void* b, bool trans);

// Cholesky A_i = L_i L_i^T from A_i's lower triangle, in place; the strictly upper part is
// zeroed. info[i] > 0 is the order of the first leading minor that is not positive-definite.
void potrf_batched(DType dt, int64_t batch, int64_t n, void* a, int32_t* info);

// Solves op(A_i) X = B_i in place in b (n x k), A_i triangular (upper or lower, unit
// diagonal if unit). No singularity check: a zero pivot gives inf/nan, as torch.
void trsm_batched(DType dt, int64_t batch, int64_t n, int64_t k, const void* a, void* b, bool upper,
                  bool unit);

// From getrf's factors: sign and log|det| per matrix (sign 0, log -inf when singular), and
// det itself (the product of U's diagonal, signed by the row swaps).
void lu_det(DType dt, int64_t batch, int64_t n, const void* lu, const int32_t* ipiv, void* sign,
            void* logabs, void* det);

}  // namespace ember::kernels
