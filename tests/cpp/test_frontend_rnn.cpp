// LSTM and GRU of the C++ frontend (ember/nn/rnn.h): shapes for every layout, one step
// against the gate equations written out in double, a sequence against stepping it by
// hand, the reverse direction, gradients, dropout between layers, and errors naming the
// layer. tests/python/test_cpp_state_dict.py compares them with torch.nn.LSTM / GRU.
#include <cmath>

#include "frontend_helpers.h"

using namespace ember;
using ftest::expect_near;
using ftest::max_abs_diff;
using ftest::values;

namespace {

double sigm(double v) { return 1 / (1 + std::exp(-v)); }

// W (rows, cols) @ v + b, in double.
std::vector<double> affine(const Tensor& w, const std::vector<double>& v, const Tensor& b) {
  std::vector<double> W = values(w), B = values(b), out(B);
  const size_t cols = v.size();
  for (size_t r = 0; r < out.size(); ++r)
    for (size_t c = 0; c < cols; ++c) out[r] += W[r * cols + c] * v[c];
  return out;
}

}  // namespace

TEST(FrontendRNN, ShapesForEveryLayout) {
  manual_seed(1);
  nn::LSTM lstm(4, 6, {.num_layers = 2, .bidirectional = true});
  Tensor x = randn({5, 3, 4});
  nn::RNNOutput r = lstm.forward(x, Tensor(), Tensor());
  EXPECT_EQ(r.output.sizes(), (Dims{5, 3, 12}));
  EXPECT_EQ(r.h_n.sizes(), (Dims{4, 3, 6}));
  EXPECT_EQ(r.c_n.sizes(), (Dims{4, 3, 6}));
  nn::GRU gru(4, 6, {.batch_first = true});
  nn::RNNOutput g = gru.forward(randn({3, 5, 4}), Tensor());
  EXPECT_EQ(g.output.sizes(), (Dims{3, 5, 6}));
  EXPECT_EQ(g.h_n.sizes(), (Dims{1, 3, 6}));
  EXPECT_FALSE(g.c_n.defined());
  nn::RNNOutput u = lstm.forward(randn({7, 4}), zeros({4, 6}), zeros({4, 6}));  // unbatched
  EXPECT_EQ(u.output.sizes(), (Dims{7, 12}));
  EXPECT_EQ(u.h_n.sizes(), (Dims{4, 6}));
  EXPECT_EQ(lstm.forward(x).sizes(), (Dims{5, 3, 12}));
}

TEST(FrontendRNN, ParameterNamesShapesAndInitAreTorchs) {
  manual_seed(2);
  nn::LSTM lstm(3, 5, {.num_layers = 2, .bidirectional = true});
  auto named = lstm.named_parameters();
  ASSERT_EQ(named.size(), 16u);
  EXPECT_EQ(named[0].first, "weight_ih_l0");
  EXPECT_EQ(named[3].first, "bias_hh_l0");
  EXPECT_EQ(named[4].first, "weight_ih_l0_reverse");
  EXPECT_EQ(named[8].first, "weight_ih_l1");
  EXPECT_EQ(named[0].second.sizes(), (Dims{20, 3}));
  EXPECT_EQ(named[8].second.sizes(), (Dims{20, 10}));  // the second layer sees both directions
  for (auto& [name, p] : named)
    EXPECT_LE(amax(abs(p)).item().to_double(), 1 / std::sqrt(5.0)) << name;
  nn::GRU gru(3, 5, {.bias = false});
  ASSERT_EQ(gru.named_parameters().size(), 2u);
  EXPECT_EQ(gru.named_parameters()[1].second.sizes(), (Dims{15, 5}));
}

