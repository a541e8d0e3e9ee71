// Functions of a float's representation (src/ops/float_bits.cpp), as torch's:
//
//   auto [mantissa, exponent] = ember::frexp(x);   // x == mantissa * 2^exponent, int32 exponent
//   Tensor up = ember::nextafter(x, ember::full(x.sizes(), INFINITY, x.dtype()));
#pragma once
#include <utility>

#include "ember/tensor.h"

namespace ember {

// Floating inputs only. The mantissa's gradient is g / 2^exponent (the exponent has none).
std::pair<Tensor, Tensor> frexp(const Tensor& a);
// a and b broadcast and promote to a floating dtype; the gradient goes to a unchanged.
Tensor nextafter(const Tensor& a, const Tensor& b);
Tensor& nextafter_(Tensor& a, const Tensor& b);

}  // namespace ember
