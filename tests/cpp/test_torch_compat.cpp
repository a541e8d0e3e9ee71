// The torch compatibility headers (include/ember/compat/torch/torch.h, docs/cpp.md): torch's C++
// names compile over ember and compute what the ember ops they stand for compute.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "ember/compat/torch/torch.h"

namespace {
std::vector<double> values(const torch::Tensor& t) {
  auto c = t.to(torch::kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
torch::Tensor range(int64_t n, torch::Dtype dtype = torch::kFloat32) {
  return torch::arange(0, n, torch::dtype(dtype));
}
}  // namespace

TEST(TorchCompat, CreationAndOptions) {
  auto z = torch::zeros({2, 3}, torch::dtype(torch::kFloat64).requires_grad(true));
  EXPECT_EQ(z.scalar_type(), torch::kDouble);
  EXPECT_TRUE(z.requires_grad() && z.is_leaf());
  EXPECT_EQ(torch::ones({2}).scalar_type(), torch::kFloat);
  EXPECT_EQ(values(torch::full({2}, 1.5)), (std::vector<double>{1.5, 1.5}));
  EXPECT_EQ(values(torch::arange(3)), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(torch::eye(2)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(torch::zeros_like(z).scalar_type(), torch::kFloat64);
  EXPECT_EQ(torch::ones_like(z, torch::kFloat32).scalar_type(), torch::kFloat32);
  EXPECT_EQ(torch::randint(0, 5, {4}).scalar_type(), torch::kLong);
  float buf[4] = {1, 2, 3, 4};
  auto b = torch::from_blob(buf, {2, 2});
  buf[3] = 10;  // a view of the caller's memory
  EXPECT_EQ(values(b), (std::vector<double>{1, 2, 3, 10}));
  EXPECT_TRUE(b.device().is_cpu() && !b.is_cuda());
}

TEST(TorchCompat, OperatorsAndMethods) {
  auto x = range(6).view({2, 3});
  EXPECT_EQ(values(1 - x * 2 + x / 2),
            values(ember::add(ember::sub(ember::Scalar(1), ember::mul(x, ember::Scalar(2))),
                              ember::div(x, ember::Scalar(2)))));
  EXPECT_EQ(values(-x), values(ember::neg(x)));
  EXPECT_EQ(values((x > 2).type_as(x)), (std::vector<double>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(values(2 < x), values(x > 2));
  EXPECT_EQ((x == x).scalar_type(), torch::kBool);
  auto y = x.clone();
  y *= 2;
  y += x;
  EXPECT_EQ(values(y), values(x * 3));
  EXPECT_EQ(values(x.t().contiguous().view({-1})), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values(x.sum(1, true)), (std::vector<double>{3, 12}));
  EXPECT_EQ(x.sum(1, true).sizes(), (ember::Dims{2, 1}));
  EXPECT_EQ(values(x.sum({0, 1})), (std::vector<double>{15}));
  EXPECT_EQ(x.mean().item<double>(), 2.5);
  auto [values_max, indices] = x.max(1);
  EXPECT_EQ(values(values_max), (std::vector<double>{2, 5}));
  EXPECT_EQ(indices.scalar_type(), torch::kLong);
  auto parts = x.chunk(3, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(parts[2]), (std::vector<double>{2, 5}));
  EXPECT_EQ(values(x.slice(1, 1)), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(values(x[1]), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(values(x.mm(x.t())), (std::vector<double>{5, 14, 14, 50}));
  EXPECT_EQ(values(x.tanh().pow(2)), values(ember::pow(ember::tanh(x), ember::Scalar(2))));
  EXPECT_EQ(values(x.clamp(1, 3)), (std::vector<double>{1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(x.permute({1, 0}).size(0), 3);
  EXPECT_EQ(x.unsqueeze(0).dim(), 3);
}

TEST(TorchCompat, FreeFunctions) {
  auto x = range(4).view({2, 2});
  EXPECT_EQ(values(torch::cat({x, x}, 1)).size(), 8u);
  EXPECT_EQ(torch::stack({x, x}).dim(), 3);
  EXPECT_EQ(values(torch::sigmoid(x)), values(ember::sigmoid(x)));
  EXPECT_EQ(values(torch::addmm(x, x, x)), values(ember::addmm(x, x, x)));
  EXPECT_EQ(values(torch::where(x > 1, x, -x)), (std::vector<double>{0, -1, 2, 3}));
  auto e = torch::elu(torch::arange(-1, 2, torch::kFloat64));
  EXPECT_NEAR(values(e)[0], std::expm1(-1.0), 1e-12);
  EXPECT_EQ(values(e)[2], 1.0);
  auto [v, i] = torch::max(x, 0);
  EXPECT_EQ(values(v), (std::vector<double>{2, 3}));
  EXPECT_EQ(values(torch::sum(x, 0)), (std::vector<double>{2, 4}));
  EXPECT_EQ(torch::transpose(x, 0, 1).t().is_contiguous(), true);
}

TEST(TorchCompat, ChecksAndDispatch) {
  auto x = range(3, torch::kFloat64);
  double total = 0;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "total", [&] {
    const scalar_t* p = x.data_ptr<scalar_t>();
    for (int64_t k = 0; k < x.numel(); ++k) total += p[k];
  });
  EXPECT_EQ(total, 3.0);
  for (auto dt : {torch::kChar, torch::kShort}) {  // int8 / int16 (kInt8 / kInt16)
    auto q = range(4, dt);
    int64_t sum = 0;
    AT_DISPATCH_ALL_TYPES(q.scalar_type(), "sum", [&] {
      EXPECT_EQ(sizeof(scalar_t), dt == torch::kInt8 ? 1u : 2u);
      for (int64_t k = 0; k < q.numel(); ++k) sum += q.data_ptr<scalar_t>()[k];
    });
    EXPECT_EQ(sum, 6);
  }
  EXPECT_EQ(torch::kInt16, torch::kShort);
  try {
    AT_DISPATCH_FLOATING_TYPES(torch::kLong, "total", [&] {});
    FAIL();
  } catch (const ember::Error& err) {
    EXPECT_STREQ(err.what(), "\"total\" not implemented for 'int64'");
  }
  EXPECT_THROW(x.data_ptr<float>(), ember::Error);  // the dtype must match
  try {
    TORCH_CHECK(x.dim() == 2, "expected 2 dims, got ", x.dim());
    FAIL();
  } catch (const ember::Error& err) {
    EXPECT_STREQ(err.what(), "expected 2 dims, got 1");
  }
  try {
    TORCH_CHECK(x.dim() == 2);
    FAIL();
  } catch (const ember::Error& err) {
    EXPECT_STREQ(err.what(), "Expected x.dim() == 2 to be true, but got false.");
  }
}

namespace {
struct Square : torch::autograd::Function<Square> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    auto x = ctx->get_saved_variables()[0];  // at::Tensor: torch's methods
    return {g[0] * 2 * x};
  }
};
}  // namespace

TEST(TorchCompat, AutogradFunctionAndGuards) {
  auto x = range(3).requires_grad_();
  auto y = Square::apply(x);
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 2, 4}));
  torch::NoGradGuard no_grad;
  EXPECT_FALSE(Square::apply(x).requires_grad());
}
