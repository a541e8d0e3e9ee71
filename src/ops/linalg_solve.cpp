// Linear systems through LU (LAPACK getrf/getrs) and triangular solves (trsm): solve, inv,
// det, slogdet, solve_triangular, each with torch's gradient right under its forward.
// The forwards copy their operands column-major once (ops::colmajor), run one batched kernel
// and hand back the column-major result as a transposed view, as torch's outputs are.
#include <climits>

#include "autograd/function.h"
#include "ember/linalg.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/lapack.h"
#include "ops/iter.h"
#include "ops/linalg_lapack.h"

namespace ember {

// ---- helpers shared with linalg_cholesky.cpp -----------------------------------------------

void ops::check_lapack_dtype(const char* op, const Tensor& a) {
  ops::check_defined(a, op);
  EMBER_CHECK(!is_half(a.dtype()), Error, op, ": Low precision dtypes not supported. Got ",
              torch_type_name(a.dtype()));  // torch's words; cast with .float() first
  EMBER_CHECK(!is_complex(a.dtype()), Error, op,
              ": ember's LAPACK-backed linear algebra takes float32 and float64 matrices; "
              "complex ones (",
              torch_type_name(a.dtype()), ") are not supported yet (linalg.eig/eigvals are)");
  EMBER_CHECK(a.dtype() == DType::Float32 || a.dtype() == DType::Float64, Error, op,
              ": Expected a floating point or complex tensor as input. Got ",
              torch_type_name(a.dtype()));
}

void ops::check_lapack_kernel_dtype(const char* kernel, const Tensor& a) {
  ops::check_defined(a, kernel);
  EMBER_CHECK(a.dtype() == DType::Float32 || a.dtype() == DType::Float64, NotImplementedError, "\"",
              kernel, "\" not implemented for '", torch_type_name(a.dtype()), "'");
}

void ops::check_square(const char* op, const Tensor& a) {
  EMBER_CHECK(a.dim() >= 2, Error, op, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(a.size(-1) == a.size(-2), Error, op,
              ": A must be batches of square matrices, but they are ", a.size(-2), " by ",
              a.size(-1), " matrices");
  EMBER_CHECK(a.size(-1) <= INT_MAX, ValueError, op, ": a matrix of shape ", a.sizes(),
              " is too large for LAPACK");
}

Dims ops::batch_dims(const Tensor& t) {
  return Dims(IntList(t.sizes().data(), size_t(t.dim() - 2)));
}

Tensor ops::colmajor(const Tensor& t) {
  NoGradGuard no_grad;
  return clone(transpose(t, -1, -2));
}

Tensor ops::from_colmajor(const Tensor& buf) {
  NoGradGuard no_grad;
  return transpose(buf, -1, -2);
}

void ops::check_info(const char* op, const Tensor& info, bool batched,
                     std::string (*what)(int32_t info)) {
  const auto* p = info.data<int32_t>();
  for (int64_t i = 0; i < info.numel(); ++i) {
    if (p[i] == 0) continue;
    if (batched) throw LinAlgError(detail::cat(op, ": (Batch element ", i, "): ", what(p[i])));
    throw LinAlgError(detail::cat(op, ": ", what(p[i])));
  }
}

namespace {

using autograd::SavedTensor;

Dims with_matrix(Dims batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// torch: "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B
// of type Double instead".
void check_pair(const char* op, const Tensor& A, const Tensor& B) {
  ops::check_lapack_dtype(op, A);
  ops::check_lapack_dtype(op, B);
  EMBER_CHECK(A.dtype() == B.dtype(), Error, op,
              ": Expected A and B to have the same dtype, but found A of type ",
              torch_type_name(A.dtype()), " and B of type ", torch_type_name(B.dtype()),
              " instead");
  ops::check_square(op, A);
  EMBER_CHECK(B.dim() >= 2, Error, op, ": The input tensor B must have at least 2 dimensions.");
}

// LU factors of A's matrices (column-major), their pivots and infos.
struct Lu {
  Tensor lu, ipiv, info;
};

Lu lu_factor(const Tensor& A) {
  Dims batch = ops::batch_dims(A);
  const int64_t n = A.size(-1);
  Lu f{ops::colmajor(A), Tensor::empty(with_matrix(batch, 1, n), DType::Int32),
       Tensor::empty(batch, DType::Int32)};
  kernels::getrf_batched(A.dtype(), numel_of(batch), n, f.lu.data_ptr(), f.ipiv.data<int32_t>(),
                         f.info.data<int32_t>());
  return f;
}

// X with op(A) X = B from A's LU (f covers `batch` matrices, B is expanded to it).
Tensor lu_solve_cm(const Lu& f, const Tensor& B, bool trans) {
  Tensor x = ops::colmajor(B);
  const int64_t n = B.size(-2), k = B.size(-1), nb = numel_of(ops::batch_dims(B));
  kernels::getrs_batched(B.dtype(), nb, n, k, f.lu.data_ptr(), n * n, f.ipiv.data<int32_t>(),
                         x.data_ptr(), trans);
  return ops::from_colmajor(x);
}

std::string singular_solve(int32_t) {
  return "The solver failed because the input matrix is singular.";
}

std::string singular_inv(int32_t info) {
  return detail::cat("The diagonal element ", info,
                     " is zero, the inversion could not be completed because the input matrix "
                     "is singular.");
}

// g (batch) as (batch, 1, 1), to scale a batch of matrices.
Tensor per_matrix(const Tensor& g) { return unsqueeze(unsqueeze(g, -1), -1); }

}  // namespace

// ---- solve -------------------------------------------------------------------------------
// dB = A^-T G, dA = -dB X^T (summed over broadcast batch dims). Without create_graph dB
// reuses the forward's LU (getrs with the transpose) instead of factoring A^T again.

Tensor linalg_solve(const Tensor& A, const Tensor& B) {
  EMBER_RECORD(linalg_solve, A, B);
  EMBER_PROFILE_OP("linalg_solve");
  const char* op = "linalg.solve";
  check_pair(op, A, B);
  const int64_t n = A.size(-1), k = B.size(-1);
  EMBER_CHECK(B.size(-2) == n, Error, op,
              ": Incompatible shapes of A and B for the equation AX = B (", A.size(-2), "x", n,
              " and ", B.size(-2), "x", k, ")");
  Dims batch = broadcast_shapes(ops::batch_dims(A), ops::batch_dims(B), op);
  Lu f;
  Tensor X;
  {
    NoGradGuard no_grad;
    f = lu_factor(expand(A, with_matrix(batch, n, n)));
    ops::check_info("torch.linalg.solve", f.info, A.dim() > 2, singular_solve);
    X = lu_solve_cm(f, expand(B, with_matrix(batch, n, k)), false);
  }
  if (autograd::any_requires_grad(A, B)) {
    autograd::record("LinalgSolveExBackward0", {&A, &B}, {&X},
                     [sa = SavedTensor(A), sx = SavedTensor(X, true), f, sha = Dims(A.sizes()),
                      shb = Dims(B.sizes())](Grads& g, const Node& n) -> Grads {
                       Tensor a = sa.get(), x = sx.get();
                       Tensor gb = GradMode::is_enabled() ? linalg_solve(ops::mT(a), g[0])
                                                          : lu_solve_cm(f, g[0], true);
                       Tensor ga = n.needs_input_grad(0) ? neg(matmul(gb, ops::mT(x))) : Tensor();
                       return {ga.defined() ? autograd::sum_to(ga, sha) : Tensor(),
                               n.needs_input_grad(1) ? autograd::sum_to(gb, shb) : Tensor()};
                     });
  }
  return X;
}

// ---- inv -----------------------------------------------------------------------------------
// dA = -A^-T G A^-T, from the saved inverse.

std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  EMBER_RECORD(linalg_inv_ex, A, check_errors);
  EMBER_PROFILE_OP("linalg_inv_ex");
  const char* op = "linalg.inv";
  ops::check_lapack_dtype(op, A);
  ops::check_square(op, A);
  const int64_t n = A.size(-1);
  Lu f;
  Tensor inv;
  {
    NoGradGuard no_grad;
    f = lu_factor(A);
    if (check_errors) ops::check_info(op, f.info, A.dim() > 2, singular_inv);
    inv = lu_solve_cm(f, expand(eye(n, n, A.dtype()), A.sizes()), false);
  }
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgInvExBackward0", {&A}, {&inv},
                     [si = SavedTensor(inv, true)](Grads& g, const Node&) -> Grads {
                       Tensor it = ops::mT(si.get());
                       return {neg(matmul(matmul(it, g[0]), it))};
                     });
  }
  return {inv, f.info};
}