TEST(FrontendRNN, LSTMStepMatchesTheGateEquations) {
  manual_seed(3);
  nn::LSTM lstm(3, 2);
  Tensor x = randn({1, 1, 3}), h0 = randn({1, 1, 2}), c0 = randn({1, 1, 2});
  nn::RNNOutput r = lstm.forward(x, h0, c0);
  const auto& w = lstm.all_weights[0];
  std::vector<double> gx = affine(w[0], values(x), w[2]), gh = affine(w[1], values(h0), w[3]);
  std::vector<double> c = values(c0), h(2), cn(2);
  for (size_t j = 0; j < 2; ++j) {
    auto gate = [&](size_t k) { return gx[k * 2 + j] + gh[k * 2 + j]; };
    cn[j] = sigm(gate(1)) * c[j] + sigm(gate(0)) * std::tanh(gate(2));
    h[j] = sigm(gate(3)) * std::tanh(cn[j]);
  }
  expect_near(r.output, h, 1e-6);
  expect_near(r.h_n, h, 1e-6);
  expect_near(r.c_n, cn, 1e-6);
}

TEST(FrontendRNN, GRUStepMatchesTheGateEquations) {
  manual_seed(4);
  nn::GRU gru(3, 2);
  Tensor x = randn({1, 1, 3}), h0 = randn({1, 1, 2});
  nn::RNNOutput r = gru.forward(x, h0);
  const auto& w = gru.all_weights[0];
  std::vector<double> gx = affine(w[0], values(x), w[2]), gh = affine(w[1], values(h0), w[3]);
  std::vector<double> h = values(h0), out(2);
  for (size_t j = 0; j < 2; ++j) {
    const double rr = sigm(gx[j] + gh[j]), z = sigm(gx[2 + j] + gh[2 + j]);
    const double n = std::tanh(gx[4 + j] + rr * gh[4 + j]);
    out[j] = (1 - z) * n + z * h[j];
  }
  expect_near(r.output, out, 1e-6);
}

TEST(FrontendRNN, SequenceEqualsSteppingByHandAndReverseRunsBackwards) {
  manual_seed(5);
  nn::LSTM lstm(3, 4, {.bidirectional = true});
  Tensor x = randn({6, 2, 3});
  nn::RNNOutput all = lstm.forward(x, Tensor(), Tensor());
  // The forward direction, one step at a time through a one-direction LSTM with the same weights.
  nn::LSTM fwd(3, 4);
  StateDict sd;
  for (auto& [k, t] : lstm.state_dict())
    if (k.find("reverse") == std::string::npos) sd.emplace_back(k, t);
  fwd.load_state_dict(sd);
  Tensor h = zeros({1, 2, 4}), c = zeros({1, 2, 4});
  for (int64_t t = 0; t < 6; ++t) {
    nn::RNNOutput s = fwd.forward(narrow(x, 0, t, 1), h, c);
    h = s.h_n, c = s.c_n;
    EXPECT_LT(max_abs_diff(select(s.output, 0, 0), narrow(select(all.output, 0, t), 1, 0, 4)), 1e-6)
        << t;
  }
  EXPECT_LT(max_abs_diff(h, narrow(all.h_n, 0, 0, 1)), 1e-6);
  // The reverse direction ends at t = 0: its final state is the output there.
  EXPECT_LT(max_abs_diff(select(all.h_n, 0, 1), narrow(select(all.output, 0, 0), 1, 4, 4)), 1e-6);
  // Reversing the sequence swaps the directions' roles.
  nn::LSTM rev(3, 4);
  StateDict rsd;
  for (auto& [k, t] : lstm.state_dict())
    if (k.find("reverse") != std::string::npos) rsd.emplace_back(k.substr(0, k.size() - 8), t);
  rev.load_state_dict(rsd);
  Tensor flipped = rev.forward(flip(x, {0}));
  EXPECT_LT(max_abs_diff(flip(flipped, {0}), narrow(all.output, 2, 4, 4)), 1e-6);
}

TEST(FrontendRNN, BatchFirstIsATransposeAndGradientsReachEveryWeight) {
  manual_seed(6);
  nn::GRU gru(3, 4, {.num_layers = 2, .batch_first = true});
  Tensor x = randn({2, 5, 3});
  nn::GRU tm(3, 4, {.num_layers = 2});
  tm.load_state_dict(gru.state_dict());
  EXPECT_LT(max_abs_diff(gru.forward(x), transpose(tm.forward(transpose(x, 0, 1)), 0, 1)), 1e-6);
  autograd::backward(sum(gru.forward(x)));
  for (auto& [name, p] : gru.named_parameters()) {
    ASSERT_TRUE(autograd::grad(p).defined()) << name;
    EXPECT_GT(amax(abs(autograd::grad(p))).item().to_double(), 0) << name;
  }
}

