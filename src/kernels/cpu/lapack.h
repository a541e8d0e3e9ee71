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
// The same for m x n matrices; ipiv holds min(m, n) rows per matrix.
void getrf_rect_batched(DType dt, int64_t batch, int64_t m, int64_t n, void* a, int32_t* ipiv,
                        int32_t* info);
// The row permutation of getrf's k = min(m, n) swaps per matrix: perm (m per matrix) with
// row i of P^T A being row perm[i] of A.
void lu_permutation(int64_t batch, int64_t m, int64_t k, const int32_t* ipiv, int64_t* perm);

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

// Symmetric eigendecomposition (syevd) from the `lower` (else upper) triangle of each A_i, in
// place: a becomes the eigenvectors (columns) when `vectors`, w (n per matrix) the eigenvalues
// in ascending order. info[i] > 0: the algorithm did not converge.
void syevd_batched(DType dt, int64_t batch, int64_t n, void* a, void* w, int32_t* info,
                   bool vectors, bool lower);

// General eigendecomposition (geev) of each n x n A_i (column-major, destroyed), for float32,
// float64, complex64 or complex128 A: w (n per matrix) the eigenvalues in LAPACK's order and,
// when v is given, the right eigenvectors as its columns (n x n, column-major), each of unit
// 2-norm with its largest component real. w and v are complex64 for float32/complex64 A,
// complex128 otherwise. info[i] > 0: the QR iteration did not converge.
void geev_batched(DType dt, int64_t batch, int64_t n, void* a, void* w, void* v, int32_t* info);

// SVD (gesdd) of each m x n A_i (destroyed): s (k = min(m, n) per matrix, descending), and,
// when u and vt are given, U (m x ucols) and V^T (vtrows x n) with ucols = vtrows = k, or m and
// n with `full`. info[i] > 0: no convergence.
void gesdd_batched(DType dt, int64_t batch, int64_t m, int64_t n, void* a, void* s, void* u,
                   void* vt, int32_t* info, bool full);

// QR (geqrf) of each m x n A_i in place: R in the upper triangle, the Householder vectors
// below it, tau (k = min(m, n) per matrix).
void geqrf_batched(DType dt, int64_t batch, int64_t m, int64_t n, void* a, void* tau);

// Q (orgqr): each q_i is m x cols (its first k columns holding geqrf's vectors on entry),
// overwritten by the first `cols` columns of Q_i = H_1 ... H_k.
void orgqr_batched(DType dt, int64_t batch, int64_t m, int64_t cols, int64_t k, void* q,
                   const void* tau);

// Symmetric indefinite (Bunch-Kaufman) A_i = L_i D_i L_i^T from the lower triangle, in place
// (sytrf); ipiv as LAPACK's (negative for 2x2 blocks). info[i] > 0: D_i is exactly singular.
void sytrf_batched(DType dt, int64_t batch, int64_t n, void* a, int32_t* ipiv, int32_t* info);
// Solves A_i X = B_i in place in b (n x k) from sytrf's factors (sytrs).
void sytrs_batched(DType dt, int64_t batch, int64_t n, int64_t k, const void* ld,
                   const int32_t* ipiv, void* b);

}  // namespace ember::kernels
