// The classical orthogonal polynomials of torch.special (Chebyshev T, U, V, W and their
// shifted forms on [0, 1], physicists' and probabilists' Hermite, Laguerre, Legendre) and
// the Hurwitz zeta function, elementwise over Loop{out, x, n}.
#pragma once
#include "ember/dtype.h"
#include "kernels/cpu/loop.h"

namespace ember::kernels {

enum class PolyFn {
  ChebyshevT,
  ChebyshevU,
  ChebyshevV,
  ChebyshevW,
  ShiftedT,
  ShiftedU,
  ShiftedV,
  ShiftedW,
  HermiteH,
  HermiteHe,
  LaguerreL,
  LegendreP
};

// out = P_n(x), both operands and out of floating dtype `dt`. n is truncated toward zero to
// an integer first (torch casts it to int64); a negative, NaN or infinite n gives 0. Hermite
// gives NaN above degree 128 (float32) / 512 (float64), as torch; Laguerre and Legendre,
// whose three-term recurrence costs n steps and has no closed form, give NaN above degree
// 2^24 (torch would loop for every one of those n steps).
void polynomial_fn(PolyFn f, DType dt, const Loop& L);

// out = zeta(x, q) = sum_{k>=0} (k + q)^-x, the Hurwitz zeta function (Cephes' zeta).
void hurwitz_zeta(DType dt, const Loop& L);

}  // namespace ember::kernels
