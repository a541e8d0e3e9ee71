// Helpers shared by the matrix-product ops (linalg.cpp, layers.cpp). Private to src/ops.
#pragma once
#include "ember/autograd.h"

namespace ember::ops {

// The gradient a @ b of node n's input i, for 2-d a and b. Added in place into the leaf's
// .grad with one gemm (beta = 1) when the engine offers that buffer and it overlaps
// neither operand (Note [Gradient into .grad]); a new tensor otherwise.
Tensor mm_grad(const Node& n, size_t i, const Tensor& a, const Tensor& b);

}  // namespace ember::ops
