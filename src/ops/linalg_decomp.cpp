// Decompositions on LAPACK (eigvalsh and svdvals report errors as linalg.eigh and linalg.svd,
// as torch): eigh/eigvalsh (syevd), svd/svdvals (gesdd), qr (geqrf + orgqr),
// each with torch's gradient (FunctionsManual.cpp's linalg_eig_backward for the Hermitian
// case, svd_backward, linalg_qr_backward) right under its forward.
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

// diag(v) for a batch of vectors v (..., n): v broadcast against I.
Tensor diag_of(const Tensor& v) {
  return mul(unsqueeze(v, -1), eye(v.size(-1), v.size(-1), v.dtype()));
}

void check_matrix(const char* op, const Tensor& A) {
  ops::check_lapack_dtype(op, A);
  EMBER_CHECK(A.dim() >= 2, Error, op, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) <= INT32_MAX && A.size(-2) <= INT32_MAX, ValueError, op,
              ": a matrix of shape ", A.sizes(), " is too large for LAPACK");
}

std::string eigh_failed(int32_t info) {
  return detail::
      cat("The algorithm failed to converge because the input matrix is "
          "ill-conditioned or has too many repeated eigenvalues (error code: ",
          info, ").");
}

std::string svd_failed(int32_t info) {
  return detail::
      cat("The algorithm failed to converge because the input matrix is "
          "ill-conditioned or has too many repeated singular values (error code: ",
          info, ").");
}

// ---- eigh ------------------------------------------------------------------------------------
// gA = V (skew(V^T gV) / E + diag(gL)) V^T with E[i, j] = L[j] - L[i] (1 on the diagonal),
// skew(X) = (X - X^T) / 2: torch's formula for Hermitian A.

Tensor eigh_backward(const Tensor& L, const Tensor& V, const Tensor& gL, const Tensor& gV) {
  if (!gV.defined()) return matmul(mul(V, unsqueeze(gL, -2)), ops::mT(V));
  Tensor x = matmul(ops::mT(V), gV);
  x = mul(sub(x, ops::mT(x)), Scalar(0.5));
  const int64_t n = L.size(-1);
  Tensor e = add(sub(unsqueeze(L, -2), unsqueeze(L, -1)), eye(n, n, L.dtype()));
  Tensor r = div(x, e);
  if (gL.defined()) r = add(r, diag_of(gL));
  return matmul(V, matmul(r, ops::mT(V)));
}

std::pair<Tensor, Tensor> eigh_impl(const char* op, const Tensor& A, bool lower, bool vectors) {
  ops::check_lapack_kernel_dtype("linalg_eigh_cpu", A);
  check_matrix(op, A);
  ops::check_square(op, A);
  const int64_t n = A.size(-1);
  Dims batch = ops::batch_dims(A);
  Tensor buf = ops::colmajor(A);
  Tensor w = Tensor::empty(ops::batched_shape(batch, {n}), A.dtype());
  Tensor info = Tensor::empty(batch, DType::Int32);
  kernels::syevd_batched(A.dtype(), info.numel(), n, buf.data_ptr(), w.data_ptr(),
                         info.data<int32_t>(), vectors, lower);
  ops::check_info(op, info, A.dim() > 2, eigh_failed);
  return {w, vectors ? ops::from_colmajor(buf) : Tensor()};
}

