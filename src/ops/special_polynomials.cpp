// torch.special's orthogonal polynomials P_n(x) (Chebyshev T/U/V/W and shifted, Hermite H/He,
// Laguerre L, Legendre P) and the Hurwitz zeta function zeta(x, q): broadcast binary ops whose
// elements are computed in kernels/cpu/special_polynomials. As torch, the polynomials record
// no gradient (n is an integer degree), and zeta is differentiable in q only.
#include "autograd/function.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "ember/record.h"
#include "ember/special_polynomials.h"
#include "kernels/cpu/special_polynomials.h"
#include "ops/iter.h"

namespace ember {

using autograd::SavedTensor;
using kernels::PolyFn;

namespace {

// Two tensors, broadcast, promoted with torch's rules and then to floating (integer and bool
// inputs compute in float32, as torch).
template <class K>
Tensor binary_floating(const char* name, const Tensor& x, const Tensor& y, K kernel) {
  ops::check_defined(x, name);
  ops::check_defined(y, name);
  DType dt = result_type(x, y);
  if (!is_floating(dt)) dt = is_floating(default_dtype()) ? default_dtype() : DType::Float32;
  Dims shape = broadcast_shapes(x.sizes(), y.sizes(), name);
  Tensor X = to_dtype(x, dt), Y = to_dtype(y, dt);
  Tensor out = ops::empty_like_inputs(shape, dt, {&X, &Y});
  kernel(dt, ops::make_loop(shape, {&out, &X, &Y}));
  return out;
}

Tensor polynomial(PolyFn f, const char* name, const Tensor& x, const Tensor& n) {
  EMBER_RECORD(polynomial, f, name, x, n);
  EMBER_PROFILE_OP(name);
  return binary_floating(name, x, n, [f](DType dt, const kernels::Loop& L) {
    kernels::polynomial_fn(f, dt, L);
  });
}

}  // namespace

#define EMBER_POLYNOMIAL(name, Enum)                                                              \
  Tensor name(const Tensor& x, const Tensor& n) { return polynomial(PolyFn::Enum, #name, x, n); } \
  Tensor name(const Tensor& x, Scalar n) { return name(x, scalar_tensor(n, result_type(x, n))); } \
  Tensor name(Scalar x, const Tensor& n) { return name(scalar_tensor(x, result_type(n, x)), n); }
EMBER_POLYNOMIAL(special_chebyshev_polynomial_t, ChebyshevT)
EMBER_POLYNOMIAL(special_chebyshev_polynomial_u, ChebyshevU)
EMBER_POLYNOMIAL(special_chebyshev_polynomial_v, ChebyshevV)
EMBER_POLYNOMIAL(special_chebyshev_polynomial_w, ChebyshevW)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_t, ShiftedT)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_u, ShiftedU)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_v, ShiftedV)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_w, ShiftedW)
EMBER_POLYNOMIAL(special_hermite_polynomial_h, HermiteH)
EMBER_POLYNOMIAL(special_hermite_polynomial_he, HermiteHe)
EMBER_POLYNOMIAL(special_laguerre_polynomial_l, LaguerreL)
EMBER_POLYNOMIAL(special_legendre_polynomial_p, LegendreP)
#undef EMBER_POLYNOMIAL

// d/dq zeta(x, q) = -x zeta(x + 1, q); torch has no derivative in x (it raises at backward).
Tensor special_zeta(const Tensor& x, const Tensor& q) {
  EMBER_PROFILE_OP("special_zeta");
  Tensor out = binary_floating("special_zeta", x, q, [](DType dt, const kernels::Loop& L) {
    kernels::hurwitz_zeta(dt, L);
  });
  if (autograd::any_requires_grad(x, q)) {
    autograd::record("SpecialZetaBackward0", {&x, &q}, {&out},
                     [sx = SavedTensor(x), sq = SavedTensor(q), shq = Dims(q.sizes()),
                      dq = q.dtype()](Grads& g, const Node& n) -> Grads {
                       EMBER_CHECK(!n.needs_input_grad(0), NotImplementedError,
                                   "the derivative for 'zeta' is not implemented.");
                       Tensor X = sx.get();
                       Tensor d =
                           mul(g[0], neg(mul(X, special_zeta(add(X, Scalar(1.0)), sq.get()))));
                       return {Tensor(), to_dtype(autograd::sum_to(d, shq), dq)};
                     });
  }
  return out;
}
Tensor special_zeta(const Tensor& x, Scalar q) {
  return special_zeta(x, scalar_tensor(q, result_type(x, q)));
}
Tensor special_zeta(Scalar x, const Tensor& q) {
  EMBER_RECORD(special_zeta, x, q);
  return special_zeta(scalar_tensor(x, result_type(q, x)), q);
}

}  // namespace ember
