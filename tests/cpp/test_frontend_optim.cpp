// The C++ frontend's optimizer objects beyond SGD/Adam (AdamW, RMSprop, Adagrad) against
// their step functions (which tests/python compares with torch.optim), and the learning-rate
// schedulers against torch's closed forms and hand values. tests/python/test_cpp_state_dict.py
// runs the same schedules in torch and compares every lr and the trained parameters.
#include <cmath>

#include "frontend_helpers.h"

using namespace ember;
using ftest::max_abs_diff;

namespace {

Tensor leaf(uint64_t seed) {
  manual_seed(seed);
  Tensor t = randn({6});
  autograd::set_requires_grad(t, true);
  return t;
}

// Three steps of sum(w^3 - w) through the optimizer object.
template <class Opt>
Tensor run(Opt& opt, Tensor w) {
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    autograd::backward(sum(sub(mul(mul(w, w), w), w)));
    opt.step();
  }
  return w;
}

Tensor grad_of(const Tensor& w2) { return sub(mul(mul(w2, w2), Scalar(3.0)), Scalar(1.0)); }

std::vector<Tensor> zeros_of(const Tensor& w) { return {zeros(w.sizes())}; }

}  // namespace

TEST(FrontendOptim, AdamWIsAdamWithDecoupledDecayAndTorchsDefault) {
  Tensor w = leaf(1);
  Tensor w2 = clone(detach(w));
  optim::AdamW opt({w}, {.lr = 0.1});
  EXPECT_EQ(opt.options.weight_decay, 1e-2);
  EXPECT_TRUE(opt.options.decoupled_weight_decay);
  run(opt, w);
  std::vector<Tensor> m = zeros_of(w2), v = zeros_of(w2), steps = {zeros({})};
  for (int i = 0; i < 3; ++i)
    optim::adamw_step({w2}, {grad_of(w2)}, m, v, {}, steps, {.lr = 0.1, .weight_decay = 1e-2});
  EXPECT_LT(max_abs_diff(w, w2), 1e-6);
}

TEST(FrontendOptim, RMSpropAndAdagradObjectsMatchTheirStepFunctions) {
  Tensor w = leaf(2), w2 = clone(detach(w));
  optim::RMSprop rms({w}, {.lr = 0.01, .momentum = 0.9, .centered = true});
  run(rms, w);
  std::vector<Tensor> sq = zeros_of(w2), ga = zeros_of(w2), mb = zeros_of(w2), steps = {zeros({})};
  for (int i = 0; i < 3; ++i)
    optim::rmsprop_step({w2}, {grad_of(w2)}, sq, ga, mb, steps,
                        {.lr = 0.01, .momentum = 0.9, .centered = true});
  EXPECT_LT(max_abs_diff(w, w2), 1e-6);

  Tensor u = leaf(3), u2 = clone(detach(u));
  optim::Adagrad ada({u}, {.lr = 0.1, .lr_decay = 0.01}, 0.5);
  run(ada, u);
  std::vector<Tensor> sums = {full(u2.sizes(), Scalar(0.5))}, st = {zeros({})};
  for (int i = 0; i < 3; ++i)
    optim::adagrad_step({u2}, {grad_of(u2)}, sums, st, {.lr = 0.1, .lr_decay = 0.01});
  EXPECT_LT(max_abs_diff(u, u2), 1e-6);
  EXPECT_ERROR_NAMES(ValueError, optim::Adagrad({leaf(4)}, {}, -1.0), "initial_accumulator_value");
}

TEST(FrontendOptim, SGDNesterovWithWeightDecayMatchesHandValues) {
  // One parameter, gradient 2w (loss w^2): torch's update with momentum 0.9, nesterov,
  // weight_decay 0.1: g = 2w + 0.1w; b = 0.9b + g (b = g first); w -= lr (g + 0.9b).
  Tensor w = ftest::from({1.0}, {1});
  autograd::set_requires_grad(w, true);
  optim::SGD opt({w}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true});
  double wv = 1.0, b = 0;
  for (int i = 0; i < 4; ++i) {
    opt.zero_grad();
    autograd::backward(sum(mul(w, w)));
    opt.step();
    const double g = 2 * wv + 0.1 * wv;
    b = i == 0 ? g : 0.9 * b + g;
    wv -= 0.1 * (g + 0.9 * b);
    EXPECT_NEAR(w.item().to_double(), wv, 1e-6) << i;
  }
}