// ---- svd -------------------------------------------------------------------------------------
// torch's svd_backward for real A = U diag(S) V^T (reduced, k = min(m, n)):
//   inner = (skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS), E[i, j] = S_j^2 - S_i^2,
//   skew(X) = X - X^T, then the parts of gU / gV outside U's / V's span when m > k / n > k.

Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U,
                    const Tensor& S, const Tensor& Vh) {
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (!gU.defined() && !gVh.defined()) return matmul(mul(U, unsqueeze(gS, -2)), Vh);
  Tensor V = ops::mT(Vh), gV = gVh.defined() ? ops::mT(gVh) : Tensor();
  Tensor s2 = mul(S, S);
  Tensor e = add(sub(unsqueeze(s2, -2), unsqueeze(s2, -1)), eye(k, k, S.dtype()));
  Tensor inner;
  auto skew = [](const Tensor& x) { return sub(x, ops::mT(x)); };
  if (gU.defined()) inner = mul(skew(matmul(ops::mT(U), gU)), unsqueeze(S, -2));
  if (gV.defined()) {
    Tensor part = mul(unsqueeze(S, -1), skew(matmul(ops::mT(V), gV)));
    inner = inner.defined() ? add(inner, part) : part;
  }
  inner = div(inner, e);
  if (gS.defined()) inner = add(inner, diag_of(gS));
  if (m > k && gU.defined()) {
    Tensor ga = matmul(U, inner);
    Tensor gus = div(gU, unsqueeze(S, -2));
    ga = sub(add(ga, gus), matmul(U, matmul(ops::mT(U), gus)));
    return matmul(ga, Vh);
  }
  if (n > k && gV.defined()) {
    Tensor ga = matmul(inner, Vh);
    Tensor sgvh = div(gVh, unsqueeze(S, -1));
    ga = sub(add(ga, sgvh), matmul(matmul(sgvh, V), Vh));
    return matmul(U, ga);
  }
  return matmul(U, matmul(inner, Vh));
}

struct Svd {
  Tensor U, S, Vh;
};

Svd svd_impl(const char* op, const Tensor& A, bool vectors, bool full) {
  check_matrix(op, A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Dims batch = ops::batch_dims(A);
  Tensor buf = ops::colmajor(A);
  Svd r;
  r.S = Tensor::empty(ops::batched_shape(batch, {k}), A.dtype());
  Tensor info = Tensor::empty(batch, DType::Int32);
  Tensor ubuf, vbuf;
  if (vectors) {
    const int64_t ucols = full ? m : k, vrows = full ? n : k;
    NoGradGuard no_grad;
    // column-major buffers; identities where LAPACK has nothing to write (an empty side)
    ubuf = clone(expand(eye(ucols, m, A.dtype()), ops::batched_shape(batch, {ucols, m})));
    vbuf = clone(expand(eye(n, vrows, A.dtype()), ops::batched_shape(batch, {n, vrows})));
  }
  kernels::gesdd_batched(A.dtype(), info.numel(), m, n, buf.data_ptr(), r.S.data_ptr(),
                         vectors ? ubuf.data_ptr() : nullptr, vectors ? vbuf.data_ptr() : nullptr,
                         info.data<int32_t>(), full);
  ops::check_info(op, info, A.dim() > 2, svd_failed);
  if (vectors) {
    r.U = ops::from_colmajor(ubuf);
    r.Vh = ops::from_colmajor(vbuf);
  }
  return r;
}

// ---- qr --------------------------------------------------------------------------------------
// torch's linalg_qr_backward. For m >= n: M = R gR^T - gQ^T Q,
// gA = (gQ + Q copyltu(M)) R^-T with copyltu(M) = tril(M) + tril(M, -1)^T. For m < n,
// A = [X | Y], R = [U | V] with X = Q U: gY = Q gV, and X's gradient is the square case
// with gQ + Y gV^T.

Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M = sub(matmul(R, ops::mT(gR)), matmul(ops::mT(gQ), Q));
  Tensor c = add(tril(M), ops::mT(tril(M, -1)));
  Tensor b = add(gQ, matmul(Q, c));
  return linalg_solve_triangular(ops::mT(R), b, /*upper=*/false, /*left=*/false);
}

