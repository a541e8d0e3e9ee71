// The C++ optimizer API (include/ember/optim.h): update rules written out by hand in
// double, strided parameters, skipped parameters and checks before writing.
// The Python tests compare every option against torch.optim.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "ember/optim.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

Tensor from(const std::vector<double>& v, DType dt = DType::Float64) {
  Tensor t = empty({int64_t(v.size())}, DType::Float64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return to_dtype(t, dt);
}

Tensor leaf(const std::vector<double>& v) {
  Tensor t = from(v);
  autograd::set_requires_grad(t, true);
  return t;
}

TEST(Optim, AdamMatchesTheFormula) {
  Tensor p = leaf({1.0, -2.0, 0.5}), g = from({0.1, 0.2, -0.3});
  Tensor m = zeros({3}, DType::Float64), v = zeros({3}, DType::Float64), step = zeros({});
  optim::AdamOptions o;
  o.lr = 0.1;
  o.weight_decay = 0.01;
  std::vector<double> P = values(p), G = values(g), M(3, 0.0), V(3, 0.0);
  for (int t = 1; t <= 3; ++t) {
    const uint32_t version = p.version();
    optim::adam_step({p}, {g}, {m}, {v}, {}, {step}, o);
    EXPECT_GT(p.version(), version);
    for (size_t i = 0; i < 3; ++i) {
      double d = G[i] + o.weight_decay * P[i];
      M[i] = M[i] + (1 - o.beta1) * (d - M[i]);
      V[i] = V[i] * o.beta2 + (1 - o.beta2) * d * d;
      double denom = std::sqrt(V[i]) / std::sqrt(1 - std::pow(o.beta2, t)) + o.eps;
      P[i] -= o.lr / (1 - std::pow(o.beta1, t)) * M[i] / denom;
    }
  }
  std::vector<double> got = values(p);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], P[i], 1e-14);
  EXPECT_EQ(values(step)[0], 3.0);
  EXPECT_TRUE(autograd::requires_grad(p));
  EXPECT_FALSE(autograd::grad_fn(p));
}

TEST(Optim, SgdCreatesMomentumBuffersAndSkipsMissingGrads) {
  Tensor a = leaf({1.0, 2.0}), b = leaf({3.0});
  std::vector<Tensor> bufs(2);
  optim::SGDOptions o;
  o.lr = 0.5;
  o.momentum = 0.9;
  optim::sgd_step({a, b}, {from({1.0, 1.0}), Tensor()}, bufs, o);
  EXPECT_EQ(values(a), (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(values(b), (std::vector<double>{3.0}));  // no grad: untouched
  ASSERT_TRUE(bufs[0].defined());
  EXPECT_FALSE(bufs[1].defined());
  EXPECT_EQ(values(bufs[0]), (std::vector<double>{1.0, 1.0}));
  optim::sgd_step({a, b}, {from({1.0, 1.0}), Tensor()}, bufs, o);
  EXPECT_EQ(values(bufs[0]), (std::vector<double>{1.9, 1.9}));
  EXPECT_NEAR(values(a)[0], 0.5 - 0.5 * 1.9, 1e-15);
}

TEST(Optim, StridedParametersAndStateAreUpdatedInPlace) {
  Tensor base = zeros({3, 2}, DType::Float32);
  Tensor p = transpose(base, 0, 1);  // (2, 3), not contiguous
  Tensor g = full({2, 3}, Scalar(1.0), DType::Float32);
  Tensor sum = transpose(zeros({3, 2}, DType::Float32), 0, 1), step = zeros({});
  optim::AdagradOptions o;
  o.lr = 0.25;
  optim::adagrad_step({p}, {g}, {sum}, {step}, o);
  for (double x : values(base)) EXPECT_NEAR(x, -0.25, 1e-6);
  for (double x : values(sum)) EXPECT_EQ(x, 1.0);
}

TEST(Optim, BadArgumentsThrowBeforeAnythingIsWritten) {
  Tensor a = leaf({1.0, 2.0}), b = leaf({3.0});
  Tensor s1 = zeros({}), s2 = zeros({});
  std::vector<Tensor> m = {zeros({2}, DType::Float64), zeros({1}, DType::Float64)};
  std::vector<Tensor> v = m;
  EXPECT_THROW(optim::adam_step({a, b}, {from({1.0, 1.0}), from({1.0, 1.0})}, m, v, {}, {s1, s2},
                                {}),
               ValueError);
  EXPECT_THROW(optim::adam_step({a, b}, {from({1.0, 1.0}), from({1.0}, DType::Float32)}, m, v, {},
                                {s1, s2}, {}),
               TypeError);
  EXPECT_THROW(optim::rmsprop_step({a}, {from({1.0, 1.0})}, {}, {}, {}, {s1}, {}), ValueError);
  EXPECT_EQ(values(a), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(values(s1)[0], 0.0);
}

}  // namespace