TEST(FrontendRNN, DropoutBetweenLayersOnlyInTraining) {
  manual_seed(7);
  nn::LSTM lstm(3, 8, {.num_layers = 2, .dropout = 0.5});
  Tensor x = randn({4, 2, 3});
  EXPECT_GT(max_abs_diff(lstm.forward(x), lstm.forward(x)), 0);
  lstm.eval();
  EXPECT_EQ(max_abs_diff(lstm.forward(x), lstm.forward(x)), 0);
}

TEST(FrontendRNN, BadInputsThrowNamingTheLayer) {
  nn::LSTM lstm(3, 4, {.num_layers = 2});
  EXPECT_ERROR_NAMES(Error, lstm.forward(randn({5, 2, 7})),
                     "LSTM: input.size(-1) must be equal to input_size");
  EXPECT_ERROR_NAMES(ValueError, lstm.forward(randn({5, 2, 3, 1})),
                     "LSTM: expected input to be 2D or 3D");
  EXPECT_ERROR_NAMES(Error, lstm.forward(randn({5, 2, 3}), zeros({1, 2, 4}), zeros({2, 2, 4})),
                     "h0 of size (2, 2, 4)");
  EXPECT_ERROR_NAMES(ValueError, lstm.forward(randn({5, 2, 3}), zeros({2, 2, 4}), Tensor()),
                     "LSTM");
  EXPECT_ERROR_NAMES(ValueError, lstm.forward(randn({5, 2, 3}, DType::Float64)), "dtype");
  EXPECT_ERROR_NAMES(Error, lstm.forward(randn({0, 2, 3})), "sequence length");
  EXPECT_ERROR_NAMES(ValueError, nn::GRU(3, 0), "GRU");
  EXPECT_ERROR_NAMES(ValueError, nn::GRU(3, 4, {.dropout = 2}), "dropout");
}

TEST(FrontendRNN, CellsAreOneStepOfTheLayers) {
  manual_seed(8);
  nn::LSTMCell cell(3, 4);
  nn::LSTM layer(3, 4);
  layer.load_state_dict({{"weight_ih_l0", cell.weight_ih},
                         {"weight_hh_l0", cell.weight_hh},
                         {"bias_ih_l0", cell.bias_ih},
                         {"bias_hh_l0", cell.bias_hh}});
  Tensor x = randn({2, 3}), h = randn({2, 4}), c = randn({2, 4});
  auto [h1, c1] = cell.forward(x, h, c);
  nn::RNNOutput r = layer.forward(unsqueeze(x, 0), unsqueeze(h, 0), unsqueeze(c, 0));
  EXPECT_EQ(max_abs_diff(h1, select(r.h_n, 0, 0)), 0);
  EXPECT_EQ(max_abs_diff(c1, select(r.c_n, 0, 0)), 0);
  EXPECT_EQ(cell.forward(select(x, 0, 1)).sizes(), (Dims{4}));  // unbatched, zero state
  std::vector<std::string> keys;
  for (auto& [k, t] : cell.state_dict()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));

  nn::GRUCell gcell(3, 4, /*bias=*/false);
  nn::GRU glayer(3, 4, {.bias = false});
  glayer.load_state_dict({{"weight_ih_l0", gcell.weight_ih}, {"weight_hh_l0", gcell.weight_hh}});
  EXPECT_EQ(max_abs_diff(gcell.forward(x, h),
                         select(glayer.forward(unsqueeze(x, 0), unsqueeze(h, 0)).h_n, 0, 0)),
            0);
  EXPECT_ERROR_NAMES(Error, gcell.forward(randn({2, 5})),
                     "GRUCell: input has inconsistent input_size");
  EXPECT_ERROR_NAMES(Error, gcell.forward(x, randn({3, 4})), "GRUCell: expected h of shape (2, 4)");
  EXPECT_ERROR_NAMES(ValueError, cell.forward(randn({1, 2, 3})), "LSTMCell");
}
