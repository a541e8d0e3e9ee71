// ember's torch.special functions of two arguments beyond ops.h: the classical orthogonal
// polynomials and the Hurwitz zeta function (src/ops/special_polynomials.cpp).
//
//   Tensor x = linspace(-1, 1, 5);
//   Tensor t3 = special_chebyshev_polynomial_t(x, Scalar(3));   // 4x^3 - 3x
//   Tensor z = special_zeta(Scalar(2.0), arange(1, 4));         // pi^2/6, pi^2/6 - 1, ...
//
// Both arguments broadcast and promote as torch's (integer and bool inputs compute in float32).
#pragma once
#include "ember/tensor.h"

namespace ember {

// P_n(x): n is truncated to an integer degree (a negative, NaN or infinite n gives 0, as torch's
// cast to int64). Chebyshev T, U, V, W; their shifted forms T*_n(x) = T_n(2x - 1); physicists'
// (H) and probabilists' (He) Hermite, NaN above degree 128 (float32) / 512 (float64) as torch;
// Laguerre L and Legendre P, NaN above degree 2^24 (their recurrence takes n steps). No
// gradient, as torch.
#define EMBER_POLYNOMIAL(name)                   \
  Tensor name(const Tensor& x, const Tensor& n); \
  Tensor name(const Tensor& x, Scalar n);        \
  Tensor name(Scalar x, const Tensor& n);
EMBER_POLYNOMIAL(special_chebyshev_polynomial_t)
EMBER_POLYNOMIAL(special_chebyshev_polynomial_u)
EMBER_POLYNOMIAL(special_chebyshev_polynomial_v)
EMBER_POLYNOMIAL(special_chebyshev_polynomial_w)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_t)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_u)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_v)
EMBER_POLYNOMIAL(special_shifted_chebyshev_polynomial_w)
EMBER_POLYNOMIAL(special_hermite_polynomial_h)
EMBER_POLYNOMIAL(special_hermite_polynomial_he)
EMBER_POLYNOMIAL(special_laguerre_polynomial_l)
EMBER_POLYNOMIAL(special_legendre_polynomial_p)
#undef EMBER_POLYNOMIAL

// The Hurwitz zeta function zeta(x, q) = sum_{k>=0} (k + q)^-x (Cephes' algorithm): inf at x == 1
// and at the poles q = 0, -1, ...; NaN for x < 1. Differentiable in q only (d/dq = -x zeta(x+1,
// q)); asking for the gradient in x raises NotImplementedError at backward, as torch.
Tensor special_zeta(const Tensor& x, const Tensor& q);
Tensor special_zeta(const Tensor& x, Scalar q);
Tensor special_zeta(Scalar x, const Tensor& q);

}  // namespace ember
