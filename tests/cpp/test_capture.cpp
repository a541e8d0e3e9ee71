// Capture and replay through the public C++ API (include/ember/capture.h): a replay gives
// the eager bits, the guards refuse other shapes, a fused chain is one step, and what a
// recording cannot see stops it.
#include <gtest/gtest.h>

#include <cstring>

#include "ember/ember.h"

using namespace ember;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = contiguous(a), y = contiguous(b);
  return x.sizes() == y.sizes() && x.dtype() == y.dtype() &&
         std::memcmp(x.data_ptr(), y.data_ptr(), size_t(x.numel()) * x.itemsize()) == 0;
}

Tensor program(const Tensor& x) {
  Tensor s = square(sin(x));
  Tensor c = mul(cos(x), Scalar(0.5));
  return sum(add(s, c));
}

}  // namespace

TEST(Capture, ReplayEqualsEagerAndFuses) {
  manual_seed(3);
  Tensor x = randn({50000});
  capture::Recording rec({x});
  Tensor y = program(x);
  std::shared_ptr<capture::Graph> g = rec.finish({y});
  ASSERT_TRUE(g) << rec.why();
  EXPECT_EQ(capture::num_fused(*g), 1);
  EXPECT_EQ(capture::op_names(*g), std::vector<std::string>{"fused[sin,square,cos,mul,add,sum]"});
  Tensor x2 = randn({50000});
  std::string why;
  ASSERT_TRUE(capture::check(*g, {x2}, &why)) << why;
  EXPECT_TRUE(same_bits(capture::replay(*g, {x2})[0], program(x2)));
}

TEST(Capture, GuardsRefuseAnotherShapeOrDtype) {
  Tensor x = randn({4, 3});
  capture::Recording rec({x});
  Tensor y = mul(x, Scalar(2.0));
  auto g = rec.finish({y});
  ASSERT_TRUE(g);
  std::string why;
  EXPECT_FALSE(capture::check(*g, {randn({3, 4})}, &why));
  EXPECT_NE(why.find("size"), std::string::npos) << why;
  EXPECT_FALSE(capture::check(*g, {randn({4, 3}, DType::Float64)}, &why));
  EXPECT_FALSE(capture::check(*g, {transpose(randn({3, 4}), 0, 1)}, &why));
  EXPECT_TRUE(capture::check(*g, {randn({4, 3})}, &why)) << why;
}

TEST(Capture, ReadingValuesStopsTheRecording) {
  Tensor x = randn({3});
  capture::Recording rec({x});
  Tensor y = exp(x);
  (void)sum(y).item();
  auto g = rec.finish({y});
  EXPECT_FALSE(g);
  EXPECT_TRUE(rec.broken());
  EXPECT_NE(rec.why().find("item"), std::string::npos) << rec.why();
}

TEST(Capture, TrainingStepWithBackwardReplays) {
  Tensor w = randn({3, 1});
  autograd::set_requires_grad(w, true);
  Tensor x = randn({8, 3});
  auto step = [&](const Tensor& in) {
    Tensor loss = mean(square(mm(in, w)));
    autograd::backward({loss}, {}, false, false, {});
    NoGradGuard ng;
    Tensor g = autograd::grad(w);
    sub_(w, mul(g, Scalar(0.1)));
    zero_(g);
    return loss;
  };
  step(x);  // creates w.grad
  capture::Recording rec({x});
  Tensor l1 = step(x);
  auto g = rec.finish({l1});
  ASSERT_TRUE(g) << rec.why();
  Tensor w_before = clone(w);
  Tensor replayed = capture::replay(*g, {x})[0];
  Tensor w_replayed = clone(w);
  w.set_data(w_before);
  Tensor eager = step(x);
  EXPECT_TRUE(same_bits(replayed, eager));
  EXPECT_TRUE(same_bits(w_replayed, w));
}
