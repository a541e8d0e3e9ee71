// The neural-network ops (torch.nn.functional): layers' math and the losses, each with its
// backward beside its forward in src/ops (layers.cpp, norm.cpp, loss.cpp). The Python
// classes in ember.nn and the C++ modules in ember/nn.h are thin shells over these.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "ember/ops.h"

namespace ember {

// ---- layers (src/ops/layers.cpp) --------------------------------------------------------
// x @ w.T + b in one BLAS call (bias broadcast into C, beta = 1). x: (*, in), w: (out, in),
// b: (out) or undefined.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b = Tensor());
// approximate: false = x * Phi(x) (erf), true = the tanh approximation.
Tensor gelu(const Tensor& x, bool tanh_approximation = false);
// x * sigmoid(x), one pass (the same values as the two ops).
Tensor silu(const Tensor& x);
// x * relu6(x + 3) / 6, one pass.
Tensor hardswish(const Tensor& x);
// x where beta x > threshold, else log1p(exp(beta x)) / beta, one pass.
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor leaky_relu(const Tensor& x, Scalar negative_slope = 0.01);
// In place (torch.nn.functional.leaky_relu_); returns x.
Tensor& leaky_relu_(Tensor& x, Scalar negative_slope = 0.01);
// Zeroes each element with probability p and scales the rest by 1 / (1 - p), when
// training; x itself otherwise. Draws from the default generator.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);
// x: (N, C, *). In training, normalizes by the batch statistics and, when running_mean /
// running_var are defined, updates them in place (unbiased variance, like PyTorch);
// otherwise normalizes by the running statistics. weight/bias: (C) or undefined.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);
// Normalizes over the trailing dims given by normalized_shape.
Tensor layer_norm(const Tensor& x, IntList normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
// Rows of weight (num, dim) picked by integer indices of any shape: (*indices.shape, dim).
// Rows at padding_idx get no gradient.
Tensor embedding(const Tensor& indices, const Tensor& weight,
                 std::optional<int64_t> padding_idx = std::nullopt);
// softmax(query key^T * scale) value over the last two dims, in one fused kernel each way
// (src/ops/attention.cpp): the (L, S) scores never exist as a tensor. query (*, L, E),
// key (*, S, E), value (*, S, Ev) with the same leading dims and S >= 1; is_causal keeps
// key j <= query i. No mask tensor, no dropout: ember.nn.functional's
// scaled_dot_product_attention composes ops for those.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    bool is_causal, double scale);

// ---- recurrent layers (src/ops/rnn.cpp) ---------------------------------------------------
// One layer and direction of an LSTM, GRU or Elman RNN (mode "LSTM", "GRU", "RNN_TANH",
// "RNN_RELU"; torch's gate order) over a whole sequence, given its input projection
// xp = x W_ih^T + b_ih (+ b_hh, except for GRU): (T, B, G*H), or packed rows (N, G*H) with
// non-increasing batch_sizes summing to N. h0 (B, Hr), c0 (B, H) for LSTM only, w_hh
// (G*H, Hr), b_hh (G*H) for GRU or undefined, w_hr (Hr, H) for an LSTM with projection
// (Hr < H) or undefined. reverse runs the steps last to first. Returns {output (T, B, Hr) or
// (N, Hr), h_n (B, Hr)[, c_n (B, H)]}; a row of a packed batch ends with its last step's state.
std::vector<Tensor> rnn_layer(std::string_view mode, const Tensor& xp, const Tensor& h0,
                              const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                              const Tensor& w_hr, IntList batch_sizes = {}, bool reverse = false);

// ---- losses (src/ops/loss.cpp) -----------------------------------------------------------
enum class Reduction : uint8_t { None, Mean, Sum };

// input: (N, C) or (N, C, *) or (C); target: class indices (N) / (N, *) / () of int64, or
// class probabilities shaped like input. log_softmax + nll in one kernel.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     Reduction reduction = Reduction::Mean, int64_t ignore_index = -100,
                     double label_smoothing = 0.0);
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                Reduction reduction = Reduction::Mean, int64_t ignore_index = -100);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
// z = |input - target|: 0.5 z^2 / beta where z < beta, else z - 0.5 beta (beta = 0: l1).
// Composed of ember ops (src/ops/robust_loss.cpp); beta < 0 throws ember::Error.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      Reduction reduction = Reduction::Mean, double beta = 1.0);
// z = |input - target|: 0.5 z^2 where z < delta, else delta (z - 0.5 delta); delta > 0.
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                  double delta = 1.0);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const Tensor& weight = Tensor(), Reduction reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = Tensor(),
                                        const Tensor& pos_weight = Tensor(),
                                        Reduction reduction = Reduction::Mean);

// ---- sampling and alignment losses (src/ops/grid_sample.cpp, src/ops/ctc_loss.cpp) -------
// torch.grid_sampler: input (N, C, H, W) / (N, C, D, H, W) sampled at grid (N, Ho, Wo, 2) /
// (N, Do, Ho, Wo, 3) in [-1, 1] (x, y[, z]); mode 0 bilinear, 1 nearest, 2 bicubic (4-d
// only); padding_mode 0 zeros, 1 border, 2 reflection. Gradients for input and grid.
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode = 0,
                    int64_t padding_mode = 0, bool align_corners = false);
// CTC: log_probs (T, N, C), targets (N, S) padded or 1-d concatenated; the (N) negative
// log-likelihoods, unreduced (infinite ones set to 0 when zero_infinity, their gradient 0).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntList input_lengths,
                IntList target_lengths, int64_t blank = 0, bool zero_infinity = false);

}  // namespace ember
