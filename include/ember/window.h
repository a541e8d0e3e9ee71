// Window functions: torch.hann_window / hamming_window / blackman_window / bartlett_window /
// kaiser_window and torch.signal.windows, as one op that computes every sample from its index
// in one pass (src/ops/window.cpp):
//
//   Tensor h = window(WindowKind::CosineSum, 8, 8, {0.5, 0.5});    // hann_window(8), periodic
//   Tensor k = window(WindowKind::Kaiser, 5, 4, {12.0});            // kaiser_window(5, false)
//
// `denom` is N - 1 for a symmetric window of length N and N for a periodic one (the first N
// points of the symmetric window of length N + 1). With x_i = i / denom, sample i is
//   CosineSum    sum_k (-1)^k params[k] cos(2 pi k x_i)
//   Bartlett     1 - |2 x_i - 1|
//   Kaiser       I0(beta sqrt(1 - (2 x_i - 1)^2)) / I0(beta), params = {beta}, beta >= 0
//   Gaussian     exp(-((i - denom / 2) / std)^2 / 2), params = {std}, std > 0
//   Exponential  exp(-|i - center| / tau), params = {center, tau}, tau > 0
//   Sine         sin(pi (i + 1/2) / denom)
// Computed in double, rounded to `dtype` (float32 or float64); no gradient (a leaf).
#pragma once
#include <vector>

#include "ember/tensor.h"

namespace ember {

enum class WindowKind { CosineSum, Bartlett, Kaiser, Gaussian, Exponential, Sine };

Tensor window(WindowKind kind, int64_t length, double denom, const std::vector<double>& params,
              DType dtype = default_dtype());

}  // namespace ember