Tensor qr_backward(Tensor gQ, Tensor gR, const Tensor& Q, const Tensor& R, const Tensor& A) {
  if (!gQ.defined()) gQ = zeros(Q.sizes(), Q.dtype());
  if (!gR.defined()) gR = zeros(R.sizes(), R.dtype());
  const int64_t m = A.size(-2), n = A.size(-1);
  if (m >= n) return qr_backward_tall(gQ, gR, Q, R);
  Tensor Y = narrow(A, -1, m, n - m);
  Tensor U = narrow(R, -1, 0, m), gU = narrow(gR, -1, 0, m), gV = narrow(gR, -1, m, n - m);
  Tensor gY = matmul(Q, gV);
  Tensor gX = qr_backward_tall(add(gQ, matmul(Y, ops::mT(gV))), gU, Q, U);
  return cat({gX, gY}, -1);
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, bool lower) {
  EMBER_RECORD(linalg_eigh, A, lower);
  EMBER_PROFILE_OP("linalg_eigh");
  auto [L, V] = eigh_impl("linalg.eigh", A, lower, true);
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgEighBackward0", {&A}, {&L, &V},
                     [sl = SavedTensor(L, true), sv = SavedTensor(V, true)](Grads& g,
                                                                            const Node&) -> Grads {
                       if (!g[0].defined() && !g[1].defined()) return {Tensor()};
                       return {eigh_backward(sl.get(), sv.get(), g[0], g[1])};
                     });
  }
  return {L, V};
}

Tensor linalg_eigvalsh(const Tensor& A, bool lower) {
  EMBER_RECORD(linalg_eigvalsh, A, lower);
  EMBER_PROFILE_OP("linalg_eigvalsh");
  if (!autograd::any_requires_grad(A)) return eigh_impl("linalg.eigh", A, lower, false).first;
  auto [L, V] = eigh_impl("linalg.eigh", A, lower, true);
  autograd::record("LinalgEighBackward0", {&A}, {&L},
                   [sl = SavedTensor(L, true), v = V](Grads& g, const Node&) -> Grads {
                     return {eigh_backward(sl.get(), v, g[0], Tensor())};
                   });
  return L;
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices) {
  EMBER_RECORD(linalg_svd, A, full_matrices);
  EMBER_PROFILE_OP("linalg_svd");
  Svd r = svd_impl("linalg.svd", A, true, full_matrices);
  if (autograd::any_requires_grad(A)) {
    // full_matrices: only the first k columns of U (rows of V^T) enter, as in torch.
    const int64_t k = r.S.size(-1);
    autograd::record("LinalgSvdBackward0", {&A}, {&r.U, &r.S, &r.Vh},
                     [su = SavedTensor(r.U, true), ss = SavedTensor(r.S, true),
                      sv = SavedTensor(r.Vh, true), full_matrices,
                      k](Grads& g, const Node&) -> Grads {
                       Tensor U = su.get(), Vh = sv.get(), gU = g[0], gVh = g[2];
                       if (!gU.defined() && !g[1].defined() && !gVh.defined()) return {Tensor()};
                       if (full_matrices) {
                         U = narrow(U, -1, 0, k);
                         Vh = narrow(Vh, -2, 0, k);
                         if (gU.defined()) gU = narrow(gU, -1, 0, k);
                         if (gVh.defined()) gVh = narrow(gVh, -2, 0, k);
                       }
                       Tensor gS = g[1].defined() ? g[1] : zeros(ss.get().sizes(), U.dtype());
                       return {svd_backward(gU, gS, gVh, U, ss.get(), Vh)};
                     });
  }
  return {r.U, r.S, r.Vh};
}

Tensor linalg_svdvals(const Tensor& A) {
  EMBER_RECORD(linalg_svdvals, A);
  EMBER_PROFILE_OP("linalg_svdvals");
  if (!autograd::any_requires_grad(A)) return svd_impl("linalg.svd", A, false, false).S;
  Svd r = svd_impl("linalg.svd", A, true, false);
  autograd::record("LinalgSvdBackward0", {&A}, {&r.S},
                   [U = r.U, Vh = r.Vh, ss = SavedTensor(r.S, true)](Grads& g,
                                                                     const Node&) -> Grads {
                     return {svd_backward(Tensor(), g[0], Tensor(), U, ss.get(), Vh)};
                   });
  return r.S;
}

