// cross_entropy through the public C++ API: the fused kernel against log_softmax + nll written
// out by hand, its gradient against softmax - onehot, errors, and bit-identical results under
// 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ember/autograd.h"
#include "ember/ember.h"
#include "ember/functional.h"

#include "tensor_values.h"

using namespace ember;
using namespace ember::test_values;

namespace {

// -log_softmax(x)[i, t[i]] averaged over rows, in double, by hand.
double reference_ce(const Tensor& x, const std::vector<int64_t>& t) {
  const int64_t n = x.size(0), c = x.size(1);
  const Tensor xd = contiguous(to_dtype(x, DType::Float64));
  const double* v = xd.data<double>();
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    double m = -INFINITY, s = 0;
    for (int64_t k = 0; k < c; ++k) m = std::max(m, v[i * c + k]);
    for (int64_t k = 0; k < c; ++k) s += std::exp(v[i * c + k] - m);
    total += m + std::log(s) - v[i * c + t[size_t(i)]];
  }
  return total / double(n);
}

Tensor targets(const std::vector<int64_t>& t) {
  Tensor out = Tensor::empty({int64_t(t.size())}, DType::Int64);
  std::memcpy(out.data_ptr(), t.data(), t.size() * sizeof(int64_t));
  return out;
}

}  // namespace

TEST(Losses, CrossEntropyMatchesLogSoftmaxNll) {
  for (int64_t c : {3, 10, 100, 1000}) {  // tiles of positions and whole rows
    Tensor x = randn({37, c});
    std::vector<int64_t> t;
    for (int64_t i = 0; i < 37; ++i) t.push_back((i * 7) % c);
    const double got = cross_entropy(x, targets(t)).item().to_double();
    EXPECT_NEAR(got, reference_ce(x, t), 1e-5 * std::abs(reference_ce(x, t))) << "classes " << c;
    // the same through the two unfused ops
    const double two_ops = nll_loss(log_softmax(x, 1), targets(t)).item().to_double();
    EXPECT_NEAR(got, two_ops, 1e-5 * std::abs(two_ops));
  }
}

TEST(Losses, CrossEntropyGradientIsSoftmaxMinusOneHotOverN) {
  Tensor x = randn({8, 5}, DType::Float64);
  autograd::set_requires_grad(x, true);
  std::vector<int64_t> t{0, 1, 2, 3, 4, 0, 1, 2};
  autograd::backward(cross_entropy(x, targets(t)));
  Tensor g = autograd::grad(x);
  Tensor p = softmax(detach(x), 1);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t k = 0; k < 5; ++k)
      EXPECT_NEAR(at(g, i * 5 + k), (at(p, i * 5 + k) - (k == t[size_t(i)] ? 1.0 : 0.0)) / 8.0,
                  1e-12);
}

TEST(Losses, CrossEntropyReductionsAndIgnoreIndex) {
  Tensor x = randn({4, 3});
  Tensor t = targets({0, -100, 2, 1});
  Tensor none = cross_entropy(x, t, Tensor(), Reduction::None);
  EXPECT_EQ(none.sizes(), (Dims{4}));
  EXPECT_EQ(at(none, 1), 0.0);
  const double sum = cross_entropy(x, t, Tensor(), Reduction::Sum).item().to_double();
  EXPECT_NEAR(sum, at(none, 0) + at(none, 2) + at(none, 3), 1e-5);
  EXPECT_NEAR(cross_entropy(x, t).item().to_double(), sum / 3.0, 1e-5);  // mean over 3 counted
  EXPECT_TRUE(std::isnan(cross_entropy(x, targets({-100, -100, -100, -100})).item().to_double()));
}

TEST(Losses, CrossEntropyErrors) {
  Tensor x = randn({3, 4});
  EXPECT_THROW(cross_entropy(x, targets({0, 4, 1})), IndexError);
  EXPECT_THROW(cross_entropy(x, targets({0, 1})), ValueError);
  EXPECT_THROW(cross_entropy(x, zeros({3}, DType::Float32)), Error);
  EXPECT_THROW(cross_entropy(x, targets({0, 1, 2}), ones({5})), Error);
  try {
    cross_entropy(x, targets({0, 9, 1}));
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("target 9 is out of bounds for 4 classes"),
              std::string::npos)
        << e.what();
  }
}

TEST(Losses, CrossEntropyDeterministicAcrossThreads) {
  Tensor x = randn({30000, 10});
  Tensor t = randint(0, 10, {30000});
  const int n = get_num_threads();
  set_num_threads(1);
  const double one = cross_entropy(x, t).item().to_double();
  set_num_threads(2);
  const double two = cross_entropy(x, t).item().to_double();
  set_num_threads(n);
  EXPECT_EQ(one, two);
}
