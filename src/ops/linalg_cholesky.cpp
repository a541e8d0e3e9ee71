// Cholesky factorization (LAPACK potrf) with torch's gradient (Murray 2016, "Differentiation
// of the Cholesky decomposition"), right under its forward.
#include "autograd/function.h"
#include "ember/linalg.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/lapack.h"
#include "ops/linalg_lapack.h"

namespace ember {
namespace {

using autograd::SavedTensor;

std::string not_positive_definite(int32_t info) {
  return detail::
      cat("The factorization could not be completed because the input is not "
          "positive-definite (the leading minor of order ",
          info, " is not positive-definite).");
}

// For A = L L^T and the gradient G of L: S = Φ(L^T G) symmetrized (Φ keeps the lower
// triangle, halving the diagonal), then dA = L^-T S L^-1, as two triangular solves.
Tensor cholesky_backward(const Tensor& L, const Tensor& G) {
  Tensor s = tril(matmul(ops::mT(L), G));
  s = mul(add(s, ops::mT(tril(s, -1))), Scalar(0.5));
  s = linalg_solve_triangular(ops::mT(L), s, /*upper=*/true, /*left=*/true);
  return linalg_solve_triangular(L, s, /*upper=*/false, /*left=*/false);
}

}  // namespace

std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  EMBER_RECORD(linalg_cholesky_ex, A, upper, check_errors);
  EMBER_PROFILE_OP("linalg_cholesky_ex");
  const char* op = "linalg.cholesky";
  ops::check_lapack_dtype(op, A);
  ops::check_square(op, A);
  Tensor buf = ops::colmajor(A);  // column-major A: potrf reads A's lower triangle
  Tensor info = Tensor::empty(ops::batch_dims(A), DType::Int32);
  kernels::potrf_batched(A.dtype(), info.numel(), A.size(-1), buf.data_ptr(), info.data<int32_t>());
  if (check_errors) ops::check_info(op, info, A.dim() > 2, not_positive_definite);
  // L is buf read column-major; U = L^T is buf itself read row-major.
  Tensor out = upper ? buf : ops::from_colmajor(buf);
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgCholeskyExBackward0", {&A}, {&out},
                     [so = SavedTensor(out, true), upper](Grads& g, const Node&) -> Grads {
                       Tensor L = so.get();
                       return {upper ? cholesky_backward(ops::mT(L), ops::mT(g[0]))
                                     : cholesky_backward(L, g[0])};
                     });
  }
  return {out, info};
}

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  EMBER_RECORD(linalg_cholesky, A, upper);
  return linalg_cholesky_ex(A, upper, true).first;
}

}  // namespace ember
