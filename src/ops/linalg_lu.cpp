// LU factorization (LAPACK getrf) as torch.linalg.lu_factor_ex, and lu_unpack, with torch's
// gradient (linalg_lu_backward, square case) right under the forward. linalg.lu and
// lu_solve compose these in python/ember/_linalg_lu.py. Also the symmetric-indefinite LDL^T
// (sytrf/sytrs) at the end.
#include <algorithm>

#include "autograd/function.h"
#include "ember/linalg.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/lapack.h"
#include "ops/linalg_lapack.h"

namespace ember {
namespace {

using autograd::SavedTensor;

std::string zero_pivot(int32_t info) {
  return detail::cat("U[", info, ",", info,
                     "] is zero and using it on lu_solve would result in a division by zero. If "
                     "you still want to perform the factorization, consider calling "
                     "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
}

// For A = P L U (square) and the gradient G of the packed LU (gL = tril(G, -1), gU = triu(G)):
// gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T.
Tensor lu_factor_backward(const Tensor& G, const Tensor& LU, const Tensor& pivots) {
  auto [P, L, U] = lu_unpack(LU, pivots, true, true);
  Tensor gA = add(tril(matmul(ops::mT(L), tril(G, -1)), -1), triu(matmul(triu(G), ops::mT(U))));
  gA = linalg_solve_triangular(ops::mT(U), gA, /*upper=*/false, /*left=*/false);
  gA = linalg_solve_triangular(ops::mT(L), gA, /*upper=*/true, /*left=*/true,
                               /*unitriangular=*/true);
  return matmul(P, gA);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot,
                                                       bool check_errors) {
  EMBER_RECORD(linalg_lu_factor_ex, A, pivot, check_errors);
  EMBER_PROFILE_OP("linalg_lu_factor_ex");
  const char* op = "linalg.lu_factor";
  ops::check_lapack_kernel_dtype("lu_cpu", A);
  if (A.dim() < 2) {  // torch's wording, sizes as "[3]"
    std::string sz = "[";
    for (int64_t i = 0; i < A.dim(); ++i) sz += (i ? ", " : "") + std::to_string(A.size(i));
    throw Error(
        detail::cat("torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ", sz,
                    "] instead"));
  }
  EMBER_CHECK(pivot, Error, op, ": LU without pivoting is not implemented on the CPU");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  EMBER_CHECK(m <= INT32_MAX && n <= INT32_MAX, ValueError, op, ": a matrix of shape ", A.sizes(),
              " is too large for LAPACK");
  Dims batch = ops::batch_dims(A);
  Tensor buf = ops::colmajor(A);
  Tensor piv = Tensor::empty(ops::batched_shape(batch, {k}), DType::Int32);
  Tensor info = Tensor::empty(batch, DType::Int32);
  kernels::getrf_rect_batched(A.dtype(), info.numel(), m, n, buf.data_ptr(), piv.data<int32_t>(),
                              info.data<int32_t>());
  if (check_errors) ops::check_info("torch.linalg.lu_factor", info, A.dim() > 2, zero_pivot);
  Tensor LU = ops::from_colmajor(buf);
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgLuFactorExBackward0", {&A}, {&LU},
                     [slu = SavedTensor(LU, true), piv, m, n](Grads& g, const Node&) -> Grads {
                       EMBER_CHECK(m == n, NotImplementedError,
                                   "linalg.lu_factor: the gradient of a non-square (", m, "x", n,
                                   ") factorization is not implemented in ember yet");
                       return {lu_factor_backward(g[0], slu.get(), piv)};
                     });
  }
  return {LU, piv, info};
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data, bool unpack_pivots) {
  EMBER_RECORD(lu_unpack, LU, pivots, unpack_data, unpack_pivots);
  EMBER_PROFILE_OP("lu_unpack");
  const char* op = "lu_unpack";
  ops::check_lapack_dtype(op, LU);
  EMBER_CHECK(LU.dim() >= 2, Error, op,
              ": expected LU_data to have at least 2 dimensions, but got shape ", LU.sizes());
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Dims batch = ops::batch_dims(LU);
  Tensor P, L, U;
  if (unpack_data) {
    L = add(tril(narrow(LU, -1, 0, k), -1), eye(m, k, LU.dtype()));
    U = triu(narrow(LU, -2, 0, k));
  } else {
    L = Tensor::empty({0}, LU.dtype());
    U = Tensor::empty({0}, LU.dtype());
  }
  if (unpack_pivots) {
    EMBER_CHECK(pivots.dtype() == DType::Int32 || pivots.dtype() == DType::Int64, TypeError, op,
                ": LU_pivots must be an integer tensor, got ", dtype_name(pivots.dtype()));
    EMBER_CHECK(pivots.dim() >= 1 && pivots.size(-1) == k && pivots.numel() == numel_of(batch) * k,
                Error, op, ": expected LU_pivots of shape ", ops::batched_shape(batch, {k}),
                ", but got ", pivots.sizes(), " (LU_data has shape ", LU.sizes(), ")");
    NoGradGuard no_grad;
    Tensor piv = contiguous(to_dtype(pivots, DType::Int32));
    Tensor perm = Tensor::empty(ops::batched_shape(batch, {m}), DType::Int64);
    kernels::lu_permutation(numel_of(batch), m, k, piv.data<int32_t>(), perm.data<int64_t>());
    Tensor pt = scatter(zeros(ops::batched_shape(batch, {m, m}), LU.dtype()), -1,
                        unsqueeze(perm, -1), Scalar(1.0));
    P = contiguous(ops::mT(pt));
  } else {
    P = Tensor::empty({0}, LU.dtype());
  }
  return {P, L, U};
}

// ---- ldl_factor, ldl_solve -------------------------------------------------------------------
// LAPACK's Bunch-Kaufman LDL^T (sytrf/sytrs), as torch.linalg.ldl_factor_ex / ldl_solve. Neither
// has a derivative in torch; their nodes raise torch's error at backward.

namespace {
std::string singular_d(int32_t info) {
  return detail::
      cat("The factorization could not be completed because the block diagonal "
          "matrix D is exactly singular (D[",
          info, ",", info, "] is zero).");
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool check_errors) {
  EMBER_RECORD(linalg_ldl_factor_ex, A, check_errors);
  EMBER_PROFILE_OP("linalg_ldl_factor_ex");
  const char* op = "torch.linalg.ldl_factor_ex";
  ops::check_lapack_dtype(op, A);
  ops::check_square(op, A);
  const int64_t n = A.size(-1);
  Dims batch = ops::batch_dims(A);
  Tensor buf = ops::colmajor(A);
  Tensor piv = Tensor::empty(ops::batched_shape(batch, {n}), DType::Int32);
  Tensor info = Tensor::empty(batch, DType::Int32);
  kernels::sytrf_batched(A.dtype(), info.numel(), n, buf.data_ptr(), piv.data<int32_t>(),
                         info.data<int32_t>());
  if (check_errors) ops::check_info("torch.linalg.ldl_factor", info, A.dim() > 2, singular_d);
  Tensor LD = ops::from_colmajor(buf);
  if (autograd::any_requires_grad(A))
    autograd::record("LinalgLdlFactorExBackward0", {&A}, {&LD}, [](Grads&, const Node&) -> Grads {
      throw Error("derivative for aten::linalg_ldl_factor_ex is not implemented");
    });
  return {LD, piv, info};
}

Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B) {
  EMBER_RECORD(linalg_ldl_solve, LD, pivots, B);
  EMBER_PROFILE_OP("linalg_ldl_solve");
  const char* op = "torch.linalg.ldl_solve";
  ops::check_lapack_dtype(op, LD);
  ops::check_lapack_dtype(op, B);
  ops::check_square(op, LD);
  EMBER_CHECK(LD.dtype() == B.dtype(), Error, op,
              ": Expected LD and B to have the same dtype, "
              "but got ",
              dtype_name(LD.dtype()), " and ", dtype_name(B.dtype()));
  EMBER_CHECK(B.dim() >= 2 && B.size(-2) == LD.size(-1), Error,
              "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is ",
              LD.size(-2), " by ", LD.size(-1), " but each b matrix is ",
              B.dim() >= 2 ? B.size(-2)
              : B.dim()    ? B.size(-1)
                           : 1,
              " by ", B.dim() >= 2 ? B.size(-1) : 1);
  const int64_t n = LD.size(-1), k = B.size(-1);
  EMBER_CHECK(pivots.dtype() == DType::Int32 && pivots.dim() == LD.dim() - 1 &&
                  pivots.size(-1) == n,
              Error, op, ": expected int32 pivots of shape ",
              ops::batched_shape(ops::batch_dims(LD), {n}), ", but got ",
              dtype_name(pivots.dtype()), " ", pivots.sizes());
  Dims batch = broadcast_shapes(ops::batch_dims(LD), ops::batch_dims(B), op);
  Tensor X;
  {
    NoGradGuard no_grad;
    Tensor ld = ops::colmajor(expand(LD, ops::batched_shape(batch, {n, n})));
    Tensor piv = contiguous(expand(pivots, ops::batched_shape(batch, {n})));
    Tensor x = ops::colmajor(expand(B, ops::batched_shape(batch, {n, k})));
    kernels::sytrs_batched(LD.dtype(), numel_of(batch), n, k, ld.data_ptr(), piv.data<int32_t>(),
                           x.data_ptr());
    X = ops::from_colmajor(x);
  }
  if (autograd::any_requires_grad(LD, B))
    autograd::record("LinalgLdlSolveBackward0", {&LD, &B}, {&X}, [](Grads&, const Node&) -> Grads {
      throw Error("derivative for aten::linalg_ldl_solve is not implemented");
    });
  return X;
}

}  // namespace ember