Tensor linalg_inv(const Tensor& A) { return linalg_inv_ex(A, true).first; }

// ---- det, slogdet ----------------------------------------------------------------------------
// d det = det * A^-T, d log|det| = A^-T. A singular A has no inverse: its det gradient comes
// out nan (torch goes through an SVD there; ember does not yet).

namespace {
// What linalg.det (log false: det) and linalg.slogdet (log true: sign and log|det|) compute,
// after their checks: lu_det on an LU factorization of A made without a graph.
struct DetParts {
  Tensor sign, logabs, det;
};
DetParts det_parts(const char* op, const Tensor& A, bool log) {
  ops::check_lapack_dtype(op, A);
  ops::check_square(op, A);
  const Dims batch = ops::batch_dims(A);
  DetParts r;
  if (log) {
    r.sign = Tensor::empty(batch, A.dtype());
    r.logabs = Tensor::empty(batch, A.dtype());
  } else {
    r.det = Tensor::empty(batch, A.dtype());
  }
  NoGradGuard no_grad;
  Lu f = lu_factor(A);
  kernels::lu_det(A.dtype(), numel_of(batch), A.size(-1), f.lu.data_ptr(), f.ipiv.data<int32_t>(),
                  log ? r.sign.data_ptr() : nullptr, log ? r.logabs.data_ptr() : nullptr,
                  log ? nullptr : r.det.data_ptr());
  return r;
}
}  // namespace