TEST(FrontendSchedulers, StepMultiStepExponentialAndLambda) {
  Tensor w = leaf(5);
  optim::SGD opt({w}, {.lr = 0.8});
  optim::StepLR step(opt, 3, 0.5);
  std::vector<double> lrs = {opt.lr()};
  for (int e = 1; e < 8; ++e) step.step(), lrs.push_back(opt.lr());
  EXPECT_EQ(lrs, (std::vector<double>{0.8, 0.8, 0.8, 0.4, 0.4, 0.4, 0.2, 0.2}));
  EXPECT_EQ(step.last_epoch(), 7);
  EXPECT_EQ(step.get_last_lr(), 0.2);

  optim::SGD opt2({w}, {.lr = 1.0});
  optim::MultiStepLR ms(opt2, {2, 5, 5}, 0.1);
  std::vector<double> got;
  for (int e = 0; e < 6; ++e) got.push_back(opt2.lr()), ms.step();
  EXPECT_DOUBLE_EQ(got[1], 1.0);
  EXPECT_DOUBLE_EQ(got[2], 0.1);
  EXPECT_DOUBLE_EQ(got[4], 0.1);
  EXPECT_DOUBLE_EQ(got[5], 0.1 * 0.01);  // a repeated milestone decays twice

  optim::Adam adam({w}, {.lr = 2.0});
  optim::ExponentialLR ex(adam, 0.5);
  ex.step();
  ex.step();
  EXPECT_EQ(adam.lr(), 0.5);

  optim::SGD opt3({w}, {.lr = 0.1});
  optim::LambdaLR lam(opt3, [](int64_t e) { return 1.0 / double(e + 1); });
  EXPECT_DOUBLE_EQ(opt3.lr(), 0.1);
  lam.step();
  lam.step();
  EXPECT_DOUBLE_EQ(opt3.lr(), 0.1 / 3);
}

TEST(FrontendSchedulers, CosineAndLinearFollowTheirClosedForms) {
  Tensor w = leaf(6);
  optim::SGD opt({w}, {.lr = 0.1});
  optim::CosineAnnealingLR cos(opt, 10, 0.001);
  for (int e = 0; e <= 25; ++e) {
    // The recursion torch steps by equals its closed form, also past T_max (back up again).
    const double want = 0.001 + (0.1 - 0.001) * (1 + std::cos(M_PI * e / 10)) / 2;
    EXPECT_NEAR(opt.lr(), want, 1e-12) << e;
    cos.step();
  }
  optim::Adam adam({w}, {.lr = 0.1});
  optim::LinearLR lin(adam, 0.25, 1.0, 4);
  for (int e = 0; e <= 6; ++e) {
    EXPECT_NEAR(adam.lr(), 0.1 * (0.25 + 0.75 * std::min(e, 4) / 4), 1e-12) << e;
    lin.step();
  }
}

