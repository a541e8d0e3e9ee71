// Reductions through the public C++ API: values, result dtypes and shapes, errors, and
// bit-identical results under 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ember/ember.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), size_t(a.numel()) * a.itemsize()) == 0;
}

}  // namespace

TEST(Reduce, SumOverDimsAndKeepdim) {
  Tensor x = view(range_f(24), Dims{2, 3, 4});
  EXPECT_DOUBLE_EQ(sum(x).item().to_double(), 276.0);
  Tensor s0 = sum(x, {0});
  EXPECT_EQ(s0.sizes(), (Dims{3, 4}));
  EXPECT_DOUBLE_EQ(at(s0, 0), 12.0);
  Tensor s02 = sum(x, {0, -1}, true);
  EXPECT_EQ(s02.sizes(), (Dims{1, 3, 1}));
  EXPECT_DOUBLE_EQ(at(s02, 1), (4 + 5 + 6 + 7) + (16 + 17 + 18 + 19));
  Tensor st = sum(transpose(x, 0, 2), {0});  // a strided input
  EXPECT_EQ(st.sizes(), (Dims{3, 2}));
  EXPECT_DOUBLE_EQ(at(st, 0), 0 + 1 + 2 + 3);
}

TEST(Reduce, ResultDtypes) {
  Tensor i = ones({4}, DType::Int32);
  EXPECT_EQ(sum(i).dtype(), DType::Int64);
  EXPECT_EQ(sum(ones({4}, DType::Bool)).dtype(), DType::Int64);
  EXPECT_EQ(prod(i).dtype(), DType::Int64);
  EXPECT_EQ(sum(i, {}, false, DType::Int32).dtype(), DType::Int32);
  EXPECT_EQ(sum(ones({4}), {}, false, DType::Float64).dtype(), DType::Float64);
  EXPECT_EQ(amax(i).dtype(), DType::Int32);
  EXPECT_EQ(all(ones({4}, DType::UInt8)).dtype(), DType::UInt8);
  EXPECT_EQ(any(ones({4})).dtype(), DType::Bool);
  EXPECT_EQ(logsumexp(i, {0}).dtype(), DType::Float32);
  EXPECT_THROW(mean(i), TypeError);
  EXPECT_THROW(var(i), TypeError);
  EXPECT_THROW(norm(i), TypeError);
  EXPECT_THROW(softmax(i, 0), TypeError);
  EXPECT_THROW(argmax(ones({2}, DType::Bool)), TypeError);
}

TEST(Reduce, MaxMinWithIndicesFirstTieWins) {
  Tensor x = view(to_dtype(remainder(range_f(12), Scalar(int64_t(3))), DType::Float32), Dims{3, 4});
  auto [v, idx] = max(x, 1);
  EXPECT_EQ(v.sizes(), (Dims{3}));
  EXPECT_EQ(idx.dtype(), DType::Int64);
  // rows: 0 1 2 0 | 1 2 0 1 | 2 0 1 2
  EXPECT_EQ(idx.data<int64_t>()[0], 2);
  EXPECT_EQ(idx.data<int64_t>()[1], 1);
  EXPECT_EQ(idx.data<int64_t>()[2], 0);
  auto [mv, mi] = min(x, 0, true);
  EXPECT_EQ(mi.sizes(), (Dims{1, 4}));
  EXPECT_EQ(mi.data<int64_t>()[0], 0);
  EXPECT_EQ(argmax(x).item().to_int(), 2);
  EXPECT_EQ(argmin(x, int64_t(1)).data<int64_t>()[2], 1);
  EXPECT_DOUBLE_EQ(max(x).item().to_double(), 2.0);
}

TEST(Reduce, NanWins) {
  Tensor x = view(range_f(6), Dims{2, 3});
  x.data<float>()[4] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(max(x).item().to_double()));
  EXPECT_TRUE(std::isnan(at(amin(x, {1}), 1)));
  EXPECT_EQ(argmax(x).item().to_int(), 4);
  EXPECT_EQ(max(x, 0).second.data<int64_t>()[1], 1);
}

TEST(Reduce, VarStdNorm) {
  Tensor x = range_f(4, DType::Float64);  // 0 1 2 3: mean 1.5, sum of squares 5
  EXPECT_DOUBLE_EQ(var(x).item().to_double(), 5.0 / 3);
  EXPECT_DOUBLE_EQ(var(x, {}, 0).item().to_double(), 5.0 / 4);
  EXPECT_DOUBLE_EQ(ember::std(x, {0}, 2).item().to_double(), std::sqrt(2.5));
  EXPECT_TRUE(std::isinf(var(x, {}, 4).item().to_double()));
  EXPECT_DOUBLE_EQ(norm(x).item().to_double(), std::sqrt(14.0));
  EXPECT_DOUBLE_EQ(norm(x, 1).item().to_double(), 6.0);
  EXPECT_DOUBLE_EQ(norm(x, 0).item().to_double(), 3.0);
  EXPECT_DOUBLE_EQ(norm(x, INFINITY).item().to_double(), 3.0);
  EXPECT_DOUBLE_EQ(norm(x, -INFINITY).item().to_double(), 0.0);
  EXPECT_NEAR(norm(x, 3).item().to_double(), std::cbrt(36.0), 1e-12);
}

