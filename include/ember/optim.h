// Optimizer steps: each function updates every parameter of a list in ONE call (one
// fused loop over all the tensors), with PyTorch's update rules (torch.optim's
// single-tensor formulas, the same order of rounding).
//
//   std::vector<Tensor> params = {w, b}, grads = {grad(w), grad(b)};
//   std::vector<Tensor> m = {zeros_like(w), ...}, v = {...}, steps = {zeros({}), zeros({})};
//   optim::adam_step(params, grads, m, v, {}, steps, {.lr = 1e-3});
//
// Conventions shared by every step function:
// - params[i] is updated in place under no-grad semantics (no autograd record, no leaf
//   in-place error); its version counter is bumped, as are those of the state tensors.
// - grads[i] undefined: params[i] is skipped and its state left alone (torch skips
//   parameters whose .grad is None).
// - State lists have one tensor per parameter, of the parameter's shape and dtype
//   (float32 or float64); a list that an option does not use may be empty.
// - steps[i] is the parameter's step count, a one-element float tensor (torch keeps it as
//   a 0-d float32 tensor in the optimizer state); the step adds 1 to it first.
// - Any tensor may be non-contiguous; everything is checked before anything is written.
#pragma once
#include <vector>

#include "ember/tensor.h"

namespace ember::optim {

struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  bool maximize = false;
};
// momentum_buffers is used when momentum != 0: an undefined entry is created on the
// first step as a copy of the (decayed) gradient, as torch does, and stored back.
void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::vector<Tensor>& momentum_buffers, const SGDOptions& options);

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool amsgrad = false;
  bool maximize = false;
  bool decoupled_weight_decay = false;  // AdamW
};
// Adam (AdamW with decoupled_weight_decay). max_exp_avg_sqs is used with amsgrad.
void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
               const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
               const AdamOptions& options);
// adam_step with decoupled_weight_decay = true.
void adamw_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
                AdamOptions options);

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;
  bool centered = false;
  bool maximize = false;
};
// grad_avgs is used when centered, momentum_buffers when momentum > 0.
void rmsprop_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& square_avgs, const std::vector<Tensor>& grad_avgs,
                  const std::vector<Tensor>& momentum_buffers, const std::vector<Tensor>& steps,
                  const RMSpropOptions& options);

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0.0;
  double weight_decay = 0.0;
  double eps = 1e-10;
  bool maximize = false;
};
// sums start at initial_accumulator_value (the caller fills them).
void adagrad_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& sums, const std::vector<Tensor>& steps,
                  const AdagradOptions& options);

// ---- optimizers as objects (src/optim/optimizer.cpp), for the C++ frontend ---------------
// Each holds its parameters and their state and calls the step function above: one call,
// one fused loop over every parameter per step(). Parameters without a grad are skipped.
class Optimizer {
 public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer() = default;
  virtual void step() = 0;
  void zero_grad();  // set_to_none, like torch's default
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  std::vector<Tensor> grads() const;
  std::vector<Tensor> params_;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;
  SGDOptions options;

 private:
  std::vector<Tensor> momentum_buffers_;
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options);
  void step() override;
  AdamOptions options;

 private:
  std::vector<Tensor> exp_avgs_, exp_avg_sqs_, max_exp_avg_sqs_, steps_;
};

}  // namespace ember::optim
