// LSTM / GRU (include/ember/nn/rnn.h): the same layers as ember.nn's run_layers
// (python/ember/nn/modules/rnn.py), each one rnn_layer op, so both give equal numbers.
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/nn/rnn.h"
#include "nn/init.h"

namespace ember::nn {
namespace {

// One layer and direction (rnn_layer, src/ops/rnn.cpp) from its input x (T, B, I): the input
// projection of every step in one product, b_hh folded into it except for GRU.
std::vector<Tensor> run_layer(bool lstm, const Tensor& x, const Tensor& h0, const Tensor& c0,
                              const std::array<Tensor, 4>& w, bool reverse) {
  const auto& [w_ih, w_hh, b_ih, b_hh] = w;
  const Tensor b = lstm && b_hh.defined() ? add(b_ih, b_hh) : b_ih;
  return rnn_layer(lstm ? "LSTM" : "GRU", linear(x, w_ih, b), h0, c0, w_hh, lstm ? Tensor() : b_hh,
                   Tensor(), {}, reverse);
}

}  // namespace

RNNBase::RNNBase(Mode mode, int64_t input_size, int64_t hidden_size, RNNOptions o)
    : input_size(input_size), hidden_size(hidden_size), options(o), mode_(mode) {
  EMBER_CHECK(input_size > 0 && hidden_size > 0, ValueError, op(),
              ": input_size and hidden_size must be positive, got ", input_size, " and ",
              hidden_size);
  EMBER_CHECK(o.num_layers > 0, ValueError, op(), ": num_layers must be positive, got ",
              o.num_layers);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, ValueError, op(),
              ": dropout should be a number in range [0, 1], got ", o.dropout);
  const int64_t gates = (mode == Mode::LSTM ? 4 : 3) * hidden_size;
  const int64_t dirs = o.bidirectional ? 2 : 1;
  const double bound = layer_init::fan_in_bound(hidden_size);
  for (int64_t layer = 0; layer < o.num_layers; ++layer) {
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string sfx = "_l" + std::to_string(layer) + (d ? "_reverse" : "");
      const int64_t in = layer == 0 ? input_size : hidden_size * dirs;
      std::array<Tensor, 4> w;
      w[0] = register_parameter("weight_ih" + sfx, layer_init::uniform_init({gates, in}, bound));
      w[1] = register_parameter("weight_hh" + sfx,
                                layer_init::uniform_init({gates, hidden_size}, bound));
      if (o.bias) {
        w[2] = register_parameter("bias_ih" + sfx, layer_init::uniform_init({gates}, bound));
        w[3] = register_parameter("bias_hh" + sfx, layer_init::uniform_init({gates}, bound));
      }
      all_weights.push_back(w);
    }
  }
}

void RNNBase::check_state(const Tensor& s, const char* what, IntList expected, bool batched) const {
  EMBER_CHECK(s.dim() == (batched ? 3 : 2), Error, op(), ": for ",
              batched ? "batched 3-D" : "unbatched 2-D", " input, ", what, " should also be ",
              batched ? 3 : 2, "-D but got ", s.dim(), "-D tensor of shape ", s.sizes());
  EMBER_CHECK(s.sizes() == Dims(expected), Error, op(), ": expected ", what, " of size ", expected,
              ", got ", s.sizes());
}

