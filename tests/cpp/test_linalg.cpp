#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"

using namespace ember;

namespace {

// A (rows, cols) tensor with values i * cols + j + 1 (small integers: products are exact).
Tensor iota(int64_t rows, int64_t cols, DType dt) {
  return view(arange(Scalar(int64_t(1)), Scalar(rows * cols + 1), Scalar(int64_t(1)), dt),
              Dims{rows, cols});
}

// The reference product, in double, of any strided 2-d a and b.
std::vector<double> naive_mm(const Tensor& a, const Tensor& b) {
  Tensor A = contiguous(to_dtype(a, DType::Float64)), B = contiguous(to_dtype(b, DType::Float64));
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<double> out(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        out[size_t(i * n + j)] += A.data<double>()[i * k + p] * B.data<double>()[p * n + j];
  return out;
}

void expect_equal(const Tensor& got, const std::vector<double>& want) {
  Tensor g = contiguous(to_dtype(got, DType::Float64));
  ASSERT_EQ(g.numel(), int64_t(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(g.data<double>()[i], want[i]) << i;
}

}  // namespace

TEST(Linalg, MmAllDtypesAndTransposedOperands) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::UInt8}) {
    Tensor a = iota(3, 4, dt), b = iota(4, 5, dt);
    Tensor c = mm(a, b);
    EXPECT_EQ(c.dtype(), dt);
    EXPECT_EQ(c.sizes(), (Dims{3, 5}));
    if (dt != DType::UInt8) expect_equal(c, naive_mm(a, b));
    // x.t() reaches the kernel as a transposed view: same values, no copy needed
    Tensor at = t(iota(4, 3, dt)), bt = t(iota(5, 4, dt));
    if (dt != DType::UInt8) {
      expect_equal(mm(at, b), naive_mm(at, b));
      expect_equal(mm(a, bt), naive_mm(a, bt));
      expect_equal(mm(at, bt), naive_mm(at, bt));
    }
  }
}

TEST(Linalg, MatmulDispatchShapes) {
  Tensor v = iota(1, 4, DType::Float32);
  Tensor v1 = view(v, Dims{4});
  EXPECT_EQ(matmul(v1, v1).dim(), 0);
  EXPECT_FLOAT_EQ(matmul(v1, v1).item().to_double(), 1 + 4 + 9 + 16);
  EXPECT_EQ(matmul(iota(3, 4, DType::Float32), v1).sizes(), (Dims{3}));
  EXPECT_EQ(matmul(v1, iota(4, 5, DType::Float32)).sizes(), (Dims{5}));
  Tensor a = view(iota(2, 12, DType::Float32), Dims{2, 1, 3, 4});
  Tensor b = view(iota(5, 8, DType::Float32), Dims{5, 4, 2});
  EXPECT_EQ(matmul(a, b).sizes(), (Dims{2, 5, 3, 2}));
  EXPECT_EQ(matmul(v1, view(iota(2, 12, DType::Float32), Dims{2, 4, 3})).sizes(), (Dims{2, 3}));
  EXPECT_EQ(matmul(a, v1).sizes(), (Dims{2, 1, 3}));
  // batch (1, 3) of a against batch 5 of b: check one matrix against the 2-d product
  Tensor c = matmul(a, b);
  Tensor a1 = select(select(a, 0, 1), 0, 0), b3 = select(b, 0, 3);
  expect_equal(select(select(c, 0, 1), 0, 3), naive_mm(a1, b3));
}

TEST(Linalg, EmptyDims) {
  Tensor z = matmul(zeros({3, 0}), zeros({0, 5}));  // k == 0: zeros
  EXPECT_EQ(z.sizes(), (Dims{3, 5}));
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(z.data<float>()[i], 0.0f);
  EXPECT_EQ(matmul(zeros({0, 4}), zeros({4, 5})).sizes(), (Dims{0, 5}));
  EXPECT_EQ(matmul(zeros({2, 0, 3, 4}), zeros({4, 5})).sizes(), (Dims{2, 0, 3, 5}));
  EXPECT_EQ(dot(zeros({0}, DType::Int64), zeros({0}, DType::Int64)).item().to_int(), 0);
}

TEST(Linalg, AddmmFusesBiasAndIgnoresNanWhenBetaIsZero) {
  Tensor a = iota(2, 3, DType::Float32), b = iota(3, 4, DType::Float32);
  Tensor bias = full({4}, Scalar(10.0));
  Tensor r = addmm(bias, a, b, Scalar(0.5), Scalar(2.0));
  std::vector<double> want = naive_mm(a, b);
  for (double& w : want) w = 2 * w + 5;
  expect_equal(r, want);
  Tensor nan_bias = full({4}, Scalar(std::numeric_limits<double>::quiet_NaN()));
  Tensor r0 = addmm(nan_bias, a, b, Scalar(0.0), Scalar(1.0));
  expect_equal(r0, naive_mm(a, b));
  EXPECT_TRUE(std::isnan(nan_bias.data<float>()[0]));  // self untouched
}

TEST(Linalg, Errors) {
  EXPECT_THROW(matmul(zeros({3, 4}), zeros({5, 6})), ValueError);
  try {
    matmul(zeros({3, 4}), zeros({5, 6}));
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "matmul: shapes (3, 4) and (5, 6) cannot be multiplied (4 != 5)");
  }
  EXPECT_THROW(matmul(zeros({}), zeros({3})), ValueError);
  EXPECT_THROW(matmul(zeros({3, 4}), zeros({4, 5}, DType::Float64)), TypeError);
  EXPECT_THROW(matmul(zeros({3, 4}, DType::Bool), zeros({4, 5}, DType::Bool)), TypeError);
  EXPECT_THROW(matmul(zeros({2, 3, 4}), zeros({3, 4, 5})), ValueError);
  EXPECT_THROW(mm(zeros({3}), zeros({3, 4})), ValueError);
  EXPECT_THROW(bmm(zeros({2, 3, 4}), zeros({3, 4, 5})), ValueError);
  EXPECT_THROW(mv(zeros({3, 4}), zeros({5})), ValueError);
  EXPECT_THROW(dot(zeros({3}), zeros({4})), ValueError);
  EXPECT_THROW(outer(zeros({3, 1}), zeros({4})), ValueError);
  EXPECT_THROW(addmm(zeros({4, 3}), zeros({2, 4}), zeros({4, 3})), ValueError);
  EXPECT_THROW(addmm(zeros({3}, DType::Float64), zeros({2, 4}), zeros({4, 3})), TypeError);
}
