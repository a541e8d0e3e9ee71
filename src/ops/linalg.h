// Helpers shared by the matrix-product ops (linalg.cpp, layers.cpp). Private to src/ops.
#pragma once
#include "ember/autograd.h"
#include "kernels/cpu/blas.h"

namespace ember::ops {

// The gradient a @ b of node n's input i, for 2-d a and b. Added in place into the leaf's
// .grad with one gemm (beta = 1) when the engine offers that buffer and it overlaps
// neither operand (Note [Gradient into .grad]); a new tensor otherwise.
Tensor mm_grad(const Node& n, size_t i, const Tensor& a, const Tensor& b);

// The BLAS view of a 2-d t as mm reads it when that needs no copy (false: it needs one).
// The kernel replay of a captured mm (src/capture/kernel_replay.cpp) calls gemm with it.
bool blas_view(const Tensor& t, kernels::MatRef* r);

}  // namespace ember::ops
