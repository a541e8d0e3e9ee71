// The learning-rate schedulers of include/ember/lr_scheduler.h: torch.optim.lr_scheduler's
// get_lr formulas (the recursive ones torch uses when stepping without an epoch), in double.
#include "ember/lr_scheduler.h"

#include <algorithm>
#include <cmath>

#include "ember/error.h"

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer), base_lr_(optimizer.lr()) {}

void LRScheduler::initial_step() {
  base_lr_ = optimizer_.lr();  // torch's initial_lr (OneCycleLR sets it first)
  last_epoch_ = 0;
  optimizer_.set_lr(compute_lr(true));
  last_lr_ = optimizer_.lr();
}

void LRScheduler::step() {
  ++last_epoch_;
  optimizer_.set_lr(compute_lr(false));
  last_lr_ = optimizer_.lr();
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lambda_(std::move(lr_lambda)) {
  EMBER_CHECK(bool(lambda_), ValueError, "LambdaLR: lr_lambda must be a callable");
  initial_step();
}

double LambdaLR::compute_lr(bool) { return base_lr() * lambda_(last_epoch()); }

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, ValueError, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

double StepLR::compute_lr(bool) {
  const double lr = optimizer_.lr();
  if (last_epoch() == 0 || last_epoch() % step_size_ != 0) return lr;
  return lr * gamma_;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  EMBER_CHECK(std::is_sorted(milestones_.begin(), milestones_.end()), ValueError,
              "MultiStepLR: milestones should be a list of increasing integers, got ",
              IntList(milestones_));
  initial_step();
}

double MultiStepLR::compute_lr(bool) {
  // torch counts the milestones equal to this epoch (a repeated milestone decays twice).
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch());
  const double lr = optimizer_.lr();
  return hits == 0 ? lr : lr * std::pow(gamma_, double(hits));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

double ExponentialLR::compute_lr(bool initial) {
  return initial ? optimizer_.lr() : optimizer_.lr() * gamma_;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, ValueError, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

double CosineAnnealingLR::compute_lr(bool initial) {
  const double lr = optimizer_.lr(), e = double(last_epoch()), t = double(t_max_);
  if (initial) return lr;
  if ((last_epoch() - 1 - t_max_) % (2 * t_max_) == 0)  // the bottom of the cosine: restart
    return lr + (base_lr() - eta_min_) * (1 - std::cos(M_PI / t)) / 2;
  return (1 + std::cos(M_PI * e / t)) / (1 + std::cos(M_PI * (e - 1) / t)) * (lr - eta_min_) +
         eta_min_;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer), start_(start_factor), end_(end_factor), total_(total_iters) {
  EMBER_CHECK(
      start_factor > 0 && start_factor <= 1, ValueError,
      "LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, got ",
      start_factor);
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1, ValueError,
              "LinearLR: ending multiplicative factor expected to be between 0 and 1, got ",
              end_factor);
  EMBER_CHECK(total_iters > 0, ValueError, "LinearLR: total_iters must be positive, got ",
              total_iters);
  initial_step();
}

double LinearLR::compute_lr(bool initial) {
  const double lr = optimizer_.lr();
  if (last_epoch() == 0) return lr * start_;
  if (initial || last_epoch() > total_) return lr;
  return lr * (1.0 + (end_ - start_) /
                         (double(total_) * start_ + double(last_epoch() - 1) * (end_ - start_)));
}

OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleOptions o)
    : LRScheduler(optimizer), options_(o) {
  const char* op = "OneCycleLR";
  EMBER_CHECK(o.total_steps > 0, ValueError, op,
              ": expected positive integer total_steps, but got ", o.total_steps);
  EMBER_CHECK(o.pct_start >= 0 && o.pct_start <= 1, ValueError, op,
              ": expected float between 0 and 1 pct_start, but got ", o.pct_start);
  EMBER_CHECK(!o.cycle_momentum || optimizer.has_momentum(), ValueError, op,
              ": optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
  const double initial_lr = max_lr / o.div_factor, min_lr = initial_lr / o.final_div_factor;
  const double n = double(o.total_steps), lo = o.base_momentum, hi = o.max_momentum;
  if (o.three_phase) {
    phases_ = {{o.pct_start * n - 1, initial_lr, max_lr, hi, lo},
               {2 * o.pct_start * n - 2, max_lr, initial_lr, lo, hi},
               {n - 1, initial_lr, min_lr, hi, hi}};
  } else {
    phases_ = {{o.pct_start * n - 1, initial_lr, max_lr, hi, lo}, {n - 1, max_lr, min_lr, lo, hi}};
  }
  // torch sets the initial lr (the schedulers' base lr) and the momentum before its first step.
  optimizer.set_lr(initial_lr);
  if (o.cycle_momentum) optimizer.set_momentum(hi);
  initial_step();
}

double OneCycleLR::compute_lr(bool) {
  const int64_t step = last_epoch();
  EMBER_CHECK(step <= options_.total_steps, ValueError, "OneCycleLR: tried to step ", step,
              " times. The specified number of total steps is ", options_.total_steps);
  auto anneal = [&](double start, double end, double pct) {
    return options_.cos_anneal ? end + (start - end) / 2.0 * (std::cos(M_PI * pct) + 1)
                               : (end - start) * pct + start;
  };
  double start_step = 0.0;
  for (size_t i = 0; i < phases_.size(); ++i) {
    const Phase& p = phases_[i];
    if (double(step) <= p.end_step || i + 1 == phases_.size()) {
      const double pct = (double(step) - start_step) / (p.end_step - start_step);
      if (options_.cycle_momentum)
        optimizer_.set_momentum(anneal(p.start_momentum, p.end_momentum, pct));
      return anneal(p.start_lr, p.end_lr, pct);
    }
    start_step = p.end_step;
  }
  return optimizer_.lr();  // (not reached: the last phase always matches)
}

}  // namespace ember::optim