std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode) {
  EMBER_RECORD(linalg_qr, A, mode);
  EMBER_PROFILE_OP("linalg_qr");
  const char* op = "linalg.qr";
  check_matrix(op, A);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", Error,
              "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Dims batch = ops::batch_dims(A);
  Tensor buf = ops::colmajor(A);  // (batch, n, m): column-major m x n
  Tensor tau = Tensor::empty(ops::batched_shape(batch, {k}), A.dtype());
  kernels::geqrf_batched(A.dtype(), numel_of(batch), m, n, buf.data_ptr(), tau.data_ptr());
  const int64_t rrows = mode == "complete" ? m : k;
  Tensor R, Q;
  {
    NoGradGuard no_grad;
    R = contiguous(triu(narrow(ops::from_colmajor(buf), -2, 0, rrows)));
    if (mode == "r") {
      Q = Tensor::empty({0}, A.dtype());
    } else {
      const int64_t cols = mode == "complete" ? m : k, copy = std::min(cols, n);
      Tensor qbuf = zeros(ops::batched_shape(batch, {cols, m}), A.dtype());
      Tensor head = narrow(qbuf, -2, 0, copy);
      copy_(head, narrow(buf, -2, 0, copy));
      kernels::orgqr_batched(A.dtype(), numel_of(batch), m, cols, k, qbuf.data_ptr(),
                             tau.data_ptr());
      Q = ops::from_colmajor(qbuf);
    }
  }
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgQrBackward0", {&A}, {&Q, &R},
                     [sq = SavedTensor(Q, true), sr = SavedTensor(R, true), sa = SavedTensor(A),
                      mode, m, n](Grads& g, const Node&) -> Grads {
                       EMBER_CHECK(mode != "r", Error,
                                   "The derivative of linalg.qr depends on Q, which is not "
                                   "computed when mode='r'. Please use linalg.qr(A, "
                                   "mode='reduced') if you are going to differentiate through "
                                   "linalg.qr.");
                       EMBER_CHECK(!(mode == "complete" && m > n), Error,
                                   "The QR decomposition is not differentiable when "
                                   "mode='complete' and nrows > ncols.");
                       if (!g[0].defined() && !g[1].defined()) return {Tensor()};
                       return {qr_backward(g[0], g[1], sq.get(), sr.get(), sa.get())};
                     });
  }
  return {Q, R};
}

// ---- geqrf, householder_product -------------------------------------------------------------
// LAPACK's raw QR (torch.geqrf: no derivative in torch either) and Q from Householder vectors
// (torch.linalg.householder_product / orgqr, and ormqr through it; torch's gradients).

namespace {
Grads no_derivative(const char* what) {
  throw NotImplementedError(detail::cat("the derivative for '", what, "' is not implemented."));
}

// Q = H_0 ... H_{k-1} E (E: the first n columns of I_m), H_i = I - tau_i v_i v_i^T, v_i column
// i of A below the diagonal with a unit diagonal. Reverse mode through X_i = H_i X_{i+1}
// (X_k = E, Q = X_0): dL/dH_i = G_i X_{i+1}^T and G_{i+1} = H_i^T G_i, so with w = v^T G_i and
// u = X_{i+1}^T v: dtau_i = -w u and dv_i = -tau_i (G_i u + X_{i+1} w^T). The X_i are rebuilt
// here (k m n numbers) rather than recovered by inverting H_i, which is singular for some tau.
std::pair<Tensor, Tensor> householder_product_backward(const Tensor& A, const Tensor& tau,
                                                       const Tensor& gQ) {
  EMBER_CHECK(!is_complex(A.dtype()), NotImplementedError,
              "the derivative for 'linalg.householder_product' of complex inputs is not "
              "implemented in ember");
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  Tensor V = add(tril(A, -1), eye(m, n, A.dtype()));
  auto column = [&](int64_t i) { return narrow(V, -1, i, 1); };  // (..., m, 1)
  auto scale = [&](int64_t i) { return unsqueeze(unsqueeze(select(tau, -1, i), -1), -1); };
  std::vector<Tensor> X(k + 1);
  X[k] = eye(m, n, A.dtype());
  for (int64_t i = k - 1; i >= 0; --i)
    X[i] = sub(X[i + 1], mul(scale(i), matmul(column(i), matmul(ops::mT(column(i)), X[i + 1]))));
  Tensor G = gQ;
  std::vector<Tensor> gv, gtau;
  for (int64_t i = 0; i < k; ++i) {
    Tensor v = column(i), t = scale(i);
    Tensor w = matmul(ops::mT(v), G), u = matmul(ops::mT(X[i + 1]), v);
    gtau.push_back(neg(select(select(matmul(w, u), -1, 0), -1, 0)));
    gv.push_back(mul(neg(t), add(matmul(G, u), matmul(X[i + 1], ops::mT(w)))));
    G = sub(G, mul(t, matmul(v, w)));
  }
  Tensor gA = tril(cat(gv, -1), -1);  // only the strictly lower part of A is read
  if (k < n) {
    gA = cat({gA, zeros(ops::batched_shape(ops::batch_dims(A), {m, n - k}), A.dtype())}, -1);
  }
  return {gA, stack(gtau, -1)};
}
}  // namespace

