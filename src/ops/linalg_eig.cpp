// linalg.eig / linalg.eigvals: the eigendecomposition of a general square matrix (real or
// complex) on LAPACK's geev, with complex results, and torch's gradient right under it
// (FunctionsManual.cpp's linalg_eig_backward, the non-Hermitian case).
#include <cmath>

#include "autograd/function.h"
#include "ember/complex.h"
#include "ember/linalg.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "kernels/cpu/lapack.h"
#include "ops/iter.h"
#include "ops/linalg_lapack.h"

namespace ember {
namespace {

using autograd::SavedTensor;

DType real_of(DType ct) { return ct == DType::Complex64 ? DType::Float32 : DType::Float64; }

// diag(v) for a batch of complex vectors v (..., n).
Tensor diag_of(const Tensor& v) {
  return mul(unsqueeze(v, -1), eye(v.size(-1), v.size(-1), real_of(v.dtype())));
}

DType complex_of(DType dt) {
  return dt == DType::Float32 || dt == DType::Complex64 ? DType::Complex64 : DType::Complex128;
}

// (L, V) of each matrix of A; V undefined unless `vectors`.
std::pair<Tensor, Tensor> eig_impl(const char* op, const Tensor& A, bool vectors) {
  ops::check_defined(A, op);
  const DType dt = A.dtype();
  EMBER_CHECK(!is_half(dt), NotImplementedError, "\"linalg_eig_out_cpu\" not implemented for '",
              torch_type_name(dt), "'");
  EMBER_CHECK(dt == DType::Float32 || dt == DType::Float64 || is_complex(dt), Error, op,
              ": Expected a floating point or complex tensor as input. Got ", torch_type_name(dt));
  ops::check_square(op, A);
  const int64_t n = A.size(-1);
  Dims batch = ops::batch_dims(A);
  const DType ct = complex_of(dt);
  Tensor finite = all(isfinite(A), {-2, -1});  // per matrix
  Tensor src = A;
  const bool all_finite = all(finite).item().to_double() != 0;
  if (!all_finite) {
    // torch's eig refuses; its eigvals hands them to LAPACK, whose QR iteration on NaN may
    // also fail to converge: here those matrices' eigenvalues are NaN, the others' computed.
    EMBER_CHECK(!vectors, Error, op, ": input tensor should not contain infs or NaNs.");
    src = where(unsqueeze(unsqueeze(finite, -1), -1), A, full({}, 0.0, A.dtype()));
  }
  Tensor buf = ops::colmajor(src);
  Tensor L = Tensor::empty(ops::batched_shape(batch, {n}), ct);
  Tensor Vbuf = vectors ? Tensor::empty(ops::batched_shape(batch, {n, n}), ct) : Tensor();
  Tensor info = Tensor::empty(batch, DType::Int32);
  kernels::geev_batched(dt, info.numel(), n, buf.data_ptr(), L.data_ptr(),
                        vectors ? Vbuf.data_ptr() : nullptr, info.data<int32_t>());
  ops::check_info(op, info, A.dim() > 2, [](int32_t code) {
    return detail::
        cat("The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated eigenvalues (error code: ",
            code, ").");
  });
  if (!all_finite) L = where(unsqueeze(finite, -1), L, full({}, std::nan(""), ct));
  return {L, vectors ? contiguous(ops::from_colmajor(Vbuf)) : Tensor()};
}

// X with V^H X = B for complex V, on the real solver: (Mr + i Mi)(Xr + i Xi) = Br + i Bi is
// the real system [[Mr, -Mi], [Mi, Mr]] [Xr; Xi] = [Br; Bi] of twice the size (same
// condition number). ember's LAPACK ops take real matrices only.
Tensor solve_mH(const Tensor& V, const Tensor& B) {
  Tensor M = conj(ops::mT(V));
  Tensor Mr = real(M), Mi = imag(M);
  Tensor big = cat({cat({Mr, neg(Mi)}, -1), cat({Mi, Mr}, -1)}, -2);
  Tensor rhs = cat({real(B), imag(B)}, -2);
  Tensor X = linalg_solve(big, rhs);
  const int64_t n = V.size(-1);
  return complex(narrow(X, -2, 0, n), narrow(X, -2, n, n));
}

// gA = V^-H (P(V^H gV) / conj(E) + diag(gL)) V^H, with E[i, j] = L[j] - L[i] (1 on the
// diagonal) and P(X) = X - V^H V Re(diag(X)) (the projection that makes the loss invariant
// to each eigenvector's scale); only gL: gA = V^-H diag(gL) V^H. Real A takes the real part.
Tensor eig_backward(const Tensor& L, const Tensor& V, const Tensor& gL, const Tensor& gV,
                    DType input) {
  Tensor Vh = conj(ops::mT(V));
  Tensor inner;
  if (gV.defined()) {
    Tensor VhgV = matmul(Vh, gV);
    Tensor d = diagonal(VhgV, 0, -2, -1);
    EMBER_CHECK(all(le(abs(imag(d)), Scalar(1e-2))).item().to_double() != 0, Error,
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined.");
    VhgV = sub(VhgV, matmul(Vh, mul(V, unsqueeze(real(d), -2))));
    Tensor Lc = conj(L);
    const int64_t n = L.size(-1);
    Tensor E = add(sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1)), eye(n, n, real_of(L.dtype())));
    inner = div(VhgV, E);
    if (gL.defined()) inner = add(inner, diag_of(gL));
  } else {
    inner = diag_of(gL);
  }
  Tensor gA = solve_mH(V, matmul(inner, Vh));
  return is_complex(input) ? gA : real(gA);
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eig(const Tensor& A) {
  EMBER_RECORD(linalg_eig, A);
  EMBER_PROFILE_OP("linalg_eig");
  auto [L, V] = eig_impl("linalg.eig", A, true);
  if (autograd::any_requires_grad(A)) {
    autograd::record("LinalgEigBackward0", {&A}, {&L, &V},
                     [sl = SavedTensor(L, true), sv = SavedTensor(V, true),
                      dt = A.dtype()](Grads& g, const Node&) -> Grads {
                       if (!g[0].defined() && !g[1].defined()) return {Tensor()};
                       return {eig_backward(sl.get(), sv.get(), g[0], g[1], dt)};
                     });
  }
  return {L, V};
}

Tensor linalg_eigvals(const Tensor& A) {
  EMBER_RECORD(linalg_eigvals, A);
  EMBER_PROFILE_OP("linalg_eigvals");
  if (!autograd::any_requires_grad(A)) return eig_impl("linalg.eigvals", A, false).first;
  auto [L, V] = eig_impl("linalg.eigvals", A, true);
  autograd::record("LinalgEigBackward0", {&A}, {&L},
                   [sl = SavedTensor(L, true), v = V, dt = A.dtype()](Grads& g, const Node&)
                       -> Grads { return {eig_backward(sl.get(), v, g[0], Tensor(), dt)}; });
  return L;
}

}  // namespace ember
