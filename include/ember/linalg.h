// ember::linalg — LAPACK-backed linear algebra with PyTorch's names and gradients
// (torch.linalg.*). Every function takes float32/float64 matrices in the last two dims and
// is batched over (and, for two operands, broadcasts) the leading dims:
//
//   Tensor A = randn({4, 3, 3}, DType::Float64), B = randn({4, 3, 2}, DType::Float64);
//   Tensor X = linalg_solve(A, B);          // A @ X == B, one LU per matrix
//   auto [sign, logabsdet] = linalg_slogdet(A);
//
// A singular or non-positive-definite input raises LinAlgError (Python: ember.linalg.LinAlgError,
// a RuntimeError) with torch's message; the *_ex forms return an int32 `info` per matrix instead.
#pragma once
#include <string>
#include <tuple>
#include <utility>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

// A factorization failed (singular matrix, not positive-definite): torch's _LinAlgError.
struct LinAlgError : Error {
  using Error::Error;
};

// X with A X = B. A (*, n, n), B (*, n, k); batch dims broadcast.
Tensor linalg_solve(const Tensor& A, const Tensor& B);
// (A^-1, info); with check_errors a singular matrix raises as linalg_inv does.
std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
Tensor linalg_inv(const Tensor& A);
Tensor linalg_det(const Tensor& A);
// (sign, log|det|); sign 0 and log|det| -inf for a singular matrix.
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A);
// (L, info) with A = L L^T (U^T U with upper), from A's lower triangle.
std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false,
                                             bool check_errors = false);
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
// X with A X = B (X A = B when !left), A triangular; batch dims broadcast.
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);

// Decompositions (src/ops/linalg_decomp.cpp).
// (eigenvalues ascending, eigenvectors as columns) of symmetric A from its lower (else upper)
// triangle.
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, bool lower = true);
Tensor linalg_eigvalsh(const Tensor& A, bool lower = true);
// (L, V) of a general square matrix (float32/float64/complex64/complex128): A V = V diag(L),
// complex results (complex64 for float32/complex64 A), eigenvectors of unit norm with their
// largest component real, in LAPACK's order (geev), as torch.
std::pair<Tensor, Tensor> linalg_eig(const Tensor& A);
Tensor linalg_eigvals(const Tensor& A);
// (U, S, Vh) with A = U diag(S) Vh; S descending.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);
Tensor linalg_svdvals(const Tensor& A);
// (Q, R); mode "reduced", "complete" or "r" (Q is then empty).
std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode = "reduced");
// LAPACK's packed QR (a, tau), as torch.geqrf; Q from Householder vectors (torch.orgqr). No
// gradient for either (torch has none for geqrf).
std::pair<Tensor, Tensor> geqrf(const Tensor& A);
Tensor linalg_householder_product(const Tensor& A, const Tensor& tau);

// LU (src/ops/linalg_lu.cpp): (LU packed, pivots int32 1-based, info) with A = P L U; the
// gradient is implemented for square A.
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true,
                                                       bool check_errors = false);
// Bunch-Kaufman LDL^T of symmetric A (lower triangle): (LD, pivots int32 as LAPACK's, info);
// ldl_solve solves A X = B from them. No gradients (as torch).
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool check_errors = false);
Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B);
// (P, L, U) from lu_factor's output; a part not asked for is an empty tensor.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data = true, bool unpack_pivots = true);

}  // namespace ember
