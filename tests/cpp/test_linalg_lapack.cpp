// The C++ API of ember::linalg (include/ember/linalg.h): results checked by reconstruction,
// errors by type. The Python tests compare every op with torch.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/linalg.h"

using namespace ember;

namespace {

double max_abs(const Tensor& t) { return max(abs(t)).item().to_double(); }

Tensor spd(int64_t batch, int64_t n) {
  Tensor a = randn({batch, n, n}, DType::Float64);
  return add(matmul(a, transpose(a, -1, -2)), mul(eye(n, n, DType::Float64), Scalar(double(n))));
}

}  // namespace

TEST(LinalgLapack, SolveInvDet) {
  Tensor A = spd(3, 5), B = randn({3, 5, 2}, DType::Float64);
  Tensor X = linalg_solve(A, B);
  EXPECT_LT(max_abs(sub(matmul(A, X), B)), 1e-10);
  Tensor I = matmul(A, linalg_inv(A));
  EXPECT_LT(max_abs(sub(I, eye(5, 5, DType::Float64))), 1e-10);
  auto [sign, logabs] = linalg_slogdet(A);
  EXPECT_LT(max_abs(sub(mul(sign, exp(logabs)), linalg_det(A))), 1e-6 * max_abs(linalg_det(A)));
}

TEST(LinalgLapack, CholeskyAndTriangular) {
  Tensor A = spd(2, 4);
  Tensor L = linalg_cholesky(A);
  EXPECT_LT(max_abs(sub(matmul(L, transpose(L, -1, -2)), A)), 1e-10);
  Tensor B = randn({2, 4, 3}, DType::Float64);
  Tensor X = linalg_solve_triangular(L, B, /*upper=*/false);
  EXPECT_LT(max_abs(sub(matmul(L, X), B)), 1e-10);
}

TEST(LinalgLapack, Decompositions) {
  Tensor A = randn({2, 5, 3}, DType::Float64);
  auto [U, S, Vh] = linalg_svd(A, /*full_matrices=*/false);
  EXPECT_LT(max_abs(sub(matmul(mul(U, unsqueeze(S, -2)), Vh), A)), 1e-10);
  auto [Q, R] = linalg_qr(A);
  EXPECT_LT(max_abs(sub(matmul(Q, R), A)), 1e-10);
  Tensor H = spd(2, 4);
  auto [w, V] = linalg_eigh(H);
  EXPECT_LT(max_abs(sub(matmul(mul(V, unsqueeze(w, -2)), transpose(V, -1, -2)), H)), 1e-9);
  auto [LU, piv, info] = linalg_lu_factor_ex(H);
  auto [P, L, Uf] = lu_unpack(LU, piv);
  EXPECT_LT(max_abs(sub(matmul(P, matmul(L, Uf)), H)), 1e-10);
}

TEST(LinalgLapack, Errors) {
  Tensor Z = zeros({2, 3, 3}, DType::Float64);
  EXPECT_THROW(linalg_inv(Z), LinAlgError);
  EXPECT_THROW(linalg_solve(Z, ones({2, 3, 1}, DType::Float64)), LinAlgError);
  EXPECT_THROW(linalg_cholesky(Z), LinAlgError);
  EXPECT_THROW(linalg_inv(ones({3, 4}, DType::Float64)), Error);
  EXPECT_THROW(linalg_det(ones({3, 3}, DType::Int64)), Error);
  auto [inv, info] = linalg_inv_ex(Z);
  EXPECT_EQ(info.data<int32_t>()[0], 1);
}