RNNOutput RNNBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  const bool lstm = mode_ == Mode::LSTM;
  EMBER_CHECK(input.defined(), ValueError, op(), ": got an undefined input");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError, op(),
              ": expected input to be 2D or 3D, got ", input.dim(), "D tensor of shape ",
              input.sizes());
  EMBER_CHECK(input.dtype() == all_weights[0][0].dtype(), ValueError, op(), ": input dtype (",
              dtype_name(input.dtype()), ") does not match weight dtype (",
              dtype_name(all_weights[0][0].dtype()), ")");
  EMBER_CHECK(input.size(-1) == input_size, Error, op(),
              ": input.size(-1) must be equal to input_size. Expected ", input_size, ", got ",
              input.size(-1));
  EMBER_CHECK(lstm || !c0.defined(), ValueError, op(), ": GRU has no cell state");
  EMBER_CHECK(h0.defined() == c0.defined() || !lstm, ValueError, op(),
              ": give both h0 and c0, or neither (zeros)");
  const bool batched = input.dim() == 3;
  // Time-major (T, B, I) from here on.
  Tensor x = !batched ? unsqueeze(input, 1) : options.batch_first ? transpose(input, 0, 1) : input;
  EMBER_CHECK(x.size(0) > 0, Error, op(),
              ": expected sequence length to be larger than 0, got input of shape ", input.sizes());
  const int64_t dirs = options.bidirectional ? 2 : 1, batch = x.size(1);
  const Dims state_shape = batched ? Dims{options.num_layers * dirs, batch, hidden_size}
                                   : Dims{options.num_layers * dirs, hidden_size};
  std::array<Tensor, 2> init{h0, c0};
  for (int k = 0; k < (lstm ? 2 : 1); ++k) {
    if (init[k].defined()) {
      check_state(init[k], k ? "c0" : "h0", state_shape, batched);
      EMBER_CHECK(init[k].dtype() == x.dtype(), ValueError, op(), ": ", k ? "c0" : "h0", " dtype (",
                  dtype_name(init[k].dtype()), ") does not match the input's (",
                  dtype_name(x.dtype()), ")");
      if (!batched) init[k] = unsqueeze(init[k], 1);
    } else {
      init[k] = zeros({options.num_layers * dirs, batch, hidden_size}, x.dtype());
    }
  }
  std::array<std::vector<Tensor>, 2> finals;
  for (int64_t layer = 0; layer < options.num_layers; ++layer) {
    if (layer > 0 && options.dropout > 0 && is_training()) x = dropout(x, options.dropout, true);
    std::vector<Tensor> dir_outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t idx = layer * dirs + d;
      std::vector<Tensor> r =
          run_layer(lstm, x, select(init[0], 0, idx), lstm ? select(init[1], 0, idx) : Tensor(),
                    all_weights[size_t(idx)], d == 1);
      dir_outs.push_back(r[0]);
      finals[0].push_back(r[1]);
      if (lstm) finals[1].push_back(r[2]);
    }
    x = dirs == 1 ? dir_outs[0] : cat(dir_outs, -1);
  }
  RNNOutput out{x, stack(finals[0]), lstm ? stack(finals[1]) : Tensor()};
  if (!batched) {
    out.output = squeeze(out.output, {1});
    out.h_n = squeeze(out.h_n, {1});
    if (lstm) out.c_n = squeeze(out.c_n, {1});
  } else if (options.batch_first) {
    out.output = transpose(out.output, 0, 1);
  }
  return out;
}

RNNCellBase::RNNCellBase(const char* op, int64_t input_size, int64_t hidden_size, bool bias,
                         int64_t chunks)
    : input_size(input_size), hidden_size(hidden_size), op_(op), lstm_(chunks == 4) {
  EMBER_CHECK(input_size > 0 && hidden_size > 0, ValueError, op,
              ": input_size and hidden_size must be positive, got ", input_size, " and ",
              hidden_size);
  const double bound = layer_init::fan_in_bound(hidden_size);
  weight_ih =
      register_parameter("weight_ih",
                         layer_init::uniform_init({chunks * hidden_size, input_size}, bound));
  weight_hh =
      register_parameter("weight_hh",
                         layer_init::uniform_init({chunks * hidden_size, hidden_size}, bound));
  if (bias) {
    bias_ih =
        register_parameter("bias_ih", layer_init::uniform_init({chunks * hidden_size}, bound));
    bias_hh =
        register_parameter("bias_hh", layer_init::uniform_init({chunks * hidden_size}, bound));
  }
}

std::array<Tensor, 2> RNNCellBase::step(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  EMBER_CHECK(input.defined() && (input.dim() == 1 || input.dim() == 2), ValueError, op_,
              ": expected input to be 1D or 2D, got ", input.defined() ? input.dim() : 0, "D");
  EMBER_CHECK(!lstm_ || h0.defined() == c0.defined(), ValueError, op_,
              ": give both h and c, or neither (zeros)");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : unsqueeze(input, 0);
  EMBER_CHECK(x.size(1) == input_size, Error, op_, ": input has inconsistent input_size: got ",
              x.size(1), " expected ", input_size);
  std::array<Tensor, 2> s{h0, c0};
  for (int k = 0; k < (lstm_ ? 2 : 1); ++k) {
    const char* what = k ? "c" : "h";
    if (!s[k].defined()) {
      s[k] = zeros({x.size(0), hidden_size}, x.dtype());
      continue;
    }
    EMBER_CHECK(s[k].dim() == input.dim(), ValueError, op_, ": expected ", what, " to be ",
                input.dim(), "D like the input, got ", s[k].dim(), "D");
    if (!batched) s[k] = unsqueeze(s[k], 0);
    EMBER_CHECK(s[k].size(0) == x.size(0) && s[k].size(1) == hidden_size, Error, op_, ": expected ",
                what, " of shape (", x.size(0), ", ", hidden_size, "), got ", s[k].sizes());
  }
  std::vector<Tensor> r = run_layer(lstm_, unsqueeze(x, 0), s[0], lstm_ ? s[1] : Tensor(),
                                    {weight_ih, weight_hh, bias_ih, bias_hh}, false);
  std::array<Tensor, 2> out{r[1], lstm_ ? r[2] : Tensor()};
  if (!batched)
    for (Tensor& o : out)
      if (o.defined()) o = squeeze(o, {0});
  return out;
}

}  // namespace ember::nn
