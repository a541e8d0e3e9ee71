// The window op through the public C++ API (include/ember/window.h): each kind against its
// closed form in double, the periodic/symmetric denominators, float32 rounding, a long cosine
// sum (the block rotation) against std::cos, and the argument checks.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "ember/window.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

TEST(Window, ClosedForms) {
  const int64_t n = 7;
  const double d = n - 1;  // symmetric
  Tensor hann = window(WindowKind::CosineSum, n, d, {0.5, 0.5}, DType::Float64);
  Tensor bart = window(WindowKind::Bartlett, n, d, {}, DType::Float64);
  Tensor kai = window(WindowKind::Kaiser, n, d, {4.0}, DType::Float64);
  Tensor gau = window(WindowKind::Gaussian, n, d, {1.5}, DType::Float64);
  Tensor exq = window(WindowKind::Exponential, n, 1.0, {2.0, 3.0}, DType::Float64);
  Tensor sine = window(WindowKind::Sine, n, double(n), {}, DType::Float64);
  for (int64_t i = 0; i < n; ++i) {
    const double x = 2.0 * i / d - 1;
    EXPECT_NEAR(at(hann, i), 0.5 - 0.5 * std::cos(2 * M_PI * i / d), 1e-15);
    EXPECT_NEAR(at(bart, i), 1 - std::fabs(x), 1e-15);
    EXPECT_NEAR(at(kai, i),
                std::cyl_bessel_i(0.0, 4.0 * std::sqrt(1 - x * x)) / std::cyl_bessel_i(0.0, 4.0),
                1e-13);
    EXPECT_NEAR(at(gau, i), std::exp(-0.5 * std::pow((i - d / 2) / 1.5, 2)), 1e-15);
    EXPECT_NEAR(at(exq, i), std::exp(-std::fabs(i - 2.0) / 3.0), 1e-15);
    EXPECT_NEAR(at(sine, i), std::sin(M_PI * (i + 0.5) / n), 1e-15);
  }
  // periodic: denominator N, the first N points of the symmetric window of N + 1
  Tensor per = window(WindowKind::CosineSum, 8, 8, {0.5, 0.5}, DType::Float32);
  EXPECT_EQ(per.dtype(), DType::Float32);
  EXPECT_EQ(at(per, 0), 0.0);
  EXPECT_NEAR(at(per, 4), 1.0, 1e-7);
  EXPECT_EQ(window(WindowKind::Sine, 0, 0, {}, DType::Float32).numel(), 0);
}

TEST(Window, LongCosineSumStaysAccurate) {
  const int64_t n = 100003;
  Tensor w = window(WindowKind::CosineSum, n, n, {0.42, 0.5, 0.08}, DType::Float64);
  for (int64_t i : {int64_t(0), int64_t(255), int64_t(256), int64_t(77777), n - 1}) {
    const double t = 2 * M_PI * double(i) / n;
    EXPECT_NEAR(at(w, i), 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t), 1e-13) << i;
  }
}

TEST(Window, LargeBetaKaiserIsFinite) {
  Tensor w = window(WindowKind::Kaiser, 9, 8, {1000.0}, DType::Float32);
  EXPECT_EQ(at(w, 4), 1.0);
  for (int64_t i = 0; i < 9; ++i) EXPECT_TRUE(std::isfinite(at(w, i)));
}

TEST(Window, BadArguments) {
  EXPECT_THROW(window(WindowKind::Sine, -1, 1, {}), ValueError);
  EXPECT_THROW(window(WindowKind::Sine, 3, 1, {}, DType::Int64), ValueError);
  EXPECT_THROW(window(WindowKind::CosineSum, 3, 0, {1.0}), ValueError);
  EXPECT_THROW(window(WindowKind::Kaiser, 3, 2, {}), ValueError);
  EXPECT_THROW(window(WindowKind::Kaiser, 3, 2, {-1.0}), ValueError);
  EXPECT_THROW(window(WindowKind::Gaussian, 3, 2, {0.0}), ValueError);
  EXPECT_THROW(window(WindowKind::Exponential, 3, 1, {0.0, -1.0}), ValueError);
}
