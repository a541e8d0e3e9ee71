// The C++ frontend's layers (ember/nn/*.h): Conv1d/Conv2d, BatchNorm1d/2d, LayerNorm,
// Embedding, Dropout, Sequential, state dicts, and the robust losses: shapes, values
// against loops and closed forms, train/eval behaviour, and errors naming the op. The same
// modules are compared with torch's through a saved state dict in
// tests/python/test_cpp_state_dict.py.
#include <cmath>

#include "frontend_helpers.h"

using namespace ember;
using ftest::expect_near;
using ftest::max_abs_diff;
using ftest::values;

namespace {

// y[n, o, l] = b[o] + sum_{c, k} w[o, c, k] x[n, c, l * stride - pad + k * dil], in double.
std::vector<double> conv1d_loops(const Tensor& x, const Tensor& w, const Tensor& b, int64_t s,
                                 int64_t p, int64_t d, int64_t lo) {
  const int64_t n = x.size(0), c = x.size(1), l = x.size(2), o = w.size(0), k = w.size(2);
  std::vector<double> X = values(x), W = values(w), B = values(b), y;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t j = 0; j < lo; ++j) {
        double acc = B[size_t(oc)];
        for (int64_t ic = 0; ic < c; ++ic)
          for (int64_t kk = 0; kk < k; ++kk) {
            const int64_t at = j * s - p + kk * d;
            if (at >= 0 && at < l)
              acc += W[size_t((oc * c + ic) * k + kk)] * X[size_t((i * c + ic) * l + at)];
          }
        y.push_back(acc);
      }
  return y;
}

}  // namespace

TEST(FrontendConv, Conv1dMatchesLoops) {
  manual_seed(1);
  nn::Conv1d conv(3, 4, 3, {.stride = {2}, .padding = {1}, .dilation = {2}});
  Tensor x = randn({2, 3, 11});
  Tensor y = conv.forward(x);
  ASSERT_EQ(y.sizes(), (Dims{2, 4, 5}));  // (11 + 2 - 2 * 2 - 1) / 2 + 1
  expect_near(y, conv1d_loops(x, conv.weight, conv.bias, 2, 1, 2, 5), 1e-5);
  // Unbatched (C, L) gives (O, L').
  EXPECT_EQ(conv.forward(select(x, 0, 0)).sizes(), (Dims{4, 5}));
  EXPECT_LT(max_abs_diff(conv.forward(select(x, 0, 1)), select(y, 0, 1)), 1e-6);
}

TEST(FrontendConv, Conv1dGradcheck) {
  manual_seed(11);
  ftest::gradcheck([](const std::vector<Tensor>&
                          t) { return conv1d(t[0], t[1], t[2], {2}, {1}, {1}, 2); },
                   {randn({2, 4, 7}, DType::Float64), randn({6, 2, 3}, DType::Float64),
                    randn({6}, DType::Float64)});
  // Non-contiguous input: a transposed (L, C) buffer.
  ftest::gradcheck([](const std::vector<Tensor>& t) { return conv1d(transpose(t[0], 1, 2), t[1]); },
                   {randn({1, 5, 2}, DType::Float64), randn({3, 2, 2}, DType::Float64)});
}

TEST(FrontendConv, Conv2dOptionsShapesAndInit) {
  manual_seed(2);
  nn::Conv2d conv(4, 6, {3, 5}, {.stride = {2, 1}, .padding = {1, 2}, .groups = 2});
  EXPECT_EQ(conv.weight.sizes(), (Dims{6, 2, 3, 5}));
  EXPECT_EQ(conv.forward(randn({1, 4, 9, 7})).sizes(), (Dims{1, 6, 5, 7}));
  // uniform in +-1/sqrt(in / groups * kh * kw)
  const double bound = 1 / std::sqrt(2.0 * 3 * 5);
  EXPECT_LE(amax(abs(conv.weight)).item().to_double(), bound);
  EXPECT_GT(amax(abs(conv.weight)).item().to_double(), 0.9 * bound);
  nn::Conv2d plain(1, 2, 3, 1, 1, false);  // the positional form
  EXPECT_FALSE(plain.bias.defined());
  EXPECT_EQ(plain.named_parameters().size(), 1u);
  EXPECT_EQ(plain.forward(randn({2, 1, 5, 5})).sizes(), (Dims{2, 2, 5, 5}));
}

