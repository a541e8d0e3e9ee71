// torch.special's orthogonal polynomials and Hurwitz zeta through the public C++ API
// (include/ember/special_polynomials.h): known closed forms, torch's degree rules, broadcasting,
// zeta's gradient in q and its refusal in x.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ember/ember.h"
#include "ember/special_polynomials.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

TEST(SpecialPolynomials, ClosedForms) {
  const double x = 0.3;
  Tensor X = vec({x});
  EXPECT_NEAR(at(special_chebyshev_polynomial_t(X, Scalar(3)), 0), 4 * x * x * x - 3 * x, 1e-15);
  EXPECT_NEAR(at(special_chebyshev_polynomial_u(X, Scalar(2)), 0), 4 * x * x - 1, 1e-15);
  EXPECT_NEAR(at(special_chebyshev_polynomial_v(X, Scalar(1)), 0), 2 * x - 1, 1e-15);
  EXPECT_NEAR(at(special_chebyshev_polynomial_w(X, Scalar(1)), 0), 2 * x + 1, 1e-15);
  EXPECT_NEAR(at(special_shifted_chebyshev_polynomial_t(X, Scalar(2)), 0),
              2 * (2 * x - 1) * (2 * x - 1) - 1, 1e-15);
  EXPECT_NEAR(at(special_hermite_polynomial_h(X, Scalar(3)), 0), 8 * x * x * x - 12 * x, 1e-14);
  EXPECT_NEAR(at(special_hermite_polynomial_he(X, Scalar(3)), 0), x * x * x - 3 * x, 1e-15);
  EXPECT_NEAR(at(special_laguerre_polynomial_l(X, Scalar(2)), 0), (x * x - 4 * x + 2) / 2, 1e-15);
  EXPECT_NEAR(at(special_legendre_polynomial_p(X, Scalar(2)), 0), (3 * x * x - 1) / 2, 1e-15);
  // the closed form past degree 16 agrees with the trigonometric identity
  EXPECT_NEAR(at(special_chebyshev_polynomial_t(X, Scalar(40)), 0), std::cos(40 * std::acos(x)),
              1e-12);
}

TEST(SpecialPolynomials, DegreesAndBroadcasting) {
  Tensor x = vec({0.3, -0.7});
  Tensor n = unsqueeze(vec({-1.0, 2.9, NAN}), 1);
  Tensor r = special_legendre_polynomial_p(x, n);  // (3, 2)
  ASSERT_EQ(r.dim(), 2);
  ASSERT_EQ(r.size(0), 3);
  ASSERT_EQ(r.size(1), 2);
  EXPECT_EQ(at(r, 0), 0.0);                          // negative degree
  EXPECT_NEAR(at(r, 2), (3 * 0.09 - 1) / 2, 1e-15);  // 2.9 truncates to 2
  EXPECT_EQ(at(r, 4), 0.0);                          // NaN degree
  EXPECT_TRUE(
      std::isnan(at(special_hermite_polynomial_h(vec({0.1}), Scalar(600)), 0)));  // torch's cap
  EXPECT_THROW(special_chebyshev_polynomial_t(vec({1, 2}), vec({1, 2, 3})), Error);
}

TEST(SpecialPolynomials, HurwitzZeta) {
  Tensor x = vec({2.0, 4.0, 1.0, 0.5});
  Tensor q = vec({1.0, 1.0, 1.0, 1.0});
  Tensor z = special_zeta(x, q);
  EXPECT_NEAR(at(z, 0), M_PI * M_PI / 6, 1e-15);
  EXPECT_NEAR(at(z, 1), std::pow(M_PI, 4) / 90, 1e-15);
  EXPECT_TRUE(std::isinf(at(z, 2)));
  EXPECT_TRUE(std::isnan(at(z, 3)));
  EXPECT_NEAR(at(special_zeta(Scalar(2.0), vec({2.0})), 0), M_PI * M_PI / 6 - 1, 1e-15);
  // d/dq zeta(x, q) = -x zeta(x + 1, q)
  Tensor qq = vec({1.5});
  autograd::set_requires_grad(qq, true);
  autograd::backward(special_zeta(vec({3.0}), qq));
  EXPECT_NEAR(at(autograd::grad(qq), 0), -3 * at(special_zeta(vec({4.0}), vec({1.5})), 0), 1e-13);
  Tensor xx = vec({3.0});
  autograd::set_requires_grad(xx, true);
  EXPECT_THROW(autograd::backward(special_zeta(xx, vec({1.5}))), NotImplementedError);
}