std::pair<Tensor, Tensor> geqrf(const Tensor& A) {
  EMBER_RECORD(geqrf, A);
  EMBER_PROFILE_OP("geqrf");
  ops::check_lapack_kernel_dtype("geqrf_cpu", A);
  check_matrix("geqrf", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Dims batch = ops::batch_dims(A);
  Tensor buf = ops::colmajor(A);
  Tensor tau = Tensor::empty(ops::batched_shape(batch, {k}), A.dtype());
  kernels::geqrf_batched(A.dtype(), numel_of(batch), m, n, buf.data_ptr(), tau.data_ptr());
  Tensor a = ops::from_colmajor(buf);
  if (autograd::any_requires_grad(A))
    autograd::record("GeqrfBackward0", {&A}, {&a, &tau},
                     [](Grads&, const Node&) -> Grads { return no_derivative("geqrf"); });
  return {a, tau};
}

Tensor linalg_householder_product(const Tensor& A, const Tensor& tau) {
  EMBER_RECORD(linalg_householder_product, A, tau);
  EMBER_PROFILE_OP("linalg_householder_product");
  const char* op = "torch.linalg.householder_product";
  check_matrix(op, A);
  ops::check_lapack_dtype(op, tau);
  EMBER_CHECK(A.dtype() == tau.dtype(), Error, op, ": tau dtype ", dtype_name(tau.dtype()),
              " does not match input dtype ", dtype_name(A.dtype()));
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK(m >= n, Error, op,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(tau.dim() >= 1 && n >= tau.size(-1), Error, op,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(tau.dim() == A.dim() - 1, Error, op,
              ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", A.dim());
  Dims batch = ops::batch_dims(A);
  const int64_t k = tau.size(-1);
  EMBER_CHECK(tau.numel() == numel_of(batch) * k, Error, op, ": Expected batch dimensions of tau ",
              tau.sizes(), " to be equal to input.shape[:-2] ", batch);
  Tensor q = ops::colmajor(A);
  Tensor t = contiguous(tau);
  kernels::orgqr_batched(A.dtype(), numel_of(batch), m, n, k, q.data_ptr(), t.data_ptr());
  Tensor Q = ops::from_colmajor(q);
  if (autograd::any_requires_grad(A, tau))
    autograd::record("LinalgHouseholderProductBackward0", {&A, &tau}, {&Q},
                     [sa = SavedTensor(A), st = SavedTensor(tau)](Grads& g, const Node&) -> Grads {
                       // no reflectors: Q = E depends on neither (torch: no gradients)
                       if (!g[0].defined() || st.get().size(-1) == 0) return {Tensor(), Tensor()};
                       auto [gA, gtau] = householder_product_backward(sa.get(), st.get(), g[0]);
                       return {gA, gtau};
                     });
  return Q;
}

}  // namespace ember
