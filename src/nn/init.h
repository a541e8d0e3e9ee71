// Parameter initialisation shared by the layers of src/nn (torch.nn's reset_parameters).
#pragma once
#include <cmath>

#include "ember/ops.h"

namespace ember::nn::layer_init {

// Uniform in +-bound: what torch's kaiming_uniform_(a=sqrt(5)) gives a Linear/Conv weight
// (bound 1/sqrt(fan_in), the same as their bias) and what RNNs use (1/sqrt(hidden_size)).
inline Tensor uniform_init(IntList shape, double bound) {
  Tensor t = empty(shape);
  uniform_(t, -bound, bound);
  return t;
}

inline double fan_in_bound(int64_t fan_in) {
  return fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
}

}  // namespace ember::nn::layer_init
