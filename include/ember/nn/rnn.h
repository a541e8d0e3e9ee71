// Recurrent layers (torch.nn.LSTM / GRU): stacked, optionally bidirectional, time-major or
// batch_first, with torch's parameter names (weight_ih_l0, weight_hh_l0, bias_ih_l0,
// bias_hh_l0, ..._reverse), gate order (LSTM: i, f, g, o; GRU: r, z, n) and initialisation
// (uniform in +-1/sqrt(hidden_size)), so state dicts move between C++, ember.nn and torch.
//
//   auto lstm = std::make_shared<nn::LSTM>(8, 32, nn::RNNOptions{.num_layers = 2, .batch_first =
//   true}); nn::RNNOutput r = lstm->forward(x, h0, c0);   // x (B, T, 8): r.output (B, T, 32),
//                                                 // r.h_n, r.c_n (2, B, 32)
//   Tensor y = lstm->forward(x);                  // the output alone, zero initial state
//
// The math is the same composition of ember ops as ember.nn's (one matmul for the input
// part of every step, then one addmm per step), so C++ and Python give the same numbers.
#pragma once
#include <array>
#include <vector>

#include "ember/nn.h"

namespace ember::nn {

struct RNNOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;  // input and output (B, T, *) instead of (T, B, *)
  double dropout = 0.0;      // on the outputs of every layer but the last, in training mode
  bool bidirectional = false;
};

// output: (T, B, D * hidden) (batch_first: (B, T, D * hidden); unbatched: (T, D * hidden));
// h_n (and the LSTM's c_n): (num_layers * D, B, hidden), D = 2 when bidirectional.
struct RNNOutput {
  Tensor output, h_n, c_n;  // c_n undefined for GRU
};

class RNNBase : public Module {
 public:
  const int64_t input_size, hidden_size;
  const RNNOptions options;
  // Per layer and direction (layer * D + direction): weight_ih, weight_hh, bias_ih, bias_hh
  // (the biases undefined without bias).
  std::vector<std::array<Tensor, 4>> all_weights;

 protected:
  enum class Mode : uint8_t { LSTM, GRU };
  RNNBase(Mode mode, int64_t input_size, int64_t hidden_size, RNNOptions options);
  // x: (T, B, input) / (B, T, input) / (T, input); h0, c0 undefined: zeros.
  RNNOutput run(const Tensor& x, const Tensor& h0, const Tensor& c0);

 private:
  const char* op() const { return mode_ == Mode::LSTM ? "LSTM" : "GRU"; }
  void check_state(const Tensor& s, const char* what, IntList expected, bool batched) const;
  Mode mode_;
};

class LSTM : public RNNBase {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, RNNOptions options = {})
      : RNNBase(Mode::LSTM, input_size, hidden_size, options) {}
  Tensor forward(const Tensor& x) override { return run(x, Tensor(), Tensor()).output; }
  // h0 and c0 both given or both undefined (zeros).
  RNNOutput forward(const Tensor& x, const Tensor& h0, const Tensor& c0) { return run(x, h0, c0); }
  const char* name() const override { return "LSTM"; }
};

class GRU : public RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, RNNOptions options = {})
      : RNNBase(Mode::GRU, input_size, hidden_size, options) {}
  Tensor forward(const Tensor& x) override { return run(x, Tensor(), Tensor()).output; }
  RNNOutput forward(const Tensor& x, const Tensor& h0) { return run(x, h0, Tensor()); }
  const char* name() const override { return "GRU"; }
};

// One time step (torch.nn.LSTMCell / GRUCell): x (B, input) or unbatched (input); states
// (B, hidden) / (hidden), undefined for zeros. Parameters weight_ih (chunks * hidden, input),
// weight_hh (chunks * hidden, hidden), bias_ih, bias_hh, as torch's; the step is the one the
// LSTM and GRU layers run.
class RNNCellBase : public Module {
 public:
  const int64_t input_size, hidden_size;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // the biases undefined without bias

 protected:
  RNNCellBase(const char* op, int64_t input_size, int64_t hidden_size, bool bias, int64_t chunks);
  std::array<Tensor, 2> step(const Tensor& x, const Tensor& h, const Tensor& c);

 private:
  const char* op_;
  bool lstm_;
};

class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true)
      : RNNCellBase("LSTMCell", input_size, hidden_size, bias, 4) {}
  Tensor forward(const Tensor& x) override { return step(x, Tensor(), Tensor())[0]; }
  // (h', c'); h and c both given or both undefined.
  std::array<Tensor, 2> forward(const Tensor& x, const Tensor& h, const Tensor& c) {
    return step(x, h, c);
  }
  const char* name() const override { return "LSTMCell"; }
};

class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true)
      : RNNCellBase("GRUCell", input_size, hidden_size, bias, 3) {}
  Tensor forward(const Tensor& x) override { return step(x, Tensor(), Tensor())[0]; }
  Tensor forward(const Tensor& x, const Tensor& h) { return step(x, h, Tensor())[0]; }  // h'
  const char* name() const override { return "GRUCell"; }
};

}  // namespace ember::nn
