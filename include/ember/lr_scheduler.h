// Learning-rate schedulers (torch.optim.lr_scheduler) for the optimizers of ember/optim.h.
//
//   optim::SGD opt(model->parameters(), {.lr = 0.1, .momentum = 0.9});
//   optim::CosineAnnealingLR sched(opt, /*T_max=*/10);
//   for (int epoch = 0; epoch < 10; ++epoch) {
//     train_one_epoch(opt);
//     sched.step();            // after the optimizer's steps, as in torch
//   }
//
// Construction sets the optimizer's lr for step 0 (last_epoch = 0), each step() advances
// one epoch and sets the next lr. The values are torch's, computed with torch's own
// (recursive, "chainable") formulas in double, so they agree with torch to the last bits.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "ember/optim.h"

namespace ember::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  void step();
  int64_t last_epoch() const { return last_epoch_; }
  double get_last_lr() const { return last_lr_; }
  double base_lr() const { return base_lr_; }

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  // Call at the end of the subclass's constructor: sets the lr of epoch 0.
  void initial_step();
  // The lr for last_epoch(), from the optimizer's current lr (torch's get_lr); `initial`
  // during the constructor's step.
  virtual double compute_lr(bool initial) = 0;
  Optimizer& optimizer_;

 private:
  double base_lr_, last_lr_ = 0;
  int64_t last_epoch_ = -1;
};

// lr = base_lr * lr_lambda(epoch).
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 private:
  double compute_lr(bool initial) override;
  std::function<double(int64_t)> lambda_;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  double compute_lr(bool initial) override;
  int64_t step_size_;
  double gamma_;
};

// lr *= gamma at each epoch in milestones (non-decreasing).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 private:
  double compute_lr(bool initial) override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  double compute_lr(bool initial) override;
  double gamma_;
};

// Half a cosine from base_lr down to eta_min over T_max epochs (then back up, as torch's).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 private:
  double compute_lr(bool initial) override;
  int64_t t_max_;
  double eta_min_;
};

// The factor goes linearly from start_factor to end_factor over total_iters epochs.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 private:
  double compute_lr(bool initial) override;
  double start_, end_;
  int64_t total_;
};

struct OneCycleOptions {
  int64_t total_steps = 0;  // > 0
  double pct_start = 0.3;
  bool cos_anneal = true;      // false: torch's anneal_strategy="linear"
  bool cycle_momentum = true;  // SGD/RMSprop momentum or Adam's beta1
  double base_momentum = 0.85;
  double max_momentum = 0.95;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool three_phase = false;
};

// The 1cycle policy, stepped once per batch: up from max_lr / div_factor to max_lr over
// pct_start of the steps, then down to the initial lr / final_div_factor; momentum moves the
// other way. step() past total_steps throws ValueError, as torch.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleOptions options);

 private:
  double compute_lr(bool initial) override;
  struct Phase {
    double end_step;
    double start_lr, end_lr, start_momentum, end_momentum;
  };
  std::vector<Phase> phases_;
  OneCycleOptions options_;
};

}  // namespace ember::optim
