// Reading tensors back in the C++ tests (values as doubles, one element, near-equality) and
// making small inputs. The frontend's tests have their own, in frontend_helpers.h.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ember/ember.h"

namespace ember::test_values {

// Every element of t, in row-major order, as double.
inline std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t, DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

// Element i of t in row-major order, as double.
inline double at(const Tensor& t, int64_t i) {
  return contiguous(to_dtype(t, DType::Float64)).data<double>()[i];
}

inline void expect_near(const Tensor& got, const std::vector<double>& want, double tol = 1e-9) {
  std::vector<double> g = values(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << "element " << i;
}

// A 1-d float64 tensor of v.
inline Tensor vec(const std::vector<double>& v) {
  Tensor t = Tensor::empty({int64_t(v.size())}, DType::Float64);
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(double));
  return t;
}

// 0, 1, ..., n - 1 as a 1-d tensor of dt.
inline Tensor range_f(int64_t n, DType dt = DType::Float32) {
  return arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), dt);
}

}  // namespace ember::test_values