Tensor linalg_det(const Tensor& A) {
  EMBER_RECORD(linalg_det, A);
  EMBER_PROFILE_OP("linalg_det");
  Tensor det = det_parts("linalg.det", A, false).det;
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgDetBackward0", {&A}, {&det},
                     [sa = SavedTensor(A), sd = SavedTensor(det, true)](Grads& g,
                                                                        const Node&) -> Grads {
                       Tensor it = ops::mT(linalg_inv_ex(sa.get()).first);
                       return {mul(per_matrix(mul(g[0], sd.get())), it)};
                     });
  }
  return det;
}

std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  EMBER_RECORD(linalg_slogdet, A);
  EMBER_PROFILE_OP("linalg_slogdet");
  DetParts d = det_parts("linalg.slogdet", A, true);
  Tensor sign = d.sign, logabs = d.logabs;
  if (autograd::any_requires_grad(A)) {
    // sign is piecewise constant: it is an output of the node (as in torch) but only
    // log|det| carries a gradient.
    autograd::record("LinalgSlogdetBackward0", {&A}, {&sign, &logabs},
                     [sa = SavedTensor(A)](Grads& g, const Node&) -> Grads {
                       if (!g[1].defined()) return {Tensor()};
                       Tensor it = ops::mT(linalg_inv_ex(sa.get()).first);
                       return {mul(per_matrix(g[1]), it)};
                     });
  }
  return {sign, logabs};
}

// ---- solve_triangular ----------------------------------------------------------------------
// dB = op(A)^-T G (the same solve with A^T: upper becomes lower), dA = -dB X^T (left) or
// -X^T dB (right), kept to A's triangle (its strict part when unitriangular).

namespace {
Tensor solve_triangular_left(const Tensor& A, const Tensor& B, bool upper, bool unit,
                             const Dims& batch) {
  const int64_t n = A.size(-1), k = B.size(-1);
  Tensor a = ops::colmajor(expand(A, with_matrix(batch, n, n)));
  Tensor x = ops::colmajor(expand(B, with_matrix(batch, n, k)));
  kernels::trsm_batched(A.dtype(), numel_of(batch), n, k, a.data_ptr(), x.data_ptr(), upper, unit);
  return ops::from_colmajor(x);
}
}  // namespace

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left,
                               bool unitriangular) {
  EMBER_RECORD(linalg_solve_triangular, A, B, upper, left, unitriangular);
  EMBER_PROFILE_OP("linalg_solve_triangular");
  const char* op = "linalg.solve_triangular";
  check_pair(op, A, B);
  const int64_t n = A.size(-1);
  const bool fits = left ? B.size(-2) == n : B.size(-1) == n;
  EMBER_CHECK(fits, Error, op, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", A.size(-2), "x", n, " and ", B.size(-2), "x",
              B.size(-1), ")");
  Dims batch = broadcast_shapes(ops::batch_dims(A), ops::batch_dims(B), op);
  Tensor X;
  {
    NoGradGuard no_grad;
    // X A = B is A^T X^T = B^T, and A^T's triangle is the other one.
    X = left ? solve_triangular_left(A, B, upper, unitriangular, batch)
             : ops::mT(solve_triangular_left(ops::mT(A), ops::mT(B), !upper, unitriangular, batch));
  }
  if (autograd::any_requires_grad(A, B)) {
    autograd::record("LinalgSolveTriangularBackward0", {&A, &B}, {&X},
                     [sa = SavedTensor(A), sx = SavedTensor(X, true), upper, left, unitriangular,
                      sha = Dims(A.sizes()),
                      shb = Dims(B.sizes())](Grads& g, const Node& n) -> Grads {
                       Tensor a = sa.get(), x = sx.get();
                       Tensor gb =
                           linalg_solve_triangular(ops::mT(a), g[0], !upper, left, unitriangular);
                       Tensor ga;
                       if (n.needs_input_grad(0)) {
                         ga = neg(left ? matmul(gb, ops::mT(x)) : matmul(ops::mT(x), gb));
                         ga = upper ? triu(ga, unitriangular ? 1 : 0)
                                    : tril(ga, unitriangular ? -1 : 0);
                         ga = autograd::sum_to(ga, sha);
                       }
                       return {ga, n.needs_input_grad(1) ? autograd::sum_to(gb, shb) : Tensor()};
                     });
  }
  return X;
}

}  // namespace ember
