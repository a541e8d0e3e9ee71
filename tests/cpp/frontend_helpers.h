// Helpers of the C++ frontend's tests (test_frontend_*.cpp, test_torch_format.cpp).
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::ftest {

inline std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(to_dtype(detach(t), DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

inline Tensor from(const std::vector<double>& v, IntList shape, DType dt = DType::Float32) {
  Tensor t = empty({int64_t(v.size())}, DType::Float64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return reshape(to_dtype(t, dt), shape);
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  return amax(abs(sub(to_dtype(detach(a), DType::Float64), to_dtype(detach(b), DType::Float64))))
      .item()
      .to_double();
}

inline void expect_near(const Tensor& got, const std::vector<double>& want, double tol) {
  std::vector<double> g = values(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << "element " << i;
}

// Runs f, expects it to throw E, and returns the message (to check that it names the op).
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

// Checks autograd's gradient of sum(f(inputs) * r) (r fixed random weights) with respect to
// every element of every float64 input against central differences.
inline void gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                      std::vector<Tensor> inputs, double eps = 1e-6, double tol = 1e-5) {
  for (Tensor& x : inputs) {
    x = clone(detach(x));
    autograd::set_requires_grad(x, true);
  }
  Tensor out = f(inputs);
  const Tensor r = randn(out.sizes(), DType::Float64);
  autograd::backward(sum(mul(out, r)));
  NoGradGuard no_grad;
  auto value = [&] { return sum(mul(f(inputs), r)).item().to_double(); };
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor flat = reshape(inputs[k], {-1});  // a view: writes reach the input
    const std::vector<double> grad = values(autograd::grad(inputs[k]));
    for (int64_t i = 0; i < flat.numel(); ++i) {
      Tensor xi = select(flat, 0, i);
      const double x0 = xi.item().to_double();
      fill_(xi, Scalar(x0 + eps));
      const double up = value();
      fill_(xi, Scalar(x0 - eps));
      const double down = value();
      fill_(xi, Scalar(x0));
      EXPECT_NEAR(grad[size_t(i)], (up - down) / (2 * eps), tol)
          << "input " << k << " element " << i;
    }
  }
}

}  // namespace ember::ftest

#define EXPECT_ERROR_NAMES(E, stmt, fragment) \
  EXPECT_NE(::ember::ftest::error_of<E>([&] { stmt; }).find(fragment), std::string::npos)