TEST(Reduce, LogSumExpAndSoftmaxAreStable) {
  Tensor x = full({2, 3}, Scalar(1000.0));
  EXPECT_NEAR(at(logsumexp(x, {1}), 0), 1000.0 + std::log(3.0), 1e-3);
  Tensor m = full({3}, Scalar(-INFINITY));
  EXPECT_EQ(logsumexp(m, {0}).item().to_double(), -INFINITY);
  Tensor s = softmax(x, 1);
  EXPECT_NEAR(at(s, 0), 1.0 / 3, 1e-6);
  Tensor y = view(range_f(12), Dims{3, 4});
  Tensor col = sum(softmax(y, 0), {0});
  for (int64_t j = 0; j < 4; ++j) EXPECT_NEAR(at(col, j), 1.0, 1e-6);
  Tensor ls = log_softmax(y, -1);
  EXPECT_NEAR(at(ls, 3), -std::log(1 + std::exp(-1.0) + std::exp(-2.0) + std::exp(-3.0)), 1e-6);
}

TEST(Reduce, EmptyAndZeroDim) {
  Tensor e = empty({0, 3});
  EXPECT_DOUBLE_EQ(sum(e).item().to_double(), 0.0);
  EXPECT_DOUBLE_EQ(prod(e).item().to_double(), 1.0);
  EXPECT_TRUE(std::isnan(mean(e).item().to_double()));
  EXPECT_EQ(amax(e, {1}).sizes(), (Dims{0}));
  EXPECT_THROW(amax(e, {0}), IndexError);
  EXPECT_THROW(max(e), Error);
  EXPECT_THROW(max(e, 0), IndexError);
  EXPECT_THROW(norm(e, INFINITY), Error);
  EXPECT_TRUE(all(e).item().to<bool>());
  EXPECT_FALSE(any(e).item().to<bool>());
  Tensor z = scalar_tensor(Scalar(2.5));
  EXPECT_EQ(sum(z, {0}).dim(), 0);
  EXPECT_EQ(max(z, -1).second.item().to_int(), 0);
  EXPECT_DOUBLE_EQ(softmax(z, 0).item().to_double(), 1.0);
  EXPECT_THROW(sum(z, {1}), IndexError);
}

TEST(Reduce, BadDims) {
  Tensor x = ones({2, 3});
  EXPECT_THROW(sum(x, {2}), IndexError);
  EXPECT_THROW(sum(x, {0, -2}), ValueError);
  EXPECT_THROW(softmax(x, -3), IndexError);
  EXPECT_THROW(argmax(x, int64_t(5)), IndexError);
  try {
    mean(x, {1, 1});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("mean"), std::string::npos);
  }
}

// results() run on 1 and on 2 threads gives the same bits, result by result.
template <class F>
void expect_same_bits_on_1_and_2_threads(F&& results) {
  int old = get_num_threads();
  set_num_threads(1);
  auto one = results();
  set_num_threads(2);
  auto two = results();
  set_num_threads(old);
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(same_bits(one[i], two[i])) << "result " << i;
}

TEST(Reduce, BitIdenticalAcrossThreadCounts) {
  manual_seed(3);
  Tensor x = randn({1 << 20});
  Tensor m = view(x, Dims{1024, 1024});
  Tensor tall = view(x, Dims{262144, 4});
  auto results = [&] {
    return std::vector<Tensor>{sum(x),         mean(x),         var(x),
                               ember::std(x),  norm(x),         sum(m, {0}),
                               sum(m, {1}),    var(m, {0}),     norm(transpose(m, 0, 1), 2, {1}),
                               sum(tall, {0}), mean(tall, {0}), logsumexp(x, {0}),
                               softmax(m, 0)};
  };
  expect_same_bits_on_1_and_2_threads(results);
}

TEST(Reduce, ShortRowsBitIdenticalAcrossThreadCounts) {
  manual_seed(5);
  Tensor x = randn({1 << 18});
  std::vector<Tensor> rows;  // the short-row path: rows of 3 (transposed), 16, 48 and 128
  for (int64_t d : {3, 16, 48, 128})
    rows.push_back(view(narrow(x, 0, 0, (x.numel() / d) * d), Dims{-1, d}));
  auto results = [&] {
    std::vector<Tensor> out;
    for (const Tensor& r : rows)
      for (Tensor t : {sum(r, {1}), mean(r, {1}), var(r, {1}), amax(r, {1}), amin(r, {1}),
                       logsumexp(r, {1}), norm(r, 2, {1}), prod(r, {1})})
        out.push_back(t);
    return out;
  };
  expect_same_bits_on_1_and_2_threads(results);
}

TEST(Reduce, Float32SumOfAMillionIsAccurate) {
  Tensor x = full({1000000}, Scalar(0.1));
  // 0.1f is 0.100000001490116...: a naive float running sum is off by ~1% here; the blocked
  // sum stays within ~2e-7 relative (PyTorch's cascade sum: ~6e-8).
  const double exact = 1e6 * double(0.1f);
  EXPECT_NEAR(sum(x).item().to_double(), exact, 2e-7 * exact);
  EXPECT_NEAR(mean(x).item().to_double(), double(0.1f), 2e-7 * 0.1);
  Tensor y = sum(view(x, Dims{1000, 1000}), {0});  // the outer (column) path
  EXPECT_NEAR(at(y, 7), 1000 * double(0.1f), 2e-7 * 100);
}
