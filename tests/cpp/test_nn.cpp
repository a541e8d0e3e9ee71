// The C++ frontend (include/ember/nn.h and the optimizer objects of optim.h): module trees
// name their parameters like PyTorch, and a small model trains.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

namespace {

bool allclose(const Tensor& a, const Tensor& b) {
  return amax(abs(sub(a, b))).item().to_double() <= 1e-6;
}

std::shared_ptr<nn::Sequential> mlp() {
  return std::make_shared<nn::Sequential>(
      std::vector<nn::ModulePtr>{std::make_shared<nn::Linear>(2, 16), std::make_shared<nn::ReLU>(),
                                 std::make_shared<nn::Linear>(16, 1)});
}

}  // namespace

TEST(NN, ParametersAreNamedLikeStateDictKeys) {
  auto model = mlp();
  auto named = model->named_parameters();
  ASSERT_EQ(named.size(), 4u);
  EXPECT_EQ(named[0].first, "0.weight");
  EXPECT_EQ(named[1].first, "0.bias");
  EXPECT_EQ(named[2].first, "2.weight");
  EXPECT_EQ(named[3].first, "2.bias");
  EXPECT_EQ(named[0].second.sizes(), (Dims{16, 2}));
  for (auto& [name, p] : named) EXPECT_TRUE(autograd::requires_grad(p)) << name;
}

TEST(NN, LinearInitBoundIsOneOverSqrtFanIn) {
  manual_seed(0);
  nn::Linear layer(400, 300);
  const double bound = 1.0 / std::sqrt(400.0);
  EXPECT_LE(amax(abs(layer.weight)).item().to_double(), bound);
  EXPECT_GT(amax(abs(layer.weight)).item().to_double(), 0.99 * bound);
  EXPECT_LE(amax(abs(layer.bias)).item().to_double(), bound);
}

TEST(NN, TrainAndEvalPropagate) {
  auto model = std::make_shared<nn::Sequential>(
      std::vector<nn::ModulePtr>{std::make_shared<nn::Linear>(4, 4),
                                 std::make_shared<nn::Dropout>(0.5)});
  model->eval();
  for (auto& [name, m] : model->children()) EXPECT_FALSE(m->is_training()) << name;
  Tensor x = ones({3, 4});
  Tensor a = (*model)(x), b = (*model)(x);
  EXPECT_TRUE(allclose(a, b));  // no dropout in eval mode
  model->train();
  for (auto& [name, m] : model->children()) EXPECT_TRUE(m->is_training()) << name;
}

// y = x0 * x1 on [-1, 1]^2: an MLP with Adam gets the mean squared error well below the
// variance of y (1/9) in a few hundred full-batch steps.
TEST(NN, SmallRegressionTrainsWithAdam) {
  manual_seed(0);
  Tensor x = sub(mul(rand({256, 2}), Scalar(2.0)), Scalar(1.0));
  Tensor y = mul(narrow(x, 1, 0, 1), narrow(x, 1, 1, 1));
  auto model = mlp();
  optim::Adam opt(model->parameters(), {.lr = 1e-2});
  double first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    Tensor loss = mse_loss((*model)(x), y);
    opt.zero_grad();
    autograd::backward(loss);
    opt.step();
    (step == 0 ? first : last) = loss.item().to_double();
  }
  EXPECT_LT(last, 0.2 * first);
  EXPECT_LT(last, 0.02);
}

TEST(NN, SGDObjectMatchesTheStepFunction) {
  manual_seed(0);
  Tensor w = randn({5});
  autograd::set_requires_grad(w, true);
  Tensor w2 = clone(detach(w));
  optim::SGD opt({w}, {.lr = 0.1, .momentum = 0.9});
  std::vector<Tensor> bufs(1);
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    autograd::backward(sum(mul(w, w)));
    opt.step();
    optim::sgd_step({w2}, {mul(w2, Scalar(2.0))}, bufs, {.lr = 0.1, .momentum = 0.9});
  }
  EXPECT_TRUE(allclose(detach(w), w2));
}

TEST(NN, ZeroGradSetsGradsToNone) {
  nn::Linear layer(3, 2);
  autograd::backward(sum(layer(ones({1, 3}))));
  EXPECT_TRUE(autograd::grad(layer.weight).defined());
  layer.zero_grad();
  EXPECT_FALSE(autograd::grad(layer.weight).defined());
}

TEST(NN, BadArgumentsThrow) {
  EXPECT_THROW(nn::Linear(-1, 3), ValueError);
  EXPECT_THROW(nn::Conv2d(0, 3, 3), ValueError);
  nn::Linear layer(3, 2);
  EXPECT_THROW(layer(ones({2, 4})), Error);
}

TEST(NN, ToDtypeCastsFloatParametersBuffersAndGradsInPlace) {
  auto model = std::make_shared<nn::Sequential>(
      std::vector<nn::ModulePtr>{std::make_shared<nn::Linear>(3, 4),
                                 std::make_shared<nn::BatchNorm1d>(4)});
  auto* linear = static_cast<nn::Linear*>(model->children()[0].second.get());
  auto* bn = static_cast<nn::BatchNorm1d*>(model->children()[1].second.get());
  const Tensor w32 = clone(linear->weight);
  const Tensor x = randn({5, 3});
  autograd::backward(sum((*model)(x)));
  const Tensor held = model->parameters()[0];  // a handle taken before the cast
  model->to(DType::Float64);
  for (const Tensor& p : model->parameters()) {
    EXPECT_EQ(p.dtype(), DType::Float64);
    EXPECT_TRUE(autograd::requires_grad(p) && autograd::is_leaf(p));
    ASSERT_TRUE(autograd::grad(p).defined());
    EXPECT_EQ(autograd::grad(p).dtype(), DType::Float64);
  }
  EXPECT_EQ(held.dtype(), DType::Float64);  // same tensor, new data
  EXPECT_EQ(linear->weight.dtype(), DType::Float64);
  EXPECT_TRUE(allclose(to_dtype(linear->weight, DType::Float32), w32));
  EXPECT_EQ(bn->running_mean.dtype(), DType::Float64);
  EXPECT_EQ(bn->num_batches_tracked.dtype(), DType::Int64);  // integer buffers are kept
  // The cast module runs and trains in float64.
  model->zero_grad();
  const Tensor y = (*model)(to_dtype(x, DType::Float64));
  EXPECT_EQ(y.dtype(), DType::Float64);
  autograd::backward(sum(y));
  EXPECT_EQ(autograd::grad(linear->weight).dtype(), DType::Float64);
  model->to(DType::Float32);
  EXPECT_TRUE(allclose(linear->weight, w32));
  EXPECT_THROW(model->to(DType::Int64), TypeError);
  EXPECT_EQ(linear->weight.dtype(), DType::Float32);  // unchanged by the refused cast
}
