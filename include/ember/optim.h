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
#include <utility>
#include <vector>

#include "ember/serialize.h"
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
// One set of options for all the parameters (torch's single param group). The learning
// rate schedulers of ember/lr_scheduler.h change lr (and momentum) between steps.
//
//   optim::AdamW opt(model->parameters(), {.lr = 1e-3, .weight_decay = 1e-2});
//   opt.zero_grad(); autograd::backward(loss); opt.step();
class Optimizer {
 public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer() = default;
  virtual void step() = 0;
  void zero_grad();  // set_to_none, like torch's default
  const std::vector<Tensor>& params() const { return params_; }
  // The learning rate (param_groups[0]["lr"]).
  virtual double lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // torch's "momentum" (SGD, RMSprop) or beta1 (Adam, AdamW): what OneCycleLR cycles.
  // has_momentum() is false for optimizers without either (Adagrad).
  virtual bool has_momentum() const { return false; }
  virtual double momentum() const { return 0.0; }
  virtual void set_momentum(double) {}

  // The per-parameter state under torch's names, flattened as ember::load flattens
  // torch.save(optimizer.state_dict()): "state.<i>.<name>" for parameter i ("state.0.exp_avg",
  // "state.0.step"); entries not created yet (SGD's momentum buffers before a step) are absent.
  // Detached: the tensors share the optimizer's state.
  StateDict state_dict() const;
  // Copies each "state.<i>.<name>" entry into that state (entries it lacks keep their state;
  // other names, such as a checkpoint's model weights, are ignored). A bad index, a name this
  // optimizer does not keep or a shape mismatch throws ember::Error before anything changes.
  void load_state_dict(const StateDict& state);

 protected:
  std::vector<Tensor> grads() const;
  // (torch's name, one tensor per parameter) for each state list the optimizer keeps now.
  virtual std::vector<std::pair<const char*, std::vector<Tensor>*>> state_lists() = 0;
  std::vector<Tensor> params_;
};

// What every optimizer below shares: its options by value, the lr (and momentum, where the
// optimizer has one: the option that Momentum points to) read and written through them.
template <class Options, double Options::*Momentum = nullptr>
class OptimizerWith : public Optimizer {
 public:
  OptimizerWith(std::vector<Tensor> params, Options o) : Optimizer(std::move(params)), options(o) {}
  double lr() const override { return options.lr; }
  void set_lr(double lr) override { options.lr = lr; }
  bool has_momentum() const override { return Momentum != nullptr; }
  double momentum() const override {
    if constexpr (Momentum != nullptr) return options.*Momentum;
    return 0.0;
  }
  void set_momentum(double m) override {
    if constexpr (Momentum != nullptr) options.*Momentum = m;
  }
  Options options;
};

class SGD : public OptimizerWith<SGDOptions, &SGDOptions::momentum> {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;

 protected:
  std::vector<std::pair<const char*, std::vector<Tensor>*>> state_lists() override;

 private:
  std::vector<Tensor> momentum_buffers_;
};

// momentum() is beta1.
class Adam : public OptimizerWith<AdamOptions, &AdamOptions::beta1> {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options);
  void step() override;

 protected:
  std::vector<std::pair<const char*, std::vector<Tensor>*>> state_lists() override;

 private:
  std::vector<Tensor> exp_avgs_, exp_avg_sqs_, max_exp_avg_sqs_, steps_;
};

// Adam with decoupled weight decay; torch.optim.AdamW's default weight_decay is 1e-2.
struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
};
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, AdamWOptions options);
};

class RMSprop : public OptimizerWith<RMSpropOptions, &RMSpropOptions::momentum> {
 public:
  RMSprop(std::vector<Tensor> params, RMSpropOptions options);
  void step() override;

 protected:
  std::vector<std::pair<const char*, std::vector<Tensor>*>> state_lists() override;

 private:
  std::vector<Tensor> square_avgs_, grad_avgs_, momentum_buffers_, steps_;
};

class Adagrad : public OptimizerWith<AdagradOptions> {
 public:
  // The sums start at initial_accumulator_value (torch's default 0).
  Adagrad(std::vector<Tensor> params, AdagradOptions options,
          double initial_accumulator_value = 0.0);
  void step() override;

 protected:
  std::vector<std::pair<const char*, std::vector<Tensor>*>> state_lists() override;

 private:
  std::vector<Tensor> sums_, steps_;
};

}  // namespace ember::optim
