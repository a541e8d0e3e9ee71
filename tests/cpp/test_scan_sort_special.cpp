// Scans, flips, triangles, sorting and special functions through the public C++ API:
// values, shapes, dtypes, gradients, errors, and results independent of the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/ember.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

Tensor from_vector(const std::vector<double>& v) {
  Tensor t = Tensor::empty({int64_t(v.size())}, DType::Float64);
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(double));
  return t;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), size_t(a.numel()) * a.itemsize()) == 0;
}

}  // namespace

TEST(ScanSortSpecial, CumsumCumprodValuesAndDtypes) {
  Tensor x = view(add(range_f(6), Scalar(1.0)), Dims{2, 3});  // [[1 2 3] [4 5 6]]
  Tensor c = cumsum(x, 1);
  EXPECT_EQ(c.sizes(), (Dims{2, 3}));
  EXPECT_DOUBLE_EQ(at(c, 2), 6.0);
  EXPECT_DOUBLE_EQ(at(c, 5), 15.0);
  Tensor p = cumprod(x, 0);
  EXPECT_DOUBLE_EQ(at(p, 3), 4.0);
  EXPECT_DOUBLE_EQ(at(p, 5), 18.0);
  EXPECT_EQ(cumsum(range_f(4, DType::Int32), 0).dtype(), DType::Int64);
  EXPECT_EQ(cumprod(ones({3}, DType::Bool), 0).dtype(), DType::Int64);
  EXPECT_EQ(cumsum(range_f(4, DType::Int32), 0, DType::Float64).dtype(), DType::Float64);
  EXPECT_EQ(cumsum(scalar_tensor(Scalar(2.0)), -1).dim(), 0);
  EXPECT_THROW(cumsum(x, 2), IndexError);
}

TEST(ScanSortSpecial, CumprodGradientWithZero) {
  Tensor x = from_vector(std::vector<double>{2.0, 0.0, 3.0, 4.0});
  autograd::set_requires_grad(x, true);
  autograd::backward(sum(cumprod(x, 0)));
  // d/dx0 = 1 + 0 + 0 + 0; d/dx1 = x0 + x0 x2 + x0 x2 x3 = 2 + 6 + 24; the rest 0.
  Tensor g = autograd::grad(x);
  EXPECT_DOUBLE_EQ(at(g, 0), 1.0);
  EXPECT_DOUBLE_EQ(at(g, 1), 32.0);
  EXPECT_DOUBLE_EQ(at(g, 2), 0.0);
  EXPECT_DOUBLE_EQ(at(g, 3), 0.0);
}

TEST(ScanSortSpecial, TrilTriuFlipRoll) {
  Tensor x = view(range_f(9), Dims{3, 3});
  Tensor l = tril(x), u = triu(x, 1);
  EXPECT_DOUBLE_EQ(at(l, 1), 0.0);
  EXPECT_DOUBLE_EQ(at(l, 3), 3.0);
  EXPECT_DOUBLE_EQ(at(u, 4), 0.0);
  EXPECT_DOUBLE_EQ(at(u, 5), 5.0);
  EXPECT_THROW(tril(range_f(3)), Error);
  Tensor f = flip(x, {0, -1});
  EXPECT_DOUBLE_EQ(at(f, 0), 8.0);
  EXPECT_DOUBLE_EQ(at(f, 8), 0.0);
  Tensor ft = flip(transpose(x, 0, 1), {1});  // a strided input
  EXPECT_DOUBLE_EQ(at(ft, 0), 6.0);
  EXPECT_THROW(flip(x, {1, -1}), Error);
  Tensor r = roll(x, {1}, {1});
  EXPECT_DOUBLE_EQ(at(r, 0), 2.0);
  EXPECT_DOUBLE_EQ(at(r, 1), 0.0);
  Tensor rf = roll(x, {-2});
  EXPECT_DOUBLE_EQ(at(rf, 0), 2.0);
  EXPECT_DOUBLE_EQ(at(rf, 8), 1.0);
  EXPECT_THROW(roll(x, {1, 2}, {0}), Error);
}