TEST(FrontendConv, BadConfigurationsAndInputsThrow) {
  EXPECT_ERROR_NAMES(ValueError, nn::Conv1d(3, 4, 0), "Conv1d");
  EXPECT_ERROR_NAMES(ValueError, nn::Conv2d(3, 4, {3}, {.groups = 2}), "divisible by groups");
  EXPECT_ERROR_NAMES(ValueError, nn::Conv2d(4, 4, {3}, {.padding = {-1}}), "padding");
  EXPECT_ERROR_NAMES(ValueError, nn::Conv2d(4, 4, {3, 3, 3}), "kernel_size");
  nn::Conv1d c1(3, 4, 3);
  EXPECT_ERROR_NAMES(Error, c1.forward(randn({1, 3, 4, 4})), "conv1d");
  EXPECT_ERROR_NAMES(Error, c1.forward(randn({1, 2, 8})), "channels");
  nn::Conv2d c2(3, 4, 3);
  EXPECT_ERROR_NAMES(Error, c2.forward(randn({1, 3, 2, 2})), "conv2d");
}

TEST(FrontendNorm, BatchNorm1dTrainUpdatesRunningStatsEvalUsesThem) {
  manual_seed(3);
  nn::BatchNorm1d bn(3);
  Tensor x = add(mul(randn({8, 3}, DType::Float32), Scalar(2.0)), Scalar(1.0));
  Tensor y = bn.forward(x);
  // Training: each channel normalized by the batch's mean and biased variance.
  expect_near(mean(y, {0}), {0, 0, 0}, 1e-5);
  expect_near(var(y, {0}, 0), {1, 1, 1}, 1e-3);
  // running = 0.9 * initial + 0.1 * batch (unbiased variance), one batch counted.
  std::vector<double> m = values(mean(x, {0})), v = values(var(x, {0}, 1));
  std::vector<double> want_m, want_v;
  for (size_t c = 0; c < 3; ++c) want_m.push_back(0.1 * m[c]), want_v.push_back(0.9 + 0.1 * v[c]);
  expect_near(bn.running_mean, want_m, 1e-6);
  expect_near(bn.running_var, want_v, 1e-5);
  EXPECT_EQ(bn.num_batches_tracked.item().to_int(), 1);
  EXPECT_EQ(bn.num_batches_tracked.dtype(), DType::Int64);
  // Eval: (x - running_mean) / sqrt(running_var + eps), and the statistics stay put.
  bn.eval();
  Tensor z = bn.forward(x);
  std::vector<double> X = values(x), want;
  for (size_t i = 0; i < 8; ++i)
    for (size_t c = 0; c < 3; ++c)
      want.push_back((X[i * 3 + c] - want_m[c]) / std::sqrt(want_v[c] + 1e-5));
  expect_near(z, want, 1e-5);
  EXPECT_EQ(bn.num_batches_tracked.item().to_int(), 1);
  expect_near(bn.running_mean, want_m, 1e-6);
}

TEST(FrontendNorm, BatchNormCumulativeMomentumAndNoTracking) {
  manual_seed(4);
  nn::BatchNorm2d bn(2, {.momentum = std::nullopt});
  Tensor a = randn({2, 2, 3, 3}), b = randn({2, 2, 3, 3});
  bn.forward(a);
  bn.forward(b);
  // momentum None: the running mean is the plain average of the batch means.
  std::vector<double> ma = values(mean(a, {0, 2, 3})), mb = values(mean(b, {0, 2, 3}));
  expect_near(bn.running_mean, {(ma[0] + mb[0]) / 2, (ma[1] + mb[1]) / 2}, 1e-6);
  EXPECT_EQ(bn.num_batches_tracked.item().to_int(), 2);

  nn::BatchNorm2d free(2, {.affine = false, .track_running_stats = false});
  EXPECT_TRUE(free.named_parameters().empty());
  EXPECT_TRUE(free.named_buffers().empty());
  free.eval();  // no running statistics: batch statistics in eval mode too
  expect_near(mean(free.forward(a), {0, 2, 3}), {0, 0}, 1e-5);
}

