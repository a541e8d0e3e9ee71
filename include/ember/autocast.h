// Automatic mixed precision on the CPU: torch.autocast("cpu", dtype=torch.bfloat16).
//
//   ember::autocast::set_dtype(ember::DType::BFloat16);
//   ember::autocast::set_enabled(true);
//   Tensor y = ember::linear(x, w, b);   // float32 in, bfloat16 out (w and x cast first)
//   ember::autocast::set_enabled(false);
//
// Note [Autocast]: the state is per thread, as torch's. An op on one of torch's CPU lists
// casts its floating inputs at its entry and runs with autocast suspended, so the ops it calls
// inside run as written (torch excludes its Autocast dispatch key the same way):
//  - lower precision (matmul, mm, bmm, addmm, baddbmm, addbmm, linear, conv1d/2d/3d,
//    conv_transpose1d/2d/3d): float32 and float16/bfloat16 inputs go to the autocast dtype;
//    float64 stays (torch's is_eligible);
//  - float32 (the losses, prod, the 3-d pools, grid_sample, ...): half inputs go to float32;
//  - promote (cat, stack): every floating input goes to the widest of their dtypes.
// Ops on no list run in their inputs' dtypes. The casts are ordinary differentiable to_dtype
// calls, so gradients come back in each leaf's own dtype.
#pragma once
#include <vector>

#include "ember/tensor.h"

namespace ember::autocast {

bool is_enabled();
void set_enabled(bool on);
// The lower-precision dtype (bfloat16 until set; bfloat16 or float16).
DType dtype();
void set_dtype(DType dt);

// Suspends autocast on this thread for its lifetime (an op's nested calls).
class Suspend {
 public:
  Suspend() : prev_(is_enabled()) { set_enabled(false); }
  ~Suspend() { set_enabled(prev_); }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  bool prev_;
};

// t cast for a lower-precision op (floating, not float64, not yet dtype()); else t.
Tensor lower(const Tensor& t);
// t cast for a float32 op (bfloat16/float16 -> float32); else t.
Tensor fp32(const Tensor& t);
// The tensors cast to the widest floating dtype among them (cat, stack).
std::vector<Tensor> promote(const std::vector<Tensor>& ts);

}  // namespace ember::autocast