TEST(ScanSortSpecial, SortTopkNanLargest) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = from_vector(std::vector<double>{3.0, nan, -1.0, 3.0, 0.5});
  auto [v, i] = sort(x);
  EXPECT_DOUBLE_EQ(at(v, 0), -1.0);
  EXPECT_TRUE(std::isnan(at(v, 4)));
  EXPECT_EQ(contiguous(i).data<int64_t>()[2], 0);  // the first 3.0 stays first
  EXPECT_EQ(contiguous(i).data<int64_t>()[3], 3);
  auto [tv, ti] = topk(x, 2);
  EXPECT_TRUE(std::isnan(at(tv, 0)));
  EXPECT_DOUBLE_EQ(at(tv, 1), 3.0);
  EXPECT_EQ(contiguous(ti).data<int64_t>()[0], 1);
  EXPECT_THROW(topk(x, 6), Error);
  EXPECT_EQ(argsort(x, 0, true).dtype(), DType::Int64);
}

TEST(ScanSortSpecial, SortGradientScattersBack) {
  Tensor x = from_vector(std::vector<double>{3.0, 1.0, 2.0});
  autograd::set_requires_grad(x, true);
  Tensor w = from_vector(std::vector<double>{10.0, 20.0, 30.0});
  autograd::backward(sum(mul(sort(x).first, w)));  // sorted: x1, x2, x0
  EXPECT_DOUBLE_EQ(at(autograd::grad(x), 0), 30.0);
  EXPECT_DOUBLE_EQ(at(autograd::grad(x), 1), 10.0);
  EXPECT_DOUBLE_EQ(at(autograd::grad(x), 2), 20.0);
}

TEST(ScanSortSpecial, SameBitsUnderOneAndTwoThreads) {
  manual_seed(7);
  Tensor x = randn({300, 500});
  const int before = get_num_threads();
  set_num_threads(1);
  Tensor c1 = cumsum(x, 1), p1 = cumprod(x, 0), s1 = sort(x, 1).first, e1 = sinh(x);
  set_num_threads(2);
  Tensor c2 = cumsum(x, 1), p2 = cumprod(x, 0), s2 = sort(x, 1).first, e2 = sinh(x);
  set_num_threads(before);
  EXPECT_TRUE(same_bits(c1, c2));
  EXPECT_TRUE(same_bits(p1, p2));
  EXPECT_TRUE(same_bits(s1, s2));
  EXPECT_TRUE(same_bits(e1, e2));
}

TEST(ScanSortSpecial, SpecialFunctionsAndClassifiers) {
  Tensor x = from_vector(std::vector<double>{0.5, -0.25});
  EXPECT_NEAR(at(sinh(x), 0), std::sinh(0.5), 1e-15);
  EXPECT_NEAR(at(erf(erfinv(x)), 1), -0.25, 1e-15);
  EXPECT_EQ(sinh(range_f(3, DType::Int64)).dtype(), DType::Float32);
  const double inf = std::numeric_limits<double>::infinity();
  Tensor y = from_vector(std::vector<double>{inf, -inf, std::nan(""), 1.0});
  EXPECT_EQ(contiguous(isposinf(y)).data<bool>()[0], true);
  EXPECT_EQ(contiguous(isneginf(y)).data<bool>()[0], false);
  EXPECT_EQ(contiguous(isnan(y)).data<bool>()[2], true);
  EXPECT_EQ(contiguous(isfinite(y)).data<bool>()[3], true);
  EXPECT_EQ(contiguous(isfinite(range_f(2, DType::Int64))).data<bool>()[1], true);
  EXPECT_DOUBLE_EQ(at(lerp(x, mul(x, Scalar(3.0)), Scalar(0.5)), 0), 1.0);
  EXPECT_DOUBLE_EQ(at(addcmul(x, x, x, Scalar(2.0)), 0), 1.0);
  EXPECT_DOUBLE_EQ(at(addcdiv(x, x, x, Scalar(2.0)), 1), 1.75);
  EXPECT_THROW(lerp(x, to_dtype(x, DType::Float32), Scalar(0.5)), Error);
}