TEST(FrontendNorm, BatchNormStateDictKeysAndErrors) {
  nn::BatchNorm1d bn(4);
  std::vector<std::string> keys;
  for (auto& [k, t] : bn.state_dict()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                            "num_batches_tracked"}));
  EXPECT_ERROR_NAMES(ValueError, bn.forward(randn({2, 4, 3, 3})),
                     "BatchNorm1d: expected 2D or 3D input");
  EXPECT_EQ(bn.forward(randn({2, 4, 5})).sizes(), (Dims{2, 4, 5}));
  nn::BatchNorm2d bn2(4);
  EXPECT_ERROR_NAMES(ValueError, bn2.forward(randn({2, 4, 3})), "BatchNorm2d: expected 4D input");
  EXPECT_ERROR_NAMES(ValueError, bn2.forward(randn({2, 3, 3, 3})), "batch_norm");
  EXPECT_ERROR_NAMES(ValueError, nn::BatchNorm2d(0), "num_features");
  EXPECT_ERROR_NAMES(ValueError, bn2.forward(randn({1, 4, 1, 1})), "more than 1 value per channel");
}

TEST(FrontendNorm, LayerNormNormalizesTrailingDims) {
  manual_seed(5);
  nn::LayerNorm ln({3, 4});
  EXPECT_EQ(ln.weight.sizes(), (Dims{3, 4}));
  Tensor x = add(mul(randn({2, 3, 4}), Scalar(3.0)), Scalar(-2.0));
  Tensor y = ln.forward(x);
  expect_near(mean(y, {1, 2}), {0, 0}, 1e-5);
  expect_near(var(y, {1, 2}, 0), {1, 1}, 1e-3);
  nn::LayerNorm bare({4}, {.elementwise_affine = false});
  EXPECT_TRUE(bare.named_parameters().empty());
  EXPECT_ERROR_NAMES(ValueError, ln.forward(randn({2, 4, 3})), "layer_norm");
  EXPECT_ERROR_NAMES(ValueError, nn::LayerNorm({0}), "LayerNorm");
}

TEST(FrontendEmbedding, LooksUpRowsAndKeepsPaddingRowAtZero) {
  manual_seed(6);
  nn::Embedding emb(10, 4, /*padding_idx=*/-1);
  EXPECT_EQ(*emb.padding_idx, 9);
  expect_near(select(emb.weight, 0, 9), {0, 0, 0, 0}, 0);
  Tensor idx = ftest::from({1, 9, 1, 3, 0, 9}, {2, 3}, DType::Int64);
  Tensor v = emb.forward(idx);
  ASSERT_EQ(v.sizes(), (Dims{2, 3, 4}));
  EXPECT_EQ(max_abs_diff(select(select(v, 0, 0), 0, 0), select(emb.weight, 0, 1)), 0);
  EXPECT_EQ(max_abs_diff(select(select(v, 0, 1), 0, 0), select(emb.weight, 0, 3)), 0);
  autograd::backward(sum(v));
  Tensor g = autograd::grad(emb.weight);
  expect_near(select(g, 0, 1), {2, 2, 2, 2}, 0);  // used twice
  expect_near(select(g, 0, 9), {0, 0, 0, 0}, 0);  // the padding row gets no gradient
  expect_near(select(g, 0, 5), {0, 0, 0, 0}, 0);
  EXPECT_ERROR_NAMES(IndexError, emb.forward(ftest::from({10}, {1}, DType::Int64)), "embedding");
  EXPECT_ERROR_NAMES(TypeError, emb.forward(ones({2})), "embedding");
  EXPECT_ERROR_NAMES(ValueError, nn::Embedding(5, 2, 5), "padding_idx");
}

