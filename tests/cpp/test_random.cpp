// Generators and the samplers through the public C++ API: streams independent of each other,
// state round trips, distribution moments, thread safety of one generator shared by threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

double mean_of(const Tensor& t) {
  return to_dtype(mean(to_dtype(t, DType::Float64)), DType::Float64).item().to_double();
}

bool same_values(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), size_t(a.numel()) * a.itemsize()) == 0;
}

}  // namespace

TEST(Random, StreamsAreIndependentAndReproducible) {
  Generator a(7), b(7), other(8);
  Tensor x = randn({64}, DType::Float64, &a);
  randn({1000}, DType::Float64, &other);
  manual_seed(3);
  rand({1000});
  EXPECT_TRUE(same_values(x, randn({64}, DType::Float64, &b)));
  EXPECT_FALSE(same_values(x, randn({64}, DType::Float64, &a)));
}

TEST(Random, StateRoundTrip) {
  Generator g(5);
  rand({10}, DType::Float32, &g);
  auto state = g.get_state();
  Tensor x = randint(0, 1000, {20}, DType::Int64, &g);
  Generator h;
  h.set_state(state.data());
  EXPECT_TRUE(same_values(x, randint(0, 1000, {20}, DType::Int64, &h)));
  EXPECT_EQ(h.initial_seed(), 5u);
}

TEST(Random, SamplerMoments) {
  Generator g(1);
  const int64_t n = 200000;
  EXPECT_NEAR(mean_of(_standard_gamma(full({n}, Scalar(2.5), DType::Float64), &g)), 2.5, 0.03);
  EXPECT_NEAR(mean_of(poisson(full({n}, Scalar(4.0), DType::Float64), &g)), 4.0, 0.03);
  EXPECT_NEAR(mean_of(binomial(full({n}, Scalar(10.0)), full({1}, Scalar(0.3)), &g)), 3.0, 0.03);
  EXPECT_NEAR(mean_of(bernoulli(full({n}, Scalar(0.2)), &g)), 0.2, 0.005);
  Tensor e = Tensor::empty({n}, DType::Float64);
  EXPECT_NEAR(mean_of(exponential_(e, 4.0, &g)), 0.25, 0.005);
  Tensor m = multinomial(full({4}, Scalar(1.0)), 4, false, &g);
  EXPECT_EQ(mean_of(m), 1.5);  // a permutation of 0..3
}

TEST(Random, OneGeneratorSharedByThreadsStaysConsistent) {
  Generator g(9);
  std::vector<Tensor> parts(2);
  std::vector<std::thread> ts;
  for (int i = 0; i < 2; ++i)
    ts.emplace_back([&, i] { parts[i] = rand({50000}, DType::Float64, &g); });
  for (auto& t : ts) t.join();
  // every draw happened under the lock: the two parts are disjoint stretches of one stream
  Generator ref(9);
  Tensor all = rand({100000}, DType::Float64, &ref);
  Tensor first = narrow(all, 0, 0, 50000), second = narrow(all, 0, 50000, 50000);
  EXPECT_TRUE(
      (same_values(parts[0], contiguous(first)) && same_values(parts[1], contiguous(second))) ||
      (same_values(parts[1], contiguous(first)) && same_values(parts[0], contiguous(second))));
}

TEST(Random, BadInputsThrowWithoutDrawing) {
  Generator g(2);
  auto before = g.get_state();
  EXPECT_THROW(multinomial(full({2}, Scalar(-1.0)), 1, false, &g), Error);
  EXPECT_THROW(poisson(full({2}, Scalar(-1.0)), &g), Error);
  Tensor t = zeros({2});
  EXPECT_THROW(geometric_(t, 1.0, &g), Error);
  EXPECT_EQ(before, g.get_state());
}
