// The last step of the in-place random fills (uniform_, normal_ in creation.cpp; bernoulli_,
// exponential_, ... in random.cpp). Private to src/ops.
#pragma once
#include "ember/tensor.h"

namespace ember::ops {

// Writes `values` (t's shape, any dtype) into t, converted to t's dtype, and bumps its version.
// Refuses a leaf that requires grad (torch's error); on a tensor in a graph the values replace
// its history with a zero gradient, as torch's UniformBackward0, ExponentialBackward0, ...
Tensor& write_random(Tensor& t, const Tensor& values, const char* op);

}  // namespace ember::ops