TEST(FrontendSchedulers, OneCycleCyclesLrAndMomentum) {
  Tensor w = leaf(7);
  optim::SGD opt({w}, {.lr = 0.0});
  optim::OneCycleLR one(opt, 1.0, {.total_steps = 10, .pct_start = 0.3});
  EXPECT_NEAR(opt.lr(), 1.0 / 25,
              1e-15);  // max_lr / div_factor (torch's cosine gives 0.04 + 4e-17)
  EXPECT_DOUBLE_EQ(opt.options.momentum, 0.95);
  one.step();
  one.step();
  EXPECT_DOUBLE_EQ(opt.lr(), 1.0);  // the peak at step pct_start * total - 1 = 2
  EXPECT_DOUBLE_EQ(opt.options.momentum, 0.85);
  for (int i = 0; i < 7; ++i) one.step();
  EXPECT_NEAR(opt.lr(), 1.0 / 25 / 1e4, 1e-15);  // the last step: initial / final_div_factor
  EXPECT_DOUBLE_EQ(opt.options.momentum, 0.95);
  one.step();  // step 10 == total_steps is still allowed (torch)
  EXPECT_ERROR_NAMES(ValueError, one.step(), "OneCycleLR: tried to step 11 times");

  optim::Adam adam({w}, {});
  optim::OneCycleLR lin(adam, 0.5, {.total_steps = 4, .cos_anneal = false, .cycle_momentum = true});
  EXPECT_DOUBLE_EQ(adam.options.beta1, 0.95);  // Adam's beta1 is the momentum that cycles
  optim::Adagrad ada({w}, {});
  EXPECT_ERROR_NAMES(ValueError, optim::OneCycleLR(ada, 0.5, {.total_steps = 4}), "momentum");
  EXPECT_ERROR_NAMES(ValueError, optim::OneCycleLR(adam, 0.5, {}), "total_steps");
}

TEST(FrontendSchedulers, BadArgumentsThrow) {
  Tensor w = leaf(8);
  optim::SGD opt({w}, {.lr = 0.1});
  EXPECT_ERROR_NAMES(ValueError, optim::StepLR(opt, 0), "StepLR");
  EXPECT_ERROR_NAMES(ValueError, optim::CosineAnnealingLR(opt, 0), "T_max");
  EXPECT_ERROR_NAMES(ValueError, optim::LinearLR(opt, 0.0), "LinearLR");
  EXPECT_ERROR_NAMES(ValueError, optim::MultiStepLR(opt, {3, 1}), "increasing");
  EXPECT_ERROR_NAMES(ValueError, optim::LambdaLR(opt, nullptr), "LambdaLR");
  EXPECT_EQ(opt.lr(), 0.1);  // a refused scheduler leaves the optimizer alone
}

TEST(FrontendOptim, StateDictRoundTripResumesExactly) {
  Tensor a = leaf(9), b = clone(detach(a));
  autograd::set_requires_grad(b, true);
  optim::Adam first({a}, {.lr = 0.1, .amsgrad = true});
  run(first, a);
  StateDict sd = first.state_dict();
  std::vector<std::string> keys;
  for (auto& [k, t] : sd) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq",
                                            "state.0.max_exp_avg_sq"}));
  EXPECT_EQ(sd[0].second.item().to_double(), 3);
  // A second optimizer over a copy of the parameter, given the state, continues identically.
  {
    NoGradGuard g;
    copy_(b, a);
  }
  optim::Adam second({b}, {.lr = 0.1, .amsgrad = true});
  second.load_state_dict(sd);
  run(first, a);
  run(second, b);
  EXPECT_EQ(max_abs_diff(a, b), 0);
  // SGD's buffers exist after a step only; loading creates them.
  optim::SGD sgd({a}, {.lr = 0.1, .momentum = 0.9});
  EXPECT_TRUE(sgd.state_dict().empty());
  sgd.load_state_dict({{"state.0.momentum_buffer", ones({6})}, {"model.weight", ones({2})}});
  EXPECT_EQ(sgd.state_dict().size(), 1u);
  EXPECT_ERROR_NAMES(Error, sgd.load_state_dict({{"state.1.momentum_buffer", ones({6})}}),
                     "1 parameters");
  EXPECT_ERROR_NAMES(Error, sgd.load_state_dict({{"state.0.exp_avg", ones({6})}}),
                     "no state named 'exp_avg'");
  EXPECT_ERROR_NAMES(Error, sgd.load_state_dict({{"state.0.momentum_buffer", ones({5})}}), "shape");
  EXPECT_ERROR_NAMES(Error, sgd.load_state_dict({{"state.x.momentum_buffer", ones({6})}}),
                     "state.<index>.<name>");
}
