// Optimizer update kernels. A step updates a list of parameter tensors in one fused,
// parallel loop: each tensor is a "slot" of contiguous arrays (float32 or float64 as
// `dtype` says) and the loop runs over the slots' elements laid end to end, so small
// tensors share threads with big ones. Each element follows torch.optim's single-tensor
// formulas with the same operations in the same order, computed in the slot's dtype.
// Per-parameter numbers that depend on the parameter's step count live in its slot.
#pragma once
#include <cstdint>
#include <span>

#include "ember/dtype.h"

namespace ember::kernels {

struct SGDArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
};
struct SGDSlot {
  DType dtype;
  int64_t n;
  void* param;
  const void* grad;
  void* momentum_buffer;  // null when momentum == 0
  bool first;             // the buffer is new: it becomes the gradient
};
void sgd(std::span<const SGDSlot> slots, const SGDArgs& a);

enum class WeightDecay { None, L2, Decoupled };
struct AdamArgs {
  double lr, beta1, beta2, eps, weight_decay;
  WeightDecay decay;
  bool amsgrad, maximize;
};
struct AdamSlot {
  DType dtype;
  int64_t n;
  void* param;
  const void* grad;
  void* exp_avg;
  void* exp_avg_sq;
  void* max_exp_avg_sq;  // null unless amsgrad
  double step_size;      // lr / (1 - beta1^step)
  double bias_correction2_sqrt;
};
void adam(std::span<const AdamSlot> slots, const AdamArgs& a);

struct RMSpropArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};
struct RMSpropSlot {
  DType dtype;
  int64_t n;
  void* param;
  const void* grad;
  void* square_avg;
  void* grad_avg;         // null unless centered
  void* momentum_buffer;  // null unless momentum > 0
};
void rmsprop(std::span<const RMSpropSlot> slots, const RMSpropArgs& a);

struct AdagradArgs {
  double weight_decay, eps;
  bool maximize;
};
struct AdagradSlot {
  DType dtype;
  int64_t n;
  void* param;
  const void* grad;
  void* sum;
  double clr;  // lr / (1 + (step - 1) * lr_decay)
};
void adagrad(std::span<const AdagradSlot> slots, const AdagradArgs& a);

}  // namespace ember::kernels
