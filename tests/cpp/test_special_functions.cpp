// The gamma, Bessel and error-function families through the public C++ API: known values,
// torch's values at the poles, results that do not depend on the thread count, gradients.
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

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(SpecialFunctions, KnownValues) {
  Tensor x = vec({0.5, 1.0, 2.0});
  EXPECT_NEAR(at(lgamma(x), 0), 0.5 * std::log(M_PI), 1e-14);   // Gamma(1/2) = sqrt(pi)
  EXPECT_NEAR(at(digamma(x), 1), -0.57721566490153286, 1e-14);  // -Euler's gamma
  EXPECT_NEAR(at(polygamma(1, x), 1), M_PI * M_PI / 6, 1e-14);  // zeta(2)
  EXPECT_NEAR(at(polygamma(1, x), 0), M_PI * M_PI / 2, 1e-13);
  EXPECT_NEAR(at(erfc(x), 1), std::erfc(1.0), 1e-15);
  EXPECT_NEAR(at(i0(x), 1), 1.2660658777520082, 1e-14);
  EXPECT_NEAR(at(special_i1(neg(x)), 1), -0.5651591039924851, 1e-14);  // odd
  EXPECT_NEAR(at(sinc(x), 0), 2 / M_PI, 1e-15);
  EXPECT_NEAR(at(special_ndtri(special_ndtr(x)), 2), 2.0, 1e-12);
  EXPECT_NEAR(at(special_log_ndtr(vec({-40.0})), 0), -804.6084420137538, 1e-9);  // no underflow
  EXPECT_NEAR(at(special_erfcx(vec({30.0})), 0), 0.018795888861416751, 1e-15);
  EXPECT_NEAR(at(mvlgamma(vec({2.5}), 2), 0),
              std::lgamma(2.5) + std::lgamma(2.0) + 0.5 * std::log(M_PI), 1e-14);
}

TEST(SpecialFunctions, PolesAsTorch) {
  Tensor x = vec({0.0, -0.0, -2.0});
  EXPECT_EQ(at(digamma(x), 0), -kInf);
  EXPECT_EQ(at(digamma(x), 1), kInf);
  EXPECT_TRUE(std::isnan(at(digamma(x), 2)));
  EXPECT_EQ(at(lgamma(x), 2), kInf);
  EXPECT_EQ(at(polygamma(1, x), 0), kInf);
  EXPECT_EQ(at(polygamma(2, x), 0), -kInf);
  EXPECT_TRUE(std::isnan(at(lgamma(vec({std::nan("")})), 0)));
  EXPECT_THROW(polygamma(-1, x), Error);
  EXPECT_THROW(mvlgamma(x, 0), Error);
}

TEST(SpecialFunctions, SameResultOnOneAndTwoThreads) {
  Tensor x = add(mul(rand({100000}, DType::Float64), Scalar(10.0)), Scalar(0.01));
  const int n = get_num_threads();
  set_num_threads(1);
  Tensor a = digamma(x);
  set_num_threads(2);
  Tensor b = digamma(x);
  set_num_threads(n);
  EXPECT_EQ(std::memcmp(a.data_ptr(), b.data_ptr(), 100000 * sizeof(double)), 0);
}

TEST(SpecialFunctions, XlogyZerosAndGradient) {
  Tensor x = vec({0.0, 0.0, 2.0});
  Tensor y = vec({0.0, std::nan(""), 3.0});
  Tensor r = xlogy(x, y);
  EXPECT_EQ(at(r, 0), 0.0);
  EXPECT_TRUE(std::isnan(at(r, 1)));
  EXPECT_NEAR(at(r, 2), 2 * std::log(3.0), 1e-15);
  Tensor a = vec({2.0});
  autograd::set_requires_grad(a, true);
  autograd::backward(lgamma(a));
  EXPECT_NEAR(at(autograd::grad(a), 0), 1 - 0.57721566490153286, 1e-14);  // digamma(2)
}
