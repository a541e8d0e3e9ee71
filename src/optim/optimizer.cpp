// The optimizer objects of include/ember/optim.h: state holders around the step functions.
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/optim.h"

namespace ember::optim {

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  for (size_t i = 0; i < params_.size(); ++i)
    EMBER_CHECK(params_[i].defined() && autograd::is_leaf(params_[i]), ValueError,
                "optimizer: parameter ", i, " is undefined or not a leaf tensor");
}

void Optimizer::zero_grad() {
  for (const Tensor& p : params_) autograd::set_grad(p, Tensor());
}

std::vector<Tensor> Optimizer::grads() const {
  std::vector<Tensor> g;
  g.reserve(params_.size());
  for (const Tensor& p : params_) g.push_back(autograd::grad(p));
  return g;
}

SGD::SGD(std::vector<Tensor> params, SGDOptions o)
    : OptimizerWith(std::move(params), o), momentum_buffers_(params_.size()) {}

void SGD::step() {
  NoGradGuard guard;
  sgd_step(params_, grads(), momentum_buffers_, options);
}

namespace {
std::vector<Tensor> zeros_like_each(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(zeros(t.sizes(), t.dtype()));
  return out;
}
}  // namespace

Adam::Adam(std::vector<Tensor> params, AdamOptions o) : OptimizerWith(std::move(params), o) {
  exp_avgs_ = zeros_like_each(params_);
  exp_avg_sqs_ = zeros_like_each(params_);
  if (options.amsgrad) max_exp_avg_sqs_ = zeros_like_each(params_);
  for (size_t i = 0; i < params_.size(); ++i) steps_.push_back(zeros({}));
}

void Adam::step() {
  NoGradGuard guard;
  adam_step(params_, grads(), exp_avgs_, exp_avg_sqs_, max_exp_avg_sqs_, steps_, options);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions o)
    : Adam(std::move(params), AdamOptions{.lr = o.lr,
                                          .beta1 = o.beta1,
                                          .beta2 = o.beta2,
                                          .eps = o.eps,
                                          .weight_decay = o.weight_decay,
                                          .amsgrad = o.amsgrad,
                                          .maximize = o.maximize,
                                          .decoupled_weight_decay = true}) {}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions o)
    : OptimizerWith(std::move(params), o) {
  square_avgs_ = zeros_like_each(params_);
  if (options.centered) grad_avgs_ = zeros_like_each(params_);
  if (options.momentum > 0) momentum_buffers_ = zeros_like_each(params_);
  for (size_t i = 0; i < params_.size(); ++i) steps_.push_back(zeros({}));
}

void RMSprop::step() {
  NoGradGuard guard;
  // The state lists an option needs exist from construction; an option turned on later
  // (OneCycleLR cycling momentum from 0) gets its buffers then, as torch's lazy state.
  if (options.centered && grad_avgs_.empty()) grad_avgs_ = zeros_like_each(params_);
  if (options.momentum > 0 && momentum_buffers_.empty())
    momentum_buffers_ = zeros_like_each(params_);
  rmsprop_step(params_, grads(), square_avgs_, grad_avgs_, momentum_buffers_, steps_, options);
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions o, double initial_accumulator_value)
    : OptimizerWith(std::move(params), o) {
  EMBER_CHECK(initial_accumulator_value >= 0, ValueError,
              "Adagrad: invalid initial_accumulator_value value: ", initial_accumulator_value);
  for (const Tensor& p : params_)
    sums_.push_back(full(p.sizes(), Scalar(initial_accumulator_value), p.dtype()));
  for (size_t i = 0; i < params_.size(); ++i) steps_.push_back(zeros({}));
}

void Adagrad::step() {
  NoGradGuard guard;
  adagrad_step(params_, grads(), sums_, steps_, options);
}

}  // namespace ember::optim
