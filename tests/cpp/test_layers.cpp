// The layer ops of ember/functional.h from C++: linear, layer_norm and batch_norm against
// plain double loops, and the errors naming the op. (The full sweep against PyTorch is
// tests/python/test_nn_functional_layers.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "ember/functional.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

Tensor leaf(IntList shape, uint64_t seed) {
  manual_seed(seed);
  Tensor t = randn(shape, DType::Float64);
  autograd::set_requires_grad(t, true);
  return t;
}

}  // namespace

TEST(Layers, LinearMatchesLoopsForwardAndBackward) {
  Tensor x = leaf({2, 3, 4}, 1), w = leaf({5, 4}, 2), b = leaf({5}, 3);
  Tensor y = linear(x, w, b);
  ASSERT_EQ(y.sizes(), (Dims{2, 3, 5}));
  std::vector<double> X = values(x), W = values(w), B = values(b), want(30), gx(24), gw(20), gb(5);
  for (int r = 0; r < 6; ++r)
    for (int o = 0; o < 5; ++o) {
      double acc = B[size_t(o)];
      for (int i = 0; i < 4; ++i) acc += X[size_t(r * 4 + i)] * W[size_t(o * 4 + i)];
      want[size_t(r * 5 + o)] = acc;
      gb[size_t(o)] += 1;  // d sum(y) / d b
      for (int i = 0; i < 4; ++i) {
        gx[size_t(r * 4 + i)] += W[size_t(o * 4 + i)];
        gw[size_t(o * 4 + i)] += X[size_t(r * 4 + i)];
      }
    }
  expect_near(y, want);
  autograd::backward({sum(y)}, {}, false, false);
  expect_near(autograd::grad(x), gx);
  expect_near(autograd::grad(w), gw);
  expect_near(autograd::grad(b), gb);
}

TEST(Layers, LayerNormMatchesLoops) {
  Tensor x = leaf({3, 8}, 4);
  Tensor w = full({8}, Scalar(2.0), DType::Float64), b = full({8}, Scalar(0.5), DType::Float64);
  Tensor y = layer_norm(x, {8}, w, b, 1e-5);
  std::vector<double> X = values(x), want(24);
  for (int r = 0; r < 3; ++r) {
    double mu = 0, var = 0;
    for (int j = 0; j < 8; ++j) mu += X[size_t(r * 8 + j)] / 8;
    for (int j = 0; j < 8; ++j)
      var += (X[size_t(r * 8 + j)] - mu) * (X[size_t(r * 8 + j)] - mu) / 8;
    for (int j = 0; j < 8; ++j)
      want[size_t(r * 8 + j)] = (X[size_t(r * 8 + j)] - mu) / std::sqrt(var + 1e-5) * 2 + 0.5;
  }
  expect_near(y, want, 1e-12);
  // The sum of a normalized row does not depend on x: its gradient is 0.
  autograd::backward({sum(y)}, {}, false, false);
  expect_near(autograd::grad(x), std::vector<double>(24, 0.0), 1e-12);
}

TEST(Layers, BatchNormUpdatesRunningStatsInPlace) {
  manual_seed(5);
  Tensor x = randn({6, 2, 3}, DType::Float64);
  Tensor rm = zeros({2}, DType::Float64), rv = ones({2}, DType::Float64);
  const uint32_t v0 = rm.version();
  batch_norm(x, rm, rv, Tensor(), Tensor(), /*training=*/true, 0.25, 1e-5);
  EXPECT_GT(rm.version(), v0);
  std::vector<double> X = values(x), M = values(rm), Vr = values(rv);
  for (int c = 0; c < 2; ++c) {
    double mu = 0, var = 0;
    for (int n = 0; n < 6; ++n)
      for (int s = 0; s < 3; ++s) mu += X[size_t((n * 2 + c) * 3 + s)] / 18;
    for (int n = 0; n < 6; ++n)
      for (int s = 0; s < 3; ++s) {
        const double d = X[size_t((n * 2 + c) * 3 + s)] - mu;
        var += d * d / 17;  // unbiased for the running estimate
      }
    EXPECT_NEAR(M[size_t(c)], 0.25 * mu, 1e-12);
    EXPECT_NEAR(Vr[size_t(c)], 0.75 + 0.25 * var, 1e-12);
  }
}

TEST(Layers, ErrorsNameTheOpAndShapes) {
  try {
    linear(ones({3, 4}), ones({5, 3}));
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("linear: input of shape (3, 4)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(batch_norm(ones({1, 3}), zeros({3}), ones({3}), Tensor(), Tensor(), true),
               ValueError);
  EXPECT_THROW(layer_norm(ones({3, 4}), {5}), ValueError);
  EXPECT_THROW(embedding(full({2}, Scalar(int64_t(7)), DType::Int64), ones({5, 3})), IndexError);
  EXPECT_THROW(gelu(ones({3}, DType::Int64)), TypeError);
  EXPECT_THROW(dropout(ones({3}), 1.5), ValueError);
}