TEST(FrontendDropout, TrainZeroesAndScalesEvalIsIdentity) {
  manual_seed(7);
  nn::Dropout drop(0.25);
  Tensor x = ones({10000});
  Tensor y = drop.forward(x);
  const double zeros_frac =
      1 - mean(to_dtype(ne(y, Scalar(0.0)), DType::Float32)).item().to_double();
  EXPECT_NEAR(zeros_frac, 0.25, 0.02);
  EXPECT_NEAR(amax(y).item().to_double(), 1 / 0.75, 1e-6);
  drop.eval();
  EXPECT_EQ(max_abs_diff(drop.forward(x), x), 0);
  EXPECT_ERROR_NAMES(ValueError, nn::Dropout(1.5),
                     "Dropout: dropout probability has to be between 0 and 1");
}

TEST(FrontendSequential, IndexingStateDictAndLoad) {
  manual_seed(8);
  auto make = [] {
    return std::make_shared<nn::Sequential>(
        std::vector<nn::ModulePtr>{std::make_shared<nn::Conv2d>(1, 2, 3),
                                   std::make_shared<nn::BatchNorm2d>(2),
                                   std::make_shared<nn::ReLU>(), std::make_shared<nn::Flatten>(),
                                   std::make_shared<nn::Linear>(18, 3)});
  };
  auto a = make(), b = make();
  EXPECT_STREQ((*a)[1]->name(), "BatchNorm2d");
  EXPECT_ERROR_NAMES(IndexError, (*a)[5], "Sequential");
  Tensor x = randn({4, 1, 5, 5});
  a->forward(x);  // moves a's running statistics
  a->eval();
  b->eval();
  StateDict sd = a->state_dict();
  std::vector<std::string> keys;
  for (auto& [k, t] : sd) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias",
                                            "1.running_mean", "1.running_var",
                                            "1.num_batches_tracked", "4.weight", "4.bias"}));
  EXPECT_FALSE(autograd::requires_grad(sd[0].second));  // detached, sharing the data
  EXPECT_EQ(sd[0].second.data_ptr(), a->named_parameters()[0].second.data_ptr());
  EXPECT_GT(max_abs_diff(a->forward(x), b->forward(x)), 0);
  b->load_state_dict(sd);
  EXPECT_EQ(max_abs_diff(a->forward(x), b->forward(x)), 0);
  EXPECT_TRUE(autograd::requires_grad(b->parameters()[0]));  // still the same leaf parameters
}

TEST(FrontendSequential, LoadStateDictChecksEverythingFirst) {
  manual_seed(9);
  nn::Sequential m({std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::Linear>(2, 1)});
  const Tensor before = clone(m.parameters()[0]);
  StateDict sd = m.state_dict();
  for (auto& [k, t] : sd) t = add(t, Scalar(1.0));
  StateDict missing(sd.begin(), sd.end() - 1);
  missing.emplace_back("2.weight", ones({1}));
  const std::string msg = ftest::error_of<Error>([&] { m.load_state_dict(missing); });
  EXPECT_NE(msg.find("Error(s) in loading state_dict for Sequential"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Missing key(s) in state_dict: \"1.bias\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("Unexpected key(s) in state_dict: \"2.weight\""), std::string::npos) << msg;
  EXPECT_EQ(max_abs_diff(m.parameters()[0], before), 0);  // nothing copied
  StateDict wrong = sd;
  wrong[0].second = ones({2, 4});
  EXPECT_ERROR_NAMES(Error, m.load_state_dict(wrong), "size mismatch for 0.weight");
  EXPECT_EQ(max_abs_diff(m.parameters()[0], before), 0);
  m.load_state_dict(missing, /*strict=*/false);  // the matching keys only
  EXPECT_EQ(max_abs_diff(m.parameters()[0], add(before, Scalar(1.0))), 0);
  // dtypes convert on the way in, as copy_ does.
  StateDict doubles = m.state_dict();
  for (auto& [k, t] : doubles) t = zeros(t.sizes(), DType::Float64);
  m.load_state_dict(doubles);
  EXPECT_EQ(m.parameters()[0].dtype(), DType::Float32);
  EXPECT_EQ(amax(abs(m.parameters()[0])).item().to_double(), 0);
}

