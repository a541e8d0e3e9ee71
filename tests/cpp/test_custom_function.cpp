// Custom autograd functions written in C++ (ember/custom_function.h): forward and backward by
// hand, saved tensors with their version check, non-tensor arguments, broadcast gradients.
#include <gtest/gtest.h>

#include <vector>

#include "ember/custom_function.h"
#include "ember/ember.h"

using namespace ember;
using autograd::AutogradContext;

namespace {
Tensor leaf(std::vector<float> v, Dims shape) {
  Tensor t = empty(shape, DType::Float32);
  std::copy(v.begin(), v.end(), t.data<float>());
  autograd::set_requires_grad(t, true);
  return t;
}
std::vector<float> values(const Tensor& t) {
  Tensor c = contiguous(t);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

// a * x * y + b, with b a (1,)-shaped bias whose gradient backward returns as (n,): the node sums
// it back to b's shape, as torch's engine does.
struct ScaledProduct : autograd::Function<ScaledProduct> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor y, double a, Tensor b) {
    ctx->save_for_backward({x, y});
    ctx->saved_data["a"] = a;
    ctx->saved_data["needs_x"] = ctx->needs_input_grad(0);  // index among tensor arguments
    return add(mul(mul(x, y), Scalar(a)), b);
  }
  static Grads backward(AutogradContext* ctx, Grads g) {
    auto s = ctx->get_saved_variables();
    const double a = ctx->saved_data["a"].toDouble();
    EXPECT_TRUE(ctx->saved_data["needs_x"].toBool());
    return {mul(mul(g[0], s[1]), Scalar(a)), mul(mul(g[0], s[0]), Scalar(a)), Tensor(), g[0]};
  }
};

// Returns (x * 2, argmax-like int64 indices, x unchanged): the indices get no gradient, the
// input returned as it is becomes a new tensor.
struct TwoOutputs : autograd::Function<TwoOutputs> {
  static std::vector<Tensor> forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    Tensor idx = zeros(x.sizes(), DType::Int64);
    return {mul(x, Scalar(2.0)), idx, x};
  }
  static Grads backward(AutogradContext*, Grads g) {
    EXPECT_EQ(g.size(), 3u);
    EXPECT_TRUE(g[2].defined());  // materialized zeros for the output that got no gradient
    return {add(mul(g[0], Scalar(2.0)), g[2])};
  }
};

struct WrongCount : autograd::Function<WrongCount> {
  static Tensor forward(AutogradContext*, Tensor x) { return mul(x, x); }
  static Grads backward(AutogradContext*, Grads g) { return {g[0], g[0]}; }
};

struct WrongShape : autograd::Function<WrongShape> {
  static Tensor forward(AutogradContext*, Tensor x) { return mul(x, x); }
  static Grads backward(AutogradContext*, Grads) { return {ones(Dims{5}, DType::Float32)}; }
};
}  // namespace

TEST(CustomFunction, ForwardBackwardSavedDataAndBroadcastGrad) {
  Tensor x = leaf({1, 2, 3}, Dims{3}), y = leaf({4, 5, 6}, Dims{3}), b = leaf({0.5f}, Dims{1});
  Tensor z = ScaledProduct::apply(x, y, 2.0, b);
  EXPECT_EQ(values(z), (std::vector<float>{8.5f, 20.5f, 36.5f}));
  EXPECT_EQ(autograd::grad_fn(z)->name(), "(anonymous namespace)::ScaledProductBackward");
  autograd::backward(sum(z));
  EXPECT_EQ(values(autograd::grad(x)), (std::vector<float>{8, 10, 12}));
  EXPECT_EQ(values(autograd::grad(y)), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(values(autograd::grad(b)), (std::vector<float>{3}));
  // The graph is freed after backward: a second one raises torch's error.
  EXPECT_THROW(autograd::backward(sum(z)), Error);
}

TEST(CustomFunction, SavedTensorModifiedInPlaceRaises) {
  Tensor x = leaf({1, 2}, Dims{2}), y = leaf({3, 4}, Dims{2}), b = leaf({0}, Dims{1});
  Tensor y2 = mul(y, Scalar(1.0));  // a non-leaf we may modify in place
  Tensor z = ScaledProduct::apply(x, y2, 1.0, b);
  add_(y2, Scalar(1.0));
  EXPECT_THROW(autograd::backward(sum(z)), Error);
}

TEST(CustomFunction, NonDifferentiableOutputsAndInputsReturnedAsIs) {
  Tensor x = leaf({1, -1}, Dims{2});
  std::vector<Tensor> out = TwoOutputs::apply(x);
  EXPECT_TRUE(autograd::requires_grad(out[0]));
  EXPECT_FALSE(autograd::requires_grad(out[1]));
  EXPECT_FALSE(out[2].is_same(x));  // a new tensor over x's data
  EXPECT_TRUE(autograd::grad_fn(out[2]));
  EXPECT_TRUE(autograd::is_leaf(x));
  autograd::backward(add(sum(out[0]), sum(out[2])));
  EXPECT_EQ(values(autograd::grad(x)), (std::vector<float>{3, 3}));
}

TEST(CustomFunction, NoGradRecordsNothing) {
  Tensor x = leaf({1, 2}, Dims{2}), y = leaf({3, 4}, Dims{2}), b = leaf({0}, Dims{1});
  NoGradGuard no_grad;
  Tensor z = ScaledProduct::apply(x, y, 1.0, b);
  EXPECT_FALSE(autograd::requires_grad(z));
  EXPECT_FALSE(autograd::grad_fn(z));
}

TEST(CustomFunction, BadBackwardsRaise) {
  Tensor x = leaf({1, 2}, Dims{2});
  EXPECT_THROW(autograd::backward(sum(WrongCount::apply(x))), Error);
  EXPECT_THROW(autograd::backward(sum(WrongShape::apply(x))), Error);
}

TEST(CustomFunction, SavedValueKinds) {
  autograd::SavedValue v(int64_t(3));
  EXPECT_EQ(v.toInt(), 3);
  EXPECT_EQ(v.toDouble(), 3.0);
  EXPECT_THROW(v.toTensor(), TypeError);
  EXPECT_EQ(autograd::SavedValue(std::vector<int64_t>{1, 2}).toIntVector(),
            (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(autograd::SavedValue().isNone());
  EXPECT_EQ(std::string(autograd::SavedValue("s").kind()), "str");
}