TEST(FrontendLosses, SmoothL1AndHuberClosedForms) {
  Tensor x = ftest::from({0.0, 0.5, -2.0, 3.0}, {4});
  autograd::set_requires_grad(x, true);
  Tensor y = zeros({4});
  // beta 1: 0.5 z^2 below 1, z - 0.5 above
  expect_near(smooth_l1_loss(x, y, Reduction::None), {0, 0.125, 1.5, 2.5}, 1e-7);
  expect_near(smooth_l1_loss(x, y, Reduction::Sum), {4.125}, 1e-6);
  expect_near(smooth_l1_loss(x, y, Reduction::None, 4.0), {0, 0.03125, 0.5, 1.125}, 1e-7);
  expect_near(smooth_l1_loss(x, y, Reduction::None, 0.0), {0, 0.5, 2, 3}, 1e-7);  // beta 0: l1
  // delta 2: 0.5 z^2 below 2, 2 (z - 1) above
  expect_near(huber_loss(x, y, Reduction::None, 2.0), {0, 0.125, 2, 4}, 1e-7);
  Tensor l = smooth_l1_loss(x, y);
  expect_near(l, {4.125 / 4}, 1e-6);
  autograd::backward(l);
  expect_near(autograd::grad(x), {0, 0.5 / 4, -1.0 / 4, 1.0 / 4}, 1e-7);
  EXPECT_ERROR_NAMES(Error, smooth_l1_loss(x, y, Reduction::Mean, -1.0), "smooth_l1_loss");
  EXPECT_ERROR_NAMES(Error, huber_loss(x, y, Reduction::Mean, 0.0), "huber_loss");
  EXPECT_ERROR_NAMES(TypeError, smooth_l1_loss(ones({2}, DType::Int64), ones({2}, DType::Int64)),
                     "smooth_l1_loss");
  EXPECT_ANY_THROW(huber_loss(ones({2}), ones({3})));
}

TEST(FrontendLosses, SmoothL1AndHuberGradcheckWithBroadcasting) {
  manual_seed(12);
  for (Reduction r : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    ftest::gradcheck([r](const std::vector<Tensor>&
                             t) { return smooth_l1_loss(t[0], t[1], r, 0.7); },
                     {mul(randn({3, 4}, DType::Float64), Scalar(2.0)), randn({4}, DType::Float64)});
    ftest::gradcheck([r](const std::vector<Tensor>& t) { return huber_loss(t[0], t[1], r, 1.3); },
                     {mul(randn({2, 1, 3}, DType::Float64), Scalar(2.0)),
                      randn({2, 3}, DType::Float64)});
  }
  // 0-d and empty inputs.
  EXPECT_EQ(smooth_l1_loss(scalar_tensor(Scalar(3.0)), scalar_tensor(Scalar(1.0)))
                .item()
                .to_double(),
            1.5);
  EXPECT_EQ(huber_loss(zeros({0, 2}), zeros({0, 2}), Reduction::Sum).item().to_double(), 0.0);
  EXPECT_TRUE(std::isnan(
      smooth_l1_loss(zeros({0}), zeros({0})).item().to_double()));  // mean of nothing, as torch
}

TEST(FrontendLosses, TheOthersAreTheFunctionalOps) {
  // The rest of the common losses are the ops of ember/functional.h; one value each.
  Tensor logits = ftest::from({2.0, 0.0, 0.0, 0.0, 2.0, 0.0}, {2, 3});
  Tensor target = ftest::from({0, 1}, {2}, DType::Int64);
  const double ce = -std::log(std::exp(2.0) / (std::exp(2.0) + 2));
  expect_near(cross_entropy(logits, target), {ce}, 1e-6);
  expect_near(nll_loss(log_softmax(logits, 1), target), {ce}, 1e-6);
  expect_near(mse_loss(ftest::from({1, 3}, {2}), ftest::from({0, 0}, {2})), {5}, 1e-6);
  expect_near(l1_loss(ftest::from({1, -3}, {2}), ftest::from({0, 0}, {2})), {2}, 1e-6);
  expect_near(binary_cross_entropy_with_logits(ftest::from({0}, {1}), ftest::from({1}, {1})),
              {std::log(2.0)}, 1e-6);
}
